"""The flattened FHIR tables: names, columns, portable types, DDL and views.

The layout follows the spirit of SQL-on-FHIR v2 ViewDefinitions: one row per resource (or per
observation component / report result / care-plan activity), codes with their system, and every
timestamp twice: ``<name>`` is the local wall-clock time as written (a TIMESTAMP, for date
arithmetic) and ``<name>_text`` is the verbatim FHIR value, so the time-zone offset and the
precision stay recoverable. ``fhir_resource`` keeps every resource whole (flattened or not).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CODE_TABLE",
    "CONCEPT_MAP_TABLE",
    "LOAD_TABLE",
    "QUARANTINE_TABLE",
    "RESOURCE_TABLE",
    "TABLES",
    "VIEWS",
    "Table",
    "column_type",
    "ddl",
    "view_ddl",
]


@dataclass(frozen=True)
class Table:
    """One flattened FHIR table: its columns and the resource type that owns its rows."""

    name: str
    owner: str
    """Resource type whose id owns the rows (upserts delete by it)."""
    owner_column: str
    columns: tuple[tuple[str, str], ...]
    """(name, portable type): text, float, integer, boolean, timestamp, date."""
    description: str = ""

    @property
    def column_names(self) -> tuple[str, ...]:
        """The column names, in table order."""
        return tuple(c for c, _ in self.columns)


def _ts(name: str) -> tuple[tuple[str, str], tuple[str, str]]:
    return (name, "timestamp"), (f"{name}_text", "text")


_CODE = (("code_system", "text"), ("code", "text"), ("display", "text"))
_EVENT = (("id", "text"), ("patient_id", "text"), ("encounter_id", "text"))
"""The columns an event table starts with: its resource id and the patient and encounter ids."""

TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        Table(
            "fhir_patient",
            "Patient",
            "id",
            (
                ("id", "text"),
                ("gender", "text"),
                ("birth_date", "date"),
                ("birth_date_text", "text"),
                ("deceased", "boolean"),
                *_ts("deceased_time"),
                ("death_date", "date"),
                ("family_name", "text"),
                ("given_name", "text"),
                ("mrn", "text"),
                ("race_code", "text"),
                ("race", "text"),
                ("ethnicity_code", "text"),
                ("ethnicity", "text"),
                ("birth_sex", "text"),
                ("marital_status", "text"),
                ("city", "text"),
                ("state", "text"),
                ("postal_code", "text"),
                ("country", "text"),
            ),
            "One row per Patient; id is the FHIR Patient.id users type.",
        ),
        Table(
            "fhir_encounter",
            "Encounter",
            "id",
            (
                ("id", "text"),
                ("patient_id", "text"),
                ("status", "text"),
                ("class_system", "text"),
                ("class_code", "text"),
                ("type_system", "text"),
                ("type_code", "text"),
                ("type_display", "text"),
                *_ts("start_time"),
                *_ts("end_time"),
                ("reason_system", "text"),
                ("reason_code", "text"),
                ("reason_display", "text"),
                ("discharge_disposition", "text"),
                ("service_provider", "text"),
                ("participant", "text"),
            ),
            "One row per Encounter; class_code is the v3 ActCode class (AMB, EMER, IMP, ...).",
        ),
        Table(
            "fhir_observation",
            "Observation",
            "id",
            (
                ("id", "text"),
                ("component", "integer"),
                ("row_kind", "text"),
                ("patient_id", "text"),
                ("encounter_id", "text"),
                ("status", "text"),
                ("category", "text"),
                *_CODE,
                ("panel_code", "text"),
                *_ts("effective_time"),
                ("issued_text", "text"),
                ("value_type", "text"),
                ("value_num", "float"),
                ("value_comparator", "text"),
                ("unit", "text"),
                ("unit_code", "text"),
                ("unit_system", "text"),
                ("value_code_system", "text"),
                ("value_code", "text"),
                ("value_text", "text"),
                ("value_high", "float"),
                ("interpretation", "text"),
                ("data_absent_reason", "text"),
            ),
            "One row per Observation (component 0) and one per component (1..n, e.g. the two parts "
            "of a blood-pressure panel, panel_code = the panel's code). value_num holds numeric "
            "value[x] (Quantity, integer, decimal, Range low, Ratio numerator/denominator); "
            "value_text a text form of every value[x] kind.",
        ),
        Table(
            "fhir_condition",
            "Condition",
            "id",
            (
                *_EVENT,
                ("clinical_status", "text"),
                ("verification_status", "text"),
                ("category", "text"),
                *_CODE,
                *_ts("onset_time"),
                *_ts("abatement_time"),
                *_ts("recorded_time"),
            ),
        ),
        Table(
            "fhir_medication",
            "Medication",
            "id",
            (("id", "text"), *_CODE, ("form", "text")),
            "Medication resources (referenced by medicationReference).",
        ),
        Table(
            "fhir_medication_request",
            "MedicationRequest",
            "id",
            (
                *_EVENT,
                ("status", "text"),
                ("intent", "text"),
                *_CODE,
                ("medication_reference", "text"),
                *_ts("authored_on"),
                ("dosage_text", "text"),
                ("dose_value", "float"),
                ("dose_unit", "text"),
                ("frequency", "float"),
                ("period", "float"),
                ("period_unit", "text"),
                ("as_needed", "boolean"),
                ("route", "text"),
                ("reason_code", "text"),
                ("reason_reference", "text"),
                ("requester", "text"),
                ("days_supply", "float"),
                ("quantity", "float"),
            ),
        ),
        Table(
            "fhir_medication_administration",
            "MedicationAdministration",
            "id",
            (
                *_EVENT,
                ("status", "text"),
                *_CODE,
                ("medication_reference", "text"),
                *_ts("start_time"),
                *_ts("end_time"),
                ("dose_value", "float"),
                ("dose_unit", "text"),
                ("route", "text"),
                ("reason_code", "text"),
            ),
        ),
        Table(
            "fhir_procedure",
            "Procedure",
            "id",
            (
                *_EVENT,
                ("status", "text"),
                *_CODE,
                *_ts("start_time"),
                *_ts("end_time"),
                ("reason_code", "text"),
                ("reason_reference", "text"),
                ("body_site", "text"),
            ),
        ),
        Table(
            "fhir_immunization",
            "Immunization",
            "id",
            (
                *_EVENT,
                ("status", "text"),
                *_CODE,
                *_ts("occurrence_time"),
                ("primary_source", "boolean"),
                ("lot_number", "text"),
            ),
        ),
        Table(
            "fhir_allergy",
            "AllergyIntolerance",
            "id",
            (
                *_EVENT,
                ("clinical_status", "text"),
                ("verification_status", "text"),
                ("allergy_type", "text"),
                ("category", "text"),
                ("criticality", "text"),
                *_CODE,
                *_ts("onset_time"),
                *_ts("recorded_time"),
                ("reaction", "text"),
                ("severity", "text"),
            ),
        ),
        Table(
            "fhir_diagnostic_report",
            "DiagnosticReport",
            "id",
            (
                *_EVENT,
                ("status", "text"),
                ("category", "text"),
                *_CODE,
                *_ts("effective_time"),
                ("issued_text", "text"),
                ("conclusion", "text"),
                ("result_count", "integer"),
            ),
        ),
        Table(
            "fhir_diagnostic_report_result",
            "DiagnosticReport",
            "report_id",
            (
                ("report_id", "text"),
                ("seq", "integer"),
                ("observation_id", "text"),
                ("display", "text"),
            ),
            "DiagnosticReport.result references, resolved to Observation ids.",
        ),
        Table(
            "fhir_care_plan",
            "CarePlan",
            "id",
            (
                *_EVENT,
                ("status", "text"),
                ("intent", "text"),
                *_CODE,
                *_ts("start_time"),
                *_ts("end_time"),
                ("addresses", "text"),
            ),
            "code is the first category coding (Synthea puts the plan's kind there).",
        ),
        Table(
            "fhir_care_plan_activity",
            "CarePlan",
            "care_plan_id",
            (
                ("care_plan_id", "text"),
                ("seq", "integer"),
                ("status", "text"),
                *_CODE,
            ),
        ),
        Table(
            "fhir_note",
            "DocumentReference",
            "id",
            (
                ("id", "text"),
                ("seq", "integer"),
                ("patient_id", "text"),
                ("encounter_id", "text"),
                ("status", "text"),
                ("category", "text"),
                *_CODE,
                *_ts("note_time"),
                ("title", "text"),
                ("author", "text"),
                ("content_type", "text"),
                ("text", "text"),
            ),
            "DocumentReference attachments, base64 decoded (one row per text attachment).",
        ),
    )
}

RESOURCE_TABLE = Table(
    "fhir_resource",
    "*",
    "id",
    (
        ("resource_type", "text"),
        ("id", "text"),
        ("flattened", "boolean"),
        ("file", "text"),
        ("record", "text"),
        ("load_id", "text"),
        ("json", "text"),
    ),
    "Every loaded resource whole (nothing dropped), flattened or not.",
)

QUARANTINE_TABLE = Table(
    "fhir_quarantine",
    "",
    "",
    (
        ("load_id", "text"),
        ("file", "text"),
        ("record", "text"),
        ("resource_type", "text"),
        ("id", "text"),
        ("field", "text"),
        ("reason", "text"),
        ("json", "text"),
    ),
    "Rejected records with the reason (file, record, field).",
)

CODE_TABLE = Table(
    "fhir_code",
    "",
    "",
    (
        ("system", "text"),
        ("code", "text"),
        ("display", "text"),
        ("vocabulary_id", "text"),
        ("concept_id", "integer"),
        ("standard_concept_id", "integer"),
    ),
    "Every (system, code) seen at load, display cleaned; OMOP concepts when a vocabulary is loaded.",
)

CONCEPT_MAP_TABLE = CODE_TABLE  # the OMOP link lives in fhir_code's concept columns

LOAD_TABLE = Table(
    "fhir_load",
    "",
    "",
    (("load_id", "text"), ("started_at", "text"), ("finished_at", "text"), ("report", "text")),
    "One row per load run with its reconciliation report (JSON).",
)

VIEWS: dict[str, str] = {
    "fhir_measurement": ("SELECT * FROM fhir_observation WHERE value_num IS NOT NULL"),
    "fhir_observation_value": (
        "SELECT * FROM fhir_observation WHERE value_num IS NULL AND row_kind <> 'panel'"
    ),
    "fhir_drug": (
        "SELECT id, 'MedicationRequest' AS source_type, patient_id, encounter_id, status, "
        "code_system, code, display, authored_on AS start_time, authored_on_text AS start_time_text, "
        "CAST(NULL AS TIMESTAMP) AS end_time, dose_value, dose_unit, days_supply, quantity "
        "FROM fhir_medication_request UNION ALL "
        "SELECT id, 'MedicationAdministration', patient_id, encounter_id, status, code_system, code, "
        "display, start_time, start_time_text, end_time, dose_value, dose_unit, "
        "CAST(NULL AS DOUBLE PRECISION), CAST(NULL AS DOUBLE PRECISION) "
        "FROM fhir_medication_administration"
    ),
    "fhir_death": (
        "SELECT id AS patient_id, death_date, deceased_time, deceased_time_text FROM fhir_patient "
        "WHERE death_date IS NOT NULL"
    ),
    "fhir_observation_period": (
        "SELECT patient_id, MIN(start_time) AS start_time, "
        "MAX(COALESCE(end_time, start_time)) AS end_time "
        "FROM fhir_encounter GROUP BY patient_id"
    ),
}


_TYPES = {
    "duckdb": {
        "text": "VARCHAR",
        "float": "DOUBLE",
        "integer": "BIGINT",
        "boolean": "BOOLEAN",
        "timestamp": "TIMESTAMP",
        "date": "DATE",
    },
    "postgres": {
        "text": "TEXT",
        "float": "DOUBLE PRECISION",
        "integer": "BIGINT",
        "boolean": "BOOLEAN",
        "timestamp": "TIMESTAMP",
        "date": "DATE",
    },
    "sqlite": {
        "text": "TEXT",
        "float": "REAL",
        "integer": "INTEGER",
        "boolean": "INTEGER",
        "timestamp": "TIMESTAMP",
        "date": "DATE",
    },
}


def column_type(backend: str, portable: str) -> str:
    """The SQL type of a portable column type on ``backend``."""
    return _TYPES[backend][portable]


_WHOLE_JSON = {("fhir_resource", "json"), ("fhir_quarantine", "json")}
_ZSTD = " USING COMPRESSION zstd"
"""DuckDB: whole-resource JSON is stored zstd-compressed; a quarter of the disk of the default
(FSST/dictionary) and less CPU to write, since DuckDB skips trying every codec on it."""


def ddl(table: Table, backend: str) -> list[str]:
    """CREATE TABLE (and index) statements for one table."""
    cols = ", ".join(
        f'"{c}" {column_type(backend, t)}'
        + (_ZSTD if backend == "duckdb" and (table.name, c) in _WHOLE_JSON else "")
        for c, t in table.columns
    )
    out = [f'CREATE TABLE IF NOT EXISTS "{table.name}" ({cols})']
    if backend != "duckdb" and table.owner_column:
        out.append(
            f'CREATE INDEX IF NOT EXISTS "ix_{table.name}_{table.owner_column}" '
            f'ON "{table.name}" ("{table.owner_column}")'
        )
    return out


def view_ddl(name: str, backend: str) -> str:
    """The CREATE VIEW statement of the view ``name`` on ``backend``."""
    body = VIEWS[name]
    if backend == "sqlite":
        body = body.replace("DOUBLE PRECISION", "REAL")
        return f'CREATE VIEW IF NOT EXISTS "{name}" AS {body}'
    return f'CREATE OR REPLACE VIEW "{name}" AS {body}'
