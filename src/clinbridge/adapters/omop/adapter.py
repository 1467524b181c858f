"""The OMOP CDM 5.3 / 5.4 adapter: recognise a CDM and describe it as a :class:`Catalog`.

Works on any CDM the :class:`~clinbridge.db.Database` can open: a DuckDB or SQLite file or a
PostgreSQL schema (``?schema=cdm`` or ``options=-csearch_path=cdm``), with table and column
names in whatever case the database stores them. The CDM version comes from
``cdm_source.cdm_version`` when it is readable, else from the columns that differ between 5.3 and
5.4 (``visit_occurrence.admitted_from_concept_id`` vs ``admitting_source_concept_id``, the
``episode`` table).
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, ClassVar

from clinbridge.adapters._attributes import read_attribute
from clinbridge.adapters._schema import SchemaNames, iso_date
from clinbridge.adapters.base import SourceAdapter
from clinbridge.adapters.omop.ddl import REJECTED_TABLE, cdm_spec, normalise_version
from clinbridge.catalog import (
    Catalog,
    ColumnInfo,
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

__all__ = [
    "OMOP_SEX_VALUES",
    "VISIT_TYPES",
    "OmopAdapter",
    "classify_visit",
    "detect_cdm_version",
    "vocabulary_catalog",
]

logger = logging.getLogger(__name__)

OMOP_SEX_VALUES: dict[str, Any] = {
    "8507": "male",
    "8532": "female",
    "8521": "other",
    "8551": "unknown",
}

VISIT_TYPES: dict[int, EncounterType] = {
    9201: "inpatient",  # Inpatient Visit
    262: "inpatient",  # Emergency Room and Inpatient Visit: admitted, counted as inpatient
    8717: "inpatient",  # Inpatient Hospital
    8971: "inpatient",  # Inpatient Psychiatric Facility
    8920: "inpatient",  # Comprehensive Inpatient Rehabilitation Facility
    9203: "emergency",  # Emergency Room Visit
    8870: "emergency",  # Emergency Room - Hospital
    32037: "icu",  # Intensive Care
    581379: "icu",  # Inpatient Critical Care Facility
    9202: "outpatient",  # Outpatient Visit
    8756: "outpatient",  # Outpatient Hospital
    581477: "outpatient",  # Office Visit
    5083: "outpatient",  # Telehealth
    38004207: "outpatient",  # Ambulatory Clinic / Center
    581478: "other",  # Ambulance Visit
    581476: "other",  # Home Visit
    42898160: "other",  # Non-hospital institution Visit
    32036: "other",  # Laboratory Visit
    32761: "other",  # Pharmacy visit
    8782: "other",  # Urgent care facility → other (not an ED visit)
}
"""Well-known OMOP visit concepts → canonical encounter types; others are classified by name."""

_NAME_RULES: tuple[tuple[str, EncounterType], ...] = (
    (r"intensive care|critical care|\bicu\b", "icu"),
    (r"emergency room and inpatient", "inpatient"),
    (r"emergency|\ber\b", "emergency"),
    (r"inpatient|hospitali[sz]ation|admission", "inpatient"),
    (r"outpatient|office|ambulatory|clinic|telehealth|wellness", "outpatient"),
)


def classify_visit(concept_id: int, name: str | None = None) -> EncounterType:
    """Canonical encounter type of a visit concept (known id, else its name, else 'other')."""
    if concept_id in VISIT_TYPES:
        return VISIT_TYPES[concept_id]
    text = (name or "").lower()
    for pattern, kind in _NAME_RULES:
        if re.search(pattern, text):
            return kind
    return "other"


# (stream name, kind, table, time, end time, code, extra column roles)
_STREAMS: tuple[tuple[str, StreamKind, str, str, str | None, str, dict[str, str]], ...] = (
    (
        "measurement",
        "measurement",
        "measurement",
        "measurement_date",
        None,
        "measurement_concept_id",
        {
            "value_column": "value_as_number",
            "unit_column": "unit_concept_id",
            "unit_label_column": "unit_source_value",
            "source_value_column": "measurement_source_value",
        },
    ),
    (
        "drug_exposure",
        "drug",
        "drug_exposure",
        "drug_exposure_start_date",
        "drug_exposure_end_date",
        "drug_concept_id",
        {
            "days_supply_column": "days_supply",
            "quantity_column": "quantity",
            "source_value_column": "drug_source_value",
        },
    ),
    (
        "condition_occurrence",
        "condition",
        "condition_occurrence",
        "condition_start_date",
        "condition_end_date",
        "condition_concept_id",
        {"source_value_column": "condition_source_value"},
    ),
    (
        "procedure_occurrence",
        "procedure",
        "procedure_occurrence",
        "procedure_date",
        None,
        "procedure_concept_id",
        {"quantity_column": "quantity", "source_value_column": "procedure_source_value"},
    ),
    (
        "observation",
        "observation",
        "observation",
        "observation_date",
        None,
        "observation_concept_id",
        {
            "value_column": "value_as_number",
            "value_text_column": "value_as_string",
            "unit_column": "unit_concept_id",
            "unit_label_column": "unit_source_value",
            "source_value_column": "observation_source_value",
        },
    ),
    (
        "note",
        "note",
        "note",
        "note_date",
        None,
        "note_class_concept_id",
        {
            "text_column": "note_text",
            "title_column": "note_title",
            "source_value_column": "note_source_value",
        },
    ),
    (
        "visit_detail",
        "visit_detail",
        "visit_detail",
        "visit_detail_start_date",
        "visit_detail_end_date",
        "visit_detail_concept_id",
        {"source_value_column": "visit_detail_source_value"},
    ),
    (
        "device_exposure",
        "device",
        "device_exposure",
        "device_exposure_start_date",
        "device_exposure_end_date",
        "device_concept_id",
        {"quantity_column": "quantity", "source_value_column": "device_source_value"},
    ),
)

_EVENT_DATES = (
    ("visit_occurrence", "visit_start_date"),
    ("condition_occurrence", "condition_start_date"),
    ("drug_exposure", "drug_exposure_start_date"),
    ("procedure_occurrence", "procedure_date"),
    ("measurement", "measurement_date"),
    ("observation", "observation_date"),
)


def _portable(declared: str) -> str:
    t = declared.lower()
    if "int" in t:
        return "integer"
    if any(k in t for k in ("double", "float", "real", "numeric", "decimal")):
        return "float"
    if "timestamp" in t or "datetime" in t:
        return "timestamp"
    if "date" in t:
        return "date"
    if "bool" in t:
        return "boolean"
    if any(k in t for k in ("char", "text", "string", "clob")):
        return "string"
    return "unknown"


_Schema = SchemaNames


def detect_cdm_version(db: Database) -> str | None:
    """'5.3' or '5.4' for an OMOP CDM (cdm_source.cdm_version, else the 5.3/5.4 column differences)."""
    return _detect_version(_Schema(db))


def _detect_version(s: _Schema) -> str | None:
    if s.table("cdm_source") and s.column("cdm_source", "cdm_version"):
        value = s.scalar(
            f"SELECT {s.sql_col('cdm_source', 'cdm_version')} FROM {s.sql_table('cdm_source')}"
        )
        if value:
            try:
                return normalise_version(str(value))
            except Exception:
                logger.debug("unreadable cdm_version %r", value)
    if s.table("visit_occurrence"):
        if s.column("visit_occurrence", "admitted_from_concept_id"):
            return "5.4"
        if s.column("visit_occurrence", "admitting_source_concept_id"):
            return "5.3"
    if s.table("episode"):
        return "5.4"
    return "5.3" if s.table("person") else None


class OmopAdapter(SourceAdapter):
    """OMOP Common Data Model 5.3 and 5.4 (PostgreSQL, DuckDB, SQLite)."""

    name: ClassVar[str] = "omop"
    version: ClassVar[str] = "1"
    PRIORITY: ClassVar[int] = 10

    @classmethod
    def detect(cls, db: Database) -> bool:
        """Whether ``db`` holds the OMOP CDM's person table."""
        tables = {t.lower() for t in db.table_names()}
        return {"person", "observation_period"} <= tables and bool(
            tables & {"visit_occurrence", "condition_occurrence", "measurement", "drug_exposure"}
        )

    def catalog(
        self, db: Database, *, source: str | None = None, row_counts: bool = True, span: bool = True
    ) -> Catalog:
        """Describe the CDM; ``row_counts`` and ``span`` (min/max event dates) can be skipped
        when only the dictionaries are needed (they scan every event table)."""
        s = _Schema(db)
        version = _detect_version(s)
        spec = cdm_spec(version or "5.4")
        tables = self._tables(s, spec, row_counts=row_counts)
        cdm_name = None
        if s.table("cdm_source") and s.column("cdm_source", "cdm_source_name"):
            cdm_name = s.scalar(
                f"SELECT {s.sql_col('cdm_source', 'cdm_source_name')} FROM {s.sql_table('cdm_source')}"
            )
        start, end = self._data_span(s) if span else (None, None)
        return Catalog(
            source=source or "omop",
            adapter=self.name,
            adapter_version=self.version,
            dialect=db.dialect,
            schema_name=db.schema,
            cdm_version=version,
            vocabulary_version=self._vocabulary_version(s),
            patients=self._patients(s),
            encounters=self._encounters(s),
            streams=self._streams(s),
            dictionaries=self._dictionaries(s),
            tables=tables,
            data_start=start,
            data_end=end,
            description=f"OMOP CDM {version or '?'}" + (f": {cdm_name}" if cdm_name else ""),
        )

    # -- parts ---------------------------------------------------------------------------------
    def _tables(
        self, s: _Schema, spec: dict[str, Any], *, row_counts: bool
    ) -> tuple[TableInfo, ...]:
        counts = _row_counts(s) if row_counts else {}
        out = []
        for lname, actual in sorted(s.tables.items()):
            if lname == REJECTED_TABLE:
                continue
            tspec = spec.get(lname)
            cols = []
            for cname, declared in s.columns(actual):
                cspec = tspec.column(cname) if tspec else None
                cols.append(
                    ColumnInfo(
                        name=cname,
                        type=_portable(declared),
                        description=cspec.description if cspec else "",
                    )
                )
            out.append(
                TableInfo(
                    name=actual,
                    columns=tuple(cols),
                    description=tspec.description if tspec else "",
                    row_count=counts.get(actual),
                )
            )
        return tuple(out)

    def _patients(self, s: _Schema) -> PatientTable | None:
        if not s.table("person"):
            return None
        c = s.column
        has_death = s.table("death")
        has_op = s.table("observation_period")
        return PatientTable(
            table=s.table("person") or "person",
            id_column=c("person", "person_id") or "person_id",
            birth_date_column=c("person", "birth_datetime"),
            birth_year_column=c("person", "year_of_birth"),
            sex_column=c("person", "gender_concept_id"),
            sex_values=OMOP_SEX_VALUES,
            death_table=has_death,
            death_patient_column=c("death", "person_id") if has_death else None,
            death_date_column=c("death", "death_date") if has_death else None,
            observation_table=has_op,
            observation_patient_column=c("observation_period", "person_id") if has_op else None,
            observation_start_column=c("observation_period", "observation_period_start_date")
            if has_op
            else None,
            observation_end_column=c("observation_period", "observation_period_end_date")
            if has_op
            else None,
            external_id_column=None,
            attributes=tuple(
                a
                for name in ("race", "ethnicity")
                if (
                    a := read_attribute(
                        s,
                        "person",
                        name,
                        c("person", f"{name}_concept_id"),
                        source_column=c("person", f"{name}_source_value"),
                        concepts=True,
                    )
                )
                is not None
            ),
        )

    def _encounters(self, s: _Schema) -> EncounterTable | None:
        t = "visit_occurrence"
        if not s.table(t):
            return None
        type_col = s.column(t, "visit_concept_id")
        return EncounterTable(
            table=s.table(t) or t,
            id_column=s.column(t, "visit_occurrence_id") or "visit_occurrence_id",
            patient_column=s.column(t, "person_id") or "person_id",
            start_column=s.column(t, "visit_start_date") or "visit_start_date",
            end_column=s.column(t, "visit_end_date"),
            type_column=type_col,
            type_map=self._visit_type_map(s) if type_col else {},
            label="visit",
        )

    def _visit_type_map(self, s: _Schema) -> dict[str, EncounterType]:
        """Known visit concepts, plus every visit concept in the data or the vocabulary, by name."""
        mapping: dict[str, EncounterType] = {str(k): v for k, v in VISIT_TYPES.items()}
        names: dict[int, str | None] = {}
        if s.table("concept") and s.column("concept", "domain_id"):
            sql = (
                f"SELECT {s.sql_col('concept', 'concept_id')}, {s.sql_col('concept', 'concept_name')} "
                f"FROM {s.sql_table('concept')} WHERE {s.sql_col('concept', 'domain_id')} = 'Visit'"
            )
            try:
                names.update({int(r[0]): r[1] for r in s.db.execute(sql, max_rows=None).rows})
            except Exception as exc:
                logger.debug("visit concepts not readable: %s", exc)
        sql = (
            f"SELECT DISTINCT {s.sql_col('visit_occurrence', 'visit_concept_id')} "
            f"FROM {s.sql_table('visit_occurrence')}"
        )
        try:
            for (cid,) in s.db.execute(sql, max_rows=None).rows:
                if cid is not None:
                    names.setdefault(int(cid), None)
        except Exception as exc:
            logger.debug("visit concepts in data not readable: %s", exc)
        for cid, name in names.items():
            mapping.setdefault(str(cid), classify_visit(cid, name))
        return dict(sorted(mapping.items(), key=lambda kv: int(kv[0])))

    def _streams(self, s: _Schema) -> tuple[EventStream, ...]:
        out = []
        for name, kind, table, time_col, end_col, code_col, roles in _STREAMS:
            actual = s.table(table)
            if not actual or not s.column(table, time_col):
                continue
            fields: dict[str, Any] = {
                role: s.column(table, col) for role, col in roles.items() if s.column(table, col)
            }
            if "unit_column" in fields:
                fields["unit_dictionary"] = "concept"
            tspec = cdm_spec("5.4").get(table) or cdm_spec("5.3").get(table)
            out.append(
                EventStream(
                    name=name,
                    kind=kind,
                    table=actual,
                    patient_column=s.column(table, "person_id") or "person_id",
                    time_column=s.column(table, time_col) or time_col,
                    end_time_column=s.column(table, end_col) if end_col else None,
                    code_column=s.column(table, code_col),
                    code_system="omop",
                    encounter_column=s.column(table, "visit_occurrence_id"),
                    dictionary="concept" if s.table("concept") else None,
                    description=tspec.description if tspec else "",
                    **fields,
                )
            )
        return tuple(out)

    def _dictionaries(self, s: _Schema) -> tuple[Dictionary, ...]:
        if not s.table("concept"):
            return ()
        c = s.column
        syn = s.table("concept_synonym")
        anc = s.table("concept_ancestor")
        return (
            Dictionary(
                name="concept",
                table=s.table("concept") or "concept",
                code_column=c("concept", "concept_id") or "concept_id",
                label_column=c("concept", "concept_name") or "concept_name",
                system_column=c("concept", "vocabulary_id"),
                source_code_column=c("concept", "concept_code"),
                standard_column=c("concept", "standard_concept"),
                domain_column=c("concept", "domain_id"),
                synonym_table=syn,
                synonym_code_column=c("concept_synonym", "concept_id") if syn else None,
                synonym_label_column=c("concept_synonym", "concept_synonym_name") if syn else None,
                ancestor_table=anc,
                ancestor_column=c("concept_ancestor", "ancestor_concept_id") if anc else None,
                descendant_column=c("concept_ancestor", "descendant_concept_id") if anc else None,
                relationship_table=s.table("concept_relationship"),
            ),
        )

    def _vocabulary_version(self, s: _Schema) -> str | None:
        if s.table("vocabulary") and s.column("vocabulary", "vocabulary_version"):
            value = s.scalar(
                f"SELECT {s.sql_col('vocabulary', 'vocabulary_version')} FROM {s.sql_table('vocabulary')} "
                f"WHERE {s.sql_col('vocabulary', 'vocabulary_id')} = 'None'"
            )
            if value:
                return str(value)
        if s.table("cdm_source") and s.column("cdm_source", "vocabulary_version"):
            value = s.scalar(
                f"SELECT {s.sql_col('cdm_source', 'vocabulary_version')} FROM {s.sql_table('cdm_source')}"
            )
            if value:
                return str(value)
        return None

    def _data_span(self, s: _Schema) -> tuple[str | None, str | None]:
        parts = [
            f"SELECT min({s.sql_col(t, c)}) AS lo, max({s.sql_col(t, c)}) AS hi FROM {s.sql_table(t)}"
            for t, c in _EVENT_DATES
            if s.table(t) and s.column(t, c)
        ]
        if not parts:
            return None, None
        sql = f"SELECT min(lo), max(hi) FROM ({' UNION ALL '.join(parts)}) AS spans"
        try:
            rows = s.db.execute(sql, max_rows=1).rows
        except Exception as exc:
            logger.debug("data span not readable: %s", exc)
            return None, None
        lo, hi = rows[0] if rows else (None, None)
        return (iso_date(lo), iso_date(hi))


