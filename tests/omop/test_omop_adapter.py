"""The OMOP adapter: detection, version, catalog content, JSON round trip, Postgres schemas."""

from __future__ import annotations

import sqlite3

import pytest

from clinbridge.adapters import describe, detect_adapter, get_adapter
from clinbridge.adapters.omop import (
    OmopAdapter,
    classify_visit,
    create_cdm_tables,
    detect_cdm_version,
    load_omop_csv,
)
from clinbridge.catalog import Catalog
from clinbridge.db import Database
from clinbridge.errors import ExecutionError


@pytest.fixture(scope="module")
def eunomia_catalog(eunomia_duckdb_url) -> Catalog:
    with Database.open(eunomia_duckdb_url) as db:
        return describe(db)


def test_detected_as_omop(eunomia_duckdb_url):
    with Database.open(eunomia_duckdb_url) as db:
        assert isinstance(detect_adapter(db), OmopAdapter)
        assert detect_cdm_version(db) == "5.3"
    assert isinstance(get_adapter("omop"), OmopAdapter)


def test_catalog_content(eunomia_catalog):
    c = eunomia_catalog
    assert (c.adapter, c.dialect, c.cdm_version) == ("omop", "duckdb", "5.3")
    assert c.vocabulary_version == "v5.0 18-JAN-19"
    assert c.data_start == "1908-10-30" and c.data_end == "2019-07-01"
    p = c.patients
    assert (
        p.table == "person"
        and p.id_column == "person_id"
        and p.birth_year_column == "year_of_birth"
    )
    assert p.sex_values["8507"] == "male" and p.sex_values["8532"] == "female"
    assert p.death_table == "death" and p.observation_table == "observation_period"
    e = c.encounters
    assert e.table == "visit_occurrence" and e.type_column == "visit_concept_id"
    assert {e.type_map[k] for k in ("9201", "262")} == {"inpatient"}
    assert e.type_map["9203"] == "emergency" and e.type_map["9202"] == "outpatient"
    assert e.type_map["32037"] == "icu" and e.type_map["581379"] == "icu"
    kinds = {s.kind for s in c.streams}
    assert kinds >= {
        "measurement",
        "drug",
        "condition",
        "procedure",
        "observation",
        "note",
        "visit_detail",
        "device",
    }
    m = c.stream("measurement")
    assert (m.value_column, m.unit_column, m.unit_label_column, m.encounter_column) == (
        "value_as_number",
        "unit_concept_id",
        "unit_source_value",
        "visit_occurrence_id",
    )
    d = c.stream("drug_exposure")
    assert (d.days_supply_column, d.quantity_column, d.end_time_column) == (
        "days_supply",
        "quantity",
        "drug_exposure_end_date",
    )
    assert c.stream("observation").value_text_column == "value_as_string"
    note = c.stream("note")
    assert (note.text_column, note.title_column) == ("note_text", "note_title")
    assert all(s.dictionary == "concept" for s in c.streams)
    dic = c.dictionary("concept")
    assert (
        dic.table,
        dic.code_column,
        dic.synonym_table,
        dic.ancestor_table,
        dic.relationship_table,
    ) == ("concept", "concept_id", "concept_synonym", "concept_ancestor", "concept_relationship")
    person = c.table("person")
    assert person.row_count == 2694 and person.column("year_of_birth").type == "integer"
    assert c.table("measurement").column("value_as_number").type == "float"
    assert c.table("measurement").column("measurement_date").type == "date"
    assert c.table("clinbridge_rejected") is None
    assert "central identity" in person.description


def test_catalog_json_round_trip(eunomia_catalog):
    text = eunomia_catalog.to_json()
    assert Catalog.from_json(text) == eunomia_catalog


