"""Plan → English question, by templates (back-translation for the example bank, plan summaries).

The wording is plain and regular rather than elegant: it names every part of the plan (cohort,
measure, aggregate, window, scope, grouping) so a reader can check what the plan asks.
"""

from __future__ import annotations

from typing import Any

from clinbridge.engine.plan import (
    AgeFilter,
    CalendarWindow,
    ConceptSet,
    EncounterFilter,
    EncounterScope,
    EventAnchor,
    EventFilter,
    FixedAnchor,
    PatientAnchor,
    PatientFilter,
    QueryPlan,
    RelativeWindow,
    SexFilter,
    ValueFilter,
)

__all__ = ["describe_plan"]

_OPS = {
    ">": "above",
    ">=": "at least",
    "<": "below",
    "<=": "at most",
    "=": "equal to",
    "!=": "other than",
}
_STREAM_NOUN = {
    "condition": "diagnosis",
    "drug": "drug exposure",
    "measurement": "measurement",
    "procedure": "procedure",
    "observation": "observation",
    "note": "note",
    "visit_detail": "visit detail",
    "vital": "vital sign",
    "device": "device exposure",
}
_POINTS = {
    "birth": "birth",
    "observation_start": "the start of observation",
    "observation_end": "the end of observation",
    "death": "death",
    "first_encounter": "the first visit",
    "last_encounter": "the last visit",
}
_AGG = {
    "mean": "mean",
    "median": "median",
    "min": "lowest",
    "max": "highest",
    "sum": "total",
    "stddev": "standard deviation of the",
    "range": "range (highest minus lowest) of the",
    "first": "first",
    "last": "last",
}
_ETYPE = {
    "inpatient": "inpatient",
    "emergency": "emergency",
    "icu": "ICU",
    "outpatient": "outpatient",
    "other": "other",
}


_LABEL: list[Any] = [None]  # the label function of the describe_plan call in progress


def _plural(noun: str) -> str:
    if noun.endswith("sis"):
        return noun[:-3] + "ses"
    return noun if noun.endswith("s") else noun + "s"


def _cs(cs: ConceptSet | None, stream: str | None = None) -> str:
    if cs is None:
        return f"any {_STREAM_NOUN.get(stream or '', stream or 'event')}"
    label = _LABEL[0]
    text = (label(cs) if label is not None else None) or cs.describe()
    if cs.exclude:
        text += " (excluding " + ", ".join(c.label() for c in cs.exclude) + ")"
    return text


def _value(v: ValueFilter | None) -> str:
    if v is None:
        return ""
    unit = f" {v.unit}" if v.unit else ""
    if v.op == "between":
        return f" between {v.value:g} and {v.value2:g}{unit}"
    return f" {_OPS[v.op]} {v.value:g}{unit}"


def _anchor(a: Any) -> str:
    if isinstance(a, EventAnchor):
        return f"the {a.which} {_cs(a.concepts, a.stream)}"
    if isinstance(a, PatientAnchor):
        return _POINTS[a.point]
    if isinstance(a, FixedAnchor):
        return a.date.isoformat() if a.date else "today"
    return "the anchor"


def _days(n: int) -> str:
    n = abs(n)
    if n and n % 365 == 0:
        y = n // 365
        return f"{y} year{'s' if y > 1 else ''}"
    return f"{n} day{'s' if n != 1 else ''}"


def _window(w: Any) -> str:
    if w is None:
        return ""
    if isinstance(w, CalendarWindow):
        if w.start and w.end:
            if w.start.month == 1 and w.start.day == 1 and w.end.month == 12 and w.end.day == 31:
                return (
                    f" in {w.start.year}"
                    if w.start.year == w.end.year
                    else f" from {w.start.year} to {w.end.year}"
                )
            return f" between {w.start.isoformat()} and {w.end.isoformat()}"
        if w.start:
            return f" on or after {w.start.isoformat()}"
        if w.end:
            return f" on or before {w.end.isoformat()}"
        return ""
    if isinstance(w, RelativeWindow):
        a, s, e = _anchor(w.anchor), w.start_days, w.end_days
        if (
            isinstance(w.anchor, FixedAnchor)
            and w.anchor.date is None
            and s is not None
            and s < 0
            and e in (0, None)
        ):
            return f" in the last {_days(s)}"
        if s is not None and s >= 0 and e is not None:
            return f" within {_days(e)} after {a}" if s == 0 else f" {s} to {e} days after {a}"
        if s is not None and s >= 0:
            return f" after {a}" if s == 0 else f" at least {_days(s)} after {a}"
        if e is not None and e <= 0 and s is not None:
            return f" in the {_days(s)} before {a}"
        if e is not None and e <= 0:
            return f" before {a}"
        if s is not None and e is not None:
            return f" from {s} to {e} days around {a}"
        return f" relative to {a}"
    return ""


