"""The guard, on its own: the hostile corpus, benign queries, scoping and the row limit."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import sqlglot
import yaml
from sqlglot import exp

from clinbridge.engine.guard import MAX_SQL_LENGTH, GuardedSQL, guard, refusal_reasons
from clinbridge.errors import SQLSafetyError

DIALECTS = ("duckdb", "sqlite", "postgres")
ALLOWED = {"person", "measurement"}
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
CORPUS_PATH = Path(__file__).parent / "data" / "hostile_sql.yaml"


def load_corpus() -> list[dict]:
    cases = yaml.safe_load(CORPUS_PATH.read_text(encoding="utf-8"))
    for case in cases:
        if "repeat" in case:
            rep = case["repeat"]
            case["sql"] = case["sql"] + rep["text"] * rep["times"] + case.get("suffix", "")
    return cases


CORPUS = load_corpus()

BENIGN = [
    "SELECT count(*) AS n FROM person",
    "SELECT p.gender, count(*) AS n FROM person p JOIN measurement m "
    "ON m.person_id = p.person_id GROUP BY p.gender ORDER BY p.gender",
    "WITH old AS (SELECT person_id FROM person WHERE year_of_birth < 1960) "
    "SELECT count(*) AS n FROM measurement WHERE person_id IN (SELECT person_id FROM old)",
    "SELECT person_id, measurement_id, row_number() OVER "
    "(PARTITION BY person_id ORDER BY measurement_id) AS rn FROM measurement "
    "ORDER BY person_id, measurement_id",
    "SELECT person_id FROM person WHERE gender = 'F' UNION "
    "SELECT person_id FROM measurement WHERE value_as_number > 150 ORDER BY person_id",
    "SELECT person_id, (SELECT max(value_as_number) FROM measurement m "
    "WHERE m.person_id = p.person_id) AS top FROM person p ORDER BY person_id",
    "SELECT count(*) AS n FROM person p WHERE EXISTS (SELECT 1 FROM measurement m "
    "WHERE m.person_id = p.person_id AND m.measurement_concept_id = 3001)",
    "SELECT CASE WHEN year_of_birth < 1970 THEN 'older' ELSE 'younger' END AS grp, "
    "count(*) AS n FROM person GROUP BY 1 HAVING count(*) > 1 ORDER BY 1",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) "
    "SELECT sum(n) AS s FROM t",
    "SELECT count(*) AS n FROM measurement WHERE measurement_date >= '2020-06-01'",
    "SELECT m.unit, avg(m.value_as_number) AS mean, min(m.value_as_number) AS lo "
    "FROM measurement AS m GROUP BY m.unit",
    "SELECT a.person_id FROM person a LEFT JOIN measurement b ON a.person_id = b.person_id "
    "AND b.value_as_number > 170 WHERE b.measurement_id IS NULL",
    "SELECT person_id FROM person INTERSECT SELECT person_id FROM measurement ORDER BY 1",
    "SELECT person_id FROM person EXCEPT SELECT person_id FROM measurement "
    "WHERE value_as_number > 175",
    "SELECT DISTINCT gender FROM person ORDER BY gender",
    "SELECT coalesce(NULL, gender) AS g, lower(gender) AS l FROM person ORDER BY person_id",
]


def _refusal(sql: str, dialect: str, **kw) -> SQLSafetyError:
    kw.setdefault("allowed_tables", ALLOWED)
    kw.setdefault("max_rows", 100)
    with pytest.raises(SQLSafetyError) as info:
        guard(sql, dialect=dialect, **kw)
    return info.value


# -- the hostile corpus ----------------------------------------------------------------------------
def test_corpus_is_big_and_well_formed():
    assert len(CORPUS) >= 40
    ids = [c["id"] for c in CORPUS]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    known = set(refusal_reasons())
    for case in CORPUS:
        for key in ("reason", *DIALECTS):
            if key in case:
                assert case[key] in known, (case["id"], case[key])


def test_corpus_covers_every_reason():
    used = {c[k] for c in CORPUS for k in ("reason", *DIALECTS) if k in c}
    assert used >= set(refusal_reasons()) - {"bad_limit", "unsupported_syntax"}


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_hostile_sql_is_refused_with_its_reason(case, dialect):
    error = _refusal(case["sql"], dialect, allowed_columns=COLUMNS)
    expected = case.get(dialect, case["reason"])
    assert error.details["reason"] == expected, str(error)
    assert error.code == "sql_unsafe"
    message = str(error)
    assert message.startswith(f"refused ({expected}): ")
    assert "\n" not in message and len(message) < 600


def test_hostile_sql_refused_without_a_table_list():
    """allowed_tables=None skips the catalogue check but nothing else."""
    for case in CORPUS:
        reason = case["reason"]
        if reason in {"unknown_table", "unknown_column"}:
            continue
        error = _refusal(case["sql"], "duckdb", allowed_tables=None)
        assert error.details["reason"] == case.get("duckdb", reason), case["id"]


# -- benign queries --------------------------------------------------------------------------------
@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("sql", BENIGN)
def test_benign_queries_are_accepted(sql, dialect):
    g = guard(sql, dialect=dialect, allowed_tables=ALLOWED, max_rows=1000, allowed_columns=COLUMNS)
    assert isinstance(g, GuardedSQL)
    assert set(g.tables) <= ALLOWED
    assert g.dialect == dialect
    reparsed = sqlglot.parse(g.sql, read=dialect)
    assert len(reparsed) == 1 and isinstance(reparsed[0], exp.Query)
    assert g.limit <= 1001


def test_tables_read_are_reported_without_ctes():
    g = guard(BENIGN[2], dialect="duckdb", allowed_tables=ALLOWED, max_rows=10)
    assert g.tables == ("measurement", "person")
    g = guard(BENIGN[8], dialect="duckdb", allowed_tables=ALLOWED, max_rows=10)
    assert g.tables == ()


def test_table_names_compare_the_way_each_database_compares_them():
    # DuckDB and SQLite: ASCII-case-insensitive, quoted or not
    for dialect in ("duckdb", "sqlite"):
        for sql in ("SELECT * FROM PERSON", "SELECT * FROM cdm.person", 'SELECT * FROM "Person"'):
            g = guard(sql, dialect=dialect, allowed_tables={"person"}, max_rows=5)
            assert g.tables == ("person",)
    # PostgreSQL folds unquoted names to lower case and keeps quoted ones exact
    assert guard("SELECT * FROM PERSON", dialect="postgres", allowed_tables={"person"}, max_rows=5)
    for sql in ('SELECT * FROM "PERSON"', 'SELECT * FROM "Person"'):
        e = _refusal(sql, "postgres", allowed_tables={"person"})
        assert e.details["reason"] == "unknown_table", sql
    g = guard('SELECT * FROM "Person"', dialect="postgres", allowed_tables={"Person"}, max_rows=5)
    assert g.tables == ("Person",)
    assert _refusal("SELECT * FROM Person", "postgres", allowed_tables={"Person"})
    # only ASCII letters fold: the Kelvin sign is not a k
    e = _refusal("SELECT * FROM \u212aitchen", "duckdb", allowed_tables={"kitchen"})
    assert e.details["reason"] == "unknown_table"


def test_allowed_schemas_pin_qualified_names_to_the_source_schema():
    kw = {"dialect": "postgres", "allowed_tables": ALLOWED, "max_rows": 5}
    assert guard("SELECT * FROM CDM.person", allowed_schemas={"cdm"}, **kw).tables == ("person",)
    assert guard("SELECT * FROM person", allowed_schemas={"cdm"}, **kw).tables == ("person",)
    e = _refusal("SELECT * FROM hr.person", "postgres", allowed_schemas={"cdm"})
    assert e.details["reason"] == "unknown_table" and "outside the source's schema" in str(e)


def test_cte_names_shadow_catalog_checks_only_in_scope():
    ok = "WITH secret AS (SELECT 1 AS x) SELECT * FROM secret"
    assert guard(ok, dialect="duckdb", allowed_tables=ALLOWED, max_rows=5).tables == ()
    # a CTE cannot read itself unless recursive: the inner "secret" is the real table
    bad = "WITH secret AS (SELECT * FROM secret) SELECT * FROM secret"
    assert _refusal(bad, "duckdb").details["reason"] == "unknown_table"
    # later CTEs see earlier ones
    chained = "WITH a AS (SELECT person_id FROM person), b AS (SELECT * FROM a) SELECT * FROM b"
    assert guard(chained, dialect="sqlite", allowed_tables=ALLOWED, max_rows=5).tables == (
        "person",
    )


def test_comments_are_dropped_from_the_rendered_sql():
    g = guard(
        "SELECT /* ; DROP TABLE person */ person_id -- tail\nFROM person",
        dialect="sqlite",
        allowed_tables=ALLOWED,
        max_rows=5,
    )
    assert "DROP" not in g.sql and "--" not in g.sql and "/*" not in g.sql


def test_refusal_details_name_the_table_or_function():
    e = _refusal("SELECT * FROM secret", "duckdb")
    assert e.details["table"] == "secret" and "person" in str(e)
    e = _refusal("SELECT pg_read_file('/etc/passwd')", "postgres")
    assert e.details["function"] == "pg_read_file"
    e = _refusal("SELECT 1; SELECT 2", "sqlite")
    assert e.details["count"] == 2
    assert e.to_dict()["reason"] == "multiple_statements"


def test_too_long_is_refused_before_parsing():
    e = _refusal("SELECT " + "1" * (MAX_SQL_LENGTH + 1), "duckdb")
    assert e.details["reason"] == "too_long"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT " + "(" * 3000 + "1" + ")" * 3000,
        "SELECT " + "-" * 20000 + "1",
        "SELECT * FROM " + "(SELECT * FROM " * 2000 + "person" + ") t" * 2000,
        "SELECT 1" + " + 1" * 20000,
    ],
    ids=["parens", "unary", "subqueries", "long-chain"],
)
def test_deep_nesting_is_refused_or_accepted_never_a_crash(sql):
    try:
        guard(sql, dialect="duckdb", allowed_tables=ALLOWED, max_rows=5)
    except SQLSafetyError as e:
        assert e.details["reason"] in {"parse_error", "too_complex", "too_long"}
        assert "\n" not in str(e)


def test_non_text_input_is_refused():
    with pytest.raises(SQLSafetyError):
        guard(b"SELECT 1", dialect="duckdb", allowed_tables=None, max_rows=5)  # type: ignore[arg-type]


# -- column check ----------------------------------------------------------------------------------
def test_unknown_column_in_cte_and_qualified_column():
    for sql in (
        "SELECT p.password FROM person p",
        "WITH x AS (SELECT person_id AS a FROM person) SELECT b FROM x",
        "SELECT person_id FROM person ORDER BY nothing_here",
    ):
        e = _refusal(sql, "duckdb", allowed_columns=COLUMNS)
        assert e.details["reason"] == "unknown_column", sql


def test_column_check_skipped_for_tables_without_a_column_list():
    g = guard(
        "SELECT anything FROM person",
        dialect="duckdb",
        allowed_tables=ALLOWED,
        max_rows=5,
        allowed_columns={"measurement": COLUMNS["measurement"]},
    )
    assert any("columns not checked" in w for w in g.warnings)


# -- row limit -------------------------------------------------------------------------------------
def test_limit_is_added_with_one_probe_row():
    g = guard("SELECT * FROM person", dialect="duckdb", allowed_tables=ALLOWED, max_rows=10)
    assert g.sql == "SELECT * FROM person LIMIT 11"
    assert (g.limit, g.max_rows) == (11, 10)


def test_smaller_limit_is_kept_and_larger_one_clamped():
    g = guard("SELECT * FROM person LIMIT 3", dialect="sqlite", allowed_tables=ALLOWED, max_rows=10)
    assert g.sql.endswith("LIMIT 3") and g.limit == 3 and not g.warnings
    g = guard(
        "SELECT * FROM person LIMIT 5000", dialect="sqlite", allowed_tables=ALLOWED, max_rows=10
    )
    assert g.sql.endswith("LIMIT 11") and "5000" in g.warnings[0]


def test_limit_with_offset_fetch_union_and_expression():
    g = guard(
        "SELECT * FROM person ORDER BY 1 LIMIT 5 OFFSET 2",
        dialect="postgres",
        allowed_tables=ALLOWED,
        max_rows=10,
    )
    assert "LIMIT 5" in g.sql and "OFFSET 2" in g.sql
    g = guard(
        "SELECT * FROM person FETCH FIRST 4 ROWS ONLY",
        dialect="postgres",
        allowed_tables=ALLOWED,
        max_rows=10,
    )
    assert g.limit == 4
    g = guard(
        "SELECT person_id FROM person UNION SELECT person_id FROM measurement",
        dialect="duckdb",
        allowed_tables=ALLOWED,
        max_rows=10,
    )
    assert g.sql.endswith("LIMIT 11")
    g = guard(
        "SELECT * FROM person LIMIT (SELECT 3)",
        dialect="postgres",
        allowed_tables=ALLOWED,
        max_rows=10,
    )
    assert g.sql.endswith("LIMIT 11") and "_guarded" in g.sql


def test_parenthesised_query_is_unwrapped():
    g = guard("(SELECT * FROM person)", dialect="sqlite", allowed_tables=ALLOWED, max_rows=2)
    assert g.sql == "SELECT * FROM person LIMIT 3"


def test_statement_the_dialect_cannot_render_is_refused():
    e = _refusal("SELECT * FROM person TABLESAMPLE SYSTEM (10)", "sqlite")
    assert e.details["reason"] == "unsupported_syntax"


def test_max_rows_must_be_positive():
    e = _refusal("SELECT 1", "duckdb", max_rows=0)
    assert e.details["reason"] == "bad_limit"


# -- expressions from the compiler, other dialects ---------------------------------------------------
def test_expression_input_is_checked_and_not_mutated():
    built = exp.select("person_id").from_("person").where("year_of_birth > 1950")
    before = built.sql()
    g = guard(built, dialect="postgres", allowed_tables=ALLOWED, max_rows=7)
    assert built.sql() == before
    assert g.sql.endswith("LIMIT 8")
    hostile = exp.select("*").from_("secret")
    e = _refusal(hostile, "postgres")  # type: ignore[arg-type]
    assert e.details["reason"] == "unknown_table"


@pytest.mark.parametrize("dialect", ["snowflake", "bigquery", "trino", "spark", "redshift"])
def test_guard_works_for_other_dialects(dialect):
    sql = sqlglot.transpile(BENIGN[1], read="duckdb", write=dialect)[0]
    g = guard(sql, dialect=dialect, allowed_tables=ALLOWED, max_rows=50)
    assert g.tables == ("measurement", "person")
    e = _refusal("SELECT 1; DROP TABLE person", dialect)
    assert e.details["reason"] == "multiple_statements"


def test_guarded_sql_is_frozen():
    g = guard("SELECT 1 AS x", dialect="duckdb", allowed_tables=None, max_rows=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.sql = "DROP TABLE person"  # type: ignore[misc]


# -- catalog-aware entry point ---------------------------------------------------------------------
def _catalog(with_columns: bool = True):
    from clinbridge.catalog import Catalog, ColumnInfo, TableInfo

    tables = tuple(
        TableInfo(
            name=name.upper() if name == "person" else name,
            columns=tuple(ColumnInfo(name=c) for c in cols) if with_columns else (),
        )
        for name, cols in COLUMNS.items()
    )
    return Catalog(source="test", adapter="test", dialect="sqlite", tables=tables)


def test_guard_sql_uses_the_catalog_tables_and_columns():
    from clinbridge.engine.guard import catalog_tables, guard_sql

    names, columns = catalog_tables(_catalog())
    assert names == ALLOWED and columns["person"] == COLUMNS["person"]
    g = guard_sql("SELECT count(*) FROM person", catalog=_catalog(), max_rows=5)
    assert g.dialect == "sqlite" and g.tables == ("person",)
    with pytest.raises(SQLSafetyError, match="unknown_table"):
        guard_sql("SELECT * FROM secret", catalog=_catalog())
    with pytest.raises(SQLSafetyError, match="unknown_column"):
        guard_sql("SELECT password FROM person", catalog=_catalog())
    # without column lists, columns are left to the database
    g = guard_sql("SELECT password FROM person", catalog=_catalog(with_columns=False))
    assert g.tables == ("person",)


def test_guard_sql_refuses_when_the_catalog_lists_no_tables():
    from clinbridge.catalog import Catalog
    from clinbridge.engine.guard import guard_sql

    with pytest.raises(SQLSafetyError, match="lists no tables"):
        guard_sql("SELECT 1", catalog=Catalog(source="e", adapter="x", dialect="duckdb"))


def test_every_refusal_reason_is_documented():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "guard.md").read_text(encoding="utf-8")
    for reason in refusal_reasons():
        assert f"| `{reason}` |" in doc, reason
