"""Answer shapes, plausible ranges of labs and vitals, and unit convertibility (validator helpers)."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal

from clinbridge.engine.plan import QueryPlan

if TYPE_CHECKING:
    from clinbridge.catalog import EventStream

__all__ = [
    "Shape",
    "actual_shape",
    "expected_shape",
    "plausible_range",
    "question_breakdown",
    "question_shape",
]

Shape = Literal["number", "list", "date", "boolean", "rows", "text"]

# -- shapes ---------------------------------------------------------------------------------------


def expected_shape(plan: QueryPlan) -> Shape:
    """The shape of answer a plan produces (one number, a date, a list, yes/no, rows)."""
    op, of = plan.aggregate.op, plan.measure.of
    if plan.group_by:
        return "rows"
    if op == "exists":
        return "boolean"
    if op == "list":
        return "list"
    if op == "series":
        return "rows"
    if op in {"first", "last", "min", "max"}:
        if of in {"date", "end_date"}:
            return "number" if plan.measure.elapsed or plan.measure.part else "date"
        if of in {"concept", "attribute"}:
            return "text"
    return "number"


_Q_NUMBER = re.compile(
    r"^\s*(how\s+(many|much|long|old)|what\s+(is|was|were|are)\s+(the\s+)?"
    r"(number|count|average|mean|median|total|sum|proportion|percentage|fraction|rate|share|"
    r"highest|lowest|maximum|minimum|max|min|first|last|latest|most\s+recent)\b(?!.*\b(date|day|drug|"
    r"medication|condition|diagnosis|procedure|type|insurance|language|status|location)s?\b)|what\s+(percentage|proportion|fraction|share)|"
    r"(average|mean|median|count)\b)",
    re.I,
)
_Q_DATE = re.compile(
    r"^\s*(when\b|on\s+what\s+date|what\s+(is|was)\s+the\s+(\w+\s+){0,3}date\b|what\s+date"
    # a data manager's time column: 'start_time (date) of ...', 'max onset_date of ...'
    r"|(the\s+)?((min|max|minimum|maximum|earliest|latest|first|last)\s*\(?\s*)?"
    r"[a-z][a-z_]*_(time|date|datetime|on)\s*\)?\s*(\(\s*(as\s+an?\s+)?date\s*\)\s*)?(of|for)\b"
    r"|what\s+(time\s+)?(is|was|were)\s+the\s+(first|last|latest|earliest|most\s+recent)\s+time\b)",
    re.I,
)
# a request put as a question: 'can you list ...', 'could you show me ...' (not a yes/no)
_Q_POLITE = re.compile(
    r"^\s*(?![^?]*\b(?:if|whether)\b)(?:can|could|would|will)\s+(?:you|i|we)\s+(?:please\s+)?"
    r"(?=(?:list|show|tell|give|work\s+out|figure\s+out|"
    r"retrieve|find|name|provide|get|fetch|display|identify|count|calculate)\b)",
    re.I,
)
_Q_BOOL = re.compile(r"^\s*(is|was|were|are|does|did|do|has|have|had|can|could)\b", re.I)
# 'show me the total / the length of ...' asks for that amount, not a list
_Q_LIST = re.compile(
    r"^\s*(which|list|(the\s+)?(patient_id|person_id|subject_id|patient\s+ids?|ids?)\s+of\b|name\s+(the|all)|show(?![^?.]*\b(?:total|length|duration|differences?|change[sd]?)\b)|what\s+(\w+\s+){0,2}(drugs|medications|conditions|diagnoses|"
    r"procedures|measurements|tests|labs)\b)",
    re.I,
)


_REQUEST = re.compile(
    r"^\s*(?![^?]*\b(?:if|whether)\b)"
    r"(?:(?:could|can|would|will)\s+(?:you|u|i|we)\s+(?:please\s+)?|please\s+)"
    r"(?:tell|give|get|find|pull|provide|report|calculate|compute|check|indicate|retrieve|"
    r"inform|know|work\s+out|figure\s+out)(?:\s+(?:me|us))?\b[\s,]*",
    re.I,
)
"""A request's frame: 'could you tell me how many ...' is no yes/no question; '... tell me if /
whether ...' still is."""
_SENTENCE = re.compile(r"(?<=[?!])\s+(?=\S)|(?<=\.)\s+(?=[A-Z])")


