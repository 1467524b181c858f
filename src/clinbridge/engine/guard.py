"""The SQL guard: only a single, read-only query over catalogued tables ever reaches a database.

Every check works on the sqlglot syntax tree, never on the SQL text (a regex over text is what
datasette's ``validate_sql_select`` does, and what this module avoids). ``guard()`` parses the
statement in the target dialect and refuses, with :class:`~clinbridge.errors.SQLSafetyError`
and a machine ``reason`` (:data:`RefusalReason`), anything that is not:

* exactly one statement whose root is a query (``SELECT``, ``UNION``/``INTERSECT``/``EXCEPT``);
* free of writes and session commands anywhere in the tree, CTEs included (Postgres allows
  ``WITH x AS (DELETE ... RETURNING *) SELECT ...``), of ``SELECT ... INTO`` and of row locks;
* free of file, extension, network and system functions (``read_csv``, ``pg_read_file``,
  ``lo_export``, ``load_extension``, ``set_config`` ...) and of table functions other than a few
  pure generators (``generate_series``, ``range``, ``unnest``, ``json_each`` ...);
* reading only catalogued tables (case-insensitive; CTE names in scope; ``cdm.person`` is
  ``person``), never a system catalog (``information_schema``, ``pg_catalog``, ``sqlite_master``,
  ``duckdb_*``) or a file path (DuckDB's ``FROM '/etc/passwd'``);
* naming only known columns, when the caller passes ``allowed_columns`` (checked with
  ``sqlglot.optimizer.qualify`` against that schema).

Sleep functions (``pg_sleep``, ``sleep``) are refused as ``forbidden_function``: they have no
analytical use and are a cheap denial of service. Expensive but legitimate queries (a large
cross join, a deep recursive CTE) are accepted; the statement timeout stops them at execution.

The accepted query is re-rendered in the dialect without comments, with a row limit on its
outermost query: a ``LIMIT`` of ``max_rows + 1`` when the query had none or a larger one (the one
extra row is the probe that lets execution flag truncation; execution never returns more than
``max_rows`` rows), or the query's own smaller limit, which is kept.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, OptimizeError, SqlglotError, UnsupportedError

from clinbridge.errors import SQLSafetyError

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = [
    "MAX_SQL_LENGTH",
    "GuardedSQL",
    "RefusalReason",
    "catalog_tables",
    "guard",
    "guard_sql",
    "refusal_reasons",
]

logger = logging.getLogger(__name__)

RefusalReason = Literal[
    "empty",
    "too_long",
    "parse_error",
    "multiple_statements",
    "not_a_query",
    "write_operation",
    "locking",
    "forbidden_function",
    "file_access",
    "system_catalog",
    "unknown_table",
    "unknown_column",
    "unsupported_syntax",
    "bad_limit",
]
"""Why the guard refused a statement (``SQLSafetyError.details["reason"]``)."""

MAX_SQL_LENGTH = 100_000
"""Longest statement the guard will parse, in characters."""

# Statements that write, change the schema or touch files. Anywhere in the tree.
_WRITE_NODES: tuple[type[exp.Expr], ...] = (
    exp.Insert,
    exp.Update,
    exp.Delete,
    exp.Merge,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.TruncateTable,
    exp.Copy,
    exp.Into,
    exp.Grant,
    exp.LoadData,
)

# Statements that are not queries: session, transaction, extension and catalog commands.
_COMMAND_NODE_NAMES = (
    "Command",
    "Pragma",
    "Attach",
    "Detach",
    "Set",
    "Use",
    "Transaction",
    "Commit",
    "Rollback",
    "Install",
    "Describe",
    "Show",
    "Summarize",
    "Analyze",
    "Kill",
    "Export",
    "Refresh",
    "Cache",
    "Uncache",
    "Revoke",
    "Comment",
    "Pivot",
)
_COMMAND_NODES: tuple[type[exp.Expr], ...] = tuple(
    node for name in _COMMAND_NODE_NAMES if isinstance(node := getattr(exp, name, None), type)
)

# Functions that read or write files, load code, reach other servers, change or read server
# settings, sleep, or run SQL given as a string. Names are lower case.
_FORBIDDEN_FUNCTIONS = frozenset(
    {
        # DuckDB file readers and scanners
        "read_csv", "read_csv_auto", "read_parquet", "parquet_scan", "read_json", "read_json_auto",
        "read_json_objects", "read_json_objects_auto", "read_ndjson", "read_ndjson_auto",
        "read_ndjson_objects", "read_text", "read_blob", "read_xlsx", "glob", "sniff_csv",
        "parquet_metadata", "parquet_schema", "parquet_file_metadata", "parquet_kv_metadata",
        "iceberg_scan", "iceberg_metadata", "iceberg_snapshots", "delta_scan", "sqlite_scan",
        "sqlite_attach", "postgres_scan", "postgres_attach", "postgres_query", "postgres_execute",
        "mysql_scan", "mysql_query", "mysql_execute", "st_read", "st_read_meta", "query",
        "query_table", "getenv", "to_file", "load_extension", "current_setting", "set_config",
        "checkpoint", "force_checkpoint", "enable_profiling", "which_secret", "load",
        # PostgreSQL file, large-object, remote and admin functions
        "pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_stat_file", "pg_ls_logdir",
        "pg_ls_waldir", "pg_ls_tmpdir", "pg_ls_archive_statusdir", "lo_import", "lo_export",
        "lo_get", "lo_put", "lo_open", "lo_create", "lo_creat", "lo_unlink", "lo_from_bytea",
        "lo_truncate", "dblink", "dblink_exec", "dblink_connect", "dblink_send_query",
        "pg_sleep", "pg_sleep_for", "pg_sleep_until", "pg_terminate_backend",
        "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile", "pg_file_write",
        "pg_logdir_ls", "nextval", "setval", "currval", "lastval", "query_to_xml",
        "query_to_xmlschema", "query_to_xml_and_xmlschema", "cursor_to_xml", "table_to_xml",
        "table_to_xml_and_xmlschema", "schema_to_xml", "database_to_xml", "txid_current",
        "pg_current_xact_id", "pg_notify", "pg_advisory_lock", "pg_advisory_xact_lock",
        "pg_try_advisory_lock", "pg_try_advisory_xact_lock", "inet_server_addr",
        # SQLite extension, file and virtual-table functions
        "readfile", "writefile", "edit", "fts3_tokenizer", "fts5", "zipfile", "fsdir",
        "sqlar_compress", "sqlar_uncompress", "lsmode", "sqlite_dbpage", "sqlite_offset",
        # generic
        "sleep", "system", "shell", "exec", "execute", "eval", "copy", "export", "import",
    }
)  # fmt: skip

_FORBIDDEN_PREFIXES = (
    "read_", "pg_", "lo_", "dblink", "duckdb_", "pragma_", "sqlite_", "parquet_", "iceberg_",
    "delta_", "postgres_", "mysql_", "st_read", "http", "s3_", "azure_", "gcs_", "fts",
)  # fmt: skip

# Table functions that only generate values (no files, no catalogs).
_ALLOWED_TABLE_FUNCTIONS = frozenset(
    {
        "generate_series", "range", "unnest", "json_each", "json_tree", "jsonb_each",
        "jsonb_each_text", "json_each_text", "jsonb_array_elements", "json_array_elements",
        "jsonb_array_elements_text", "json_array_elements_text", "generate_subscripts",
        "regexp_split_to_table", "string_to_table",
    }
)  # fmt: skip

_SYSTEM_SCHEMAS = frozenset({"information_schema", "pg_catalog", "pg_toast", "system", "temp"})
_SYSTEM_TABLE_PREFIXES = ("pg_", "sqlite_", "duckdb_", "pragma_")

_FILE_SUFFIX = re.compile(
    r"\.(csv|tsv|txt|parquet|json|ndjson|jsonl|xlsx?|gz|zst|bz2|db|duckdb|sqlite3?|arrow|avro)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class GuardedSQL:
    """A statement the guard accepted, ready for :func:`clinbridge.engine.execute.execute`.

    Attributes:
        sql: The statement re-rendered in ``dialect``, comments dropped, row limit applied.
        expression: The sqlglot tree of ``sql``.
        dialect: sqlglot dialect name (``duckdb``, ``sqlite``, ``postgres`` ...).
        tables: Lower-case names of the database tables read (CTE names excluded).
        warnings: Things the caller may want to know (limit clamped, columns not checked).
        max_rows: Most rows execution returns; more are cut and flagged as truncated.
        limit: The LIMIT on the outermost query of ``sql``.
    """

    sql: str
    expression: exp.Expr
    dialect: str
    tables: tuple[str, ...]
    warnings: tuple[str, ...]
    max_rows: int
    limit: int


def refusal_reasons() -> tuple[str, ...]:
    """Every refusal reason code, in a stable order."""
    return tuple(get_args(RefusalReason))


def _refuse(reason: RefusalReason, message: str, **details: object) -> SQLSafetyError:
    return SQLSafetyError(f"refused ({reason}): {message}", reason=reason, **details)


def guard(
    sql: str | exp.Expr,
    *,
    dialect: str,
    allowed_tables: Collection[str] | None,
    max_rows: int,
    allowed_columns: Mapping[str, Collection[str]] | None = None,
    allowed_schemas: Collection[str] | None = None,
) -> GuardedSQL:
    """Check a statement and return it re-rendered with a row limit, or refuse it.

    Args:
        sql: SQL text, or a sqlglot expression (from the plan compiler).
        dialect: sqlglot dialect to parse and render in.
        allowed_tables: Tables the statement may read (case-insensitive); ``None`` skips the
            table check (system catalogs and file paths are refused all the same).
        max_rows: Most rows the caller wants back (must be ≥ 1).
        allowed_columns: Optional ``{table: columns}``; when given, every column reference must
            resolve against it.
        allowed_schemas: Optional schemas a qualified table name may name (case-insensitive);
            when given, ``cdm.person`` is accepted only if ``cdm`` is one of them, so that a
            same-named table in another schema cannot be read. ``None`` accepts any schema.

    Returns:
        The accepted statement (:class:`GuardedSQL`).

    Raises:
        SQLSafetyError: The statement was refused; ``details["reason"]`` is a
            :data:`RefusalReason`.

    Example:
        >>> g = guard("SELECT * FROM cdm.person", dialect="duckdb",
        ...           allowed_tables={"person"}, max_rows=10)
        >>> g.sql
        'SELECT * FROM cdm.person LIMIT 11'
    """
    if max_rows < 1:
        raise _refuse(
            "bad_limit", f"max_rows must be at least 1, got {max_rows}", max_rows=max_rows
        )
    try:
        return _guard(sql, dialect, allowed_tables, max_rows, allowed_columns, allowed_schemas)
    except RecursionError as exc:  # a deep tree in a later step (walk, render)
        raise _refuse("parse_error", "the statement is nested too deeply to check") from exc


def _guard(
    sql: str | exp.Expr,
    dialect: str,
    allowed_tables: Collection[str] | None,
    max_rows: int,
    allowed_columns: Mapping[str, Collection[str]] | None,
    allowed_schemas: Collection[str] | None,
) -> GuardedSQL:
    warnings: list[str] = []
    if isinstance(sql, exp.Expr):
        root: exp.Expr = sql.copy()
    else:
        root = _parse(sql, dialect)
    while isinstance(root, exp.Subquery) and isinstance(root.this, exp.Query):
        root = root.this  # "(SELECT ...)" is the query inside
    _check_root(root)
    _check_nodes(root)
    tables = _check_tables(root, allowed_tables, allowed_schemas)
    if allowed_columns is not None:
        _check_columns(root, dialect, allowed_columns, warnings)
    if not isinstance(root, exp.Query):  # pragma: no cover - _check_root refused it
        raise _refuse("not_a_query", "only a single SELECT may run")
    root, limit = _apply_limit(root, max_rows, warnings)
    try:
        rendered = root.sql(dialect=dialect, comments=False, unsupported_level=ErrorLevel.RAISE)
    except UnsupportedError as exc:
        # the dialect cannot say it: running a silently different statement would be worse
        raise _refuse(
            "unsupported_syntax",
            f"{dialect} cannot express part of this statement: {_plain(str(exc))}",
            dialect=dialect,
        ) from exc
    _check_rendered(rendered, dialect, allowed_tables, allowed_schemas)
    return GuardedSQL(
        sql=rendered,
        expression=root,
        dialect=dialect,
        tables=tuple(sorted(tables)),
        warnings=tuple(warnings),
        max_rows=max_rows,
        limit=limit,
    )


def catalog_tables(catalog: Catalog) -> tuple[set[str], dict[str, list[str]]]:
    """Lower-case table names a catalog describes, and the column lists it knows.

    Tables come from ``catalog.tables`` and from every table the patients, encounters, event
    streams, dictionaries and variables point at.
    """
    columns = {t.name.lower(): [c.name for c in t.columns] for t in catalog.tables}
    names = set(columns)
    for part in (catalog.patients, catalog.encounters):
        if part is not None:
            for extra in ("table", "death_table", "observation_table"):
                if value := getattr(part, extra, None):
                    names.add(str(value).lower())
    names.update(s.table.lower() for s in catalog.streams)
    names.update(v.table.lower() for v in catalog.variables)
    for d in catalog.dictionaries:
        names.update(
            str(t).lower()
            for t in (d.table, d.synonym_table, d.ancestor_table, d.relationship_table)
            if t
        )
    return names, {t: cols for t, cols in columns.items() if cols}


def guard_sql(
    sql: str | exp.Expr,
    *,
    catalog: Catalog,
    dialect: str | None = None,
    max_rows: int = 10_000,
) -> GuardedSQL:
    """:func:`guard` with the tables (and, where every table lists them, the columns) of a catalog.

    Args:
        sql: SQL text or a sqlglot expression.
        catalog: The source's catalog; only its tables may be read.
        dialect: sqlglot dialect; defaults to ``catalog.dialect``.
        max_rows: Most rows the caller wants back.

    Raises:
        SQLSafetyError: The statement was refused.
    """
    tables, columns = catalog_tables(catalog)
    if not tables:
        raise _refuse("unknown_table", f"catalog {catalog.source!r} lists no tables to read")
    complete = all(t in columns for t in tables)
    return guard(
        sql,
        dialect=dialect or catalog.dialect,
        allowed_tables=tables,
        max_rows=max_rows,
        allowed_columns=columns if complete else None,
        allowed_schemas={catalog.schema_name} if catalog.schema_name else None,
    )


# -- parsing -----------------------------------------------------------------------------------
def _parse(text: str, dialect: str) -> exp.Expr:
    if not isinstance(text, str):
        raise _refuse("parse_error", f"expected SQL text, got {type(text).__name__}")
    if len(text) > MAX_SQL_LENGTH:
        raise _refuse(
            "too_long",
            f"statement is {len(text):,} characters long; the limit is {MAX_SQL_LENGTH:,}",
            length=len(text),
        )
    if not text.strip():
        raise _refuse("empty", "the statement is empty")
    try:
        statements = [s for s in sqlglot.parse(text, read=dialect) if s is not None]
    except RecursionError as exc:
        raise _refuse("parse_error", "the statement is nested too deeply to check") from exc
    except (SqlglotError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise _refuse(
            "parse_error", f"not valid {dialect} SQL: {_plain(first)}", dialect=dialect
        ) from exc
    if not statements:
        raise _refuse("empty", "the statement is empty (only comments or semicolons)")
    if len(statements) > 1:
        kinds = ", ".join(_kind(s) for s in statements[:5])
        raise _refuse(
            "multiple_statements",
            f"{len(statements)} statements given ({kinds}); only one query may run",
            count=len(statements),
        )
    return statements[0]


def _plain(text: str) -> str:
    """Drop the ANSI underline sqlglot puts in parse-error messages."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _kind(node: exp.Expr) -> str:
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    return node.key.upper()


