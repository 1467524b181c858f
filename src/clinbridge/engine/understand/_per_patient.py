"""An answer for each patient: 'lisinopril orders per patient', 'for each patient with prenatal
care, how many prenatal encounters are recorded', 'mean chloride per pt' — one row per patient
with such records, the patient's id and their number of records or the summary of their
values (``GroupBy(key="patient")``).

'Per patient' beside a count of patients says how they are counted ('each patient counted
once'); beside a mean of a number of records ('mean # of visits per patient') or of one value
chosen per patient ('the mean of each patient's latest BMI') it is one mean over the patients,
read elsewhere.
"""

from __future__ import annotations

import re
from typing import Any

from clinbridge.engine.plan import GroupBy, Measure

__all__ = ["per_patient_group", "value_per_patient"]

_RECORDS = frozenset({"events", "encounters"})


def per_patient_group(
    op: str,
    measure: Measure,
    patient_id: str | None,
    group_by: tuple[GroupBy, ...],
    said: bool,
) -> tuple[GroupBy, ...]:
    """The grouping by patient a count of records 'per patient' asks for, else nothing."""
    if not said or op != "count" or patient_id or group_by or measure.of not in _RECORDS:
        return ()
    return (GroupBy(key="patient"),)


_COUNT_SAID = re.compile(r"#|\bnumber\b|\bcount\b|\bhow\s+(?:many|often)\b|\btimes\b", re.I)
_SUMMARIES = frozenset({"mean", "median", "min", "max"})


def value_per_patient(a: Any, per_patient: bool) -> tuple[int, Any, str] | None:
    """The concept whose values a summary 'per patient' is taken of for each patient ('mean
    chloride per pt': a table of each patient's mean), or None. Not when a number of records
    is said ('mean # of chloride tests per pt': one mean of the per-patient numbers), nor when
    one value per patient is chosen first ('mean of each patient's latest BMI')."""
    from clinbridge.engine.understand._context import VALUE_STREAMS
    from clinbridge.engine.understand._slots import Slot

    if not per_patient or a.op not in _SUMMARIES or a.patient_id:
        return None
    items = a.items
    if not any(isinstance(i, Slot) and i.kind == "per_patient" for i in items):
        return None
    if any(
        isinstance(i, Slot)
        and i.kind in {"order", "group", "intent"}
        and (i.kind != "intent" or i.data.get("target") == "events")
        for i in items
    ):
        return None
    if _COUNT_SAID.search(a.ctx.question) or _ONE_PER.search(a.ctx.question):
        return None
    return a.first_concept(VALUE_STREAMS, with_values=True)


_ONE_PER = re.compile(
    r"\b(?:one|1|a\s+single)\s+(?:\w+\s+)?per\b|\beach\s+(?:patient|person)'s\b", re.I
)
