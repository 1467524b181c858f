"""Guarded execution on real DuckDB, SQLite and PostgreSQL: results, row limit, timeouts,
read-only connections (nothing is ever written) and driver-error translation."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import psycopg
import pytest
from guard_dbs import (
    ALLOWED,
    BACKENDS,
    COLUMNS,
    N_MEASUREMENTS,
    build_duckdb,
    build_sqlite,
    fingerprint,
    normalise,
)
from test_guard import BENIGN, CORPUS

from clinbridge.db import Database, map_driver_error
from clinbridge.engine.execute import execute
from clinbridge.engine.guard import guard
from clinbridge.errors import ConfigError, ExecutionError, QueryTimeoutError, SQLSafetyError
from clinbridge.settings import Settings

SETTINGS = Settings(max_rows=1000, sql_timeout_ms=10_000)
SLOW = (
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 2000000000) "
    "SELECT count(*) AS n FROM t"
)
WRITES = (
    "CREATE TABLE pwned (a INTEGER)",
    "INSERT INTO person (person_id, gender, year_of_birth) VALUES (999, 'X', 1900)",
    "UPDATE person SET year_of_birth = 0",
    "DELETE FROM measurement",
    "DROP TABLE secret",
    "ALTER TABLE person ADD COLUMN pwned INTEGER",
)

pytest_plugins = ["guard_dbs"]  # the databases, as fixtures


def run(url: str, sql: str, *, settings: Settings = SETTINGS, **kw):
    with Database.open(url) as db:
        g = guard(
            sql,
            dialect=db.dialect,
            allowed_tables=kw.pop("allowed_tables", ALLOWED),
            max_rows=kw.pop("max_rows", settings.max_rows),
            allowed_columns=COLUMNS,
        )
        return execute(db, g, settings=settings)


# -- benign queries give the same answers everywhere -------------------------------------------------
@pytest.fixture(scope="module")
def all_urls(request):
    return {
        "duckdb": request.getfixturevalue("guard_duckdb_url"),
        "sqlite": request.getfixturevalue("guard_sqlite_url"),
    }


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
@pytest.mark.parametrize("sql", BENIGN)
def test_benign_queries_agree_across_backends(all_urls, sql, backend, request):
    """Each backend against DuckDB; PostgreSQL is its own case, so a missing server shows as a
    skip (a failure on CI), never as a silently shorter comparison."""
    other = (
        request.getfixturevalue("guard_postgres_url")
        if backend == "postgres"
        else all_urls["sqlite"]
    )
    results = {"duckdb": run(all_urls["duckdb"], sql), backend: run(other, sql)}
    first = results["duckdb"]
    assert first.rows, "the test data should give rows"
    for name, result in results.items():
        assert result.dialect == name.replace("postgresql", "postgres")
        assert not result.truncated
        assert [c.lower() for c in result.columns] == [c.lower() for c in first.columns], name
        rows, expected = normalise(result.rows), normalise(first.rows)
        if "ORDER BY" not in sql.upper():
            rows, expected = sorted(rows, key=repr), sorted(expected, key=repr)
        assert rows == expected, name


def test_known_answers(guard_db_url):
    assert run(guard_db_url, "SELECT count(*) AS n FROM measurement").rows == [(N_MEASUREMENTS,)]
    r = run(guard_db_url, BENIGN[8])  # recursive CTE
    assert int(r.rows[0][0]) == 55
    assert r.sql.endswith("LIMIT 1001")


# -- row limit -----------------------------------------------------------------------------------
def test_row_limit_truncates_and_flags(guard_db_url):
    r = run(guard_db_url, "SELECT * FROM measurement ORDER BY measurement_id", max_rows=10)
    assert r.row_count == 10 and r.truncated
    assert [row[0] for row in r.rows] == list(range(1, 11))


def test_exact_row_count_is_not_truncated(guard_db_url):
    r = run(guard_db_url, "SELECT * FROM measurement", max_rows=N_MEASUREMENTS)
    assert r.row_count == N_MEASUREMENTS and not r.truncated


def test_own_smaller_limit_is_not_truncation(guard_db_url):
    r = run(guard_db_url, "SELECT * FROM measurement LIMIT 5", max_rows=10)
    assert r.row_count == 5 and not r.truncated


def test_settings_max_rows_caps_the_guarded_limit(guard_db_url):
    r = run(
        guard_db_url,
        "SELECT * FROM measurement",
        settings=Settings(max_rows=3, sql_timeout_ms=10_000),
        max_rows=50,
    )
    assert r.row_count == 3 and r.truncated


# -- timeouts ------------------------------------------------------------------------------------
def test_statement_timeout_stops_a_slow_query_on_every_backend(guard_db_url):
    with Database.open(guard_db_url) as db:
        g = guard(SLOW, dialect=db.dialect, allowed_tables=ALLOWED, max_rows=10)
        with pytest.raises(QueryTimeoutError) as info:
            execute(db, g, settings=Settings(sql_timeout_ms=300))
        assert info.value.details["timeout_ms"] == 300
        assert info.value.code == "timeout"
        assert "300 ms" in str(info.value)
        # the connection is still usable afterwards
        g2 = guard(
            "SELECT count(*) FROM person", dialect=db.dialect, allowed_tables=ALLOWED, max_rows=5
        )
        assert execute(db, g2, settings=SETTINGS).rows[0][0] == 20


def test_cross_join_times_out_too(guard_db_url):
    sql = (
        "SELECT count(*) FROM measurement a, measurement b, measurement c, measurement d, "
        "measurement e, measurement f WHERE a.value_as_number + b.value_as_number > "
        "c.value_as_number - d.value_as_number * e.value_as_number + f.value_as_number"
    )
    with pytest.raises(QueryTimeoutError):
        run(guard_db_url, sql, settings=Settings(sql_timeout_ms=200))


# -- read-only: nothing is ever written ------------------------------------------------------------
def test_guard_bypassing_writes_fail_on_read_only_connections(guard_db_url):
    before = fingerprint(guard_db_url)
    with Database.open(guard_db_url) as db:
        assert db.read_only
        for sql in WRITES:
            with pytest.raises(ExecutionError):
                db.execute(sql)
        if db.backend == "postgres":
            # turning read-only off is undone with the statement's transaction
            db.execute("SET default_transaction_read_only = off")
            db.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE")
            with pytest.raises(ExecutionError):
                db.execute("DELETE FROM person")
            with pytest.raises(ExecutionError):  # a second statement cannot escape
                db.execute("COMMIT; DELETE FROM person")
        if db.backend == "duckdb":
            with pytest.raises(ExecutionError):
                db.execute("SET enable_external_access = true")
            with pytest.raises(ExecutionError):
                db.execute("COPY person TO '/tmp/clinbridge_guard_copy.csv'")
    assert fingerprint(guard_db_url) == before


def test_sqlite_attach_cannot_create_files(guard_sqlite_url, tmp_path):
    target = tmp_path / "created.db"
    with Database.open(guard_sqlite_url) as db:
        for sql in (
            f"ATTACH DATABASE '{target}' AS x",
            f"ATTACH DATABASE 'file:{target}?mode=rwc' AS x",
            "PRAGMA query_only = 0",
            "PRAGMA writable_schema = 1",
        ):
            with pytest.raises(ExecutionError):
                db.execute(sql)
        # introspection still works under the authorizer
        assert db.table_names() == ["measurement", "person", "secret"]
        assert [c for c, _ in db.columns("person")] == COLUMNS["person"]
    assert not target.exists()


def test_duckdb_read_only_blocks_files(guard_duckdb_url, tmp_path):
    target = tmp_path / "leak.csv"
    with Database.open(guard_duckdb_url) as db:
        for sql in (
            f"COPY (SELECT * FROM person) TO '{target}'",
            "SELECT * FROM read_csv('/etc/passwd')",
            f"ATTACH '{tmp_path / 'new.duckdb'}' AS x",
        ):
            with pytest.raises(ExecutionError):
                db.execute(sql)
    assert not target.exists() and not (tmp_path / "new.duckdb").exists()


def test_hostile_corpus_never_reaches_the_database(guard_db_url):
    before = fingerprint(guard_db_url)
    backend = next(b for b in BACKENDS if guard_db_url.startswith(b))
    with Database.open(guard_db_url) as db:
        for case in CORPUS:
            with pytest.raises(SQLSafetyError):
                g = guard(
                    case["sql"],
                    dialect=db.dialect,
                    allowed_tables=ALLOWED,
                    max_rows=10,
                    allowed_columns=COLUMNS,
                )
                execute(db, g, settings=SETTINGS)
    assert fingerprint(guard_db_url) == before, backend


@pytest.mark.parametrize("backend", BACKENDS)
def test_sandbox_protects_writable_connections(backend, tmp_path, request):
    """Even a connection opened for writing runs guarded statements read-only."""
    if backend == "duckdb":
        url = build_duckdb(tmp_path / "w.duckdb")
    elif backend == "sqlite":
        url = build_sqlite(tmp_path / "w.db")
    else:
        url = request.getfixturevalue("guard_postgres_url")
    before = fingerprint(url)
    with Database.open(url, read_only=False) as db:
        for sql in WRITES:
            with pytest.raises(ExecutionError):
                db.execute(sql, sandbox=True)
        g = guard(
            "SELECT count(*) FROM person", dialect=db.dialect, allowed_tables=ALLOWED, max_rows=5
        )
        assert execute(db, g, settings=SETTINGS).rows[0][0] == 20
    assert fingerprint(url) == before


def test_duckdb_sandbox_runs_exactly_one_select(tmp_path):
    url = build_duckdb(tmp_path / "w.duckdb")
    with Database.open(url, read_only=False) as db:
        for sql in ("SELECT 1; DROP TABLE person", "ROLLBACK; DROP TABLE person", "PRAGMA version"):
            with pytest.raises(ExecutionError, match="exactly one SELECT"):
                db.execute(sql, sandbox=True)
        assert db.execute("SELECT count(*) FROM person").rows == [(20,)]


# -- contracts -------------------------------------------------------------------------------------
def test_execute_accepts_only_guarded_statements(guard_duckdb_url):
    with Database.open(guard_duckdb_url) as db:
        with pytest.raises(ConfigError):
            execute(db, "SELECT 1", settings=SETTINGS)  # type: ignore[arg-type]
        g = guard("SELECT 1 AS x", dialect="postgres", allowed_tables=None, max_rows=1)
        with pytest.raises(ConfigError, match="guarded for 'postgres'"):
            execute(db, g, settings=SETTINGS)


# -- driver errors are translated at the boundary --------------------------------------------------
def _subclasses(base: type) -> list[type]:
    out, todo = [], [base]
    while todo:
        cls = todo.pop()
        out.append(cls)
        todo.extend(cls.__subclasses__())
    return out


def _instance(cls: type) -> BaseException:
    try:
        return cls("boom")
    except TypeError:
        return cls()


@pytest.mark.parametrize(
    ("backend", "base"),
    [("duckdb", duckdb.Error), ("sqlite", sqlite3.Error), ("postgres", psycopg.Error)],
)
def test_every_upstream_error_type_is_mapped(backend, base):
    classes = _subclasses(base)
    assert len(classes) > 5
    timeouts = {"InterruptException", "QueryCanceled"}
    for cls in classes:
        mapped = map_driver_error(_instance(cls), backend=backend, sql="SELECT 1", timeout_ms=5)
        assert isinstance(mapped, ExecutionError), cls
        assert mapped.details["backend"] == backend
        assert mapped.details["driver_error"] == cls.__name__
        assert isinstance(mapped, QueryTimeoutError) == (cls.__name__ in timeouts), cls


def test_sqlite_interrupt_maps_to_timeout():
    mapped = map_driver_error(sqlite3.OperationalError("interrupted"), backend="sqlite")
    assert isinstance(mapped, QueryTimeoutError)


def test_real_driver_errors_become_execution_errors(guard_db_url):
    with Database.open(guard_db_url) as db:
        for sql in ("SELECT no_such_column FROM person", "SELECT * FROM no_such_table", "SELEC 1"):
            with pytest.raises(ExecutionError) as info:
                db.execute(sql)
            assert not isinstance(info.value, QueryTimeoutError)
            assert info.value.__cause__ is not None
            assert info.value.details["backend"] == db.backend
        # a failed statement leaves the connection usable
        assert db.execute("SELECT count(*) FROM person").rows[0][0] == 20


def test_open_missing_file_is_a_config_error(tmp_path):
    for url in (f"duckdb:///{tmp_path}/nope.duckdb", f"sqlite:///{tmp_path}/nope.db"):
        with pytest.raises(ConfigError):
            Database.open(url)
    assert not list(Path(tmp_path).iterdir())


def test_timeouts_on_writable_connections_too(guard_db_url):
    """Loaders' connections get the same timeout, and it does not outlive the statement."""
    with Database.open(guard_db_url, read_only=False) as db:
        with pytest.raises(QueryTimeoutError):
            db.execute(SLOW, timeout_ms=200)
        assert db.execute("SELECT count(*) FROM person").rows[0][0] == 20
        if db.backend == "postgres":
            with db.cursor() as cur:
                # back to the role's own default (30 s for the test reader), not 200 ms
                cur.execute("SHOW statement_timeout")
                assert cur.fetchone()[0] == "30s"


def test_duckdb_missing_schema_is_a_config_error(guard_duckdb_url):
    with pytest.raises(ConfigError, match="no schema 'nope'"):
        Database.open(guard_duckdb_url + "?schema=nope")


def test_percent_signs_are_not_placeholders(guard_db_url):
    r = run(guard_db_url, "SELECT count(*) AS n FROM person WHERE gender LIKE '%F%'")
    assert r.rows[0][0] == 10