# -- structure ---------------------------------------------------------------------------------
def _check_root(root: exp.Expr) -> None:
    if isinstance(root, _WRITE_NODES):
        raise _refuse(
            "write_operation",
            f"{_kind(root)} changes the database or files; only a read-only query may run",
            statement=_kind(root),
        )
    if not isinstance(root, exp.Select | exp.SetOperation):
        if isinstance(root, (*_COMMAND_NODES, exp.Values)):
            what = f"{_kind(root)} is not a query"
        else:  # "SELEC * FRM x" parses as a bare expression
            what = f"the text is not a SQL query (it parses as a bare {root.key} expression)"
        raise _refuse("not_a_query", f"{what}; only a single SELECT may run", statement=_kind(root))


def _check_nodes(root: exp.Expr) -> None:
    for node in root.walk():
        if isinstance(node, exp.Select) and not node.expressions:
            raise _refuse("parse_error", "a SELECT without anything to select")
        if isinstance(node, _WRITE_NODES):
            where = "SELECT ... INTO" if isinstance(node, exp.Into) else _kind(node)
            raise _refuse(
                "write_operation",
                f"{where} inside the query changes the database; only reads are allowed",
                statement=where,
            )
        if isinstance(node, _COMMAND_NODES):
            raise _refuse(
                "not_a_query",
                f"{_kind(node)} inside the query is not allowed; only a single SELECT may run",
                statement=_kind(node),
            )
        if isinstance(node, exp.Lock):
            raise _refuse("locking", "row locks (FOR UPDATE / FOR SHARE) are not allowed")
        if isinstance(node, exp.Func):
            _check_function(node)
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Func):
            _check_table_function(node.this)


