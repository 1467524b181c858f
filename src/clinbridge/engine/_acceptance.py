"""Acceptance rules: what a plan answers must be what the question asks, and all it asks.

A reading can execute cleanly, return a plausible number and still answer another question.
Measured on devset5 (written blind over three databases), the wrong answers accepted came from
a few kinds of mismatch between the plan and the question, each caught here by a rule about the
question's wording and the plan's structure (never a phrase of one question):

* ``answer_type`` — the kind of answer the question asks for against the one the plan gives:
  a *value* ('latest heart rate value ... (by measurement_date)') answered with a date; a
  *duration* ('how many days from X to Y') answered with a count of records;
* ``summary_matches_question`` — the question names one summary of several values ('total
  days in hospital, all admits') and the plan takes another (the longest);
* ``window_applied`` — a time window read from the question that the plan carries where nothing
  uses it (a patient count has no event date to hold in 'the last 6 months'): content of the
  question that the answer would silently drop.

:mod:`clinbridge.engine._acceptance_data` adds the rules that look at the data: several
candidate dates for one 'when', a concept phrase that names several measured quantities, 'on
<drug>' (current or ever), and two conditions where one is a kind of the other. Each failed
rule is an abstention naming what is missing or which readings remain.
:mod:`clinbridge.engine._acceptance_asked` compares the kind of answer asked for (a ratio,
which patient, a yes/no, one figure per patient, a year, a ranking's summary) with the plan's;
:mod:`clinbridge.engine._acceptance_ages`, an age bound's boundary ('over 65') and time ('kids');
:mod:`clinbridge.engine._acceptance_named`, one patient's count of a name more concepts answer to.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from clinbridge.engine._checks import failed

if TYPE_CHECKING:
    from clinbridge.engine._checks import Check, _Ctx
    from clinbridge.engine.plan import QueryPlan

# An ordering clause names the field the values are ordered by, not what is asked:
# 'latest heart rate value (by measurement_date)', 'ordered by start date'.
_ORDERING = re.compile(
    r"\b(?:(?:order(?:ed)?|sort(?:ed)?|rank(?:ed)?)\s+)?by\s+(?:the\s+)?[\w.]*(?:date|time)\w*",
    re.I,
)
_DATE_ASKED = re.compile(
    r"\bwhen\b|\bdates?\b|\bday\b|\bdob\b|\btime\b|\b(?:what|which)\s+(?:year|month)\b|"
    r"_date(?:time)?\b|_time\b|\bdatetime\b|\bbirthday\b",
    re.I,
)
_VALUE_ASKED = re.compile(r"\bvalues?\b|\bresults?\b|\breadings?\b|\blevels?\b", re.I)
# 'how many days / weeks passed', '# of days', 'number of days': a duration, not a count
_DURATION_ASKED = re.compile(
    r"\b(?:how\s+(?:many|much)|number\s+of|#\s*(?:of\s+)?)\s*"
    r"(?:days?|weeks?|wks?|months?|mos?|years?|yrs?|hours?|hrs?|minutes?|mins?)\b"
    r"|#\s*(?:days?|weeks?|months?|years?)\b",
    re.I,
)
_COUNTED = frozenset({"patients", "events", "encounters"})
# What 'how many <noun>' counts: people, or records of something that happened to them ('rows'
# and 'records' are left out: a table may hold one row per patient, as a death table does).
_PEOPLE_NOUNS = (
    r"patients?|pts?|people|ppl|persons?|individuals?|subjects?|men|women|males?|females?|"
    r"children|adults|kids|boys|girls"
)
_RECORD_NOUNS = (
    r"visits?|admissions?|admits?|encounters?|stays?|prescriptions?|exposures?|diagnoses|"
    r"procedures|measurements|doses|vaccinations|shots|immuni[sz]ations|events|occurrences|"
    r"episodes|fills|claims"
)
_COUNT_HEAD = re.compile(
    r"(?:\b(?:how\s+many|number\s+of|count\s+of)|#\s*of|#)\s*"
    r"(?:(?!(?:was|were|is|are|did|do|does|has|have|had|times?|in|on|with|w|for|at|by|from|"
    rf"to|per|among|of)\b)[\w-]+\s+){{0,3}}?(?P<noun>{_PEOPLE_NOUNS}|{_RECORD_NOUNS})\b",
    re.I,
)
_PEOPLE = re.compile(_PEOPLE_NOUNS, re.I)

# One summary of several values, by the words that name it.
_SUMMARY_WORDS: dict[str, re.Pattern[str]] = {
    "sum": re.compile(
        r"\b(?:total|sum(?:med)?|combined|cumulative|altogether|in\s+all|all\s+together)\b", re.I
    ),
    "max": re.compile(r"\b(?:longest|max(?:imum)?|highest|largest|greatest|peak)\b", re.I),
    "min": re.compile(r"\b(?:shortest|min(?:imum)?|lowest|smallest)\b", re.I),
    "mean": re.compile(r"\b(?:mean|average|avg)\b", re.I),
    "median": re.compile(r"\bmedian\b", re.I),
}
_SUMMARY_NAMES = {
    "sum": "a total",
    "max": "the largest",
    "min": "the smallest",
    "mean": "an average",
    "median": "a median",
}
# 'total cholesterol', 'total bilirubin': 'total' names a measured quantity, not a sum
_TOTAL_AS_NAME = re.compile(r"\btotal\s+(?!(?:number|count|days?|time|length|stay)\b)[a-z]", re.I)


def _asked_kind(question: str, plan: QueryPlan) -> list[Check]:
    """The answer's kind against the kind the question asks for."""
    out: list[Check] = []
    m = plan.measure
    unordered = _ORDERING.sub(" ", question)
    if m.of == "date" and _VALUE_ASKED.search(unordered) and not _DATE_ASKED.search(unordered):
        out.append(
            failed(
                "answer_type",
                "shape_mismatch",
                "the question asks for a value; the reading gives the date it was recorded",
            )
        )
    if (
        _DURATION_ASKED.search(question)
        and plan.aggregate.op in {"count", "count_distinct"}
        and m.of in _COUNTED
    ):
        out.append(
            failed(
                "answer_type",
                "shape_mismatch",
                "the question asks for a length of time; the reading counts records",
            )
        )
    return out + _count_unit(question, plan)


