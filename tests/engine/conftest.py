"""Eunomia fixtures for the engine tests (loaded once per run)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from clinbridge.adapters.omop.loader import load_omop_csv
from clinbridge.db import Database

EUNOMIA = Path(__file__).resolve().parents[2] / "synthetic_data" / "eunomia-gibleed-5.3"
PG = "postgresql://postgres@127.0.0.1:5432/test"


@pytest.fixture(scope="session")
def eunomia_duckdb(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("eunomia") / "eunomia.duckdb"
    load_omop_csv(EUNOMIA, f"duckdb:///{path}")
    return path


@pytest.fixture(scope="session")
def eunomia_sqlite(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("eunomia") / "eunomia.db"
    load_omop_csv(EUNOMIA, f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def eunomia_pg_url():
    try:
        admin = Database.open(PG, read_only=False)
    except Exception as exc:  # pragma: no cover - no server
        pytest.skip(f"PostgreSQL at {PG} is not reachable: {exc}")
    schema = f"cb_engine_{uuid.uuid4().hex[:8]}"
    url = f"{PG}?schema={schema}"
    try:
        load_omop_csv(EUNOMIA, url)
        yield url
    finally:
        admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE', max_rows=None)
        admin.close()