def _function_names(node: exp.Func) -> set[str]:
    names = {node.name.lower()} if isinstance(node, exp.Anonymous) else set()
    if not isinstance(node, exp.Anonymous):
        names.add(node.key.lower())
        with contextlib.suppress(NotImplementedError):
            names.update(n.lower() for n in node.sql_names())
    return {n for n in names if n}


def _check_function(node: exp.Func) -> None:
    for name in _function_names(node):
        if name in _FORBIDDEN_FUNCTIONS or name.startswith(_FORBIDDEN_PREFIXES):
            raise _refuse(
                "forbidden_function",
                f"function {name}() is not allowed (files, extensions, settings, sleep and "
                "system functions are refused)",
                function=name,
            )


def _check_table_function(node: exp.Func) -> None:
    names = _function_names(node)
    if not names & _ALLOWED_TABLE_FUNCTIONS:
        name = sorted(names)[0] if names else "?"
        raise _refuse(
            "forbidden_function",
            f"table function {name}() is not allowed; only value generators such as "
            "generate_series, range and unnest may appear in FROM",
            function=name,
        )


# -- tables ------------------------------------------------------------------------------------
def _visible_ctes(table: exp.Table) -> set[str]:
    """Names of the CTEs in scope where ``table`` appears."""
    names: set[str] = set()
    node: exp.Expr | None = table
    last_cte: exp.Expr | None = None
    while node is not None:
        if isinstance(node, exp.CTE):
            last_cte = node
        with_ = node.args.get("with_") or node.args.get("with")
        if isinstance(with_, exp.With) and node is not table:
            ctes = list(with_.expressions)
            inside = next((i for i, c in enumerate(ctes) if c is last_cte), None)
            if inside is None:
                names.update(c.alias_or_name.lower() for c in ctes)
            else:  # within a CTE's own body: earlier CTEs, and itself only when recursive
                names.update(c.alias_or_name.lower() for c in ctes[:inside])
                if with_.args.get("recursive"):
                    names.add(ctes[inside].alias_or_name.lower())
            last_cte = None
        node = node.parent
    return names


