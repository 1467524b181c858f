"""FHIR R4 (Synthea) adapter: bundles and bulk NDJSON → flattened tables → catalog.

``load_fhir(paths, url)`` loads; :class:`FhirAdapter` describes the loaded tables as a
:class:`~clinbridge.catalog.Catalog` (patients addressed by their FHIR Patient.id, encounter
classes mapped to canonical types, event streams with (system, code) codes and UCUM units),
so the engine needs no FHIR-specific code. ``export_omop`` writes OMOP CDM 5.4 tables.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from clinbridge.adapters._attributes import read_attribute
from clinbridge.adapters._schema import SchemaNames
from clinbridge.adapters.base import SourceAdapter
from clinbridge.adapters.fhir.loader import FhirLoader, LoadReport, load_fhir, vocabulary_id
from clinbridge.adapters.fhir.schema import (
    CODE_TABLE,
    LOAD_TABLE,
    QUARANTINE_TABLE,
    RESOURCE_TABLE,
    TABLES,
    VIEWS,
)
from clinbridge.catalog import (
    Catalog,
    ColumnInfo,
    Dictionary,
    EncounterTable,
    EncounterType,
    EventStream,
    PatientAttribute,
    PatientTable,
    TableInfo,
)

if TYPE_CHECKING:
    from clinbridge.db import Database

__all__ = [
    "ENCOUNTER_CLASS_MAP",
    "FhirAdapter",
    "FhirLoader",
    "LoadReport",
    "load_fhir",
    "vocabulary_id",
]

logger = logging.getLogger(__name__)

ENCOUNTER_CLASS_MAP: dict[str, EncounterType] = {
    # HL7 v3 ActCode encounter classes (FHIR R4 Encounter.class)
    "AMB": "outpatient",
    "EMER": "emergency",
    "IMP": "inpatient",
    "ACUTE": "inpatient",
    "NONAC": "inpatient",
    "SS": "inpatient",
    "OBSENC": "outpatient",
    "PRENC": "outpatient",
    "VR": "outpatient",
    "HH": "other",
    "FLD": "other",
    "ICU": "icu",
    # textual classes some exporters write (Synthea's own encounter classes)
    "ambulatory": "outpatient",
    "outpatient": "outpatient",
    "wellness": "outpatient",
    "urgentcare": "emergency",
    "emergency": "emergency",
    "inpatient": "inpatient",
    "icu": "icu",
    "home": "other",
    "virtual": "outpatient",
}

_SEX = {"male": "male", "female": "female", "other": "other", "unknown": "unknown"}
_PORTABLE = {
    "text": "string",
    "float": "float",
    "integer": "integer",
    "boolean": "boolean",
    "timestamp": "timestamp",
    "date": "date",
}

_COLUMN_NOTES = {
    "patient_id": "FHIR Patient.id",
    "encounter_id": "FHIR Encounter.id",
    "code_system": "code system URI (http://loinc.org, http://snomed.info/sct, ...)",
    "unit_code": "UCUM unit code",
}


def _table_info(
    name: str, columns: tuple[tuple[str, str], ...], description: str, rows: int | None
) -> TableInfo:
    cols = []
    for col, typ in columns:
        note = _COLUMN_NOTES.get(col, "")
        if col.endswith("_text") and typ == "text" and col[:-5] in {c for c, _ in columns}:
            note = "verbatim FHIR value (keeps the time-zone offset and precision)"
        cols.append(ColumnInfo(name=col, type=_PORTABLE[typ], description=note))
    return TableInfo(name=name, columns=tuple(cols), description=description, row_count=rows)


def _view_columns(view: str) -> tuple[tuple[str, str], ...]:
    if view in ("fhir_measurement", "fhir_observation_value"):
        return TABLES["fhir_observation"].columns
    if view == "fhir_death":
        return (
            ("patient_id", "text"),
            ("death_date", "date"),
            ("deceased_time", "timestamp"),
            ("deceased_time_text", "text"),
        )
    if view == "fhir_observation_period":
        return (("patient_id", "text"), ("start_time", "timestamp"), ("end_time", "timestamp"))
    return (
        ("id", "text"),
        ("source_type", "text"),
        ("patient_id", "text"),
        ("encounter_id", "text"),
        ("status", "text"),
        ("code_system", "text"),
        ("code", "text"),
        ("display", "text"),
        ("start_time", "timestamp"),
        ("start_time_text", "text"),
        ("end_time", "timestamp"),
        ("dose_value", "float"),
        ("dose_unit", "text"),
        ("days_supply", "float"),
        ("quantity", "float"),
    )


_VIEW_NOTES = {
    "fhir_measurement": "Observation rows (and components) with a numeric value: measurements.",
    "fhir_observation_value": "Observation rows without a numeric value (coded, text, boolean, ...).",
    "fhir_drug": "MedicationRequest and MedicationAdministration together (source_type says which).",
    "fhir_observation_period": "Per patient: first encounter start to last encounter end.",
    "fhir_death": "Deceased patients with their date of death (Patient.deceasedDateTime).",
}


def _stream(
    name: str,
    kind: str,
    table: str,
    time: str,
    description: str,
    **kw: str | tuple[str, ...] | None,
) -> EventStream:
    return EventStream(
        name=name,
        kind=kind,
        table=table,
        patient_column="patient_id",
        time_column=time,  # type: ignore[arg-type]
        code_column="code",
        system_column="code_system",
        encounter_column="encounter_id",
        source_value_column="code",
        label_column="display",
        dictionary="fhir_code",
        description=description,
        **kw,  # type: ignore[arg-type]
    )


STREAMS: tuple[EventStream, ...] = (
    _stream(
        "measurement",
        "measurement",
        "fhir_measurement",
        "effective_time",
        "Observations with numeric values (vital signs, labs; BP components as their own rows), "
        "LOINC codes, UCUM units",
        value_column="value_num",
        value_text_column="value_text",
        unit_column="unit_code",
        unit_label_column="unit",
    ),
    _stream(
        "observation",
        "observation",
        "fhir_observation_value",
        "effective_time",
        "Observations with coded / text / boolean values (surveys, social history)",
        value_text_column="value_text",
    ),
    _stream(
        "condition",
        "condition",
        "fhir_condition",
        "onset_time",
        "Conditions (SNOMED), onset to abatement",
        end_time_column="abatement_time",
        status_column="clinical_status",
        status_active=("active", "recurrence", "relapse"),
        status_ended=("inactive", "remission", "resolved"),
    ),
    _stream(
        "drug",
        "drug",
        "fhir_drug",
        "start_time",
        "Medication requests (authoredOn) and administrations (RxNorm)",
        end_time_column="end_time",
        status_column="status",
        status_active=("active", "in-progress"),
        status_ended=("stopped", "completed"),
        days_supply_column="days_supply",
        quantity_column="quantity",
        value_column="dose_value",
        unit_label_column="dose_unit",
    ),
    _stream(
        "procedure",
        "procedure",
        "fhir_procedure",
        "start_time",
        "Procedures (SNOMED)",
        end_time_column="end_time",
    ),
    _stream(
        "immunization",
        "observation",
        "fhir_immunization",
        "occurrence_time",
        "Immunizations (CVX vaccine codes)",
    ),
    _stream(
        "allergy",
        "observation",
        "fhir_allergy",
        "recorded_time",
        "Allergies and intolerances",
        value_text_column="reaction",
    ),
    _stream(
        "diagnostic_report",
        "observation",
        "fhir_diagnostic_report",
        "effective_time",
        "Diagnostic reports (LOINC panel codes); results in fhir_diagnostic_report_result",
        text_column="conclusion",
    ),
    _stream(
        "note",
        "note",
        "fhir_note",
        "note_time",
        "Clinical notes (DocumentReference, base64 decoded)",
        text_column="text",
        title_column="title",
    ),
)


def _attributes(db: Database) -> tuple[PatientAttribute, ...]:
    """Race and ethnicity (US Core extensions' display text) and the home address's city and
    state, as ``clinbridge load fhir`` writes them on the patient table."""
    s = SchemaNames(db)
    found = (
        read_attribute(s, "fhir_patient", name, s.column("fhir_patient", name))  # type: ignore[arg-type]
        for name in ("race", "ethnicity", "city", "state")
    )
    return tuple(a for a in found if a is not None)


class FhirAdapter(SourceAdapter):
    """Tables written by ``clinbridge load fhir``."""

    name = "fhir"
    version = "1"
    PRIORITY = 50

    @classmethod
    def detect(cls, db: Database) -> bool:
        """Whether ``db`` holds the flattened FHIR tables."""
        names = {t.lower() for t in db.table_names()}
        return {"fhir_patient", "fhir_resource"} <= names

    def catalog(self, db: Database, *, source: str | None = None) -> Catalog:
        """The catalog of the flattened FHIR tables in ``db``."""
        present = {t.lower() for t in db.table_names()}

        def count(table: str) -> int | None:
            if table not in present:
                return None
            return int(db.execute(f'SELECT COUNT(*) FROM "{table}"', max_rows=1).rows[0][0])

        tables: list[TableInfo] = []
        for t in (*TABLES.values(), RESOURCE_TABLE, QUARANTINE_TABLE, CODE_TABLE, LOAD_TABLE):
            if t.name in present:
                tables.append(_table_info(t.name, t.columns, t.description, count(t.name)))
        for v in VIEWS:
            if v in present:
                tables.append(_table_info(v, _view_columns(v), _VIEW_NOTES[v], None))
        data_start = data_end = None
        if "fhir_encounter" in present:
            lo, hi = db.execute(
                'SELECT MIN("start_time"), MAX("start_time") FROM "fhir_encounter"', max_rows=1
            ).rows[0]
            data_start = str(lo)[:10] if lo is not None else None
            data_end = str(hi)[:10] if hi is not None else None
        linked = 0
        if "fhir_code" in present:
            linked = int(
                db.execute(
                    'SELECT COUNT(*) FROM "fhir_code" WHERE "concept_id" IS NOT NULL', max_rows=1
                ).rows[0][0]
            )
        streams = tuple(s for s in STREAMS if s.table in present)
        return Catalog(
            source=source or "fhir",
            adapter="fhir",
            adapter_version=self.version,
            dialect=db.dialect,
            schema_name=db.schema,
            patients=PatientTable(
                table="fhir_patient",
                id_column="id",
                birth_date_column="birth_date",
                sex_column="gender",
                sex_values=_SEX,  # type: ignore[arg-type]
                death_table="fhir_death",
                death_patient_column="patient_id",
                death_date_column="death_date",
                observation_table="fhir_observation_period",
                observation_patient_column="patient_id",
                observation_start_column="start_time",
                observation_end_column="end_time",
                external_id_column="id",
                given_name_column="given_name",
                family_name_column="family_name",
                attributes=_attributes(db) if "fhir_patient" in present else (),
            ),
            encounters=EncounterTable(
                table="fhir_encounter",
                id_column="id",
                patient_column="patient_id",
                start_column="start_time",
                end_column="end_time",
                type_column="class_code",
                type_map=ENCOUNTER_CLASS_MAP,
                label="encounter",
                detail_column="type_display",
            ),
            streams=streams,
            dictionaries=(
                Dictionary(
                    name="fhir_code",
                    table="fhir_code",
                    code_column="code",
                    label_column="display",
                    system_column="system",
                    source_code_column="code",
                ),
            ),
            tables=tuple(tables),
            data_start=data_start,
            data_end=data_end,
            description=(
                "FHIR R4 resources flattened by clinbridge (SQL-on-FHIR style). Codes are matched by "
                "(system, code); fhir_code explains them"
                + (
                    f" and links {linked} of them to OMOP concepts (concept_id, standard_concept_id)"
                    if linked
                    else ""
                )
                + ". Timestamps are local wall-clock times; *_text columns keep the FHIR value with "
                "its offset. fhir_resource keeps every resource whole; fhir_quarantine the rejected ones."
            ),
        )