def _count_unit(question: str, plan: QueryPlan) -> list[Check]:
    """'How many patients' counted as records, or 'how many visits' counted as patients."""
    m = _COUNT_HEAD.search(question)
    if m is None or plan.aggregate.op != "count" or plan.group_by:
        return []
    people = _PEOPLE.fullmatch(m["noun"]) is not None
    if people and plan.measure.of in {"events", "encounters"}:
        said, counted = m["noun"], "records"
    elif not people and plan.measure.of == "patients" and not plan.patient_id:
        said, counted = m["noun"], "patients"
    else:
        return []
    return [
        failed(
            "count_unit",
            "shape_mismatch",
            f"the question counts {said}; the reading counts {counted}",
        )
    ]


def _summary(question: str, plan: QueryPlan) -> list[Check]:
    """The summary the question names (total, longest, mean ...) against the plan's."""
    op = plan.aggregate.op
    if op not in _SUMMARY_WORDS or plan.group_by:
        return []
    text = _TOTAL_AS_NAME.sub(" ", question)
    named = [k for k, rx in _SUMMARY_WORDS.items() if rx.search(text)]
    if not named or op in named or (op == "median" and "mean" in named):
        return []
    want = " or ".join(_SUMMARY_NAMES[k] for k in named)
    return [
        failed(
            "summary_matches_question",
            "question_not_covered",
            f"the question asks for {want}; the reading takes {_SUMMARY_NAMES[op]}",
        )
    ]


def _window_applied(plan: QueryPlan) -> list[Check]:
    """A plan-level window on a measure that has no event date to hold in it."""
    m = plan.measure
    patient_level = (
        m.of in {"patients", "age", "days_between"} or m.point is not None
    ) and m.stream is None
    if m.of == "patients" and m.encounter_type is not None:
        patient_level = False  # patients dated by their encounters of that type
    if plan.window is None or not patient_level or plan.aggregate.op == "proportion":
        return []
    return [
        failed(
            "window_applied",
            "question_not_covered",
            "the question's time window is not applied: the reading counts patients without "
            "an event or visit that could fall in it (say which events, e.g. 'with a visit in "
            "the last 6 months')",
        )
    ]


def check_acceptance(ctx: _Ctx, checks: Sequence[Check] = ()) -> list[Check]:
    """Failed acceptance rules for an executed plan (empty when the plan answers the question).

    Run once every other check of the draft passed (``checks``): a draft already refused needs
    no second reason, and the rules that query the data cost a query or two.
    """
    plan, question = ctx.plan, ctx.question
    if plan is None or not question or any(not c.passed for c in checks):
        return []
    from clinbridge.engine._acceptance_ages import check_ages
    from clinbridge.engine._acceptance_asked import check_asked
    from clinbridge.engine._acceptance_data import check_choices
    from clinbridge.engine._acceptance_named import named_elsewhere
    from clinbridge.engine._acceptance_records import check_records

    out = _asked_kind(question, plan) + _summary(question, plan) + _window_applied(plan)
    out += check_asked(question, plan, ctx.value)
    out = out or check_ages(ctx) or named_elsewhere(ctx)
    return out or check_choices(ctx) or check_records(ctx)
