"""Helpers for the FHIR adapter tests: sample data paths and a fresh database per backend."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from pg_required import pg_unavailable

DATA = Path(__file__).resolve().parents[1] / "data" / "fhir"
BUNDLES = DATA / "bundles"
NDJSON = DATA / "ndjson"
BROKEN = DATA / "broken"
PG_BASE = "postgresql://postgres@127.0.0.1:5432/test"


def _pg_up() -> bool:
    try:
        import psycopg

        with psycopg.connect(PG_BASE, connect_timeout=3):
            return True
    except Exception:
        return False


def make_url(backend: str, tmp: Path) -> Iterator[str]:
    """A fresh database URL for ``backend``; PostgreSQL gets a unique schema, dropped after."""
    if backend == "duckdb":
        yield f"duckdb:///{tmp / 'fhir.duckdb'}"
    elif backend == "sqlite":
        yield f"sqlite:///{tmp / 'fhir.db'}"
    else:
        if not _pg_up():
            pg_unavailable("PostgreSQL at 127.0.0.1:5432 is not reachable")
        import psycopg

        schema = f"cb_fhir_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(PG_BASE, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        try:
            yield f"{PG_BASE}?schema={schema}"
        finally:
            with psycopg.connect(PG_BASE, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


BACKENDS = [
    "duckdb",
    "sqlite",
    pytest.param("postgres", marks=pytest.mark.postgres),
]
