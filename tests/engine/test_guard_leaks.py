"""Regression tests for each leak, crash and hang the hostile review of the guard found, and for
the database-level least privilege behind it."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlglot
from guard_dbs import ALLOWED, PG_URL, schema_of  # type: ignore[import-not-found]

from clinbridge.db import Database
from clinbridge.engine.execute import execute
from clinbridge.engine.guard import guard, identifier_key
from clinbridge.errors import ConfigError, ExecutionError, SQLSafetyError
from clinbridge.settings import Settings

pytest_plugins = ["guard_dbs"]

GOLDEN = Path(__file__).parent / "golden"
OMOP = {
    "person", "observation_period", "visit_occurrence", "condition_occurrence", "drug_exposure",
    "procedure_occurrence", "measurement", "observation", "death", "concept", "concept_ancestor",
    "concept_relationship", "concept_synonym", "drug_era", "condition_era", "visit_detail",
    "device_exposure", "note", "specimen", "payer_plan_period", "provider", "care_site",
}  # fmt: skip


def refused(sql: str, dialect: str, **kw: object) -> str:
    kw.setdefault("allowed_tables", ALLOWED)
    with pytest.raises(SQLSafetyError) as info:
        guard(sql, dialect=dialect, max_rows=100, **kw)  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message and message.startswith("refused (")
    return str(info.value.details["reason"])


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*/*.sql")), ids=lambda p: p.parent.name)
def test_the_engines_golden_sql_passes_the_allow_lists(path):
    g = guard(path.read_text(encoding="utf-8"), dialect=path.stem, allowed_tables=OMOP, max_rows=10)
    assert g.tables and set(g.tables) <= OMOP


def test_identifier_keys_follow_each_database():
    assert identifier_key("PG_SHADOW", quoted=True, dialect="postgres") == "PG_SHADOW"
    assert identifier_key("PG_SHADOW", quoted=False, dialect="postgres") == "pg_shadow"
    assert identifier_key("DUCKDB_TABLES", quoted=True, dialect="duckdb") == "duckdb_tables"
    kelvin = "duc\u212adb_tables"
    assert identifier_key(kelvin, quoted=False, dialect="duckdb") == kelvin  # not "duckdb_tables"
    assert kelvin.lower() == "duckdb_tables"  # what str.lower would have said


def test_quoted_upper_case_cte_does_not_hide_a_postgres_system_table():
    sql = 'WITH "PG_SHADOW" AS (SELECT 1 AS x) SELECT * FROM pg_shadow'
    assert refused(sql, "postgres") == "system_catalog"


def test_kelvin_sign_cte_does_not_hide_a_duckdb_system_view():
    sql = 'WITH "duc\u212adb_tables" AS (SELECT 1 AS x) SELECT * FROM duckdb_tables'
    assert refused(sql, "duckdb") == "system_catalog"


@pytest.mark.parametrize("recursive", ["", "RECURSIVE "])
def test_a_cte_reading_its_own_name_reads_the_real_table(recursive):
    sql = f"WITH {recursive}secret AS (SELECT * FROM secret) SELECT * FROM secret"
    for dialect in ("duckdb", "sqlite", "postgres"):
        assert refused(sql, dialect) == "unknown_table"
    ok = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT * FROM t"
    assert guard(ok, dialect="duckdb", allowed_tables=ALLOWED, max_rows=5).tables == ()


@pytest.mark.parametrize(
    ("dialect", "call"),
    [
        ("postgres", "ts_stat('SELECT to_tsvector(x) FROM secret')"),
        ("postgres", "ts_rewrite('a'::tsquery, 'SELECT t, s FROM secret')"),
        ("postgres", "query_to_xml('SELECT 1', true, true, '')"),
        ("postgres", "schema_to_xml('public', true, true, '')"),
        ("postgres", "current_setting('data_directory')"),
        ("postgres", "pg_terminate_backend(1)"),
        ("postgres", "lo_import('/etc/passwd')"),
        ("duckdb", "sleep_ms(1000)"),
        ("duckdb", "read_csv('/etc/passwd')"),
        ("duckdb", "glob('/*')"),
        ("sqlite", "zeroblob(1000000000)"),
        ("postgres", "nextval('s')"),
    ],
)
def test_functions_not_on_the_allow_list_are_refused(dialect, call):
    assert refused(f"SELECT {call}", dialect) == "forbidden_function"


def test_show_all_is_a_refusal_not_a_traceback():
    assert refused("SHOW ALL", "duckdb") in {"parse_error", "not_a_query"}


@pytest.mark.parametrize("limit", ["LIMIT 100 PERCENT", "LIMIT 10%", "LIMIT ALL", "LIMIT -1"])
def test_no_limit_form_replaces_the_row_limit(limit):
    dialect = "duckdb" if "%" in limit or "PERCENT" in limit else "postgres"
    if limit == "LIMIT -1":
        dialect = "sqlite"
    g = guard(f"SELECT * FROM person {limit}", dialect=dialect, allowed_tables=ALLOWED, max_rows=5)
    outer = sqlglot.parse_one(g.sql, read=dialect).args["limit"]
    assert outer.expression.this in {"6", "5"} and g.limit <= 6
    assert not {k for k, v in outer.args.items() if v is not None} - {"expression"}


def test_generate_series_is_admitted_on_postgres_and_bounded():
    g = guard("SELECT * FROM generate_series(1, 10)", dialect="postgres", allowed_tables=ALLOWED,
              max_rows=100)  # fmt: skip
    assert g.tables == ()
    assert refused("SELECT * FROM generate_series(1, 100000000000)", "postgres") == "too_complex"


def test_generate_series_runs_on_postgres(guard_postgres_url):
    with Database.open(guard_postgres_url) as db:
        g = guard("SELECT * FROM generate_series(1, 10)", dialect="postgres",
                  allowed_tables=ALLOWED, max_rows=100)  # fmt: skip
        assert [r[0] for r in execute(db, g, settings=Settings()).rows] == list(range(1, 11))


def test_long_statements_and_planner_bombs_are_refused_fast():
    assert refused("SELECT 1" + " + 1" * 23_000, "postgres") == "too_long"
    chain = (
        "WITH "
        + ", ".join(
            f"c{i} AS (SELECT a.x FROM c{i - 1} a, c{i - 1} b)" if i else "c0 AS (SELECT 1 AS x)"
            for i in range(25)
        )
        + " SELECT * FROM c24"
    )
    assert refused(chain, "postgres") == "too_complex"


def test_guard_time_counts_inside_the_timeout():
    sql = "SELECT * FROM person WHERE person_id IN (" + ",".join(["1"] * 3_000) + ")"
    assert refused(sql, "duckdb", timeout_ms=1) == "too_complex"
    g = guard("SELECT 1", dialect="duckdb", allowed_tables=None, max_rows=1)
    assert g.guard_ms > 0


# -- least privilege -------------------------------------------------------------------------------
def test_superuser_url_is_warned_about_or_refused(guard_postgres_url):
    schema = schema_of(guard_postgres_url)
    with Database.open(f"{PG_URL}?schema={schema}") as db:
        assert "superuser" in db.privileges
        assert db.warnings and "least-privilege" in db.warnings[0]
    with pytest.raises(ConfigError, match="can do more than read"):
        Database.open(f"{PG_URL}?schema={schema}&privileged=refuse")


def test_the_reader_role_has_no_privileges_and_cannot_read_the_canary(guard_postgres_url):
    with Database.open(guard_postgres_url + "&privileged=refuse") as db:
        assert db.privileges == () and db.warnings == []
        for sql in ("SELECT * FROM secret", "SELECT pg_read_file('/etc/passwd')",
                    "SELECT * FROM pg_authid", "SELECT lo_import('/etc/passwd')"):  # fmt: skip
            with pytest.raises(ExecutionError, match=r"permission denied|must be superuser"):
                db.execute(sql, sandbox=True)


def test_query_role_runs_sandboxed_statements_as_the_reader(guard_postgres_url):
    schema = schema_of(guard_postgres_url)
    reader = f"{schema}_reader"
    with Database.open(f"{PG_URL}?schema={schema}&query_role={reader}") as db:
        assert db.privileges == ()  # the role queries run as
        with pytest.raises(ExecutionError, match="permission denied"):
            db.execute("SELECT * FROM secret", sandbox=True)
        assert db.execute("SELECT count(*) FROM person", sandbox=True).rows[0][0] == 20


def test_duckdb_read_only_connection_is_locked_down(guard_duckdb_url):
    with Database.open(guard_duckdb_url) as db:
        rows = db.execute(
            "SELECT current_setting('enable_external_access'), current_setting('temp_directory'),"
            " current_setting('lock_configuration'), current_setting('memory_limit')"
        ).rows[0]
        assert rows[0] is False and rows[1] == "" and rows[2] is True and "GiB" in rows[3]
        with pytest.raises(ExecutionError):
            db.execute("SET memory_limit = '100GB'")
        with pytest.raises(ExecutionError):
            db.execute("SELECT * FROM read_csv('/etc/passwd')")


def test_sqlite_read_only_connection_bounds_one_step_functions(guard_sqlite_url):
    with Database.open(guard_sqlite_url) as db:
        for sql in ("SELECT length(zeroblob(1000000000))", "SELECT printf('%.*c', 1000000000, 'x')",
                    "SELECT length(randomblob(1000000000))"):  # fmt: skip
            with pytest.raises(ExecutionError):
                db.execute(sql, sandbox=True)


def test_compiled_expressions_get_larger_size_limits_but_the_same_allow_lists():
    from sqlglot import exp

    ids = ", ".join(str(i) for i in range(6_000))  # a broad concept set, 12,000 tokens as text
    text = f"SELECT count(*) FROM measurement WHERE measurement_concept_id IN ({ids})"
    assert refused(text, "postgres") == "too_complex"
    built = sqlglot.parse_one(text, read="postgres")
    assert isinstance(built, exp.Select)
    g = guard(built, dialect="postgres", allowed_tables=ALLOWED, max_rows=5)
    assert g.tables == ("measurement",)
    hostile = sqlglot.parse_one("SELECT pg_sleep(10)", read="postgres")
    with pytest.raises(SQLSafetyError, match="forbidden_function"):
        guard(hostile, dialect="postgres", allowed_tables=ALLOWED, max_rows=5)
