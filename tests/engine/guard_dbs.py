"""Small test databases for the guard and executor tests: the same rows on DuckDB, SQLite and
PostgreSQL (a uniquely named schema, dropped afterwards; skipped when the server is down).

Tables: person and measurement (catalogued), secret (present but never catalogued).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import uuid
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

import duckdb
import pytest

from pg_required import pg_unavailable

PG_URL = os.environ.get("CLINBRIDGE_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = ("duckdb", "sqlite", "postgres")
ALLOWED = frozenset({"person", "measurement"})
COLUMNS = {
    "person": ["person_id", "gender", "year_of_birth"],
    "measurement": [
        "measurement_id",
        "person_id",
        "measurement_concept_id",
        "value_as_number",
        "unit",
        "measurement_date",
    ],
}
N_PERSONS = 20
N_MEASUREMENTS = 60

DDL = (
    "CREATE TABLE person (person_id INTEGER, gender VARCHAR(1), year_of_birth INTEGER)",
    "CREATE TABLE measurement (measurement_id INTEGER, person_id INTEGER, "
    "measurement_concept_id INTEGER, value_as_number DOUBLE PRECISION, unit VARCHAR(20), "
    "measurement_date DATE)",
    "CREATE TABLE secret (x VARCHAR(40))",
)
PERSONS = [(i, "F" if i % 2 else "M", 1940 + 3 * i) for i in range(1, N_PERSONS + 1)]
MEASUREMENTS = [
    (
        i,
        (i % N_PERSONS) + 1,
        3000 + i % 3,
        50.0 + (i * 37 % 100) * 1.5,
        "mg/dL",
        f"2020-{1 + i % 12:02d}-{1 + i % 28:02d}",
    )
    for i in range(1, N_MEASUREMENTS + 1)
]
SECRETS = [("top secret",)]


def _fill(conn: Any, mark: str) -> None:
    cur = conn.cursor()
    for stmt in DDL:
        cur.execute(stmt)
    cur.executemany(f"INSERT INTO person VALUES ({mark}, {mark}, {mark})", PERSONS)
    cur.executemany(
        f"INSERT INTO measurement VALUES ({', '.join([mark] * 6)})",
        [(*m[:5], m[5]) for m in MEASUREMENTS],
    )
    cur.executemany(f"INSERT INTO secret VALUES ({mark})", SECRETS)


def build_duckdb(path: Path) -> str:
    conn = duckdb.connect(str(path))
    _fill(conn, "?")
    conn.close()
    return f"duckdb:///{path}"


def build_sqlite(path: Path) -> str:
    conn = sqlite3.connect(path)
    _fill(conn, "?")
    conn.commit()
    conn.close()
    return f"sqlite:///{path}"


def pg_down_reason() -> str | None:
    try:
        import psycopg

        with psycopg.connect(PG_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:
        return f"PostgreSQL at {PG_URL} is not reachable: {exc}"
    return None


def reader_url(role: str, schema: str) -> str:
    """PG_URL, connecting as ``role`` (the test server trusts local connections)."""
    parts = urlparse(PG_URL)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunparse(parts._replace(netloc=f"{role}@{host}")) + f"?schema={schema}"


def build_postgres() -> tuple[str, str]:
    """Create a uniquely named schema with the tables, and a least-privilege reader of the
    catalogued tables only (not ``secret``); return (the reader's url, schema)."""
    import psycopg

    from clinbridge.db import reader_role_sql

    schema = f"cb_guard_{uuid.uuid4().hex[:10]}"
    role = f"{schema}_reader"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f'SET search_path TO "{schema}"')
        _fill(conn, "%s")
        database = urlparse(PG_URL).path.lstrip("/") or "postgres"
        for stmt in reader_role_sql(role, schema=schema, tables=sorted(ALLOWED), database=database):
            conn.execute(stmt)
    url = reader_url(role, schema)
    try:  # the test server trusts local logins; where it does not, run queries AS the reader
        psycopg.connect(url.split("?", 1)[0], connect_timeout=5).close()
    except psycopg.Error:
        url = f"{PG_URL}?schema={schema}&query_role={role}"
    return url, schema


def schema_of(url: str) -> str:
    """The ``schema=`` of a test URL."""
    from urllib.parse import parse_qs

    return parse_qs(urlparse(url).query)["schema"][0]


def drop_postgres(schema: str) -> None:
    import psycopg

    role = f"{schema}_reader"
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
        if exists:
            conn.execute(f'DROP OWNED BY "{role}"')
            conn.execute(f'DROP ROLE "{role}"')


def fingerprint(url: str) -> Any:
    """Bytes of a database file, or the row contents of a PostgreSQL schema."""
    if url.startswith(("duckdb:", "sqlite:")):
        path = Path(url.split(":///", 1)[1])
        files = sorted(path.parent.glob(path.name + "*"))  # the file and any WAL / journal
        return {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}
    import psycopg

    schema = schema_of(url)
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s ORDER BY 1",
            (schema,),
        ).fetchall()
        out = {}
        for (t,) in tables:
            rows = conn.execute(f'SELECT * FROM "{schema}"."{t}" ORDER BY 1').fetchall()
            out[t] = rows
        return out


def normalise(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Make rows from different drivers comparable (Decimal/float, dates as ISO text)."""
    out = []
    for row in rows:
        vals: list[Any] = []
        for v in row:
            if isinstance(v, Decimal):
                v = float(v)
            if isinstance(v, float):
                v = round(v, 6)
            if hasattr(v, "isoformat"):
                v = v.isoformat()
            vals.append(v)
        out.append(tuple(vals))
    return out


# -- fixtures (imported by the test modules) ------------------------------------------------------
@pytest.fixture(scope="module")
def guard_duckdb_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return build_duckdb(tmp_path_factory.mktemp("guard_duckdb") / "t.duckdb")


@pytest.fixture(scope="module")
def guard_sqlite_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return build_sqlite(tmp_path_factory.mktemp("guard_sqlite") / "t.db")


@pytest.fixture(scope="module")
def guard_postgres_url() -> Iterator[str]:
    reason = pg_down_reason()
    if reason:
        pg_unavailable(reason)
    url, schema = build_postgres()
    try:
        yield url
    finally:
        drop_postgres(schema)


@pytest.fixture(params=[*BACKENDS[:2], pytest.param("postgres", marks=pytest.mark.postgres)])
def guard_db_url(request: pytest.FixtureRequest) -> str:
    url: str = request.getfixturevalue(f"guard_{request.param}_url")
    return url
