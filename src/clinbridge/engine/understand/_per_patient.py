"""A count for each patient: 'lisinopril orders per patient', 'for each patient with prenatal
care, how many prenatal encounters are recorded' — one row per patient with such records,
the patient's id and their number of records (``GroupBy(key="patient")``).

Only a count of records (events or encounters) is split by patient: 'per patient' beside a
count of patients says how they are counted ('each patient counted once'), and beside a mean
or median it is the average of the per-patient numbers, read elsewhere.
"""

from __future__ import annotations

from clinbridge.engine.plan import GroupBy, Measure

__all__ = ["per_patient_group"]

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
