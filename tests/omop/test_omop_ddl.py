"""The carried CDM spec matches OHDSI's DDL, and the emitted DDL runs / transpiles everywhere."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import duckdb
import pytest
import sqlglot

from clinbridge.adapters.omop.ddl import CDM_VERSIONS, cdm_spec, ddl, table_spec

OHDSI = Path(__file__).parent / "data" / "ohdsi-ddl"


def _ohdsi_columns(version: str) -> set[tuple[str, str, bool]]:
    text = (OHDSI / f"OMOPCDM_duckdb_{version}_ddl.sql").read_text()
    out = set()
    for m in re.finditer(r"CREATE TABLE @cdmDatabaseSchema\.(\w+) \((.*?)\);", text, re.S):
        for line in m.group(2).split(",\n"):
            name = line.split()[0].strip('"').lower()
            out.add((m.group(1).lower(), name, "NOT NULL" in line))
    return out


@pytest.mark.parametrize("version", CDM_VERSIONS)
def test_spec_matches_ohdsi_ddl(version):
    mine = {(t.name, c.name, c.required) for t in cdm_spec(version).values() for c in t.columns}
    assert mine == _ohdsi_columns(version)


def test_version_differences():
    v53, v54 = cdm_spec("5.3"), cdm_spec("5.4")
    assert "episode" in v54 and "episode" not in v53
    assert v54["visit_occurrence"].column("admitted_from_concept_id")
    assert v53["visit_occurrence"].column("admitting_source_concept_id")
    assert table_spec("cohort", "5.3") is not None  # taken from 5.4


@pytest.mark.parametrize("version", CDM_VERSIONS)
def test_ddl_runs_on_duckdb_and_sqlite(version):
    con = duckdb.connect()
    con.execute("CREATE SCHEMA cdm")
    for stmt in ddl(version, "duckdb", schema="cdm"):
        con.execute(stmt)
    assert len(
        con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema='cdm'"
        ).fetchall()
    ) == len(cdm_spec(version))
    lite = sqlite3.connect(":memory:")
    for stmt in ddl(version, "sqlite"):
        lite.execute(stmt)
    assert lite.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()[
        0
    ] == len(cdm_spec(version))


@pytest.mark.parametrize(
    "dialect", ["postgres", "spark", "bigquery", "snowflake", "trino", "redshift"]
)
def test_ddl_transpiles_and_parses_back(dialect):
    stmts = ddl("5.4", dialect, schema="cdm")
    assert len(stmts) == len(cdm_spec("5.4"))
    for stmt in stmts:
        parsed = sqlglot.parse_one(stmt, read=dialect)
        assert parsed.key == "create"


@pytest.mark.postgres
def test_ddl_runs_on_postgres(pg_url):
    from clinbridge.adapters.omop import create_cdm_tables
    from clinbridge.db import Database

    with Database.open(pg_url, read_only=False) as db:
        created = create_cdm_tables(db, "5.4", schema=db.schema)
        assert len(created) == len(cdm_spec("5.4"))
        assert len(db.table_names()) == len(created)
