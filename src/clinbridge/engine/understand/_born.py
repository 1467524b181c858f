"""Patients qualified by the year they were born: 'men born before 1950', 'women born in 1970 or
later', 'patients born between 1930 and 1939', 'stroke patients born in the 1930s'.

The words are read off the question and the rest is read without them; each reading's cohort
then keeps the patients born in those years, as an age at a calendar date (no new plan node):

* born in year Y or earlier  = age at 31 December Y is at least 0;
* born in year Y or later    = age at 31 December Y-1 is below 0 (not yet born).

Both hold whether the source stores a full birth date or a year of birth only. Only whole years
are read ('before 1950', 'before 1 January 1950', 'after 1969', 'in the 30s'); a day inside a
year ('born before 15 March 1950'), a month ('born in September') or a decade that could be two
('the 20s', when the 2020s have begun) is not, and the word 'born' is then left unread (the
reading abstains on it). A proportion is not read here ('what share were born before 1950' asks
about the birth years, not within them), nor a question about one patient.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from clinbridge.engine.plan import AgeFilter, FixedAnchor, QueryPlan
from clinbridge.engine.understand._reading import Grounding, Reading

__all__ = ["qualify", "read_born"]

_Y = r"(?P<{}>(?:18|19|20)\d\d)"
_JAN1 = r"(?:(?:1(?:st)?\s+)?jan(?:uary)?\.?\s+1(?:st)?,?\s+|1\s+jan(?:uary)?\.?\s+)"
_DEC31 = r"(?:(?:31(?:st)?\s+)?dec(?:ember)?\.?\s+31(?:st)?,?\s+|31\s+dec(?:ember)?\.?\s+)"
_BORN = r"\b(?:who\s+(?:were|was)\s+|that\s+were\s+|being\s+)?born\s+"
_FORMS: tuple[
    tuple[re.Pattern[str], Callable[[re.Match[str]], tuple[int | None, int | None]]], ...
] = (
    (  # 'born between 1930 and 1939 (inclusive)', 'born from 1930 to 1939'
        re.compile(
            _BORN
            + r"(?:between|from)\s+(?:the\s+years?\s+)?"
            + _Y.format("a")
            + r"\s+(?:and|to|through|-)\s+"
            + _Y.format("b")
            + r"(?:\s*\(?inclusive\)?)?",
            re.I,
        ),
        lambda m: (int(m["a"]), int(m["b"])),
    ),
    (  # 'born 1930-1939', 'born in 1930–1939'
        re.compile(_BORN + r"(?:in\s+)?" + _Y.format("a") + r"\s*[-–]\s*" + _Y.format("b"), re.I),
        lambda m: (int(m["a"]), int(m["b"])),
    ),
    (  # 'born in 1970 or later', 'born 1970 or after', 'born in or after 1970'
        re.compile(
            _BORN + r"(?:in\s+)?" + _Y.format("a") + r"\s+or\s+(?:later|after|since)\b", re.I
        ),
        lambda m: (int(m["a"]), None),
    ),
    (
        re.compile(
            _BORN + r"(?:in\s+or\s+after|on\s+or\s+after\s+" + _JAN1 + r")" + _Y.format("a"), re.I
        ),
        lambda m: (int(m["a"]), None),
    ),
    (  # 'born in 1949 or earlier', 'born in or before 1949'
        re.compile(_BORN + r"(?:in\s+)?" + _Y.format("a") + r"\s+or\s+(?:earlier|before)\b", re.I),
        lambda m: (None, int(m["a"])),
    ),
    (
        re.compile(
            _BORN + r"(?:in\s+or\s+before|on\s+or\s+before\s+" + _DEC31 + r")" + _Y.format("a"),
            re.I,
        ),
        lambda m: (None, int(m["a"])),
    ),
    (  # 'born before 1950', 'born before 1 January 1950'
        re.compile(
            _BORN
            + r"(?:before|prior\s+to)\s+(?P<jan>"
            + _JAN1
            + r")?"
            + _Y.format("a")
            + r"\b(?![-/])",
            re.I,
        ),
        lambda m: (None, int(m["a"]) - 1),
    ),
    (  # 'born after 1969', 'born after 31 December 1969', 'born since 1970'
        re.compile(
            _BORN + r"after\s+(?P<dec>" + _DEC31 + r")?" + _Y.format("a") + r"\b(?![-/])", re.I
        ),
        lambda m: (int(m["a"]) + 1, None),
    ),
    (
        re.compile(_BORN + r"since\s+" + _Y.format("a") + r"\b(?![-/])", re.I),
        lambda m: (int(m["a"]), None),
    ),
    (  # 'born in the 1930s'
        re.compile(_BORN + r"(?:in|during)\s+the\s+(?P<d>(?:18|19|20)\d0)'?s\b", re.I),
        lambda m: (int(m["d"]), int(m["d"]) + 9),
    ),
    (  # 'born in 1970'
        re.compile(
            _BORN + r"(?:in|during)\s+(?:the\s+year\s+)?" + _Y.format("a") + r"\b(?![-/])", re.I
        ),
        lambda m: (int(m["a"]), int(m["a"])),
    ),
)
_SHORT_DECADE = re.compile(_BORN + r"(?:in|during)\s+the\s+'?(?P<d>\d0)'?s\b", re.I)
"""'born in the 30s': the 1930s, or the 2030s — only one of them can have begun."""


def _years(question: str, today: dt.date) -> tuple[tuple[int, int], int | None, int | None] | None:
    for pattern, years in _FORMS:
        m = pattern.search(question)
        if m is not None:
            lo, hi = years(m)
            return m.span(), lo, hi
    m = _SHORT_DECADE.search(question)
    if m is not None:
        starts = [c + int(m["d"]) for c in (1900, 2000) if c + int(m["d"]) <= today.year]
        if len(starts) == 1:
            return m.span(), starts[0], starts[0] + 9
    return None


def read_born(
    question: str, ctx: Any, read_rest: Callable[[str], list[Reading]]
) -> list[Reading] | None:
    """The readings of a question that qualifies patients by their birth year, or None."""
    if "born" not in question.lower():
        return None
    today = (ctx.now.date() if ctx.now else None) or dt.date.today()
    found = _years(question, today)
    if found is None:
        return None
    (a, b), lo, hi = found
    if (lo is not None and hi is not None and lo > hi) or (lo or hi or 0) > today.year:
        return None
    if not ctx.lexicon.has_birth:
        why = "cannot answer: this source stores no birth dates, so birth years are unknown"
        return [Reading(question=question, abstain_reason=why, unresolved=(question[a:b].strip(),))]
    filters: list[AgeFilter] = []
    if lo is not None:  # not yet born at the end of the year before
        filters.append(AgeFilter(op="<", value=0, at=FixedAnchor(date=dt.date(lo - 1, 12, 31))))
    if hi is not None:  # born by the end of the last year
        filters.append(AgeFilter(op=">=", value=0, at=FixedAnchor(date=dt.date(hi, 12, 31))))
    phrase = question[a:b].strip()
    rest = re.sub(r"\s+", " ", question[:a] + " " + question[b:]).strip()
    rest = re.sub(r"\s+([?.,;:!])", r"\1", rest)
    said = (
        f"born {lo}-{hi}"
        if lo is not None and hi is not None
        else f"born in {lo} or later"
        if lo is not None
        else f"born in {hi} or earlier"
    )
    ground = Grounding(phrase=phrase, kind="patient", target=said)

    def add(plan: QueryPlan) -> QueryPlan:
        return QueryPlan.model_validate(
            {**plan.model_dump(), "question": question, "filters": (*plan.filters, *filters)}
        )

    out = []
    for r in read_rest(rest):
        if r.plan is not None and (
            r.plan.patient_id is not None or r.plan.aggregate.op == "proportion"
        ):
            return None
        out.append(qualify(r, question, add, (ground,), f"read without its birth years: {rest!r}"))
    return out


def qualify(
    r: Reading,
    question: str,
    add: Callable[[QueryPlan], QueryPlan],
    grounds: tuple[Grounding, ...],
    note: str,
) -> Reading:
    """A reading of the rest of a question made a reading of the whole: ``add`` puts back in
    its plan (and its choices' plans) what was read off; a reading with no plan keeps none."""
    if r.plan is None:
        return r.model_copy(update={"question": question})
    choices = tuple(c.model_copy(update={"plan": add(c.plan)}) for c in r.choices)
    return r.model_copy(
        update={
            "question": question,
            "plan": add(r.plan),
            "choices": choices,
            "groundings": (*r.groundings, *grounds),
            "notes": (*r.notes, note),
        }
    )
