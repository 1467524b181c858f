"""An age at an event asked of a cohort with no summary word ('age at CVA of the patient who
had the stroke', 'how old were they when diagnosed').

The reader takes the oldest; which summary (average, median, youngest, oldest) is meant is not
said. Where every summary gives the same age (one patient, or patients of one age) the question
has one answer and it is given; otherwise the reading abstains as ambiguous, the summaries
listed with their values.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine._acceptance_alts import reading
from clinbridge.engine._checks import failed
from clinbridge.engine.plan import Aggregate

if TYPE_CHECKING:
    from clinbridge.engine._checks import _Ctx
    from clinbridge.engine.answer import Check
    from clinbridge.engine.plan import QueryPlan

__all__ = ["age_summary_unsaid"]

_SAID = re.compile(
    r"\b(?:mean|average|avg|median|youngest|oldest|max(?:imum)?|min(?:imum)?|highest|lowest|"
    r"earliest|latest|range|each|every|all|list|distribution|spread|per|by|sum|total)\b",
    re.I,
)
_SUMMARIES = (("min", "the youngest"), ("max", "the oldest"), ("mean", "the average"))


def age_summary_unsaid(plan: QueryPlan, question: str, ctx: _Ctx | None) -> list[Check]:
    """Failed check when a cohort's age at an event has no summary said and the data's
    summaries differ (or, without the executed draft, cannot be compared)."""
    m = plan.measure
    if m.of != "age" or m.age_at is None or plan.patient_id or plan.group_by:
        return []
    if plan.aggregate.op != "max" or _SAID.search(question):
        return []
    detail = "say which summary of the ages is wanted (average, median, youngest, oldest)"
    if ctx is None:
        return [failed("reading_unique", "ambiguous", detail)]
    found = []
    for op, said in _SUMMARIES:
        variant = plan.model_copy(update={"aggregate": Aggregate(op=op)})
        found.append(
            reading(ctx, said, variant, ctx.value) if op == "max" else reading(ctx, said, variant)
        )
    values = {float(a.value) if isinstance(a.value, int | float) else repr(a.value) for a in found}
    if len(values) == 1 and found[0].value is not None:
        return []  # one patient (or one age): every summary is the same answer
    return [failed("reading_unique", "ambiguous", detail, found)]
