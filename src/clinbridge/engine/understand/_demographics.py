"""Patients qualified or grouped by a recorded demographic attribute: race, ethnicity, city, state.

'Asian men with strep throat', 'how many Hispanic pts', 'patients broken down by race',
'pt count per city'. The attribute's words are read here and taken out of the question; the
rest is read as usual, and each of its plans gains a :class:`PatientFilter` (the stored values
the words match) or a :class:`GroupBy` on the attribute. A value word is grounded against the
values the source stores for that attribute (the catalog lists them), word by word and without
regard to case: 'Hispanic' is 'Hispanic or Latino' and never 'Not Hispanic or Latino', 'white'
is 'White'. A source that records no such attribute, or a value it never stores, abstains,
naming it. Race names qualify people only ('white patients', never 'white blood cells').
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from clinbridge.engine.plan import GroupBy, PatientFilter, QueryPlan
from clinbridge.engine.understand._reading import Grounding, Reading

__all__ = ["read_demographics"]

_PEOPLE = (
    r"(?:patients?|pts?|people|persons?|individuals?|subjects?|adults?|women|men|females?|males?"
    r"|children|kids|boys|girls|residents?|members?)"
)
_SEXED = r"(?:(?:m|f|male|female)\s+)?"
_RACE_NAMES = (
    r"african[-\s]americans?|pacific\s+islanders?|native\s+hawaiians?|american\s+indians?"
    r"|alaska(?:n)?\s+natives?|native\s+americans?|caucasians?|white|black|asian|hawaiian"
)
_ETHNIC_NAMES = r"hispanics?|latin[oax]s?"
_NAME = rf"(?:{_RACE_NAMES}|{_ETHNIC_NAMES})(?:\s+or\s+(?:{_RACE_NAMES}|{_ETHNIC_NAMES}))?"
"""A race or ethnicity name, or two as one ('Black or African American', 'Hispanic or Latino')."""
_TAIL = r"(?:\s+(?:ethnicity|origin|descent|race)\b|\s*\((?:race|ethnicity)\))?"
_VALUE = re.compile(
    rf"\b(?P<neg>non[-\s]?|not\s+)?(?P<val>{_NAME})(?=\s+{_SEXED}{_PEOPLE}\b)",
    re.IGNORECASE,
)
_NAMED = re.compile(  # 'whose race is Asian', 'of Hispanic ethnicity', 'recorded as White'
    r"\b(?:(?:(?:recorded|registered|listed)\s+)?(?:whose|with(?:\s+an?|\s+the)?)\s+"
    r"(?:race|ethnicity)\s+(?:is\s+|was\s+|of\s+|=\s*)?"
    r"|(?:recorded|identified|listed|registered)\s+as\s+"
    rf"|of\s+(?=(?:non[-\s]?|not\s+)?(?:{_NAME})\s+(?:ethnicity|origin|descent)\b))"
    rf"(?P<neg>non[-\s]?|not\s+)?(?P<val>{_NAME})\b{_TAIL}",
    re.IGNORECASE,
)
_CODED = re.compile(
    r"\b(?P<col>race|ethnicity)_concept_id\s*(?:=|is|of)?\s*"
    rf"(?:(?P<code>\d+)(?:\s*\((?P<name>{_NAME})\))?|(?P<name2>{_NAME})\b)",
    re.IGNORECASE,
)
"""A race or ethnicity concept named by its column: by id (with its name, checked) or by name."""
_KEYS = {
    "race": "race",
    "races": "race",
    "racial group": "race",
    "racial groups": "race",
    "ethnicity": "ethnicity",
    "ethnicities": "ethnicity",
    "ethnic group": "ethnicity",
    "ethnic groups": "ethnicity",
    "race_source_value": "race",
    "race_concept_id": "race",
    "ethnicity_source_value": "ethnicity",
    "ethnicity_concept_id": "ethnicity",
    "city": "city",
    "cities": "city",
    "state": "state",
    "states": "state",
}
_GROUP = re.compile(
    r"\b(?:(?:who\s+)?(?:live[sd]?|living|resid(?:e|es|ed|ing))\s+(?=(?:in\s+)?each\b))?"
    r"(?:(?:broken\s+down|split|grouped|stratified|categori[sz]ed|tabulated)\s+by|by|per"
    r"|for\s+each|in\s+each|each|across)\s+(?:the\s+)?(?:(?:patients?|pts?)'?s?\s+|their\s+)?"
    r"(?:home\s+|recorded\s+)?(?P<key>(?:race|ethnicity)_(?:source_value|concept_id)\b"
    r"|racial\s+groups?|ethnic\s+groups?|races?|ethnicit(?:y|ies)"
    r"|city|cities|states?)(?:\s+(?:category|categories|group|groups))?"
    r"(?:\s+(?:of\s+)?(?:their\s+)?(?:home\s+)?(?:address|residence))?\b"
    r"(?P<aside>\s*\((?P<inner>[^()]*)\))?",
    re.IGNORECASE,
)
_SYNONYMS = {"caucasian": "white", "latina": "latino", "latinx": "latino", "hawaiian": "hawaiian"}
_ASIDE_FILLER = frozenset(
    [
        "vs",
        "versus",
        "v",
        "or",
        "and",
        "not",
        "non",
        "e",
        "g",
        "eg",
        "only",
        "by",
        "the",
        "of",
        "their",
        "home",
        "address",
        "residence",
        "as",
        "recorded",
        "on",
        "patient",
        "patients",
        "category",
        "group",
        "race",
        "ethnicity",
        "city",
        "state",
        # 'as given in the source race field': where the values come from
        "given",
        "in",
        "source",
        "field",
        "column",
        "stored",
    ]
)
"""Words of an aside that restates a grouping ('(hispanic vs not)', '(by home address)')."""


def _words(text: str) -> tuple[bool, list[str]]:
    """(negated, content words) of a value: 'Not Hispanic or Latino' → (True, [hispanic, latino])."""
    out: list[str] = []
    for w in re.findall(r"[a-z]+", text.lower()):
        if w.startswith("non") and len(w) >= 8:  # 'nonhispanic'
            out += ["non", w[3:]]
        else:
            out.append(w)
    neg = bool(out) and out[0] in {"not", "non"}
    words = [w for w in out if w not in {"not", "non", "or", "and", "of", "the"}]
    words = [_SYNONYMS.get(w, w) for w in words]
    return neg, [w[:-1] if w.endswith("s") and len(w) > 4 else w for w in words]


def _attribute_of(value: str) -> str:
    return "ethnicity" if re.match(_ETHNIC_NAMES, value, re.I) else "race"


def _matching(neg: bool, phrase: str, stored: tuple[str, ...]) -> tuple[str, ...]:
    """The stored values the phrase's words name, negation alike ('hispanic' ≠ 'Not Hispanic')."""
    _, want = _words(phrase)
    out = []
    for v in stored:
        vneg, have = _words(v)
        if vneg == neg and want and set(want) <= set(have):
            out.append(v)
    return tuple(out)


