"""Schema words in a question the schema reader does not take whole, said in the plain words the
general reader grounds — and the tables named, kept to be checked against its plan.

A data manager mixes the source's names into ordinary phrasing: 'count distinct person_id in
condition_occurrence with …', 'for persons with gender_concept_id 8532', 'grouped by the
person's gender_concept_id', 'avg … value_as_number', 'count fhir_immunization rows with CVX
140'. When the schema reader hands such a question on, these names would be grounded as words
('id', 'concept id 8532') and fail. Here, driven only by the catalog of the connected source
(its patient, sex, value and concept columns, its tables, its code dictionary) and never by a
list of questions:

* a patient id column ('person_id', 'patient_id') is 'patients', or 'patient N' before an id;
* the sex column with a stored sex code ('gender_concept_id 8532', "gender = 'female'") is the
  sex it stands for; 'grouped by (the person's) <sex column>' is 'by sex';
* a stream's value column ('value_as_number', 'value_num') is 'value';
* a concept id column before the words of a concept ('condition_concept_id in Seizure
  disorder') is dropped: the words name the concept; 'is a descendant of', '(concept_ancestor)'
  and 'in the X hierarchy' are dropped only where the source has a concept hierarchy with rows,
  since the general reader takes a named concept with its descendants there;
* a table name is dropped and remembered: ``tables_disagree`` then checks that the reading
  reads that table (a plan over another table abstains, naming it);
* on a source without a concept hierarchy, '<system> <code>' the source stores for exactly one
  concept ('CVX 140') is said as that concept's quoted name, which the general reader grounds
  exactly.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from clinbridge.engine.understand._schema_words import SYSTEMS

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["COUNT_STAR", "plain_schema_words", "tables_disagree"]

_SEX_WORD = {"male": "male", "female": "female"}
_HIERARCHY = re.compile(
    r"\s*\(\s*concept_ancestor\s*\)"
    r"|\s*\bhierarchy\b|\b(?:is\s+)?an?\s+descendants?\s+of\s+(?:the\s+)?(?:ingredient\s+)?",
    re.I,
)


def _alt(names: set[str]) -> str:
    return "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))


def _patient_columns(cat: Catalog) -> set[str]:
    cols = {s.patient_column for s in cat.streams}
    if cat.patients is not None:
        cols.add(cat.patients.id_column)
    if cat.encounters is not None:
        cols.add(cat.encounters.patient_column)
    return {c.lower() for c in cols if c and "_" in c}


def _tables(cat: Catalog, lex: Lexicon) -> dict[str, str]:
    """Table name → what it is read as: a stream name, 'encounters' or 'patients'."""
    from clinbridge.engine.understand._schema_plan import same_rows
    from clinbridge.engine.understand._schema_words import resource_streams

    # a plan names a stream by its name or its kind ('procedure_occurrence' | 'procedure')
    out = {s.table.lower(): f"{s.name}|{s.kind}" for s in cat.streams}
    if cat.adapter == "fhir":  # 'fhir_medication_request': its resource's stream, same rows
        for t in cat.tables:
            camel = "".join(p.capitalize() for p in t.name.lower().split("_")[1:])
            res = resource_streams(cat, camel) if camel else None
            if (
                t.name.lower() not in out
                and res
                and len(res) == 1
                and same_rows(lex, res[0].table, t.name) is True
            ):
                out[t.name.lower()] = f"{res[0].name}|{res[0].kind}"
    if cat.encounters is not None:
        out[cat.encounters.table.lower()] = "encounters"
    if cat.patients is not None:
        out[cat.patients.table.lower()] = "patients"
    # only a schema identifier: 'measurement', 'person', 'death' are also plain words
    return {t: what for t, what in out.items() if "_" in t}


def _sex(cat: Catalog, text: str) -> str:
    """Each stored sex code written after the sex column said as its sex."""
    pt = cat.patients
    if pt is None or not pt.sex_column:
        return text
    col = re.escape(pt.sex_column)
    text = re.sub(
        rf"\bgrouped\s+by\s+(?:the\s+)?(?:(?:person|patient)(?:'s)?\s+|\w+\.)?(?:{col}|gender|sex)\b",
        "by sex",
        text,
        flags=re.I,
    )

    def said(m: re.Match[str]) -> str:
        sex = _SEX_WORD.get(pt.sex_values.get(m["code"], "") or "")
        return sex or m.group(0)

    def said_before(m: re.Match[str]) -> str:
        sex = _SEX_WORD.get(pt.sex_values.get(m["code"], "") or "")
        return f"{sex} {m['who']}" if sex else m.group(0)

    pat = rf"(?:\b\w+\.)?\b{col}\s*(?:=|is)?\s*'?(?P<code>\w+)'?"

    def aside(m: re.Match[str]) -> str:  # 'female persons (gender_concept_id 8532)'
        sex = _SEX_WORD.get(pt.sex_values.get(m["code"], "") or "")
        words = {"female": r"female|females|women|woman", "male": r"male|males|men|man"}
        rest = text[: m.start()] + text[m.end() :]
        if sex and re.search(rf"\b(?:{words[sex]})\b", rest, re.I):
            return ""
        return m.group(0)

    text = re.sub(rf"\s*\(\s*{pat}\s*\)", aside, text, flags=re.I)
    text = re.sub(
        rf"\b(?P<who>persons|patients|people)\s+with\s+{pat}", said_before, text, flags=re.I
    )
    return re.sub(pat, said, text, flags=re.I)


# the words after which a code stands alone as the name of its concept ('rows with CVX 140')
_STANDS_ALONE = frozenset(
    [
        "with",
        "of",
        "for",
        "a",
        "an",
        "the",
        "in",
        "any",
        "by",
        "is",
        "and",
        "or",
        "to",
        "on",
        "received",
        "given",
        "had",
        "has",
        "have",
    ]
)


def _codes_as_names(text: str, lex: Lexicon) -> str:
    """'CVX 140' as the quoted name of the one concept the source stores under it."""
    if lex.has_hierarchy:
        return text

    def said(m: re.Match[str]) -> str:
        before = m.string[: m.start()].rstrip()
        last = before.split()[-1].lower() if before.split() else ""
        if before.endswith("(") or (last and last not in _STANDS_ALONE):
            return m[0]  # 'LDL cholesterol (LOINC 2093-3)': an aside to words, checked elsewhere
        frag = SYSTEMS.get(m["sys"].lower(), ("", ""))[0]
        hits = {
            e.name
            for e in lex.entries
            if str(e.code) == m["code"] and e.direct and frag in (e.system or "").lower()
        }
        return f"'{hits.pop()}'" if len(hits) == 1 and "'" not in next(iter(hits)) else m[0]

    def same_name(m: re.Match[str]) -> str:  # "'Hyperlipidemia' (Hyperlipidemia)": said once
        return m["q"] if m["n"].strip().lower() in m["q"].lower() else m[0]

    systems = _alt(set(SYSTEMS))
    text = re.sub(
        rf"\b(?P<sys>{systems})(?:\s+code)?\s+(?P<code>\d[\d.\-]*\d|\d)\b(?!\s*[,/]|\s+or\b)",
        said,
        text,
        flags=re.I,
    )
    return re.sub(r"(?P<q>'[^']+')\s*\((?P<n>[^()]+)\)", same_name, text)


def _encounter_codes(text: str, cat: Catalog, lex: Lexicon, named: list[tuple[str, str]]) -> str:
    """'visit_occurrence with visit_concept_id 9201 (inpatient)', "class_code = 'AMB'": the
    canonical encounter type of a stored type code that no other stored code shares."""
    from clinbridge.engine.understand._schema_plan import Abstain, _enc_type

    enc = cat.encounters
    if enc is None or not enc.type_column or "_" not in enc.type_column:
        return text
    col = re.escape(enc.type_column)

    def said(m: re.Match[str]) -> str:
        try:
            canon = _enc_type(cat, lex, m["code"])
        except Abstain:
            return m[0]
        if canon == "other" or (m["aside"] and canon not in m["aside"].lower()):
            return m[0]
        if m["t"]:
            named.append((m["t"] + (" rows" if m["rows"] else ""), "encounters"))
            return f"{canon} {enc.label}s"
        return f"an {canon} {enc.label}"

    text = re.sub(
        rf"(?:\b(?P<t>{re.escape(enc.table)})(?:\s+(?P<rows>rows?|records?))?\s+(?:with|where)\s+)?"
        rf"\b{col}\s*(?:=|is)?\s*'?(?P<code>\w+)'?(?:\s*\((?P<aside>[a-z ]+)\))?",
        said,
        text,
        flags=re.I,
    )

    def aside(m: re.Match[str]) -> str:
        """'emergency encounters (encounter class EMER)': the type named twice, once by code."""
        try:
            canon = _enc_type(cat, lex, m["code"])
        except Abstain:
            return m[0]
        rest = text[: m.start()] + text[m.end() :]
        if canon == "other" or not re.search(rf"\b{re.escape(canon)}\b", rest, re.I):
            return m[0]
        return ""

    return re.sub(
        r"\s*\(\s*(?:(?:encounter|visit)\s+)?(?:class|type)(?:\s+code)?\s*[:=]?\s*'?(?P<code>[A-Za-z0-9]+)'?\s*\)",
        aside,
        text,
        flags=re.I,
    )


COUNT_STAR = re.compile(
    r"\b(?:with|having)\s+count\s*\(\s*\*\s*\)\s*(?P<op>>=|>|=)\s*(?P<n>\d+)\s+(?:among|of|in|over)\s+"
    r"(?:the\s+)?",
    re.I,
)
_AT_LEAST = {">=": "at least {n}", ">": "more than {n}", "=": "exactly {n}"}


def plain_schema_words(
    text: str, cat: Catalog | None, lex: Lexicon
) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with the catalog's names said in plain words, and the tables it named
    (name as written, what it is read as)."""
    if cat is None:
        return text, []
    text = _sex(cat, text)
    # 'patients with count(*) >= 2 among <rows>': at least 2 of those rows each
    text = COUNT_STAR.sub(lambda m: "with " + _AT_LEAST[m["op"]].format(n=m["n"]) + " ", text)
    pcols = _patient_columns(cat)
    if pcols:
        p = _alt(pcols)
        text = re.sub(rf"\b(?:{p})\s+(?=\d|[0-9a-f]{{8}}-)", "patient ", text, flags=re.I)
        text = re.sub(  # 'person_id values with …' opening the question: the ids asked for
            rf"^\s*(?:the\s+)?(?:distinct\s+)?(?:{p})s?(?:\s+values)?\b",
            "list the patients",
            text,
            flags=re.I,
        )
        text = re.sub(rf"\b(?:distinct\s+)?(?:{p})s?(?:\s+values)?\b", "patients", text, flags=re.I)
    # 'a condition among 'A', 'B', 'C'': any of the names listed
    text = re.sub(
        r"\bamong\s+((?:'[^']+'\s*,\s*)+(?:or\s+)?'[^']+')",
        lambda m: re.sub(r"'\s*,\s*(?:or\s+)?'", "' or '", m[1]),
        text,
    )
    vcols = {
        s.value_column.lower() for s in cat.streams if s.value_column and "_" in s.value_column
    }
    if vcols:
        text = re.sub(rf"\b(?:{_alt(vcols)})\b", "value", text, flags=re.I)
    ccols = {s.code_column.lower() for s in cat.streams if s.code_column and "_" in s.code_column}
    if ccols:
        text = re.sub(
            rf"\b(?:where\s+|with\s+)?(?:{_alt(ccols)})\s+(?:(?:is\s+)?in\s+|=\s*)?(?=[A-Za-z'\"])",
            "with ",
            text,
            flags=re.I,
        )
    if lex.has_hierarchy:
        text = _HIERARCHY.sub(" ", text)
    named: list[tuple[str, str]] = []
    text = _encounter_codes(text, cat, lex, named)
    tables = _tables(cat, lex)

    def noun(m: re.Match[str]) -> str:
        what = tables[m["t"].lower()]
        named.append((m["t"] + (" rows" if m["rows"] else ""), what))
        if m["prep"]:  # 'in visit_occurrence': where to look, checked against the reading
            return " "
        if what == "encounters":
            return f" {cat.encounters.label if cat.encounters else 'encounter'}s "
        if what == "patients":
            return " patients "
        return f" {what.split('|')[0].replace('_', ' ')} {m['rows'] or ''} "

    if tables:
        t = _alt(set(tables))
        text = re.sub(
            rf"(?:\b(?P<prep>in|from)\s+(?:the\s+)?)?\b(?P<t>{t})\b(?:\s+table)?"
            rf"(?:\s+(?P<rows>rows?|records?))?",
            noun,
            text,
            flags=re.I,
        )
    text = _codes_as_names(text, lex)
    return re.sub(r"\s{2,}", " ", text).strip(), named