def question_shape(question: str | None) -> Shape | None:
    """The shape a question asks for, from its wording; None when it does not say."""
    if not question:
        return None
    # 'Was mortality different between the trials? Give the percentage in each.': the last
    # sentence says what is asked for
    question = _SENTENCE.split(question.strip())[-1]
    # 'could you tell me ...' asks what follows; 'could you list ...' asks for the list
    question = _Q_POLITE.sub("", _REQUEST.sub("", question))
    if _Q_DATE.search(question):
        return "date"
    if _Q_NUMBER.search(question):
        return "number"
    if _Q_LIST.search(question):
        return "list"
    if _Q_BOOL.search(question):
        return "boolean"
    return None


# 'per vaccine', 'for each drug', 'in each arm', 'each site's', 'broken down by X', '... by sex?':
# the question asks for one answer per member of X, not one number.  'per patient', 'per 1000'
# 'per minute' and 'each time' are rates or fillers, not breakdowns.
_BREAKDOWN = re.compile(
    r"\b(?:(?:broken|break(?:\s+(?:it|this|that))?)\s+down|stratified|split|grouped|separated|"
    r"categori[sz]ed|tabulated|grouping)\s+(?:by|per|into|according\s+to)\s+(?:the\s+|each\s+)?"
    r"(?P<by>[a-z][\w-]*)"
    # 'each counted once', 'each listed once': a participle says how, not what per
    # '(one value per woman)': one of something for each, a counting convention, not a breakdown
    r"|(?<!\bone\svalue\s)(?<!\bone\sreading\s)(?<!\bone\srow\s)(?<!\bone\sresult\s)(?<!\bone\srecord\s)"
    r"(?<!\b1\svalue\s)(?<!\bone\s)(?<!\b1\s)"
    # '200,000 per microliter': a number before 'per' makes a rate (a unit), not a breakdown
    r"(?<!\d\s)"
    r"\b(?:per|each|for\s+every|in\s+every)\s+(?:single\s+|individual\s+|distinct\s+|different\s+)?"
    # '(each result counted)': the noun and a participle say how records are counted
    r"(?![a-z]{3,}ed\b)(?P<each>[a-z][\w-]*)\b(?![\w-])(?!\s+(?:counted|listed|included|once)\b)"
    r"|(?<!ed)(?<!en)\s+by\s+(?P<end>[a-z][\w-]*)\s*[?.!]*\s*$",
    re.I,
)
_NOT_GROUPS = frozenset(
    [
        # 'however often each was given': a verb after 'each' groups nothing
        "was",
        "were",
        "is",
        "are",
        "has",
        "had",
        "pt",
        "pts",
        "patient",
        "patients",
        "person",
        "persons",
        "people",
        "subject",
        "subjects",
        "individual",
        "individuals",
        "member",
        "members",
        "capita",
        "one",
        "other",
        "time",
        "times",
        "and",
        "or",
        "of",
        "the",
        "a",
        "an",
        "day",
        # units of a rate ('beats per minute', 'mg per dL'), not members of a grouping
        *("second", "sec", "minute", "min", "hour", "hr", "dl", "l", "ml", "liter", "litre"),
        *("kg", "g", "mg", "m2", "mmol", "cent", "cents", "mille", "dose", "tablet"),
    ]
)


def question_breakdown(question: str | None) -> str | None:
    """The dimension a question asks its answer broken down by ('vaccine'), or None."""
    if not question:
        return None
    for m in _BREAKDOWN.finditer(question):
        noun = (m["by"] or m["each"] or m["end"]).lower()
        if noun not in _NOT_GROUPS and not noun[0].isdigit():
            return noun
    return None


