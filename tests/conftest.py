"""Shared session fixtures: real databases built once per test run.

* ``eunomia_duckdb`` / ``eunomia_sqlite``: path of a DuckDB / SQLite file loaded from
  ``synthetic_data/eunomia-gibleed-5.3`` with the OMOP loader (``*_url`` variants give the URL).
* ``synth_duckdb``: path of a DuckDB holding the synthetic OMOP CDM (300 patients, seed 1).
* ``pg_url``: a fresh, uniquely named PostgreSQL schema (URL with ``?schema=``), dropped afterwards;
  skips with the reason when the server at 127.0.0.1:5432 is down (fails instead when `CI` is set).
* ``eunomia_pg_url``: Eunomia loaded once into its own PostgreSQL schema.

Each database is built lazily, the first time a test asks for it, under pytest's tmp dir.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pg_required import pg_unavailable

ROOT = Path(__file__).resolve().parent.parent
EUNOMIA_CSV = ROOT / "synthetic_data" / "eunomia-gibleed-5.3"
SYNTHEA27NJ_CSV = ROOT / "tests" / "data" / "eunomia-synthea27nj-5.4"
PG_BASE = "postgresql://postgres@127.0.0.1:5432/test"

# Documented row counts of Eunomia GiBleed (synthetic_data/eunomia-gibleed-5.3/SOURCE.md).
EUNOMIA_COUNTS = {
    "person": 2694,
    "observation_period": 5343,
    "visit_occurrence": 1037,
    "condition_occurrence": 65332,
    "condition_era": 65719,
    "drug_exposure": 67707,
    "drug_era": 52508,
    "procedure_occurrence": 37409,
    "measurement": 44053,
    "observation": 1477,
    "concept": 442,
    "concept_ancestor": 65690,
    "concept_relationship": 8,
    "concept_synonym": 1064,
    "domain": 45,
    "relationship": 480,
    "vocabulary": 125,
    "cdm_source": 1,
    "death": 0,
    "note": 0,
    "visit_detail": 0,
}


@pytest.fixture(scope="session")
def eunomia_csv_dir() -> Path:
    return EUNOMIA_CSV


@pytest.fixture(scope="session")
def synthea27nj_csv_dir() -> Path:
    return SYNTHEA27NJ_CSV


@pytest.fixture(scope="session")
def eunomia_counts() -> dict[str, int]:
    return dict(EUNOMIA_COUNTS)


def _load(url: str) -> None:
    from clinbridge.adapters.omop import load_omop_csv

    report = load_omop_csv(EUNOMIA_CSV, url, if_exists="replace")
    assert report.reconciles and report.rejected == 0, report.to_dict()


@pytest.fixture(scope="session")
def eunomia_duckdb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("eunomia") / "eunomia.duckdb"
    _load(f"duckdb:///{path}")
    return path


@pytest.fixture(scope="session")
def eunomia_duckdb_url(eunomia_duckdb: Path) -> str:
    return f"duckdb:///{eunomia_duckdb}"


@pytest.fixture(scope="session")
def eunomia_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("eunomia") / "eunomia.sqlite"
    _load(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def eunomia_sqlite_url(eunomia_sqlite: Path) -> str:
    return f"sqlite:///{eunomia_sqlite}"


@pytest.fixture(scope="session")
def synth_duckdb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from clinbridge.synthetic.omop import generate_omop

    path = tmp_path_factory.mktemp("synth") / "synth.duckdb"
    generate_omop(f"duckdb:///{path}", patients=300, seed=1)
    return path


@pytest.fixture(scope="session")
def synth_duckdb_url(synth_duckdb: Path) -> str:
    return f"duckdb:///{synth_duckdb}"


@pytest.fixture(scope="session")
def ehrsql_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated MIMIC-IV database in the EHRSQL-2024 schema (40 patients, seed 3), built once
    per session for the MIMIC and the EHRSQL-reader tests; tests that write use a copy."""
    from clinbridge.synthetic.mimic import generate_mimic

    path = tmp_path_factory.mktemp("ehrsql") / "mimic_iv.sqlite"
    generate_mimic(f"sqlite:///{path}", patients=40, seed=3)
    return path


# -- PostgreSQL --------------------------------------------------------------------------------
def _pg_admin():  # type: ignore[no-untyped-def]
    import psycopg

    return psycopg.connect(PG_BASE, autocommit=True, connect_timeout=3)


@pytest.fixture(scope="session")
def pg_server() -> str:
    """The server's base URL; skips the test when it is not reachable (fails when ``CI`` is set)."""
    try:
        with _pg_admin() as conn:
            conn.execute("SELECT 1")
    except Exception as exc:
        pg_unavailable(f"PostgreSQL at 127.0.0.1:5432 (database test) is not reachable: {exc}")
    return PG_BASE


def _new_schema(prefix: str) -> str:
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with _pg_admin() as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    return name


def _drop_schema(name: str) -> None:
    with _pg_admin() as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A fresh empty schema for one test: ``postgresql://...?schema=cb_test_<random>``."""
    schema = _new_schema("cb_test")
    try:
        yield f"{pg_server}?schema={schema}"
    finally:
        _drop_schema(schema)


@pytest.fixture(scope="session")
def eunomia_pg_url(pg_server: str) -> Iterator[str]:
    """Eunomia GiBleed loaded once into its own schema (dropped at the end of the run)."""
    schema = _new_schema("cb_eunomia")
    url = f"{pg_server}?schema={schema}"
    try:
        _load(url)
        yield url
    finally:
        _drop_schema(schema)
