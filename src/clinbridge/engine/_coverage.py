"""Does the proposal use everything the question says? (checks for LLM-written plans and SQL)

A model can drop part of a question and still produce a plan that runs and looks plausible:
"How many patients have type 2 diabetes?" answered with the count of all patients. These checks
catch that, deterministically and for any source:

* ``concepts_covered``: every concept the question names verbatim (a dictionary name or synonym
  that appears as whole words in the question, and that occurs in some event stream of the data)
  must be used by the plan — one of its concept sets resolves to that concept or a descendant —
  or, for free SQL, appear in the SQL (its id or its name);
* ``slots_covered`` / ``readings_agree``: a second reading of the question, handed in by the
  caller (the built-in parser's), must agree: a sex or encounter type it finds must be in the plan, and when it reads the whole question, both plans
  must compute the same aggregate of the same measure;
* ``numbers_covered``: every number in the question (not the patient id, not part of a named
  concept) must appear in the plan or SQL, directly or as days/weeks/months/years, or a percent.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from clinbridge.engine._checks_wide import names_code
from clinbridge.engine._number_accounting import plan_numbers as _plan_numbers
from clinbridge.engine.answer import Check

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog, Dictionary
    from clinbridge.db import Database
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.engine.understand._reading import Reading

__all__ = ["check_coverage", "mentioned_concepts"]

logger = logging.getLogger(__name__)

_MIN_LEN = 4


def _find_names(db: Database, d: Dictionary, question: str) -> list[tuple[Any, str]]:
    """(code, name) of dictionary entries whose name or synonym occurs in the question."""
    q = exp.Literal.string(question.lower())

    def contains(col: str) -> Any:
        name = exp.func("lower", exp.column(col))
        cond: Any = exp.and_(
            exp.StrPosition(this=q, substr=name) > 0,
            exp.func("length", exp.column(col)) >= _MIN_LEN,
        )
        return cond

    def found(table: str, code: str, label: str) -> list[tuple[Any, str]]:
        sql = exp.select(exp.column(code), exp.column(label)).from_(table).where(contains(label))
        rows = db.execute(sql.limit(500).sql(db.dialect), max_rows=500).rows
        return [(r[0], str(r[1])) for r in rows]

    out = found(d.table, d.code_column, d.label_column)
    if d.synonym_table and d.synonym_code_column and d.synonym_label_column:
        out += found(d.synonym_table, d.synonym_code_column, d.synonym_label_column)
    return out


def mentioned_concepts(
    catalog: Catalog, db: Database, question: str
) -> list[tuple[str, set[Any], tuple[int, int]]]:
    """Concepts the question names: (text, codes, span), maximal mentions only, present in the data."""
    found: dict[str, tuple[set[Any], tuple[int, int]]] = {}
    for d in catalog.dictionaries:
        streams = [s for s in catalog.streams if s.dictionary == d.name and s.code_column]
        if not streams:
            continue
        try:
            hits = _find_names(db, d, question)
        except Exception as exc:  # a dictionary this backend cannot scan: no mentions from it
            logger.debug("cannot scan %s for mentions: %s", d.name, exc)
            continue
        for code, name in hits:
            m = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", question, re.I)
            if m is None:
                continue
            key = name.lower()
            codes, _ = found.setdefault(key, (set(), m.span()))
            codes.add(code)
    # keep maximal mentions: drop one whose span lies inside a longer one
    spans = {k: v[1] for k, v in found.items()}
    out = []
    for k, (codes, span) in found.items():
        inside = any(
            o != k
            and spans[o][0] <= span[0]
            and span[1] <= spans[o][1]
            and (spans[o][1] - spans[o][0]) > (span[1] - span[0])
            for o in spans
        )
        if inside:
            continue
        present = [c for c in codes if _in_data(catalog, db, c)]
        if present:
            out.append((k, set(present), span))
    return out


def _in_data(catalog: Catalog, db: Database, code: Any) -> bool:
    for s in catalog.streams:
        if not s.code_column:
            continue
        q = (
            exp.select(exp.Literal.number(1))
            .from_(s.table)
            .where(exp.column(s.code_column).eq(exp.convert(code)))
            .limit(1)
        )
        try:
            if db.execute(q.sql(db.dialect), max_rows=1).rows:
                return True
        except Exception:  # a code of another type than this stream's column
            continue
    return False


def _descendants(catalog: Catalog, db: Database, codes: set[Any]) -> set[Any]:
    out = set(codes)
    for d in catalog.dictionaries:
        if not (d.ancestor_table and d.ancestor_column and d.descendant_column):
            continue
        q = (
            exp.select(exp.column(d.descendant_column))
            .from_(d.ancestor_table)
            .where(
                exp.column(d.ancestor_column).isin(
                    *[exp.convert(c) for c in sorted(codes, key=str)]
                )
            )
        )
        try:
            out |= {r[0] for r in db.execute(q.sql(db.dialect), max_rows=100_000).rows}
        except Exception as exc:
            logger.debug("no descendants from %s: %s", d.name, exc)
    return out


_NUM = re.compile(
    r"(?<![\w.\-])(\d+(?:\.\d+)?)(?![\w\-]*\d)\s*(%|percent|days?|weeks?|months?|years?|yrs?)?",
    re.I,
)
# A number that names a kind of thing rather than a quantity: "type 2 diabetes", "stage 3 CKD".
_NAMING = re.compile(
    r"\b(type|stage|grade|class|phase|level|category|tier|factor|schedule|part)\s*$", re.I
)


_MEASURE_WORDS = {
    "patients": "patients people",
    "events": "events records",
    "encounters": "visits encounters admissions stays",
    "value": "value result level measurement",
    "days_supply": "days supply of drug",
    "quantity": "quantity dispensed",
    "length_of_stay": "length of stay duration of hospital stay",
    "duration": "duration of an episode end minus start",
    "events_per_patient": "events per patient",
    "age": "age",
    "date": "date",
    "concept": "which kinds",
}


def _facets(plan: QueryPlan | None, sql: str | None, names: set[str]) -> list[str]:
    """The things a proposal talks about, as short texts (for semantic coverage)."""
    from clinbridge.engine._describe import describe_plan

    facets = set(names)
    if plan is not None:
        facets.add(describe_plan(plan))
        facets.add(_MEASURE_WORDS.get(plan.measure.of, plan.measure.of))
        blob = plan.model_dump(mode="json", exclude_none=True)
        for key in ("stream", "type", "encounter_type"):
            facets |= {str(v) for v in _values_of(blob, key)}
    elif sql:  # free SQL: its tables, columns and literals (SQL keywords stand for nothing)
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", sql)) - _SQL_WORDS
        facets |= {w.replace("_", " ").lower() for w in words if not w.isupper()}
        facets |= set(re.findall(r"'([^']{3,})'", sql))
    return sorted(f for f in facets if f)


_SQL_WORDS = {
    "select",
    "from",
    "where",
    "group",
    "order",
    "by",
    "limit",
    "and",
    "not",
    "null",
    "case",
    "when",
    "then",
    "else",
    "end",
    "with",
    "cast",
    "count",
    "avg",
    "sum",
    "min",
    "max",
    "distinct",
    "join",
    "left",
    "inner",
    "on",
    "as",
    "in",
    "is",
    "between",
    "like",
    "having",
    "union",
}


def _values_of(node: Any, key: str) -> list[Any]:
    if isinstance(node, dict):
        out = [node[key]] if key in node and isinstance(node[key], str) else []
        for v in node.values():
            out += _values_of(v, key)
        return out
    if isinstance(node, list):
        return [x for v in node for x in _values_of(v, key)]
    return []


def _semantically_in(phrase: str, facets: list[str]) -> bool:
    """Whether some facet means the phrase (embedding similarity; lexical without a model)."""
    if not facets:
        return False
    if _named_in(phrase, set(facets)):
        return True
    from clinbridge.embed import service_for

    embedder = service_for(mode="auto")
    threshold = 0.35 if embedder.semantic else 0.6
    return max(embedder.scores(phrase, facets)) >= threshold


def _agreement(plan: QueryPlan, other: QueryPlan) -> str | None:
    """Why two readings of a question answer different things (None when they agree)."""
    mine = (plan.measure.of, plan.aggregate.op)
    theirs = (other.measure.of, other.aggregate.op)
    if mine != theirs:
        return (
            f"the plan computes {mine[1]} of {mine[0]} but the question reads as "
            f"{theirs[1]} of {theirs[0]}"
        )
    if bool(plan.patient_id) != bool(other.patient_id):
        return "the plan and the question disagree on whether it is about one patient"
    return None


def _slot_used(kind: str, target: str, plan: QueryPlan | None, text: str) -> bool:
    if plan is None:  # free SQL: the value or its name must appear somewhere
        return target.lower() in text
    data = plan.model_dump(mode="json", exclude_none=True)
    blob = str(data).lower()
    if kind == "sex":
        return f"'sex': '{target.lower()}'" in blob or "'key': 'sex'" in blob
    return f"'{target.lower()}'" in blob


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _named_in(phrase: str, names: set[str]) -> bool:
    """Whether every word of the phrase is in one of the plan's concept names ('hemoglobin' is
    covered by 'Hemoglobin [Mass/volume] in Blood' even if the parser read it as HbA1c)."""
    words = _words(phrase)
    return bool(words) and any(words <= _words(n) for n in names)


def check_coverage(
    *,
    question: str | None,
    plan: QueryPlan | None,
    sql: str | None,
    plan_codes: set[Any],
    plan_names: set[str] | None = None,
    catalog: Catalog,
    db: Database,
    reading: Reading | None = None,
) -> list[Check]:
    """The coverage checks for one proposal (plan with its resolved codes, or free SQL).

    ``reading`` is a second, independent reading of the question (the built-in parser's top
    reading, CLEAR-Med's dual reading), handed in by whoever asked for the checks: a phrase it
    grounds must be honoured by the proposal, and when it reads the whole question, the plan
    must measure and aggregate the same thing. Without it only the verbatim checks apply.
    """
    if not question:
        return []
    checks: list[Check] = []
    mentions = mentioned_concepts(catalog, db, question)
    slots: list[tuple[str, str, str]] = []
    for g in reading.groundings if reading is not None else ():
        if g.kind == "concept" and g.codes:
            codes = {int(c) if str(c).isdigit() else c for c in g.codes}
            at = question.lower().find(g.phrase.lower())
            span = (at, at + len(g.phrase)) if at >= 0 else (0, 0)
            if not any(codes <= m[1] for m in mentions):
                mentions.append((g.phrase.lower(), codes, span))
        elif g.kind in {"sex", "encounter_type"}:
            slots.append((g.kind, g.phrase, g.target))
    missing = []
    text = (
        plan.model_copy(update={"question": None}).to_json() if plan is not None else sql or ""
    ).lower()
    for name, codes, _ in mentions:
        if plan is not None:
            ok = (
                bool(plan_codes & _descendants(catalog, db, codes))
                or f'"{name}"' in text
                or _named_in(name, plan_names or set())
            )
        else:
            ok = name in text or any(names_code(text, c) for c in codes)
        if not ok:
            missing.append(name)
    if mentions:
        checks.append(
            Check(
                name="concepts_covered",
                passed=not missing,
                code="question_not_covered",
                detail=(
                    f"the question names {missing[0]!r} but the {'plan' if plan is not None else 'SQL'} does not use it"
                    if missing
                    else f"uses every concept the question names ({len(mentions)})"
                ),
            )
        )
    if slots:
        lost = [(k, p, t) for k, p, t in slots if not _slot_used(k, t, plan, text)]
        checks.append(
            Check(
                name="slots_covered",
                passed=not lost,
                code="question_not_covered",
                detail=(
                    f"the question says {lost[0][1]!r} ({lost[0][0]} {lost[0][2]}) but the proposal ignores it"
                    if lost
                    else "keeps every sex and encounter type the question names"
                ),
            )
        )
    unresolved = tuple(reading.unresolved) if reading is not None else ()
    if unresolved:
        facets = _facets(plan, sql, plan_names or set())
        lost_phrases = [p for p in unresolved if not _semantically_in(p, facets)]
        checks.append(
            Check(
                name="phrases_covered",
                passed=not lost_phrases,
                code="question_not_covered",
                detail=(
                    f"nothing in the {'plan' if plan is not None else 'SQL'} stands for {lost_phrases[0]!r}, "
                    "which the source's vocabulary does not know either"
                    if lost_phrases
                    else "the proposal accounts for the phrases the parser could not ground"
                ),
            )
        )
    if plan is not None and reading is not None and reading.plan is not None:
        why = _agreement(plan, reading.plan)
        checks.append(
            Check(
                name="readings_agree",
                passed=why is None,
                code="readings_disagree",
                detail=why or "the built-in parser reads the question the same way",
            )
        )
    spans = [s for _, _, s in mentions]
    pid = plan.patient_id if plan is not None else None
    have = _plan_numbers(text)
    dropped = []
    for m in _NUM.finditer(question):
        if any(a <= m.start() < b for a, b in spans) or (
            pid is not None and m.group(1) == str(pid)
        ):
            continue
        if _NAMING.search(question[: m.start()]):
            continue
        n, unit = float(m.group(1)), (m.group(2) or "").lower()
        options = {n}
        if unit.startswith(("week",)):
            options |= {n * 7}
        elif unit.startswith("month"):
            options |= {n * 30, n * 31, round(n * 30.4)}
        elif unit.startswith(("year", "yr")):
            options |= {n * 365, n * 366, round(n * 365.25)}
        elif unit in {"%", "percent"}:
            options |= {n / 100}
        if not options & have:
            dropped.append(m.group(0).strip())
    if dropped or _NUM.search(question):
        checks.append(
            Check(
                name="numbers_covered",
                passed=not dropped,
                code="question_not_covered",
                detail=(
                    f"the question says {dropped[0]!r} but the proposal does not use it"
                    if dropped
                    else "uses every number the question gives"
                ),
            )
        )
    return checks