def _plan_reads(plan: QueryPlan) -> set[str]:
    """What a plan reads: its streams, 'encounters' when it counts or filters encounters."""
    out: set[str] = {"patients"}
    m: Any = plan.measure
    if getattr(m, "stream", None):
        out.add(m.stream)
    if getattr(m, "of", "") == "encounters" or getattr(m, "encounter_type", None):
        out.add("encounters")
    for f in (*plan.filters, *plan.aggregate.numerator):
        if getattr(f, "stream", None):
            out.add(f.stream)
        if type(f).__name__ == "EncounterFilter":
            out.add("encounters")
    if plan.scope is not None:
        out.add("encounters")
    return out


def tables_disagree(plan: QueryPlan | None, named: list[tuple[str, str]]) -> str | None:
    """The abstention when the question names a table the reading does not read."""
    if plan is None or not named:
        return None
    reads = _plan_reads(plan)
    for written, what in named:
        if not set(what.split("|")) & reads:
            return f"the question names table {written!r}, but the reading does not read it"
        counted = plan.aggregate.op in {"count", "count_distinct", "list", "proportion"}
        counted = counted and not _rows_per_patient(plan, what)  # 'with count(*) >= 2 among
        # 'mean of ... over visit_occurrence rows': an average over the rows, not a count of them
        if (
            written.endswith(" rows")
            and what != "patients"
            and counted
            and not _counts_rows(plan, what)
        ):
            return f"the question counts {written!r}, but the reading does not count those rows"
    return None


def _rows_per_patient(plan: QueryPlan, what: str) -> bool:
    """A filter counts each patient's rows of the named table ('at least 2 encounters')."""
    kinds = set(what.split("|"))
    for f in plan.filters:
        n = getattr(f, "min_count", 1) or 1
        on = "encounters" if type(f).__name__ == "EncounterFilter" else getattr(f, "stream", None)
        if n > 1 and on in kinds:
            return True
    return False


def _counts_rows(plan: QueryPlan, what: str) -> bool:
    """The plan counts (or lists) the rows themselves, each row of the named table once: not
    patients, not concepts, not every row of patients a filter picked."""
    m: Any = plan.measure
    if what == "encounters":
        return bool(m.of == "encounters")
    if m.of != "events" or m.stream not in what.split("|"):
        return False
    same = [f for f in plan.filters if getattr(f, "stream", None) in what.split("|")]
    return m.concepts is not None or not same