def _age(f: AgeFilter, at_event: bool = False) -> str:
    if f.negate:
        return "not " + _age(f.model_copy(update={"negate": None}), at_event)
    at = "" if at_event else (f" at {_anchor(f.at)}" if f.at is not None else "")
    if f.op == "between":
        return f"aged {f.value} to {f.value2}{at}"
    words = {
        ">": "older than",
        ">=": "aged at least",
        "<": "younger than",
        "<=": "aged at most",
        "=": "aged",
        "!=": "not aged",
    }
    return f"{words[f.op]} {f.value}{at}{_window(f.window) if f.window is not None else ''}"


def _filter(f: Any, verb: bool = False) -> str:
    """'with X' (after a noun) or, with ``verb``, 'had X' / 'never had X'."""
    yes, no = ("had", "never had") if verb else ("with", "without")
    if isinstance(f, EventFilter):
        noun = _cs(f.concepts, f.stream)
        kind = _STREAM_NOUN.get(f.stream, f.stream)
        if f.min_count > 1:
            what = (
                f"at least {f.min_count} {noun} {_plural(kind)}"
                if f.concepts
                else f"at least {f.min_count} {_plural(kind)}"
            )
        else:
            what = f"{noun} ({kind})" if f.concepts else noun
        age = f" when {_age(f.age_at_event, True)}" if f.age_at_event else ""
        age += {"active": " active now", "ended": " ended by now"}.get(f.status or "", "")
        return f"{no if f.negate else yes} {what}{_value(f.value)}{_window(f.window)}{age}"
    if isinstance(f, EncounterFilter):
        t = f"{_ETYPE[f.type]} " if f.type else ""
        n = (
            f"at least {f.min_count} {t}visits"
            if f.min_count > 1
            else f"an {t}visit"
            if t[:1] in "aeiouAEIOU" and t
            else f"a {t}visit"
        )
        return f"{(('never had' if verb else 'without') if f.negate else ('had' if verb else 'with'))} {n}{_window(f.window)}"
    if isinstance(f, AgeFilter):
        return _age(f)
    return ""


def _scope(s: EncounterScope | None) -> str:
    if s is None:
        return ""
    t = f"{_ETYPE[s.type]} " if s.type else ""
    if s.age is not None:  # the age the source records at each visit
        aged = f"{t}visits at which the recorded age was {_age(s.age, at_event=True)}"
        return f" during {aged}" if s.which == "all" else f" during the {s.which} of the {aged}"
    if s.which == "all":
        return f" during {t}visits" if t else ""
    if s.which == "nth":
        n = s.n or 1
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n if n < 20 else n % 10, "th")
        return f" during the {n}{suffix} {t}visit"
    return f" during the {s.which} {t}visit"


def _cohort(plan: QueryPlan, noun: str = "patients", verb: bool = False) -> str:
    sexes = [f.sex for f in plan.filters if isinstance(f, SexFilter)]
    adj = f"{sexes[0]} " if len(sexes) == 1 else ""
    ages = [_age(f) for f in plan.filters if isinstance(f, AgeFilter)]
    parts = [_filter(f, verb) for f in plan.filters if isinstance(f, EventFilter | EncounterFilter)]
    head = f"{adj}{noun}" + (" " + " and ".join(ages) if ages else "")
    facts = [
        f"whose {f.attribute} is {'not ' if f.negate else ''}{' or '.join(f.values)}"
        for f in plan.filters
        if isinstance(f, PatientFilter)
    ]
    parts = facts + parts
    return head + (" " + " and ".join(parts) if parts else "")


def _group(plan: QueryPlan) -> str:
    if not plan.group_by:
        return ""
    names = {
        "sex": "sex",
        "year": "year",
        "age_group": "age group",
        "concept": "concept",
        "encounter_type": "visit type",
    }
    return ", by " + " and ".join(names.get(g.key, g.key) for g in plan.group_by)


def describe_plan(plan: QueryPlan, *, label: Any = None) -> str:
    """An English question that the plan answers.

    Args:
        plan: the plan.
        label: optional ``(ConceptSet) -> str | None`` naming a concept set (e.g. from the
            resolved concept names, for sets given by id); defaults to ``ConceptSet.describe()``.

    Example:
        >>> from clinbridge.engine.plan import Aggregate, QueryPlan, SexFilter
        >>> describe_plan(QueryPlan(filters=(SexFilter(sex="female"),), aggregate=Aggregate(op="count")))
        'How many female patients are there?'
    """
    _LABEL[0] = label
    try:
        return _describe(plan)
    finally:
        _LABEL[0] = None


