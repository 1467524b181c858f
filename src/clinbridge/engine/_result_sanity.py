"""Checks on what an executed plan returned and on choices the question left open.

Execution-guided checking: a reading whose result is degenerate is not accepted as the answer,
however well it parsed.  Measured on devset4 (questions written blind over three databases),
every accepted count of 0 was a misreading (a filter read twice, a window bound to the wrong
field, a word taken as an age), a proportion of exactly 1 over every patient counted patients
where records were asked for, and questions asking for an age or for identifiers got a date
or a count.  Each becomes an abstention that names the reason:

* ``no_data`` (result_nonempty): a cohort/event count of 0, or a breakdown whose every cell is
  0 — no record satisfies all the conditions read; a yes/no or one patient's count is not
  affected;
* ``value_implausible`` (proportion_informative): a proportion of exactly 0, or of exactly 1
  over every patient (no cohort condition);
* ``shape_mismatch`` (answer_type): 'what age / how old' answered with a date, 'the ids /
  values' answered with one number.

:func:`check_ambiguous` turns a default the plan chose where the question names none into an
``ambiguous`` abstention: one patient's length of stay with no summary word (which stay?), the
mean age of a cohort with no 'current' / 'at diagnosis', and 'last year' / 'last month'
(previous calendar period or the past 12 months / 30 days).
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from clinbridge.engine._acceptance import check_acceptance as check_acceptance
from clinbridge.engine._checks import failed
from clinbridge.engine._shapes import actual_shape
from clinbridge.engine.answer import Alternative, Check
from clinbridge.engine.plan import QueryPlan

if TYPE_CHECKING:
    from clinbridge.engine._checks import _Ctx

_AGE_ASKED = re.compile(
    r"\b(?:what|which)\s+age\b|\bhow\s+old\b|\bage\s*(?:@|at|when)\b"
    # 'age in years of person_id 96 on the date of ...', 'age of patient 22 when ...'
    r"|\bage\s*\(?\s*in\s+(?:completed\s+|whole\s+)?years\b|^\W*(?:the\s+)?age\b"
    r"|\bage\s+of\s+(?:patient|person|pt|subject)",
    re.I,
)
_IDS_ASKED = re.compile(
    r"\b(?:ids|identifiers|person_id\s+values|patient_id\s+values|values)\b|^\s*list\b", re.I
)
_COUNT_ASKED = re.compile(r"\bhow\s+many\b|\bcount\b|\bnumber\s+of\b|#", re.I)


def _numbers(value: Any) -> list[float] | None:
    """The numeric cells of a breakdown (mapping, or rows whose last cell is the count)."""
    cells: list[Any]
    if isinstance(value, Mapping):
        cells = list(value.values())
    elif isinstance(value, list | tuple):
        cells = []
        for row in value:
            if isinstance(row, Mapping):
                cells.append(list(row.values())[-1] if row else None)
            elif isinstance(row, list | tuple):
                cells.append(row[-1] if row else None)
            else:
                return None
    else:
        return None
    out: list[float] = []
    for c in cells:
        if isinstance(c, bool) or not isinstance(c, int | float | decimal.Decimal):
            return None
        out.append(float(c))
    return out


def check_result(plan: QueryPlan | None, value: Any, question: str | None) -> list[Check]:
    """Failed checks for a degenerate result of ``plan`` (empty when the result is plausible)."""
    if plan is None:
        return []
    op = plan.aggregate.op
    out: list[Check] = []
    is_num = isinstance(value, int | float | decimal.Decimal) and not isinstance(value, bool)
    if op in {"count", "count_distinct"} and not plan.patient_id:
        if is_num and float(value) == 0.0:
            out.append(
                Check(
                    name="result_nonempty",
                    passed=False,
                    code="no_data",
                    detail="the count is 0: no record satisfies every condition as read; a "
                    "condition was probably read wrongly (rephrase, or check each condition alone)",
                )
            )
        elif plan.group_by:
            cells = _numbers(value)
            if cells is not None and (not cells or all(c == 0 for c in cells)):
                out.append(
                    Check(
                        name="result_nonempty",
                        passed=False,
                        code="no_data",
                        detail="every group of the breakdown counts 0: no record satisfies the "
                        "conditions as read",
                    )
                )
    # 0 % is an empty numerator; 100 % of a cohort ('of the MI patients, what share had a
    # CABG') can be a finding, but 100 % of everyone means the part was not told from the whole
    whole = float(value) in (1.0, 100.0) and not plan.filters if is_num else False
    if op == "proportion" and is_num and (float(value) == 0.0 or whole) and not plan.group_by:
        out.append(
            Check(
                name="proportion_informative",
                passed=False,
                code="value_implausible",
                detail=f"the proportion is exactly {value}: the numerator and the denominator "
                "select the same records (or none); the part asked about was probably not "
                "told apart from the whole",
            )
        )
    if question:
        if _AGE_ASKED.search(question) and actual_shape(value) == "date":
            out.append(
                Check(
                    name="answer_type",
                    passed=False,
                    code="shape_mismatch",
                    detail="the question asks for an age; the reading gives a date",
                )
            )
        if (
            is_num
            and op in {"count", "count_distinct"}
            and _IDS_ASKED.search(question)
            and not _COUNT_ASKED.search(question)
        ):
            out.append(
                Check(
                    name="answer_type",
                    passed=False,
                    code="shape_mismatch",
                    detail="the question asks for the identifiers or values themselves; the "
                    "reading gives only how many there are",
                )
            )
        if (
            op in {"mean", "median", "min", "max", "stddev", "sum"}
            and plan.measure.of == "value"
            and _COUNT_LEAD.match(question)
        ):
            # 'count person_id whose max(value) is < 130': the max is the condition, the
            # count the answer
            out.append(
                Check(
                    name="answer_type",
                    passed=False,
                    code="shape_mismatch",
                    detail=f"the question asks how many; the reading gives a {op} of values",
                )
            )
    return out


_COUNT_LEAD = re.compile(
    r"^\W*(?:how\s+many|count\b(?!\s+of\s+(?:the\s+)?(?:mean|average|median|max|min))|number\s+of|#)"
    r"(?!\s*(?:days?|hours?|weeks?|months?|years?|minutes?|units?|mg|g|kg|ml|l|mmol|doses?)\b)",
    re.I,
)
"""A question that asks for a count from its first words."""


# A summary word ('mean', 'longest', 'last', 'total'...) choosing one of a patient's stays.
_SUMMARY = re.compile(
    r"\b(?:mean|average|avg|median|total|sum|overall|combined|max(?:imum)?|min(?:imum)?|longest|"
    r"shortest|first|last|latest|earliest|most\s+recent|recent|each|every|all|per)\b",
    re.I,
)
# When an age is taken: now ('current', 'today', 'as of') or at an event ('at diagnosis').
_AGE_NOW = re.compile(r"\b(?:now|current(?:ly)?|today|present(?:-day)?|as\s+of)\b", re.I)
_AGE_AT = re.compile(
    r"\b(?:at|when|on|of\s+onset)\b(?!\s+(?:least|most)\b)",
    re.I,
)
_AGE_WORD = re.compile(r"\bages?\b|\bhow\s+old\b|\byoungest\b|\boldest\b", re.I)
_TWO_DIGIT_DECADE = re.compile(r"\b(?:in|during|from|over)\s+the\s+(?P<d>[1-9]0)'?s\b", re.I)
_BORN = re.compile(r"\b(?:born|births?|birth\s*dates?|dob|d\.o\.b)\b", re.I)
_MATERIAL = 0.05
"""Two readings of a mean that differ by more than this share of the larger leave a choice."""


def _apart(value: float, others: dict[str, float]) -> dict[str, float]:
    """The readings among ``others`` that differ from ``value`` materially."""
    return {k: v for k, v in others.items() if abs(v - value) > _MATERIAL * max(abs(v), abs(value))}


_PATIENTS_SAID = re.compile(
    r"\b(?:pts?|patients?|people|persons?|cohort|population|subjects?|our)\b", re.I
)
_READINGS_SAID = re.compile(
    r"\b(?:readings?|values?|measurements?|measured|results?|tests?|records?|recorded|rows?|"
    r"observations?|all|every|each|per|any|latest|last|recent|first|baseline|value_as_number|"
    r"value_num|samples?|levels?\s+(?:recorded|measured|taken))\b",
    re.I,
)
_DEATH_SAID = re.compile(r"\b(?:died|dead|deaths?|deceased|alive|living|survivors?)\b", re.I)
# 'last year' / 'last month': the previous calendar period or the past 12 months / 30 days.
_LAST_PERIOD = re.compile(r"\b(?:last|previous|prior)\s+(?P<u>yr|year|month|mo)\b", re.I)
_PERIOD_PINNED = re.compile(
    r"\bcalendar\b|\b\d+\s*(?:months?|mos?|days?|weeks?|wks?)\b|\b(?:12|twelve|30|thirty)\b|"
    r"\brolling\b|\btrailing\b",
    re.I,
)


def _ambiguous(detail: str, alternatives: Sequence[Alternative] = ()) -> Check:
    return failed("reading_unique", "ambiguous", detail, alternatives)


def check_ambiguous(
    plan: QueryPlan | None, question: str | None, ctx: _Ctx | None = None
) -> list[Check]:
    """Failed checks for a plan that settled a choice the question leaves open.

    With ``ctx`` (the executed draft), a choice between a few readings lists each with its
    value (:mod:`._acceptance_alts`).
    """
    if plan is None or not question:
        return []
    from clinbridge.engine import _acceptance_alts as alts

    def readings(build: Callable[[_Ctx, QueryPlan], list[Alternative]]) -> list[Alternative]:
        assert plan is not None
        return build(ctx, plan) if ctx is not None else []

    out: list[Check] = []
    op = plan.aggregate.op
    if plan.patient_id and plan.measure.of == "length_of_stay" and not _SUMMARY.search(question):
        out.append(
            _ambiguous(
                "one patient may have several stays: say which length of stay is wanted "
                "(the last, the longest, the mean or the total)",
                readings(alts.stay_summaries),
            )
        )
    if (
        plan.measure.of == "age"
        and plan.measure.age_at is None
        and not plan.patient_id
        and op in {"mean", "median", "min", "max", "stddev"}
        and any(getattr(f, "kind", None) == "event" for f in plan.filters)
    ):
        after = _AGE_WORD.split(question, maxsplit=1)
        if len(after) == 2 and not _AGE_NOW.search(question) and not _AGE_AT.search(after[1]):
            out.append(
                _ambiguous(
                    "the age of patients who had an event can be taken today or at the event: "
                    "say 'current age' or 'age at (first) diagnosis'",
                    readings(alts.age_now_or_at),
                )
            )
    if (
        plan.patient_id
        and plan.measure.of == "age"
        and plan.measure.age_at is None
        and any(getattr(f, "kind", None) == "event" for f in plan.filters)
    ):
        # 'pt 96 age @ CABG': the event names when the age is taken, not which patient
        out.append(
            _ambiguous(
                "the question names an event beside the patient's age: the age today or at "
                "that event? say 'age at (first) …' or 'current age'",
                readings(alts.age_now_or_at),
            )
        )
    if (
        ctx is not None
        and plan.measure.of == "age"
        and plan.measure.age_at is None
        and not _AGE_AT.search(question)
        and not _DEATH_SAID.search(question)
        and not any(
            getattr(f, "kind", None) == "age" and getattr(f, "at", None) for f in plan.filters
        )
        and alts.deaths_in_cohort(ctx, plan)
    ):
        # 'how old is pt 7', 'mean age of our patients': someone asked about has died, so
        # their age today is years since birth, not an age they reached
        said = (
            "the patient has died: the age today (years since birth) or the age at death? "
            "say 'age at death' or 'years since birth'"
            if plan.patient_id
            else "some of the patients have died: the age today of all (years since birth), "
            "the age at death for the dead, or the living only? say which"
        )
        out.append(
            _ambiguous(
                said,
                readings(alts.age_of_the_dead),
            )
        )
    decade = _TWO_DIGIT_DECADE.search(question)
    if decade is not None and not _BORN.search(question):
        d = int(decade["d"])
        found = readings(lambda c, p: alts.decade_or_age(c, p, d))
        if (len(found) == 2 and found[0].value != found[1].value) or (ctx is None and d >= 10):
            out.append(
                _ambiguous(
                    f"{decade[0].strip()!r} reads as the calendar decade 19{d:02d}s or as an age "
                    f"of {d}-{d + 9} at the event: say 'in the 19{d:02d}s' or 'aged {d}-{d + 9}'",
                    found,
                )
            )
    if (
        ctx is not None
        and plan.measure.of == "value"
        and not plan.patient_id
        and not plan.group_by
        and op == "mean"
        and _PATIENTS_SAID.search(question)
        and not _READINGS_SAID.search(question)
        and isinstance(ctx.value, (int, float))
        and (apart := _apart(float(ctx.value), alts.per_patient_means(ctx)))
    ):
        # 'average weight of the patients': patients weighed many times weigh more in a mean
        # over readings than in a mean over patients, and here the two differ
        said = ", ".join(f"{k}: {v:.4g}" for k, v in apart.items())
        out.append(
            _ambiguous(
                f"the mean over every recorded value ({float(ctx.value):.4g}) or over patients, "
                f"each patient once ({said})? say 'all readings' or 'each patient's latest'",
                [alts.reading(ctx, "every recorded value", plan, ctx.value)],
            )
        )
    # a negated age at death is 'no recorded death' (alive): no second age to confuse
    ages = [
        f
        for f in plan.filters
        if getattr(f, "kind", None) == "age" and not getattr(f, "negate", False)
    ]
    if any(getattr(f, "at", None) is not None for f in ages) and any(
        getattr(f, "at", None) is None for f in ages
    ):
        # 'pts who died before 65': the bound read as today's age beside an age at death
        out.append(
            _ambiguous(
                "an age bound stands beside an age taken at an event (e.g. at death): "
                "is the bound on that age or on today's age? say 'aged under 65 at death'"
            )
        )
    from clinbridge.engine._age_summary import age_summary_unsaid

    out += age_summary_unsaid(plan, question, ctx)
    from clinbridge.engine.understand._typos import fix_structure_typos

    m = _LAST_PERIOD.search(question) or _LAST_PERIOD.search(fix_structure_typos(question, None))
    windowed = plan.window is not None or any(getattr(f, "window", None) for f in plan.filters)
    if m and windowed and not _PERIOD_PINNED.search(question):
        unit = "year" if m["u"].lower().startswith("y") else "month"
        span = "12 months" if unit == "year" else "30 days"
        out.append(
            _ambiguous(
                f"'{m[0]}' reads as the previous calendar {unit} or as the past {span}: "
                f"say 'in calendar …' or 'in the past {span}'"
            )
        )
    return out