def actual_shape(value: Any) -> Shape | None:
    """The shape an answer's value has (None: no value); ISO date strings are dates."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float | decimal.Decimal):
        return "number"
    if isinstance(value, dt.date | dt.datetime):
        return "date"
    if isinstance(value, str):
        return "date" if re.fullmatch(r"\d{4}-\d{2}-\d{2}([ T].*)?", value) else "text"
    if isinstance(value, Mapping):
        return "rows"
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, list | tuple | Mapping) for v in value):
            return "rows"
        return "list"
    return "text"


_COMPATIBLE: dict[Shape, set[Shape]] = {
    "number": {"number"},
    "date": {"date"},
    "boolean": {"boolean"},
    "list": {"list", "text", "rows"},
    "text": {"text", "list"},
    "rows": {"rows", "list"},
}


# -- plausible ranges -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Range:
    keywords: tuple[str, ...]
    unit: str
    low: float
    high: float


@lru_cache(maxsize=1)
def _ranges() -> tuple[_Range, ...]:
    text = (
        resources.files("clinbridge.engine")
        .joinpath("data/plausible_ranges.csv")
        .read_text("utf-8")
    )
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    out = []
    for row in csv.DictReader(lines):
        out.append(
            _Range(
                tuple(row["keywords"].split("|")),
                row["unit"].lower(),
                float(row["low"]),
                float(row["high"]),
            )
        )
    return tuple(out)


def _norm_unit(unit: str | None) -> str:
    u = (unit or "").strip().lower().replace(" ", "")
    return {
        "mmhg": "mm[hg]",
        "bpm": "/min",
        "beats/min": "/min",
        "c": "cel",
        "°c": "cel",
        "degc": "cel",
        "f": "[degf]",
        "°f": "[degf]",
        "lb": "[lb_av]",
        "lbs": "[lb_av]",
        "in": "[in_i]",
        "kg/m^2": "kg/m2",
        "µmol/l": "umol/l",
        "μmol/l": "umol/l",
        "percent": "%",
    }.get(u, u)


def plausible_range(label: str, unit: str | None) -> tuple[float, float] | None:
    """The possible range of a measurement by name (and unit, when known)."""
    text = label.lower()

    def matches(r: _Range) -> bool:
        return any(re.search(rf"\b{re.escape(k)}\b", text) for k in r.keywords)

    # Most specific keyword first: 'hemoglobin a1c' before 'hemoglobin'.
    hits = sorted(
        (r for r in _ranges() if matches(r)),
        key=lambda r: -max(len(k) for k in r.keywords if k in text),
    )
    if not hits:
        return None
    best_kw = max(len(k) for k in hits[0].keywords if k in text)
    hits = [r for r in hits if max(len(k) for k in r.keywords if k in text) == best_kw]
    u = _norm_unit(unit)
    same = [r for r in hits if r.unit == u or r.unit == ""]
    if same or not unit:
        chosen = same or hits
        return min(r.low for r in chosen), max(r.high for r in chosen)
    # a unit no range is written in ('weight in grams'): a range in a unit that converts to it
    # by a factor, converted; else the range is not known here
    from clinbridge.engine._units import unit_factor

    scaled = [(r, f) for r in hits if r.unit and (f := unit_factor(r.unit, unit)) is not None]
    if not scaled:
        return None
    return min(r.low * f for r, f in scaled), max(r.high * f for r, f in scaled)


_PINT_NAMES = {
    "[lb_av]": "lb",
    "[in_i]": "inch",
    "[degf]": "degF",
    "cel": "degC",
    "mm[hg]": "mmHg",
    "%": "percent",
    "/min": "1/min",
    "kg/m2": "kg/m**2",
}


def _pint_name(unit: str) -> str:
    u = _norm_unit(unit)
    return _PINT_NAMES.get(u, u.replace("[", "").replace("]", ""))


def _units_convertible(units: Iterable[str], target: str) -> bool:
    units = list(units)
    if all(_norm_unit(u) == _norm_unit(target) for u in units):
        return True
    try:
        ureg = _ureg()
        t = ureg.parse_units(_pint_name(target))
        return all(
            ureg.parse_units(_pint_name(u)).dimensionality == t.dimensionality for u in units
        )
    except Exception:  # pint cannot parse many clinical units; then only equality counts
        return False


@lru_cache(maxsize=1)
def _ureg() -> Any:
    import pint

    return pint.UnitRegistry()


_MEASURE_COLUMN: dict[str, Callable[[EventStream], str | None]] = {
    "value": lambda s: s.value_column,
    "days_supply": lambda s: s.days_supply_column,
    "quantity": lambda s: s.quantity_column,
}
_GENERIC_RANGES: dict[str, tuple[float, float]] = {
    "age": (0, 130),
    "length_of_stay": (0, 3650),
    "duration": (0, 36500),
    "days_supply": (0, 3650),
    "quantity": (0, 1e7),
    "events_per_patient": (0, 1e6),
    "patients": (0, 1e10),
    "events": (0, 1e12),
    "encounters": (0, 1e12),
}