def vocabulary_catalog(db: Database, *, source: str | None = None) -> Catalog:
    """A catalog holding only the OMOP concept dictionary (a vocabulary-only database)."""
    s = _Schema(db)
    adapter = OmopAdapter()
    wanted = {
        "concept",
        "concept_synonym",
        "concept_ancestor",
        "concept_relationship",
        "vocabulary",
    }
    tables = tuple(
        TableInfo(
            name=actual,
            columns=tuple(ColumnInfo(name=c, type=_portable(t)) for c, t in s.columns(actual)),
        )
        for lname, actual in sorted(s.tables.items())
        if lname in wanted
    )
    return Catalog(
        source=source or "vocabulary",
        adapter="omop",
        adapter_version=OmopAdapter.version,
        dialect=db.dialect,
        schema_name=db.schema,
        vocabulary_version=adapter._vocabulary_version(s),
        dictionaries=adapter._dictionaries(s),
        tables=tables,
        description="OMOP standardized vocabulary",
    )


def _row_counts(s: _Schema) -> dict[str, int]:
    """Row counts: planner statistics on PostgreSQL (cheap), exact counts elsewhere."""
    db = s.db
    counts: dict[str, int] = {}
    if db.backend == "postgres":
        sql = (
            "SELECT c.relname, c.reltuples::bigint FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = current_schema()"
        )
        try:
            for name, n in db.execute(sql, max_rows=None).rows:
                if n is not None and int(n) >= 0:
                    counts[name] = int(n)
        except Exception as exc:
            logger.debug("pg statistics not readable: %s", exc)
        return counts
    parts = [
        f"SELECT '{actual}' AS t, count(*) AS n FROM {s.sql_table(actual)}"
        for lname, actual in s.tables.items()
        if lname != REJECTED_TABLE and "'" not in actual
    ]
    if not parts:
        return counts
    try:
        for name, n in db.execute(" UNION ALL ".join(parts), max_rows=None).rows:
            counts[name] = int(n)
    except Exception as exc:
        logger.debug("row counts not readable: %s", exc)
    return counts