def _check_tables(
    root: exp.Expr, allowed: Collection[str] | None, schemas: Collection[str] | None = None
) -> set[str]:
    allowed_lc = {t.lower() for t in allowed} if allowed is not None else None
    schemas_lc = {s.lower() for s in schemas} if schemas is not None else None
    read: set[str] = set()
    for table in root.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            continue  # a table function, checked with the functions
        name = table.name
        lname = name.lower()
        schema = table.db.lower()
        catalog = table.catalog.lower()
        if not schema and not catalog and lname in _visible_ctes(table):
            continue
        if "/" in name or "\\" in name or ":" in name or _FILE_SUFFIX.search(name):
            raise _refuse(
                "file_access",
                f"{name!r} looks like a file path; reading files is not allowed",
                table=name,
            )
        if (
            schema in _SYSTEM_SCHEMAS
            or catalog in _SYSTEM_SCHEMAS
            or lname in {"sqlite_master", "sqlite_schema", "sqlite_temp_master"}
            or lname.startswith(_SYSTEM_TABLE_PREFIXES)
            or (schema == "" and lname in {"information_schema", "pg_catalog"})
        ):
            qualified = ".".join(p for p in (catalog, schema, lname) if p)
            raise _refuse(
                "system_catalog",
                f"{qualified} is a system catalog; only the source's own tables may be read",
                table=qualified,
            )
        if allowed_lc is not None and lname not in allowed_lc:
            listed = sorted(allowed_lc)
            known = ", ".join(listed[:12]) + (
                f" (+{len(listed) - 12} more)" if len(listed) > 12 else ""
            )
            raise _refuse(
                "unknown_table",
                f"table {name!r} is not in the catalog (known: {known or 'none'})",
                table=name,
                known=sorted(allowed_lc),
            )
        if schemas_lc is not None and schema and schema not in schemas_lc:
            raise _refuse(
                "unknown_table",
                f"table {schema}.{lname} is outside the source's schema "
                f"({', '.join(sorted(schemas_lc)) or 'none'})",
                table=f"{schema}.{lname}",
            )
        read.add(lname)
    return read