def test_sqlite_catalog_matches_duckdb(eunomia_sqlite_url, eunomia_catalog):
    with Database.open(eunomia_sqlite_url) as db:
        c = describe(db)
    assert c.dialect == "sqlite" and c.cdm_version == "5.3"
    assert (c.data_start, c.data_end) == (eunomia_catalog.data_start, eunomia_catalog.data_end)
    assert [s.name for s in c.streams] == [s.name for s in eunomia_catalog.streams]
    assert c.table("person").row_count == 2694
    assert c.encounters.type_map == eunomia_catalog.encounters.type_map


@pytest.mark.postgres
def test_postgres_schema_catalog(eunomia_pg_url):
    with Database.open(eunomia_pg_url) as db:
        c = describe(db)
    assert c.dialect == "postgres" and c.cdm_version == "5.3" and c.schema_name
    assert c.table("person").row_count == 2694  # from planner statistics after the loader's ANALYZE
    assert c.data_end == "2019-07-01"


@pytest.mark.postgres
@pytest.mark.xfail(
    raises=ExecutionError,
    strict=True,
    reason="clinbridge.db.parse_url re-joins the 'options' value unencoded, which psycopg rejects",
)
def test_postgres_search_path_url(eunomia_pg_url):
    base, _, schema = eunomia_pg_url.partition("?schema=")
    with Database.open(f"{base}?options=-csearch_path%3D{schema}") as db:
        assert db.schema == schema
        assert describe(db).table("person").row_count == 2694


def test_version_54_from_columns(tmp_path):
    url = f"duckdb:///{tmp_path / 'v54.duckdb'}"
    with Database.open(url, read_only=False) as db:
        create_cdm_tables(db, "5.4")
    with Database.open(url) as db:
        assert detect_cdm_version(db) == "5.4"  # no cdm_source row: from visit_occurrence columns
        assert describe(db).cdm_version == "5.4"


def test_version_54_from_cdm_source(tmp_path, synthea27nj_csv_dir):
    url = f"duckdb:///{tmp_path / 'nj.duckdb'}"
    load_omop_csv(synthea27nj_csv_dir, url)
    with Database.open(url) as db:
        c = describe(db)
    assert c.cdm_version == "5.4"
    assert c.table("measurement").row_count == 10040
    assert c.encounters.type_map["9202"] == "outpatient"


def test_upper_case_tables_are_attached(tmp_path):
    # an existing CDM whose tables and columns are upper-case (as some exports are)
    path = tmp_path / "upper.db"
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE PERSON (PERSON_ID INTEGER, GENDER_CONCEPT_ID INTEGER, YEAR_OF_BIRTH INTEGER)"
    )
    conn.execute(
        "CREATE TABLE OBSERVATION_PERIOD (PERSON_ID INTEGER, OBSERVATION_PERIOD_START_DATE TEXT,"
        " OBSERVATION_PERIOD_END_DATE TEXT)"
    )
    conn.execute(
        "CREATE TABLE VISIT_OCCURRENCE (VISIT_OCCURRENCE_ID INTEGER, PERSON_ID INTEGER,"
        " VISIT_CONCEPT_ID INTEGER, VISIT_START_DATE TEXT, VISIT_END_DATE TEXT,"
        " ADMITTING_SOURCE_CONCEPT_ID INTEGER)"
    )
    conn.execute("INSERT INTO PERSON VALUES (1, 8507, 1950)")
    conn.execute("INSERT INTO VISIT_OCCURRENCE VALUES (1, 1, 9201, '2020-01-01', '2020-01-03', 0)")
    conn.commit()
    conn.close()
    with Database.open(f"sqlite:///{path}") as db:
        c = describe(db)
    assert c.patients.table == "PERSON" and c.patients.id_column == "PERSON_ID"
    assert c.encounters.start_column == "VISIT_START_DATE" and c.cdm_version == "5.3"
    assert c.data_start == "2020-01-01"


def test_classify_visit_by_name():
    assert classify_visit(9201) == "inpatient"
    assert classify_visit(1, "Medical intensive care unit") == "icu"
    assert classify_visit(2, "Emergency department visit") == "emergency"
    assert classify_visit(3, "Office visit") == "outpatient"
    assert classify_visit(4, "Home visit") == "other"