def _describe(plan: QueryPlan) -> str:
    m, op = plan.measure, plan.aggregate.op
    patient = plan.patient_id
    subject = f"patient {patient}" if patient else _cohort(plan)
    window = _window(plan.window) + _scope(plan.scope)
    group = _group(plan)
    target = _cs(m.concepts, m.stream) if m.stream else ""
    stream_noun = _STREAM_NOUN.get(m.stream or "", m.stream or "event")
    unit = f" in {m.unit}" if m.unit else ""
    enc = f"{_ETYPE[m.encounter_type]} " if m.encounter_type else ""
    where = (
        ""
        if not patient or not plan.filters
        else " " + " and ".join(p for p in (_filter(f) for f in plan.filters) if p)
    )

    if op == "proportion":
        num = " and ".join(p for p in (_filter(f) for f in plan.aggregate.numerator) if p)
        sexes = [f.sex for f in plan.aggregate.numerator if isinstance(f, SexFilter)]
        if sexes and not num:
            num = f"are {sexes[0]}"
        num = (
            " and ".join(p for p in (_filter(f, True) for f in plan.aggregate.numerator) if p)
            or num
        )
        return f"What proportion of {_cohort(plan)}{window} {num}{group}?".replace("  ", " ")
    if op == "exists":
        what = (
            _filter(EventFilter(stream=m.stream, concepts=m.concepts, value=m.value))
            if m.stream
            else ""
        )
        what = what.removeprefix("with ")
        if patient and plan.filters:
            return f"Did patient {patient} {' and '.join(_filter(f, True) for f in plan.filters)}{window}?"
        if patient:
            return f"Did patient {patient} have {what or 'any record'}{window}?"
        return f"Is there any {_cohort(plan)}{window}?"
    if op in {"count", "count_distinct"}:
        if m.of == "patients":
            if patient:
                return f"Does patient {patient} match: {_cohort(plan)}?"
            cohort = _cohort(plan, verb=True)
            if any(isinstance(f, EventFilter | EncounterFilter) for f in plan.filters):
                return f"How many {cohort}{window}{group}?"
            return f"How many {cohort} are there{window}{group}?"
        if m.of == "encounters":
            return f"How many {enc}visits did {subject}{where} have{window}{group}?"
        if op == "count_distinct" or m.of == "concept":
            return f"How many different {_plural(stream_noun)} did {subject}{where} have{window}{group}?"
        what = f"{target} {_plural(stream_noun)}" if m.concepts else _plural(stream_noun)
        return f"How many {what} did {subject}{where} have{window}{group}?"
    if op == "list":
        if m.of == "concept":
            return f"Which {_plural(stream_noun)} did {subject}{where} have{window}?"
        if m.of == "patients":
            return f"List the ids of {subject}{where}{window}."
        return f"List the {target} {m.of.replace('_', ' ')}s of {subject}{where}{window}."
    if op == "series":
        return f"What were the {target} values of {subject}{where} over time{window}{unit}?"
    agg = _AGG.get(op, op)
    if m.of == "date" and m.point is not None:
        return f"What is the {m.point.point.replace('_', ' ')} date of {subject}?"
    if m.of == "date":
        what = f"{target} {stream_noun}" if m.concepts else stream_noun
        return f"When was the {agg} {what} of {subject}{where}{window}?"
    if m.of == "concept":
        return f"What was the {agg} {stream_noun} of {subject}{where}{window}?"
    if m.of == "value":
        verb = "was" if patient or op in {"first", "last"} else "is"
        return f"What {verb} the {agg} {target}{_value(m.value)} of {subject}{where}{window}{unit}{group}?"
    if m.of == "age":
        return f"What is the {agg} age of {subject}{window}{group}?"
    if m.of == "length_of_stay":
        return (
            f"What is the {agg} length of stay of {enc}visits of {subject}{where}{window}{group}?"
        )
    if m.of == "duration":
        what = f"{target} {stream_noun}" if m.concepts else stream_noun
        return f"What is the {agg} duration in days (end minus start) of the {what} episodes of {subject}{where}{window}{group}?"
    if m.of == "events_per_patient":
        what = f"{target} {_plural(stream_noun)}" if m.concepts else _plural(stream_noun)
        return f"What is the {agg} number of {what} per patient among {subject}{window}{group}?"
    if m.of in {"days_supply", "quantity"}:
        what = "days' supply" if m.of == "days_supply" else "quantity"
        return f"What is the {agg} {what} of {target} for {subject}{where}{window}{group}?"
    return f"What is the {agg} {m.of} of {subject}{window}{group}?"
