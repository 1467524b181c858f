"""'Which patient had the lowest hemoglobin?': the patient, not the value.

The rules read 'the lowest X' as the least value of X over the cohort; a question that asks
for the patient ('which patient ...', 'who had ...', 'patient_id of the ... row with the
minimum value_num') asks whose value that is. The reading becomes the patients ranked first by
their own lowest (or highest) value of X (``Aggregate.rank_by``), ties kept: every patient
whose value is the least of all.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.plan import Aggregate, Measure

if TYPE_CHECKING:
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.engine.understand._reading import Reading

__all__ = ["patient_at_extreme"]

# the patient asked for: 'which patient(s)', 'who', 'patient_id of', 'id of the patient'
_WHOSE = re.compile(
    r"^\s*(?:which|what)\s+(?:pts?|patients?|persons?|people|subjects?|women|men|individuals?)\b"
    r"|^\s*who\b"
    r"|^\s*(?:the\s+)?(?:patient_id|person_id|subject_id|patient\s+ids?|ids?)\s+of\b",
    re.I,
)
_LOW = re.compile(r"\b(?:lowest|least|smallest|minimum|min)\b", re.I)
_HIGH = re.compile(r"\b(?:highest|greatest|largest|biggest|maximum|max|peak)\b", re.I)


def _ranked(plan: QueryPlan, by: str) -> QueryPlan:
    m = plan.measure
    measure = Measure(of="patients", stream=m.stream, concepts=m.concepts, value=m.value)
    return plan.model_copy(
        update={"measure": measure, "aggregate": Aggregate(op="list", top=1, rank_by=by)}
    )


def patient_at_extreme(question: str, reading: Reading) -> Reading:
    """The reading, with a least / greatest value asked as whose it is read as that patient."""
    plan = reading.plan
    if plan is None or plan.patient_id or plan.group_by or plan.window is not None:
        return reading
    if plan.measure.of != "value" or plan.aggregate.op not in {"min", "max"}:
        return reading
    if plan.measure.concepts is None or plan.measure.stream is None:
        return reading
    if plan.aggregate.nth is not None or plan.minus is not None or not _WHOSE.search(question):
        return reading
    low, high = bool(_LOW.search(question)), bool(_HIGH.search(question))
    if low == high or (plan.aggregate.op == "min") != low:
        return reading  # the question and the reading disagree on which end
    try:
        ranked = _ranked(plan, "lowest" if low else "highest")
    except ValueError:
        return reading
    return reading.model_copy(update={"plan": ranked})
