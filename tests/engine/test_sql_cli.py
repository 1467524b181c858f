"""``clinbridge sql``: output, JSON, exit codes and messages (CliRunner, and one real process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from guard_dbs import (
    N_MEASUREMENTS,
    fingerprint,
)

from clinbridge.cli import main
from clinbridge.cli.sql import allowed_schema, format_table, sql_cmd
from clinbridge.db import Database

SRC = Path(__file__).resolve().parents[2] / "src"

pytest_plugins = ["guard_dbs"]  # the databases, as fixtures


def invoke(*args: str):
    return CliRunner().invoke(main, ["sql", *args])


def test_table_output(guard_db_url):
    r = invoke(
        "SELECT gender, count(*) AS n FROM person GROUP BY gender ORDER BY gender",
        "--db",
        guard_db_url,
    )
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["gender", "n"]
    assert lines[2].split() == ["F", "10"] and lines[3].split() == ["M", "10"]
    assert lines[-1].startswith("(2 rows;")


def test_json_output(guard_db_url):
    r = invoke("SELECT * FROM measurement", "--db", guard_db_url, "--json", "--max-rows", "7")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert set(data) >= {
        "columns", "rows", "row_count", "truncated", "sql", "dialect", "elapsed_ms"
    }  # fmt: skip
    assert data["row_count"] == 7 and len(data["rows"]) == 7 and data["truncated"] is True
    assert data["sql"].endswith("LIMIT 8")
    assert data["dialect"] in {"duckdb", "sqlite", "postgres"}
    assert data["columns"][0] == "measurement_id"
    assert isinstance(data["rows"][0][5], str)  # dates as ISO text


def test_all_rows_when_under_the_limit(guard_db_url):
    r = invoke("SELECT measurement_id FROM measurement", "--db", guard_db_url, "--json")
    data = json.loads(r.stdout)
    assert data["row_count"] == N_MEASUREMENTS and data["truncated"] is False


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("DROP TABLE person", "write_operation"),
        ("SELECT * FROM person; DELETE FROM person", "multiple_statements"),
        ("SELECT * FROM no_such_table", "unknown_table"),
        ("SELECT * FROM read_csv('/etc/passwd')", "forbidden_function"),
        ("SELECT password FROM person", "unknown_column"),
        ("SELEC * FRM person", "not_a_query"),
        ("", "empty"),
    ],
)
def test_refusals_exit_2_with_one_line_reason(guard_db_url, sql, reason):
    before = fingerprint(guard_db_url)
    r = invoke(sql, "--db", guard_db_url)
    assert r.exit_code == 2
    assert r.stdout == ""
    message = r.stderr.strip()
    assert "\n" not in message
    assert message.startswith(f"error: refused ({reason}):")
    assert fingerprint(guard_db_url) == before


def test_refusal_as_json(guard_duckdb_url):
    r = invoke("DELETE FROM person", "--db", guard_duckdb_url, "--json")
    assert r.exit_code == 2
    error = json.loads(r.stdout)["error"]
    assert error["code"] == "sql_unsafe" and error["reason"] == "write_operation"


def test_timeout_exits_1(guard_db_url):
    slow = (
        "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t "
        "WHERE n < 2000000000) SELECT count(*) FROM t"
    )
    r = invoke(slow, "--db", guard_db_url, "--timeout-ms", "200")
    assert r.exit_code == 1
    assert r.stderr.startswith("error: timeout: query ran longer than 200 ms")


def test_execution_error_exits_1(guard_sqlite_url):
    # passes the guard, fails in the database (integer overflow)
    r = invoke("SELECT abs(-9223372036854775807 - 1) AS x FROM person", "--db", guard_sqlite_url)
    assert r.exit_code == 1
    assert r.stderr.startswith("error: execution: sqlite query failed")


def test_missing_database_exits_1(tmp_path):
    r = invoke("SELECT 1", "--db", f"duckdb:///{tmp_path}/missing.duckdb")
    assert r.exit_code == 1 and "does not exist" in r.stderr
    assert not (tmp_path / "missing.duckdb").exists()


def test_statement_from_stdin(guard_duckdb_url):
    r = CliRunner().invoke(
        sql_cmd, ["-", "--db", guard_duckdb_url], input="SELECT count(*) AS n FROM person\n"
    )
    assert r.exit_code == 0 and "20" in r.stdout


def test_schema_option_on_postgres(guard_postgres_url):
    base, schema = guard_postgres_url.split("?schema=")
    r = invoke("SELECT count(*) AS n FROM person", "--db", base, "--schema", schema, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["rows"] == [[20]]
    r = invoke(f"SELECT count(*) FROM {schema}.person", "--db", base, "--schema", schema)
    assert r.exit_code == 0, r.output
    r = invoke("SELECT count(*) FROM public.person", "--db", base, "--schema", schema)
    assert r.exit_code == 2 and "outside the source's schema" in r.stderr


def test_allowed_tables_come_from_the_database_without_an_adapter(guard_db_url):
    with Database.open(guard_db_url) as db:
        tables, columns, source = allowed_schema(db)
    # the PostgreSQL reader role is granted the catalogued tables only: it cannot see secret
    expected = {"person", "measurement"} | ({"secret"} if db.backend != "postgres" else set())
    assert tables == expected or source.startswith("catalog")
    assert "person_id" in columns["person"]


def test_format_table_aligns_numbers_and_nulls():
    text = format_table(["a", "b"], [(1, None), (100, "x")])
    assert text.splitlines() == ["  a  b", "---  ----", "  1  NULL", "100  x"]


def test_real_process_exit_codes_and_messages(guard_duckdb_url):
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    ok = subprocess.run(
        [sys.executable, "-m", "clinbridge", "sql", "SELECT count(*) AS n FROM person",
         "--db", guard_duckdb_url, "--json"],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["rows"] == [[20]]
    refused = subprocess.run(
        [sys.executable, "-m", "clinbridge", "sql", "ATTACH '/tmp/x.duckdb' AS x",
         "--db", guard_duckdb_url],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert refused.stderr.strip() == (
        "error: refused (not_a_query): ATTACH is not a query; only a single SELECT may run"
        " (see https://github.com/clinbridge/clinbridge/blob/main/docs/errors.md#sql_unsafe)"
    )


def test_schema_option_on_duckdb(tmp_path):
    import duckdb

    path = tmp_path / "schema.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute("CREATE SCHEMA cdm")
    conn.execute("CREATE TABLE cdm.person AS SELECT 7 AS person_id")
    conn.close()
    for args in (
        ["--db", f"duckdb:///{path}", "--schema", "cdm"],
        ["--db", f"duckdb:///{path}?schema=cdm"],
    ):
        r = invoke("SELECT person_id FROM person", *args, "--json")
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout)["rows"] == [[7]]


def test_catalog_of_a_recognising_adapter_decides_the_tables(guard_duckdb_url):
    """When an adapter recognises the database, only its catalogued tables may be read."""
    from clinbridge.adapters import base
    from clinbridge.catalog import Catalog, ColumnInfo, TableInfo

    base._load_all()

    class _GuardTestAdapter(base.SourceAdapter):
        name = "guard_test"
        PRIORITY = -1

        @classmethod
        def detect(cls, db):
            return db.url == guard_duckdb_url

        def catalog(self, db, *, source=None):
            cols = tuple(ColumnInfo(name=c) for c in ("person_id", "gender", "year_of_birth"))
            return Catalog(
                source="t", adapter="guard_test", dialect="duckdb",
                tables=(TableInfo(name="person", columns=cols),),
            )  # fmt: skip

    try:
        ok = invoke("SELECT count(*) FROM person", "--db", guard_duckdb_url, "--json")
        assert ok.exit_code == 0, ok.output
        assert json.loads(ok.stdout)["tables_from"] == "catalog of adapter 'guard_test'"
        refused = invoke("SELECT count(*) FROM measurement", "--db", guard_duckdb_url)
        assert refused.exit_code == 2 and "unknown_table" in refused.stderr
    finally:
        base._REGISTRY.pop("guard_test", None)


def test_hostile_corpus_through_the_cli(guard_sqlite_url):
    from test_guard import CORPUS

    for url in (guard_sqlite_url,):
        before = fingerprint(url)
        for case in CORPUS:
            if "secret" in case["sql"] or not case["sql"].strip() or len(case["sql"]) > 10_000:
                continue  # secret is an ordinary table without an adapter; argv limits
            r = invoke("--db", url, "--", case["sql"])  # "--": statements may start with --
            assert r.exit_code == 2, (case["id"], r.output)
            dialect = "duckdb" if url.startswith("duckdb") else "sqlite"
            assert f"refused ({case.get(dialect, case['reason'])})" in r.stderr, case["id"]
        assert fingerprint(url) == before