# -- columns -----------------------------------------------------------------------------------
def _check_columns(
    root: exp.Expr,
    dialect: str,
    allowed_columns: Mapping[str, Collection[str]],
    warnings: list[str],
) -> None:
    from sqlglot.optimizer.qualify import qualify

    schema: dict[str, object] = {
        t.lower(): {c.lower(): "UNKNOWN" for c in cols} for t, cols in allowed_columns.items()
    }
    probe = root.copy()
    for table in probe.find_all(exp.Table):
        if isinstance(table.this, exp.Identifier):
            table.set("db", None)
            table.set("catalog", None)
            lname = table.name.lower()
            if lname not in schema and lname not in _visible_ctes(table):
                warnings.append(f"columns not checked: no column list for table {lname!r}")
                return
    try:
        qualify(
            probe,
            schema=schema,
            dialect=dialect,
            validate_qualify_columns=True,
            quote_identifiers=False,
        )
    except OptimizeError as exc:
        message = str(exc)
        if "column" in message.lower():
            raise _refuse(
                "unknown_column",
                f"{message} (checked against the catalogued columns)",
                detail=message,
            ) from exc
        warnings.append(f"columns not checked: {message}")
    except (SqlglotError, KeyError, ValueError, TypeError, RecursionError) as exc:
        # qualify() does not understand every construct; the database will still check.
        logger.debug("column check skipped: %s", exc)
        warnings.append(f"columns not checked: {type(exc).__name__}: {exc}")


