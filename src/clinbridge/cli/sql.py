"""``clinbridge sql``: run guarded, read-only SQL against a database.

The allowed tables are the catalogued ones when an adapter recognises the database (OMOP,
FHIR ...), else the database's own tables. The statement goes through the guard
(:func:`clinbridge.engine.guard.guard`) and the sandboxed executor. Exit codes: 0 answered,
1 the database failed the statement (or timed out, or could not be opened), 2 the guard refused.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import logging
import sys
import uuid
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import click

from clinbridge.db import Database, QueryResult
from clinbridge.engine.execute import execute
from clinbridge.engine.guard import guard
from clinbridge.errors import AdapterError, ClinbridgeError, SQLSafetyError
from clinbridge.settings import Settings

__all__ = ["allowed_schema", "sql_cmd"]

logger = logging.getLogger(__name__)

EXIT_FAILED = 1
EXIT_REFUSED = 2


def allowed_schema(db: Database) -> tuple[set[str], dict[str, list[str]], str]:
    """Tables and columns a statement may read, and where that list came from.

    The catalog of the adapter that recognises the database wins; a database no adapter knows
    is described by its own tables (``db.table_names()``).
    """
    try:
        from clinbridge.adapters import describe

        catalog = describe(db)
        tables = {_low(t.name): [c.name for c in t.columns] for t in catalog.tables}
        if tables:
            columns = {t: cols for t, cols in tables.items() if cols}
            return set(tables), columns, f"catalog of adapter {catalog.adapter!r}"
    except (AdapterError, ImportError, NotImplementedError) as exc:
        logger.info("no adapter catalog for %s (%s); using the database's tables", db.url, exc)
    # the database's own names, as stored: the guard compares them the way the database does
    names = db.table_names()
    columns = {name: [c for c, _ in db.columns(name)] for name in names}
    return set(names), columns, "database tables"


def _low(name: str) -> str:
    """ASCII lower case (catalog names are matched the way the catalog lists them)."""
    return name.translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"))


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


def _cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return f"{value:.6g}"
    text = str(_jsonable(value))
    return text if len(text) <= 60 else text[:57] + "..."


def format_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain-text table with a header rule; numbers right-aligned."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [len(c) for c in columns]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    numeric = [
        bool(rows)
        and all(isinstance(r[i], int | float | decimal.Decimal) or r[i] is None for r in rows)
        for i in range(len(columns))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(list(columns)), "  ".join("-" * w for w in widths)]
    out.extend(line(row) for row in cells)
    return "\n".join(out)


def _result_json(result: QueryResult, warnings: Collection[str], source: str) -> dict[str, Any]:
    return {
        "columns": list(result.columns),
        "rows": [[_jsonable(v) for v in row] for row in result.rows],
        "row_count": result.row_count,
        "truncated": result.truncated,
        "sql": result.sql,
        "dialect": result.dialect,
        "elapsed_ms": round(result.elapsed_ms, 3),
        "warnings": list(warnings),
        "tables_from": source,
    }


def _fail(exc: ClinbridgeError, *, as_json: bool, exit_code: int) -> None:
    reason = exc.details.get("reason") or exc.code
    message = " ".join(str(exc).split())  # one line
    if not message.startswith("refused"):
        message = f"{reason}: {message}"
    if as_json:
        click.echo(json.dumps({"error": {**exc.to_dict(), "reason": reason}}, default=str))
    click.echo(f"error: {message}", err=True)
    sys.exit(exit_code)


@click.command(name="sql")
@click.argument("statement")
@click.option("--db", "url", required=True, envvar="CLINBRIDGE_DB", help="Database URL.")
@click.option("--schema", default=None, help="PostgreSQL/DuckDB schema holding the tables.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--max-rows", type=click.IntRange(min=1), default=None, help="Row limit.")
@click.option("--timeout-ms", type=click.IntRange(min=1), default=None, help="Statement timeout.")
def sql_cmd(statement: str, as_json: bool, **options: Any) -> None:
    """Run one guarded, read-only SELECT and print its rows.

    STATEMENT is the SQL text, or - to read it from standard input. Only a single query over
    the source's tables is accepted; anything else is refused with exit code 2.
    """
    try:
        _run(statement, as_json=as_json, **options)
    except SystemExit:
        raise
    except ClinbridgeError as exc:
        _fail(exc, as_json=as_json, exit_code=EXIT_FAILED)
    except Exception as exc:  # never a traceback: one line, exit code 1
        logger.debug("clinbridge sql failed", exc_info=True)
        _fail(
            ClinbridgeError(f"unexpected {type(exc).__name__}: {exc}"),
            as_json=as_json,
            exit_code=EXIT_FAILED,
        )


def _run(
    statement: str,
    *,
    url: str,
    schema: str | None,
    as_json: bool,
    max_rows: int | None,
    timeout_ms: int | None,
) -> None:
    # sqlglot logs a warning when it falls back to a generic command; the refusal says it all.
    logging.getLogger("sqlglot").addHandler(logging.NullHandler())
    if statement == "-":
        statement = sys.stdin.read()
    settings = Settings.from_env(max_rows=max_rows, sql_timeout_ms=timeout_ms)
    try:
        db = Database.open(url, schema=schema)
    except ClinbridgeError as exc:
        _fail(exc, as_json=as_json, exit_code=EXIT_FAILED)
        return
    for warning in db.warnings:
        click.echo(f"clinbridge sql: WARNING: {warning}", err=True)
    with db:
        try:
            tables, columns, source = allowed_schema(db)
            guarded = guard(
                statement,
                dialect=db.dialect,
                allowed_tables=tables,
                max_rows=settings.max_rows,
                allowed_columns=_columns_for(columns, tables),
                allowed_schemas=_schemas_for(db),
                timeout_ms=settings.sql_timeout_ms,
            )
        except SQLSafetyError as exc:
            _fail(exc, as_json=as_json, exit_code=EXIT_REFUSED)
            return
        except ClinbridgeError as exc:
            _fail(exc, as_json=as_json, exit_code=EXIT_FAILED)
            return
        try:
            result = execute(db, guarded, settings=settings)
        except ClinbridgeError as exc:
            _fail(exc, as_json=as_json, exit_code=EXIT_FAILED)
            return
    if as_json:
        click.echo(json.dumps(_result_json(result, guarded.warnings, source), default=str))
        return
    click.echo(format_table(result.columns, result.rows))
    more = f", truncated at --max-rows {settings.max_rows}" if result.truncated else ""
    click.echo(
        f"({result.row_count} row{'s' if result.row_count != 1 else ''}{more}; "
        f"{result.elapsed_ms:.1f} ms, {result.dialect})"
    )
    for warning in guarded.warnings:
        click.echo(f"warning: {warning}", err=True)


def _schemas_for(db: Database) -> set[str]:
    """The schema qualifiers a statement may use: the source's own schema."""
    if db.schema:
        return {db.schema}
    return {"public"} if db.backend == "postgres" else {"main"}


def _columns_for(
    columns: Mapping[str, list[str]], tables: Collection[str]
) -> dict[str, list[str]] | None:
    """The column check applies only when every allowed table has a column list."""
    if not columns or any(t not in columns for t in tables):
        return None
    return dict(columns)