def read_demographics(
    question: str, ctx: Any, read_rest: Callable[[str], list[Reading]]
) -> list[Reading] | None:
    """The readings of a question that qualifies or groups patients by a recorded demographic
    attribute, or None when it names none this reader reads."""
    filters: list[tuple[str, PatientFilter]] = []
    groups: list[tuple[str, GroupBy]] = []
    spans: list[tuple[int, int]] = []
    pt = ctx.catalog.patients if ctx.catalog is not None else None

    def missing(name: str, phrase: str) -> list[Reading]:
        why = f"cannot answer: this source records no {name} for its patients ({phrase!r})"
        return [Reading(question=question, abstain_reason=why, unresolved=(phrase,))]

    for m in _GROUP.finditer(question):
        key = _KEYS[re.sub(r"\s+", " ", m["key"].lower())]
        attr = pt.attribute(key) if pt is not None else None
        if attr is None:
            return missing(key, m[0].strip())
        if m["aside"]:  # 'by ethnicity (hispanic vs not)': the aside names the groups only
            said = " ".join(
                w for w in re.findall(r"[a-z]+", m["inner"].lower()) if w not in _ASIDE_FILLER
            )
            words = _words(said)[1]
            known = {w for v in attr.values for w in _words(v)[1]}
            if not set(words) <= known:
                return None
        groups.append((m[0].strip(), GroupBy(key=key)))  # type: ignore[arg-type]
        spans.append(m.span())
    found = sorted(
        [*_NAMED.finditer(question), *_VALUE.finditer(question)], key=lambda m: m.start()
    )
    for m in found:
        if any(a <= m.start() < b for a, b in spans):
            continue
        key = _attribute_of(m["val"])
        attr = pt.attribute(key) if pt is not None else None
        if attr is None:
            return missing(key, m[0].strip())
        values = _matching(bool(m["neg"]), m["val"], attr.values)
        if not values:
            shown = ", ".join(attr.values[:12])
            why = (
                f"cannot answer: no patient's recorded {key} is {m[0].strip()!r}"
                f" (the source records {shown}{', ...' if len(attr.values) > 12 else ''})"
            )
            return [Reading(question=question, abstain_reason=why, unresolved=(m[0].strip(),))]
        filters.append((m[0].strip(), PatientFilter(attribute=key, values=values)))  # type: ignore[arg-type]
        spans.append(m.span())
    for m in _CODED.finditer(question):  # 'race_concept_id = 8515 (Asian)'
        if any(a <= m.start() < b for a, b in spans):
            continue
        key = m["col"].lower()
        attr = pt.attribute(key) if pt is not None else None
        if attr is None:
            return missing(key, m[0].strip())
        if m["code"]:
            label = attr.labels.get(m["code"])
            named = [c for c, v in attr.labels.items() if v == label]
            if (
                label is None
                or len(named) != 1
                or (m["name"] and not _matching(False, m["name"], (label,)))
            ):
                said = f"{m['col']}_concept_id {m['code']}"
                why = (
                    f"cannot answer: {said} is {label!r}, not {m['name']!r}"
                    if label is not None and m["name"]
                    else f"cannot answer: {said} names no {key} this source records"
                )
                return [Reading(question=question, abstain_reason=why, unresolved=(m[0].strip(),))]
            values: tuple[str, ...] = (label,)
        else:
            values = _matching(False, m["name2"], tuple(attr.labels.values()))
            if not values:
                return None
        filters.append((m[0].strip(), PatientFilter(attribute=key, values=values)))  # type: ignore[arg-type]
        spans.append(m.span())
    if not spans:
        return None
    rest = question
    for a, b in sorted(spans, reverse=True):
        rest = rest[:a] + " " + rest[b:]
    rest = re.sub(r"\s+", " ", rest).strip()
    rest = re.sub(r"\s+([?.,;:!])", r"\1", rest)
    grounds = [
        Grounding(phrase=p, kind="patient", target=f"{f.attribute} in {list(f.values)}")
        for p, f in filters
    ] + [Grounding(phrase=p, kind="group", target=g.key) for p, g in groups]

    def add(plan: QueryPlan) -> QueryPlan:
        return QueryPlan.model_validate(
            {
                **plan.model_dump(),
                "question": question,
                "filters": (*plan.filters, *(f for _, f in filters)),
                "group_by": (*plan.group_by, *(g for _, g in groups)),
            }
        )

    from clinbridge.engine.understand._born import qualify

    note = f"read without its demographic words: {rest!r}"
    return [qualify(r, question, add, tuple(grounds), note) for r in read_rest(rest)]