# -- row limit ---------------------------------------------------------------------------------
def _literal_int(node: exp.Expr | None) -> int | None:
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return int(node.this)
        except ValueError:
            return None
    return None


def _apply_limit(root: exp.Query, max_rows: int, warnings: list[str]) -> tuple[exp.Query, int]:
    probe = max_rows + 1
    current = root.args.get("limit")
    existing: int | None = None
    if isinstance(current, exp.Limit):
        existing = _literal_int(current.expression)
        if current.args.get("offset") is not None or current.args.get("expressions"):
            existing = None  # MySQL-style "LIMIT a, b": rewrite
    elif isinstance(current, exp.Fetch):
        options = current.args.get("limit_options")
        plain = options is None or not (
            options.args.get("percent") or options.args.get("with_ties")
        )
        existing = _literal_int(current.args.get("count")) if plain else None
    if current is not None and existing is not None and 0 <= existing <= max_rows:
        if isinstance(current, exp.Fetch):
            root.set("limit", exp.Limit(expression=exp.Literal.number(existing)))
        return root, existing
    if current is not None:
        if existing is None:
            # An expression or a FETCH with options: keep it, cap the outer result.
            wrapped = exp.select("*").from_(root.subquery("_guarded", copy=False))
            wrapped.set("limit", exp.Limit(expression=exp.Literal.number(probe)))
            return wrapped, probe
        warnings.append(f"LIMIT {existing} is above max_rows={max_rows}; at most {max_rows} rows")
    root.set("limit", exp.Limit(expression=exp.Literal.number(probe)))
    return root, probe


# -- final re-check ----------------------------------------------------------------------------
def _check_rendered(
    text: str,
    dialect: str,
    allowed: Collection[str] | None,
    schemas: Collection[str] | None,
) -> None:
    """What runs is what was checked: the rendered SQL is parsed and checked again, so a
    generator quirk cannot open a hole."""
    try:
        statements = [s for s in sqlglot.parse(text, read=dialect) if s is not None]
    except SqlglotError as exc:
        first = _plain(str(exc).strip().splitlines()[0]) if str(exc).strip() else "?"
        raise _refuse("parse_error", f"the re-rendered statement does not parse: {first}") from exc
    if len(statements) != 1:
        raise _refuse("not_a_query", "the re-rendered statement is not a single query")
    _check_root(statements[0])
    _check_nodes(statements[0])
    _check_tables(statements[0], allowed, schemas)
