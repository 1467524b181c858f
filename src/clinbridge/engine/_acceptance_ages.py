"""Acceptance rules on age bounds the question leaves open: which boundary, and when.

An age bound read from everyday words settles two choices the words do not (devset11, written
blind: each settled choice was scored wrong):

* *the boundary* — 'over 65' is 'older than 65' (66 or more in completed years) to one reader
  and '65 or older' to another; where the two counts differ, the answer is ``ambiguous`` with
  both readings and their values. 'Under 18', '65+', '65 or older', '>= 65' are not affected;
* *the time* — 'children', 'kids', 'minors', 'adults', 'the elderly' with no 'today', 'still',
  'living', 'at diagnosis': the patients of that age today, or those seen at that age at any
  time in their records? The age-today reading is given with its value, the other named.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine import _acceptance_alts as alts
from clinbridge.engine._checks import failed

if TYPE_CHECKING:
    from clinbridge.engine._checks import Check, _Ctx
    from clinbridge.engine.plan import AgeFilter, QueryPlan

_OVER = re.compile(
    r"\b(?:over|above)\s+(?:the\s+age\s+of\s+|age\s+)?(?P<n>\d{1,3})\b"
    r"(?!\s*(?:\+|or\s+(?:older|more|over|above)|and\s+(?:older|over|up)|yrs?\s+or\s+older))",
    re.I,
)
# words for people of an age group, which carry no time of their own
_GROUP = re.compile(
    r"\b(?:kids?|child(?:ren)?|minors?|p(?:a)?ediatric|adolescents?|teens?|teenagers?|"
    r"infants?|babies|toddlers?|adults?|elderly|seniors?|geriatric|older\s+adults)\b",
    re.I,
)
# words that fix when the age is taken: today, or at an event
_WHEN = re.compile(
    r"\b(?:now|today|current(?:ly)?|still|presently|at\s+present|as\s+of|alive|living|"
    r"at|when|while|during|before|after|by\s+the\s+time|aged?|y/?o|years?\s+old|yrs?\s+old|"
    r"in\s+(?:19|20)\d\d)\b",
    re.I,
)


# an age tied to an event by the words around it: 'is at an age of 40 or more', 'age at onset',
# 'aged 40+ when diagnosed', 'age in whole years at the first X'
_AT_EVENT = re.compile(
    r"\bat\s+(?:an?\s+)?age\b|\bage[ds]?\s+(?:\S+\s+){0,4}?(?:at|when|on)\s+"
    r"(?:the\s+)?(?:time|onset|first|last|diagnos\w*|start|that|its|their|his|her)\b"
    r"|\bage\s+of\s+onset\b|\bonset\s+age\b",
    re.I,
)


def _ages(plan: QueryPlan) -> list[AgeFilter]:
    return [
        f
        for f in plan.filters
        if getattr(f, "kind", None) == "age" and not getattr(f, "negate", None)
    ]


def _with_age(plan: QueryPlan, old: AgeFilter, new: AgeFilter) -> QueryPlan:
    filters = tuple(new if f is old else f for f in plan.filters)
    return plan.model_copy(update={"filters": filters})


def _boundary(ctx: _Ctx, plan: QueryPlan, question: str) -> list[Check]:
    """'over 65' read as older than 65 where 65 or older gives another count."""
    if plan.aggregate.op not in {"count", "list", "proportion"} or plan.patient_id:
        return []
    for m in _OVER.finditer(question):
        n = int(m["n"])
        for f in _ages(plan):
            if f.op != ">" or f.value != n or f.value2 is not None:
                continue
            inclusive = _with_age(plan, f, f.model_copy(update={"op": ">="}))
            other = alts.run_variant(ctx, inclusive)
            if other is None or other == ctx.value:
                return []
            return [
                failed(
                    "age_boundary",
                    "ambiguous",
                    f"{m[0]!r} reads as older than {n} ({n + 1} or more in completed years: "
                    f"{ctx.value}) or as {n} or older ({other}): say '{n + 1} or older' or "
                    f"'{n} or older'",
                    [
                        alts.reading(ctx, f"aged {n + 1} or more", plan, ctx.value),
                        alts.reading(ctx, f"aged {n} or more", inclusive, other),
                    ],
                )
            ]
    return []


def _when(ctx: _Ctx, plan: QueryPlan, question: str) -> list[Check]:
    """'how many kids': aged so today, or seen at that age at any time?"""
    group = _GROUP.search(question)
    if group is None or _WHEN.search(question) or plan.patient_id:
        return []
    today = [f for f in _ages(plan) if f.at is None and f.window is None]
    if not today or plan.aggregate.op not in {"count", "list", "proportion"}:
        return []
    word = group[0]
    return [
        failed(
            "age_time",
            "ambiguous",
            f"{word!r} names an age but not when: the patients of that age today ({ctx.value}), "
            "or every patient seen at that age at any time in the records? say 'today' or "
            "'at any visit'",
            [alts.reading(ctx, f"{word} today (age on the question's date)", plan, ctx.value)],
        )
    ]


def _at_event(plan: QueryPlan, question: str) -> list[Check]:
    """'persons whose first otitis media is at an age >= 40' read as aged 40 or more today."""
    m = _AT_EVENT.search(question)
    if m is None or not any(getattr(f, "kind", None) == "event" for f in plan.filters):
        return []
    if not any(f.at is None for f in _ages(plan)):
        return []
    return [
        failed(
            "age_at_event",
            "question_not_covered",
            f"the question ties the age to an event ({m[0]!r}) but the reading takes the age "
            "on the question's date (today)",
        )
    ]


def check_ages(ctx: _Ctx) -> list[Check]:
    """Failed checks for an age bound whose boundary or time the question leaves open."""
    plan, question = ctx.plan, ctx.question
    if plan is None or not question or plan.group_by:
        return []
    return _at_event(plan, question) or _boundary(ctx, plan, question) or _when(ctx, plan, question)
