"""The MIMIC adapter: recognise a MIMIC-III, MIMIC-IV or EHRSQL-2024 database and describe it.

Works on databases this package loaded (``clinbridge load mimic``) and on existing ones (the
EHRSQL-2024 SQLite file, a MIMIC DuckDB or PostgreSQL schema), with table and column names in
any case. Which columns exist decides the description, so the same code serves:

* MIMIC-III v1.4: ``patients.dob``, ``icd9_code``, ``icustay_id``, ``curr_careunit``,
  ``prescriptions.startdate``, ``inputevents_mv``/``inputevents_cv``, ``noteevents``;
* MIMIC-IV v2.x: ``patients.anchor_age``/``anchor_year``, ``icd_code`` + ``icd_version``,
  ``stay_id``, ``transfers.careunit``, ``prescriptions.starttime``;
* EHRSQL-2024 (MIMIC-IV demo reshaped): ``patients.dob``, ``admissions.age``,
  ``diagnoses_icd.charttime``, the ``cost`` table.

Codes are explained by the source's own dictionaries (d_labitems, d_items, d_icd_*). Drugs,
microbiology and care units carry their names in the event rows; the event table then serves as
its own dictionary, so a name is matched against the names that occur.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, ClassVar

from clinbridge.adapters._schema import SchemaNames, iso_date
from clinbridge.adapters.base import SourceAdapter
from clinbridge.catalog import (
    Catalog,
    ColumnInfo,
    CostTable,
    Dictionary,
    EncounterTable,
    EncounterType,
    EventStream,
    PatientTable,
    StreamKind,
    TableInfo,
)

if TYPE_CHECKING:
    from clinbridge.db import Database

__all__ = ["PROVENANCE_TABLE", "MimicAdapter", "classify_admission", "detect_mimic_version"]

logger = logging.getLogger(__name__)

PROVENANCE_TABLE = "clinbridge_source"
"""Key/value table the loader and the generator write (version, files, counts)."""
_SKIP = {PROVENANCE_TABLE, "clinbridge_rejected"}

_ADMISSION_RULES: tuple[tuple[str, EncounterType], ...] = (
    (r"emer|urgent|\bew\b", "emergency"),
    (r"observation|ambulatory|same day|outpatient", "outpatient"),
    (r"elective|surgical|direct|newborn", "inpatient"),
)


def classify_admission(admission_type: str | None) -> EncounterType:
    """Canonical type of a MIMIC admission type (EMERGENCY, URGENT, EW EMER. → emergency; ...)."""
    text = (admission_type or "").lower()
    for pattern, kind in _ADMISSION_RULES:
        if re.search(pattern, text):
            return kind
    return "inpatient"


_Schema = SchemaNames


def detect_mimic_version(db: Database) -> str | None:
    """'MIMIC-III v1.4', 'MIMIC-IV v2.x', 'MIMIC-IV (EHRSQL-2024 schema)', or None."""
    return _version(_Schema(db))


def _version(s: _Schema) -> str | None:
    if not (s.table("patients") and s.column("patients", "subject_id")):
        return None
    if s.table(PROVENANCE_TABLE):
        rows = s.rows(
            f"SELECT {s.sql_col(PROVENANCE_TABLE, 'value')} FROM {s.sql_table(PROVENANCE_TABLE)} "
            f"WHERE {s.sql_col(PROVENANCE_TABLE, 'key')} = 'mimic_version'"
        )
        if rows and rows[0][0]:
            return str(rows[0][0])
    if s.column("patients", "anchor_age"):
        return "MIMIC-IV v2.x" if s.column("admissions", "race") else "MIMIC-IV v1.0"
    if s.column("diagnoses_icd", "icd9_code") or s.column("icustays", "icustay_id"):
        return "MIMIC-III v1.4"
    if s.column("admissions", "age") and s.column("diagnoses_icd", "charttime"):
        return "MIMIC-IV (EHRSQL-2024 schema)"
    if s.column("patients", "dob"):
        return "MIMIC-III v1.4"
    return "MIMIC (unknown version)"


class MimicAdapter(SourceAdapter):
    """MIMIC-III v1.4 / MIMIC-IV v2.x / EHRSQL-2024 databases (native MIMIC tables)."""

    name: ClassVar[str] = "mimic"
    version: ClassVar[str] = "1"
    PRIORITY: ClassVar[int] = 40

    @classmethod
    def detect(cls, db: Database) -> bool:
        """Whether ``db`` holds MIMIC's patients and admissions tables."""
        s = _Schema(db)
        return bool(
            s.table("patients")
            and s.table("admissions")
            and s.column("patients", "subject_id")
            and s.column("admissions", "hadm_id")
        )

    def catalog(self, db: Database, *, source: str | None = None) -> Catalog:
        """The catalog of the MIMIC tables in ``db`` (III, IV or EHRSQL's schema)."""
        s = _Schema(db)
        version = _version(s)
        start, end = self._span(s)
        streams = self._streams(s)
        return Catalog(
            source=source or db.url,
            adapter=self.name,
            adapter_version=self.version,
            dialect=db.dialect,
            schema_name=db.schema,
            cdm_version=version,
            patients=self._patients(s),
            encounters=self._encounters(s),
            nested_encounters=self._icu_stays(s),
            streams=streams,
            costs=self._costs(s, streams),
            dictionaries=self._dictionaries(s),
            tables=self._tables(s),
            data_start=start,
            data_end=end,
            description=f"{version or 'MIMIC'} (native MIMIC tables)",
        )

    # -- parts -------------------------------------------------------------------------------
    def _tables(self, s: _Schema) -> tuple[TableInfo, ...]:
        counts = self._counts(s)
        out = []
        for lname, actual in sorted(s.tables.items()):
            if lname in _SKIP:
                continue
            cols = tuple(ColumnInfo(name=c, type=_portable(t)) for c, t in s.columns(actual))
            out.append(TableInfo(name=actual, columns=cols, row_count=counts.get(actual)))
        return tuple(out)

    def _counts(self, s: _Schema) -> dict[str, int]:
        parts = [
            f"SELECT '{actual}' AS t, count(*) AS n FROM {s.sql_table(actual)}"
            for lname, actual in s.tables.items()
            if lname not in _SKIP and "'" not in actual
        ]
        if not parts:
            return {}
        return {str(t): int(n) for t, n in s.rows(" UNION ALL ".join(parts))}

    def _patients(self, s: _Schema) -> PatientTable | None:
        t = "patients"
        if not s.table(t):
            return None
        sex_values: dict[str, Any] = {"M": "male", "F": "female", "m": "male", "f": "female"}
        return PatientTable(
            table=s.table(t) or t,
            id_column=s.column(t, "subject_id") or "subject_id",
            birth_date_column=s.column(t, "dob"),
            birth_year_column=s.column(t, "birth_year"),
            sex_column=s.column(t, "gender"),
            sex_values=sex_values,
            death_table=s.table(t) if s.column(t, "dod") else None,
            death_patient_column=s.column(t, "subject_id") if s.column(t, "dod") else None,
            death_date_column=s.column(t, "dod"),
        )

    def _encounters(self, s: _Schema) -> EncounterTable | None:
        t = "admissions"
        if not s.table(t):
            return None
        type_col = s.column(t, "admission_type")
        type_map: dict[str, EncounterType] = {}
        if type_col:
            for (value,) in s.rows(
                f"SELECT DISTINCT {s.sql_col(t, type_col)} FROM {s.sql_table(t)}", max_rows=None
            ):
                if value is not None:
                    type_map[str(value)] = classify_admission(str(value))
        return EncounterTable(
            table=s.table(t) or t,
            id_column=s.column(t, "hadm_id") or "hadm_id",
            patient_column=s.column(t, "subject_id") or "subject_id",
            start_column=s.column(t, "admittime") or "admittime",
            end_column=s.column(t, "dischtime"),
            type_column=type_col,
            type_map=dict(sorted(type_map.items())),
            label="hospital admission",
            age_column=s.column(t, "age"),
            attributes={
                name: col
                for name in (
                    "admission type",
                    "admission location",
                    "discharge location",
                    "insurance",
                    "language",
                    "marital status",
                )
                if (col := s.column(t, name.replace(" ", "_")))
            },
        )

    def _costs(self, s: _Schema, streams: tuple[EventStream, ...]) -> CostTable | None:
        t = "cost"
        cols = [s.column(t, c) for c in ("cost", "event_type", "event_id")] if s.table(t) else []
        if not cols or not all(cols):
            return None
        amount, etype, eid = (str(c) for c in cols)
        stored = {
            str(v).lower(): str(v)
            for (v,) in s.rows(
                f"SELECT DISTINCT {s.sql_col(t, etype)} FROM {s.sql_table(t)}", max_rows=None
            )
            if v is not None
        }
        types = {
            st.name: stored[st.table.lower()]
            for st in streams
            if st.table.lower() in stored and st.row_id_column
        }
        return CostTable(
            table=s.table(t) or t,
            amount_column=amount,
            event_type_column=etype,
            event_id_column=eid,
            event_types=types,
            encounter_column=s.column(t, "hadm_id"),
            time_column=s.column(t, "chargetime"),
        )

    def _icu_stays(self, s: _Schema) -> tuple[EncounterTable, ...]:
        t = "icustays"
        sid = s.column(t, "stay_id", "icustay_id") if s.table(t) else None
        start = s.column(t, "intime") if sid else None
        if not sid or not start:
            return ()
        return (
            EncounterTable(
                table=s.table(t) or t,
                id_column=sid,
                patient_column=s.column(t, "subject_id") or "subject_id",
                start_column=start,
                end_column=s.column(t, "outtime"),
                label="ICU stay",
                fixed_type="icu",
            ),
        )

    def _stream(
        self,
        s: _Schema,
        name: str,
        kind: StreamKind,
        table: str,
        *,
        time: tuple[str, ...],
        code: tuple[str, ...] = (),
        description: str = "",
        dictionary: str | None = None,
        **roles: tuple[str, ...],
    ) -> EventStream | None:
        actual = s.table(table)
        time_col = s.column(table, *time) if actual else None
        if not actual or not time_col:
            return None
        fields = {role: s.column(table, *cols) for role, cols in roles.items()}
        return EventStream(
            name=name,
            kind=kind,
            table=actual,
            patient_column=s.column(table, "subject_id") or "subject_id",
            time_column=time_col,
            code_column=s.column(table, *code) if code else None,
            encounter_column=s.column(table, "hadm_id"),
            row_id_column=s.column(table, "row_id"),
            nested_encounter_column=s.column(table, "stay_id", "icustay_id")
            if table != "icustays"
            else None,
            dictionary=dictionary,
            description=description,
            **{k: v for k, v in fields.items() if v},
        )

    def _streams(self, s: _Schema) -> tuple[EventStream, ...]:
        icd_dx = "d_icd_diagnoses" if s.table("d_icd_diagnoses") else None
        icd_px = "d_icd_procedures" if s.table("d_icd_procedures") else None
        candidates = [
            self._stream(
                s,
                "labevents",
                "measurement",
                "labevents",
                time=("charttime",),
                code=("itemid",),
                dictionary="d_labitems" if s.table("d_labitems") else None,
                value_column=("valuenum",),
                value_text_column=("value",),
                unit_column=("valueuom",),
                description="laboratory results (itemid explained by d_labitems)",
            ),
            self._stream(
                s,
                "chartevents",
                "vital",
                "chartevents",
                time=("charttime",),
                code=("itemid",),
                dictionary="d_items" if s.table("d_items") else None,
                value_column=("valuenum",),
                value_text_column=("value",),
                unit_column=("valueuom",),
                end_time_column=(),
                description="charted observations and vital signs (itemid explained by d_items)",
            ),
            self._stream(
                s,
                "prescriptions",
                "drug",
                "prescriptions",
                time=("starttime", "startdate"),
                code=("drug",),
                dictionary="prescription_drug",
                end_time_column=("stoptime", "enddate"),
                value_text_column=("dose_val_rx",),
                unit_column=("dose_unit_rx",),
                route_column=("route",),
                source_value_column=("drug",),
                description="medication orders (what was prescribed): drug, route, dose value and unit",
            ),
            self._stream(
                s,
                "diagnoses_icd",
                "condition",
                "diagnoses_icd",
                time=("charttime",),
                code=("icd_code", "icd9_code"),
                dictionary=icd_dx,
                source_value_column=("icd_code", "icd9_code"),
                description="billed diagnoses (ICD-9/ICD-10), timed at the admission",
            ),
            self._stream(
                s,
                "procedures_icd",
                "procedure",
                "procedures_icd",
                time=("charttime", "chartdate"),
                code=("icd_code", "icd9_code"),
                dictionary=icd_px,
                source_value_column=("icd_code", "icd9_code"),
                description="billed procedures (ICD-9/ICD-10)",
            ),
            self._stream(
                s,
                "microbiologyevents",
                "measurement",
                "microbiologyevents",
                time=("charttime", "chartdate"),
                code=("spec_type_desc", "test_name"),  # the specimen names the test
                dictionary="micro_test",
                value_text_column=("org_name",),
                source_value_column=("spec_type_desc",),
                description="microbiology: specimen, test and organism",
            ),
        ]
        for table, time in (
            ("inputevents", ("starttime",)),
            ("inputevents_mv", ("starttime",)),
            ("inputevents_cv", ("charttime",)),
        ):
            candidates.append(
                self._stream(
                    s,
                    table,
                    "drug",
                    table,
                    time=time,
                    code=("itemid",),
                    dictionary="d_items" if s.table("d_items") else None,
                    end_time_column=("endtime",),
                    value_column=("totalamount", "amount"),
                    unit_column=("totalamountuom", "amountuom"),
                    description="ICU inputs (fluids and drugs given; itemid explained by d_items)",
                )
            )
        candidates += [
            self._stream(
                s,
                "outputevents",
                "observation",
                "outputevents",
                time=("charttime",),
                code=("itemid",),
                dictionary="d_items" if s.table("d_items") else None,
                value_column=("value",),
                unit_column=("valueuom",),
                description="ICU outputs (urine, drains; itemid explained by d_items)",
            ),
            self._stream(
                s,
                "icustays",
                "visit_detail",
                "icustays",
                time=("intime",),
                code=("first_careunit",),
                dictionary="care_unit",
                end_time_column=("outtime",),
                value_text_column=("last_careunit",),
                description="ICU stays within an admission: first and last care unit",
            ),
            self._stream(
                s,
                "transfers",
                "visit_detail",
                "transfers",
                time=("intime",),
                code=("careunit", "curr_careunit"),
                dictionary="transfer_unit",
                end_time_column=("outtime",),
                value_text_column=("eventtype",),
                description="ward transfers within an admission: care unit and event type",
            ),
            self._stream(
                s,
                "cost",
                "observation",
                "cost",
                time=("chargetime",),
                code=("event_type",),
                value_column=("cost",),
                description="cost of an event (event_type: diagnoses_icd, procedures_icd, ...)",
            ),
            self._stream(
                s,
                "noteevents",
                "note",
                "noteevents",
                time=("charttime", "chartdate"),
                code=("category",),
                text_column=("text",),
                title_column=("description", "category"),
                description="clinical notes with their time",
            ),
            self._stream(
                s,
                "discharge",
                "note",
                "discharge",
                time=("charttime",),
                code=("note_type",),
                text_column=("text",),
                description="discharge summaries (MIMIC-IV-Note)",
            ),
        ]
        return tuple(c for c in candidates if c is not None)

    def _dictionaries(self, s: _Schema) -> tuple[Dictionary, ...]:
        out: list[Dictionary] = []
        for name in ("d_labitems", "d_items"):
            if s.table(name):
                out.append(
                    Dictionary(
                        name=name,
                        table=s.table(name) or name,
                        code_column=s.column(name, "itemid") or "itemid",
                        label_column=s.column(name, "label") or "label",
                        system_column=s.column(name, "fluid") if name == "d_labitems" else None,
                        source_code_column=s.column(name, "loinc_code")
                        if name == "d_labitems"
                        else s.column(name, "abbreviation"),
                    )
                )
        for name in ("d_icd_diagnoses", "d_icd_procedures"):
            if s.table(name):
                out.append(
                    Dictionary(
                        name=name,
                        table=s.table(name) or name,
                        code_column=s.column(name, "icd_code", "icd9_code") or "icd_code",
                        label_column=s.column(name, "long_title") or "long_title",
                        source_code_column=s.column(name, "icd_code", "icd9_code"),
                        system_column=s.column(name, "icd_version"),
                    )
                )
        # names that live in the event rows themselves
        for name, table, cols in (
            ("prescription_drug", "prescriptions", ("drug",)),
            ("micro_test", "microbiologyevents", ("spec_type_desc", "test_name")),
            ("care_unit", "icustays", ("first_careunit",)),
            ("transfer_unit", "transfers", ("careunit", "curr_careunit")),
        ):
            col = s.column(table, *cols) if s.table(table) else None
            if col:
                out.append(
                    Dictionary(
                        name=name,
                        table=s.table(table) or table,
                        code_column=col,
                        label_column=col,
                        source_code_column=col,
                    )
                )
        return tuple(out)

    def _span(self, s: _Schema) -> tuple[str | None, str | None]:
        parts = []
        for table, cols in (
            ("admissions", ("admittime", "dischtime")),
            ("labevents", ("charttime",)),
            ("chartevents", ("charttime",)),
            ("prescriptions", ("starttime", "startdate")),
        ):
            for col in cols:
                actual = s.column(table, col) if s.table(table) else None
                if actual:
                    c = s.sql_col(table, actual)
                    parts.append(f"SELECT min({c}) AS lo, max({c}) AS hi FROM {s.sql_table(table)}")
        if not parts:
            return None, None
        rows = s.rows(f"SELECT min(lo), max(hi) FROM ({' UNION ALL '.join(parts)}) AS spans", 1)
        lo, hi = rows[0] if rows else (None, None)
        return iso_date(lo), iso_date(hi)


def _portable(declared: str) -> str:
    t = (declared or "").upper()
    if any(k in t for k in ("INT",)):
        return "integer"
    if any(k in t for k in ("DOUBLE", "REAL", "FLOAT", "NUMERIC", "DECIMAL")):
        return "float"
    if "TIMESTAMP" in t or "DATETIME" in t:
        return "timestamp"
    if t == "DATE":
        return "date"
    if any(k in t for k in ("CHAR", "TEXT", "STRING", "CLOB")):
        return "string"
    return "unknown"
