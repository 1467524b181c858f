"""MIMIC-III v1.4, MIMIC-IV v2.x and EHRSQL-2024 tables as data: column types and required columns.

Types are portable (integer, float, string, timestamp). Integers are 64-bit; timestamps are kept
as ``YYYY-MM-DD HH:MM:SS``. A column not listed here is a timestamp when its name ends in
``time``/``date`` and text otherwise (MIMIC-IV's ``poe_id`` or ``note_id`` are text). ``REQUIRED`` lists the columns the catalog needs;
a file without one of them is refused as a whole (naming the file and the column), and a row with
an empty required value is quarantined.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = [
    "KNOWN_TABLES",
    "REQUIRED",
    "MimicType",
    "column_type",
]

MimicType = Literal["integer", "float", "string", "timestamp"]

_INTEGER = {
    "row_id",
    "subject_id",
    "hadm_id",
    "icustay_id",
    "stay_id",
    "transfer_id",
    "itemid",
    "seq_num",
    "icd_version",
    "anchor_age",
    "anchor_year",
    "age",
    "event_id",
    "cgid",
    "orderid",
    "linkorderid",
    "spec_itemid",
    "org_itemid",
    "ab_itemid",
    "isolate_num",
    "micro_specimen_id",
    "microevent_id",
    "expire_flag",
    "hospital_expire_flag",
    "prev_wardid",
    "curr_wardid",
    "pharmacy_id",
    "warning",
    "error",
    "iserror",
}
_FLOAT = {
    "valuenum",
    "amount",
    "totalamount",
    "originalamount",
    "originalrate",
    "rate",
    "patientweight",
    "los",
    "cost",
    "dilution_value",
}
_STRING = {
    # text despite the name, or a value that is not always a number
    "dose_val_rx",
    "form_val_disp",
    "value",
    "chartdate_text",
    "icd_code",
    "icd9_code",
    "anchor_year_group",
    "dbsource",
}
_TIMESTAMP = {"dob", "dod", "dod_hosp", "dod_ssn", "chartdate", "startdate", "enddate"}

# Table-specific types that differ from the name rules.
_OVERRIDES: dict[tuple[str, str], MimicType] = {
    ("outputevents", "value"): "float",
    ("chartevents", "value"): "string",
    ("labevents", "value"): "string",
}

KNOWN_TABLES = (
    "patients",
    "admissions",
    "icustays",
    "transfers",
    "services",
    "callout",
    "d_icd_diagnoses",
    "d_icd_procedures",
    "diagnoses_icd",
    "procedures_icd",
    "d_labitems",
    "labevents",
    "d_items",
    "chartevents",
    "datetimeevents",
    "inputevents",
    "inputevents_mv",
    "inputevents_cv",
    "outputevents",
    "procedureevents",
    "procedureevents_mv",
    "prescriptions",
    "pharmacy",
    "emar",
    "microbiologyevents",
    "noteevents",
    "discharge",
    "radiology",
    "cost",
    "drgcodes",
    "cptevents",
    "d_cpt",
    "caregivers",
    "caregiver",
    "provider",
    "hcpcsevents",
    "d_hcpcs",
    "poe",
    "omr",
)
"""Tables the loader knows (MIMIC-III, MIMIC-IV hosp/icu/note, EHRSQL-2024); others are skipped."""

REQUIRED: dict[str, tuple[tuple[str, ...], ...]] = {
    # each entry: alternatives (any one of them satisfies the requirement)
    "patients": (("subject_id",), ("gender",), ("dob", "anchor_age")),
    "admissions": (("subject_id",), ("hadm_id",), ("admittime",)),
    "icustays": (("subject_id",), ("hadm_id",), ("icustay_id", "stay_id"), ("intime",)),
    "transfers": (("subject_id",), ("intime",)),
    "diagnoses_icd": (("subject_id",), ("hadm_id",), ("icd9_code", "icd_code")),
    "procedures_icd": (("subject_id",), ("hadm_id",), ("icd9_code", "icd_code")),
    "d_icd_diagnoses": (("icd9_code", "icd_code"), ("long_title",)),
    "d_icd_procedures": (("icd9_code", "icd_code"), ("long_title",)),
    "d_labitems": (("itemid",), ("label",)),
    "d_items": (("itemid",), ("label",)),
    "labevents": (("subject_id",), ("itemid",), ("charttime",)),
    "chartevents": (("subject_id",), ("itemid",), ("charttime",)),
    "inputevents": (("subject_id",), ("itemid",), ("starttime",)),
    "inputevents_mv": (("subject_id",), ("itemid",), ("starttime",)),
    "inputevents_cv": (("subject_id",), ("itemid",), ("charttime",)),
    "outputevents": (("subject_id",), ("itemid",), ("charttime",)),
    "prescriptions": (("subject_id",), ("drug",), ("startdate", "starttime")),
    "microbiologyevents": (("subject_id",), ("chartdate", "charttime")),
    "noteevents": (("subject_id",), ("chartdate", "charttime"), ("text",)),
    "cost": (("subject_id",), ("hadm_id",), ("chargetime",), ("cost",)),
}
"""Columns without which a table cannot be catalogued."""

_TIME_NAME = re.compile(r"(time|date)$")


def column_type(table: str, column: str) -> MimicType:
    """The portable type of a MIMIC column (by table override, known name, then name pattern)."""
    t, c = table.lower(), column.lower()
    if (t, c) in _OVERRIDES:
        return _OVERRIDES[(t, c)]
    if c in _STRING:
        return "string"
    if c in _INTEGER:
        return "integer"
    if c in _FLOAT:
        return "float"
    if c in _TIMESTAMP or _TIME_NAME.search(c):
        return "timestamp"
    return "string"  # e.g. MIMIC-IV's poe_id, emar_id, note_id are text ids


def required_present(table: str, columns: set[str]) -> list[str]:
    """The required columns missing from ``columns`` (each as 'a or b' when there are choices)."""
    missing = []
    for choices in REQUIRED.get(table, ()):
        if not any(c in columns for c in choices):
            missing.append(" or ".join(choices))
    return missing
