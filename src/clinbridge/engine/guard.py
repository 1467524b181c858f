"""The SQL guard: only a single, read-only query over catalogued tables ever reaches a database.

Every check works on the sqlglot syntax tree, never on the SQL text (a regex over text is what
datasette's ``validate_sql_select`` does, and what this module avoids). ``guard()`` parses the
statement in the target dialect and refuses, with :class:`~clinbridge.errors.SQLSafetyError`
and a machine ``reason`` (:data:`RefusalReason`), anything that is not:

* exactly one statement whose root is a query (``SELECT``, ``UNION``/``INTERSECT``/``EXCEPT``);
* made only of ADMITTED syntax, functions and types (:mod:`clinbridge.engine._guard_allow`):
  an allow-list, not a deny-list, so ``ts_stat``, ``query_to_xml``, ``sleep_ms``, ``nextval``,
  ``current_setting`` or a reader nobody has heard of are refused because nobody admitted them;
  writes, session commands, ``SELECT ... INTO`` and row locks get their own reasons;
* reading only catalogued tables, with identifiers compared the way the DATABASE compares them
  (:func:`identifier_key`: PostgreSQL folds unquoted names to ASCII lower case and keeps quoted
  ones exact; DuckDB and SQLite compare ASCII-case-insensitively; never ``str.lower``), CTE
  names resolved in their scope exactly as the database resolves them (a non-recursive CTE
  cannot see itself, so ``WITH t AS (SELECT * FROM t)`` reads the real ``t`` and is checked as
  such), never a system catalog or a file path;
* small enough to check and to plan: at most :data:`MAX_SQL_LENGTH` characters,
  :data:`MAX_TOKENS` tokens, :data:`MAX_PAREN_DEPTH` nested parentheses, :data:`MAX_NODES`
  syntax nodes, :data:`MAX_CTES` CTEs and :data:`MAX_EXPANDED_NODES` nodes once every CTE
  reference is inlined (a planner bomb of chained CTEs is refused before it reaches the planner);
* naming only known columns, when the caller passes ``allowed_columns``.

No input ever escapes as a traceback: whatever sqlglot raises becomes a refusal.

The accepted query is re-rendered in the dialect without comments, with a row limit on its
outermost query: a ``LIMIT`` of ``max_rows + 1`` when the query had none or a larger one (the one
extra row is the probe that lets execution flag truncation), or the query's own smaller plain
integer limit. Any other limit form (``LIMIT 100 PERCENT``, ``LIMIT ALL``, ``WITH TIES``, an
expression) is kept inside a subquery and capped outside it. The rendered SQL is parsed and
checked again, including its outer limit, so what runs is what was checked. The time the guard
took is returned (``GuardedSQL.guard_ms``) and counted inside the statement timeout.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_args

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, OptimizeError, SqlglotError, UnsupportedError
from sqlglot.tokenizer_core import TokenType

from clinbridge.engine._guard_allow import (
    ANONYMOUS_FUNCTIONS,
    BOUNDED_FUNCTIONS,
    DATA_TYPES,
    FUNCTION_CLASSES,
    FUNCTION_CLASSES_BY_DIALECT,
    NODE_TYPES,
    SERIES_CLASSES,
    TABLE_FUNCTION_CLASSES,
    TABLE_FUNCTION_NAMES,
)
from clinbridge.engine._guard_names import (
    _TO_LOWER,
    RefusalReason,
    _check_expanded_size,
    _check_tables,
    _ident,
    _resolve_tables,
    identifier_key,
)
from clinbridge.engine._guard_names import refuse as _refuse
from clinbridge.errors import SQLSafetyError

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = [
    "COMPILED_SCALE",
    "MAX_CTES",
    "MAX_EXPANDED_NODES",
    "MAX_NODES",
    "MAX_PAREN_DEPTH",
    "MAX_SERIES_ROWS",
    "MAX_SQL_LENGTH",
    "MAX_TOKENS",
    "GuardedSQL",
    "RefusalReason",
    "catalog_tables",
    "guard",
    "guard_catalog_tables",
    "guard_sql",
    "identifier_key",
    "refusal_reasons",
]

logger = logging.getLogger(__name__)

MAX_SQL_LENGTH = 50_000
"""Longest statement the guard will parse, in characters (the engine's plans are under 4,000)."""
MAX_TOKENS = 8_000
"""Most tokens in a statement (the engine's plans have under 1,000)."""
MAX_PAREN_DEPTH = 100
"""Deepest nesting of parentheses."""
MAX_NODES = 20_000
"""Most syntax-tree nodes."""
MAX_CTES = 64
"""Most common table expressions, all scopes together."""
MAX_EXPANDED_NODES = 100_000
"""Most syntax-tree nodes once every reference to a CTE is replaced by its body (the planner's
view when it inlines CTEs): chained CTEs that reference their predecessor twice double at each
step and would keep a planner busy far past any timeout."""
COMPILED_SCALE = 20
"""Statements the plan compiler built (a sqlglot expression, not text) get size limits this many
times larger: a concept set with thousands of descendants is one long ``IN`` list. Every
allow-list applies to them all the same."""
MAX_SERIES_ROWS = 10_000_000
"""Most rows a ``generate_series``/``range`` with constant bounds may produce."""

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

# Statements that are not queries: named so that the refusal says what they are. Anything else
# outside the allow-list is refused too (as unsupported_syntax).
_COMMAND_NODE_NAMES = (
    "Command", "Pragma", "Attach", "Detach", "Set", "Use", "Transaction", "Commit", "Rollback",
    "Install", "Describe", "Show", "Summarize", "Analyze", "Kill", "Export", "Refresh", "Cache",
    "Uncache", "Revoke", "Comment", "Pivot", "Execute", "ExecuteSql", "Declare", "Put", "Get",
)  # fmt: skip
_COMMAND_NODES: tuple[type[exp.Expr], ...] = tuple(
    node for name in _COMMAND_NODE_NAMES if isinstance(node := getattr(exp, name, None), type)
)


@dataclass(frozen=True)
class GuardedSQL:
    """A statement the guard accepted, ready for :func:`clinbridge.engine.execute.execute`.

    Attributes:
        sql: The statement re-rendered in ``dialect``, comments dropped, row limit applied.
        expression: The sqlglot tree of ``sql``.
        dialect: sqlglot dialect name (``duckdb``, ``sqlite``, ``postgres`` ...).
        tables: Names of the database tables read, as written (CTE names excluded).
        warnings: Things the caller may want to know (limit clamped, columns not checked).
        max_rows: Most rows execution returns; more are cut and flagged as truncated.
        limit: The LIMIT on the outermost query of ``sql``.
        guard_ms: How long the guard took; execution subtracts it from the statement timeout.
    """

    sql: str
    expression: exp.Expr
    dialect: str
    tables: tuple[str, ...]
    warnings: tuple[str, ...]
    max_rows: int
    limit: int
    guard_ms: float = 0.0


def refusal_reasons() -> tuple[str, ...]:
    """Every refusal reason code, in a stable order."""
    return tuple(get_args(RefusalReason))


def guard(
    sql: str | exp.Expr,
    *,
    dialect: str,
    allowed_tables: Collection[str] | None,
    max_rows: int,
    allowed_columns: Mapping[str, Collection[str]] | None = None,
    allowed_schemas: Collection[str] | None = None,
    timeout_ms: int | None = None,
) -> GuardedSQL:
    """Check a statement and return it re-rendered with a row limit, or refuse it.

    Args:
        sql: SQL text, or a sqlglot expression (from the plan compiler).
        dialect: sqlglot dialect to parse and render in.
        allowed_tables: Tables the statement may read, as the database stores them (compared
            by :func:`identifier_key`); ``None`` skips the table check (system catalogs and
            file paths are refused all the same).
        max_rows: Most rows the caller wants back (must be ≥ 1).
        allowed_columns: Optional ``{table: columns}``; when given, every column reference must
            resolve against it.
        allowed_schemas: Optional schemas a qualified table name may name; when given,
            ``cdm.person`` is accepted only if ``cdm`` is one of them. ``None`` accepts any.
        timeout_ms: The statement timeout the guard's own work counts against: checking that
            takes longer is refused as ``too_complex``.

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
    started = time.perf_counter()
    if max_rows < 1:
        raise _refuse(
            "bad_limit", f"max_rows must be at least 1, got {max_rows}", max_rows=max_rows
        )
    deadline = started + timeout_ms / 1000 if timeout_ms else None
    try:
        result = _guard(
            sql, dialect, allowed_tables, max_rows, allowed_columns, allowed_schemas, deadline
        )
    except SQLSafetyError:
        raise
    except RecursionError as exc:  # a deep tree in a later step (walk, render)
        raise _refuse("too_complex", "the statement is nested too deeply to check") from exc
    except Exception as exc:  # sqlglot bugs must not escape as tracebacks
        logger.debug("guard could not check a statement", exc_info=True)
        raise _refuse(
            "unsupported_syntax",
            f"the statement could not be checked ({type(exc).__name__} in the SQL parser)",
            error=type(exc).__name__,
        ) from exc
    elapsed = (time.perf_counter() - started) * 1000
    return GuardedSQL(**{**result.__dict__, "guard_ms": elapsed})


def _guard(
    sql: str | exp.Expr,
    dialect: str,
    allowed_tables: Collection[str] | None,
    max_rows: int,
    allowed_columns: Mapping[str, Collection[str]] | None,
    allowed_schemas: Collection[str] | None,
    deadline: float | None,
) -> GuardedSQL:
    warnings: list[str] = []
    scale = COMPILED_SCALE if isinstance(sql, exp.Expr) else 1
    if isinstance(sql, exp.Expr):
        root: exp.Expr = sql.copy()
    else:
        root = _parse(sql, dialect)
    _tick(deadline, "parsing")
    while isinstance(root, exp.Subquery) and isinstance(root.this, exp.Query):
        root = root.this  # "(SELECT ...)" is the query inside
    tables = _check_tree(root, dialect, allowed_tables, allowed_schemas, scale)
    _tick(deadline, "checking")
    if allowed_columns is not None:
        _check_columns(root, dialect, allowed_columns, warnings)
        _tick(deadline, "checking columns")
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
    # What runs is what was checked: parse the rendered text and check it all again.
    again = _parse(rendered, dialect, scale=2 * scale)
    _check_tree(again, dialect, allowed_tables, allowed_schemas, scale)
    _check_outer_limit(again, limit)
    _tick(deadline, "re-checking")
    return GuardedSQL(
        sql=rendered,
        expression=root,
        dialect=dialect,
        tables=tuple(sorted(tables)),
        warnings=tuple(warnings),
        max_rows=max_rows,
        limit=limit,
    )


def _tick(deadline: float | None, phase: str) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise _refuse(
            "too_complex",
            f"checking the statement took longer than the statement timeout ({phase})",
        )


def catalog_tables(catalog: Catalog) -> tuple[set[str], dict[str, list[str]]]:
    """Table names a catalog describes, and the column lists it knows.

    Tables come from ``catalog.tables`` and from every table the patients, encounters, event
    streams, dictionaries and variables point at. Names are lower-cased the way the catalog's
    own ``table_names()`` does (ASCII letters only).
    """

    def low(name: object) -> str:
        return str(name).translate(_TO_LOWER)

    columns = {low(t.name): [c.name for c in t.columns] for t in catalog.tables}
    names = set(columns)
    for part in (catalog.patients, catalog.encounters):
        if part is not None:
            for extra in ("table", "death_table", "observation_table"):
                if value := getattr(part, extra, None):
                    names.add(low(value))
    names.update(low(s.table) for s in catalog.streams)
    names.update(low(v.table) for v in catalog.variables)
    for d in catalog.dictionaries:
        names.update(
            low(t) for t in (d.table, d.synonym_table, d.ancestor_table, d.relationship_table) if t
        )
    return names, {t: cols for t, cols in columns.items() if cols}


def guard_catalog_tables(
    sql: str | exp.Expr, catalog: Catalog, *, dialect: str, max_rows: int
) -> GuardedSQL:
    """:func:`guard` with ``catalog.tables`` (and its schema) as the only tables it may read; a
    catalog that lists none is refused, not unchecked. :func:`guard_sql` also checks columns."""
    tables = catalog.table_names()
    if not tables:
        raise SQLSafetyError(
            f"catalog {catalog.source!r} lists no tables to read", reason="unknown_table"
        )
    schemas = {catalog.schema_name} if catalog.schema_name else None
    return guard(
        sql, dialect=dialect, allowed_tables=tables, max_rows=max_rows, allowed_schemas=schemas
    )


def guard_sql(
    sql: str | exp.Expr,
    *,
    catalog: Catalog,
    dialect: str | None = None,
    max_rows: int = 10_000,
    timeout_ms: int | None = None,
) -> GuardedSQL:
    """:func:`guard` with the tables (and, where every table lists them, the columns) of a catalog.

    Args:
        sql: SQL text or a sqlglot expression.
        catalog: The source's catalog; only its tables may be read.
        dialect: sqlglot dialect; defaults to ``catalog.dialect``.
        max_rows: Most rows the caller wants back.
        timeout_ms: Statement timeout the guard's own work counts against.

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
        timeout_ms=timeout_ms,
    )


# -- parsing -----------------------------------------------------------------------------------
def _parse(text: str, dialect: str, *, scale: int = 1) -> exp.Expr:
    limit_length = MAX_SQL_LENGTH * scale
    if not isinstance(text, str):
        raise _refuse("parse_error", f"expected SQL text, got {type(text).__name__}")
    if len(text) > limit_length:
        raise _refuse(
            "too_long",
            f"statement is {len(text):,} characters long; the limit is {limit_length:,}",
            length=len(text),
        )
    if not text.strip():
        raise _refuse("empty", "the statement is empty")
    try:
        sqlglot_dialect = sqlglot.Dialect.get_or_raise(dialect)
    except (SqlglotError, ValueError) as exc:
        raise _refuse("parse_error", f"unknown SQL dialect {dialect!r}") from exc
    try:
        tokens = sqlglot_dialect.tokenize(text)
    except Exception as exc:  # the tokenizer raises more than SqlglotError
        raise _refuse("parse_error", f"not valid {dialect} SQL: {_first_line(exc)}") from exc
    _check_tokens(tokens, MAX_TOKENS * scale)
    try:
        parsed = sqlglot_dialect.parser().parse(tokens, text)
    except RecursionError as exc:
        raise _refuse("too_complex", "the statement is nested too deeply to check") from exc
    except SqlglotError as exc:
        raise _refuse(
            "parse_error", f"not valid {dialect} SQL: {_first_line(exc)}", dialect=dialect
        ) from exc
    except Exception as exc:  # e.g. IndexError on "SHOW ALL": never a traceback
        raise _refuse(
            "parse_error",
            f"not valid {dialect} SQL (the parser failed with {type(exc).__name__})",
            dialect=dialect,
        ) from exc
    statements = [s for s in parsed if s is not None]
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


def _check_tokens(tokens: Sequence[Any], max_tokens: int) -> None:
    if len(tokens) > max_tokens:
        raise _refuse(
            "too_complex",
            f"the statement has {len(tokens):,} tokens; the limit is {max_tokens:,}",
            tokens=len(tokens),
        )
    depth = 0
    for token in tokens:
        if token.token_type in (TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE):
            depth += 1
            if depth > MAX_PAREN_DEPTH:
                raise _refuse(
                    "too_complex",
                    f"parentheses are nested more than {MAX_PAREN_DEPTH} deep",
                )
        elif token.token_type in (TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE):
            depth -= 1


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return _plain(text.splitlines()[0]) if text else type(exc).__name__


def _plain(text: str) -> str:
    """Drop the ANSI underline sqlglot puts in parse-error messages."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _kind(node: exp.Expr) -> str:
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    return node.key.upper()


# -- the whole tree ----------------------------------------------------------------------------
def _check_tree(
    root: exp.Expr,
    dialect: str,
    allowed_tables: Collection[str] | None,
    allowed_schemas: Collection[str] | None,
    scale: int = 1,
) -> set[str]:
    _check_root(root)
    _check_size(root, scale)
    _check_nodes(root, dialect)
    real, cte_of = _resolve_tables(root, dialect)
    _check_expanded_size(root, cte_of, MAX_EXPANDED_NODES * scale)
    return _check_tables(real, dialect, allowed_tables, allowed_schemas)


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


def _check_size(root: exp.Expr, scale: int = 1) -> None:
    max_nodes, max_ctes = MAX_NODES * scale, MAX_CTES * scale
    ctes = 0
    for count, node in enumerate(root.walk(), start=1):
        if isinstance(node, exp.CTE):
            ctes += 1
        if count > max_nodes:
            raise _refuse("too_complex", f"the statement has more than {max_nodes:,} syntax nodes")
    if ctes > max_ctes:
        raise _refuse(
            "too_complex", f"the statement has {ctes} CTEs; the limit is {max_ctes}", ctes=ctes
        )


def _check_nodes(root: exp.Expr, dialect: str) -> None:
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
        if isinstance(node, exp.Lock) or (isinstance(node, exp.Select) and node.args.get("locks")):
            raise _refuse("locking", "row locks (FOR UPDATE / FOR SHARE) are not allowed")
        if isinstance(node, exp.Func):
            _check_function(node, dialect)
        elif type(node) not in NODE_TYPES:
            raise _refuse(
                "unsupported_syntax",
                f"{node.key.upper()} is not allowed in a query (only plain SELECT syntax is)",
                syntax=node.key,
            )
        elif isinstance(node, exp.DataType):
            _check_type(node)
        elif isinstance(node, exp.Dot) and isinstance(node.expression, exp.Func):
            raise _refuse(
                "forbidden_function",
                f"schema-qualified function {node.sql(dialect=dialect)[:80]} is not allowed",
                function=_function_name(node.expression),
            )
        elif isinstance(node, exp.Table):
            _check_table_expression(node, dialect)


def _function_name(node: exp.Func) -> str:
    if _is_named(node):
        return _ident(node.args.get("this"))[0]
    try:
        return node.sql_name().lower()
    except (NotImplementedError, AttributeError):  # pragma: no cover - abstract classes
        return node.key


def _is_named(node: exp.Func) -> bool:
    """Function nodes whose name is data (``Anonymous`` and its aggregate cousins)."""
    return isinstance(node, exp.Anonymous | exp.AnonymousAggFunc) or type(node).__name__ in {
        "CombinedAggFunc",
        "CombinedParameterizedAgg",
        "ParameterizedAgg",
    }


def _anonymous_key(node: exp.Func) -> str:
    name, quoted = _ident(node.args.get("this"))
    return name if quoted else name.translate(_TO_LOWER)


def _check_function(node: exp.Func, dialect: str) -> None:
    if _is_named(node):
        key = _anonymous_key(node)
        admitted = key in ANONYMOUS_FUNCTIONS[""] or key in ANONYMOUS_FUNCTIONS.get(
            dialect, frozenset()
        )
    else:
        admitted = type(node) in FUNCTION_CLASSES or type(node) in (
            FUNCTION_CLASSES_BY_DIALECT.get(dialect, frozenset())
        )
    if not admitted:
        name = _function_name(node)
        raise _refuse(
            "forbidden_function",
            f"function {name}() is not allowed: only pure aggregate, arithmetic, string, "
            "date and JSON functions are (no files, network, settings, sessions, sequences "
            "or sleeps)",
            function=name,
        )
    in_from = isinstance(node.parent, exp.Table | exp.From | exp.Join | exp.Lateral) and (
        node.arg_key == "this"
    )
    if in_from:
        _check_table_function(node)
    bound = BOUNDED_FUNCTIONS.get(type(node))
    if bound is not None:
        value = _literal_int(node.args.get(bound[0]))
        if value is None or value > bound[1]:
            name = _function_name(node)
            raise _refuse(
                "too_complex",
                f"{name}() needs a constant size of at most {bound[1]:,} here: one call "
                "builds the whole value in a step the database cannot cancel",
                function=name,
            )
    is_series = type(node) in SERIES_CLASSES or (
        _is_named(node) and _anonymous_key(node) in {"generate_series", "range"}
    )
    if is_series and not in_from and dialect != "postgres":
        raise _refuse(
            "too_complex",
            f"{_function_name(node)}() may only be read from in FROM here: as a value it builds "
            "its whole list in one step that cannot be cancelled",
            function=_function_name(node),
        )
    if isinstance(node, exp.GenerateSeries | exp.ExplodingGenerateSeries):
        _check_series(node.args.get("start"), node.args.get("end"), node.args.get("step"))
    elif _is_named(node) and _anonymous_key(node) in {"generate_series", "range"}:
        args = list(node.expressions)
        if len(args) == 1:
            args = [exp.Literal.number(0), *args]
        if len(args) >= 2:
            _check_series(args[0], args[1], args[2] if len(args) > 2 else None)


def _check_series(start: Any, end: Any, step: Any) -> None:
    lo, hi = _literal_int(start), _literal_int(end)
    by = _literal_int(step) if step is not None else 1
    if lo is None or hi is None or not by:
        return  # not constant: the timeout bounds it
    rows = abs(hi - lo) // abs(by) + 1
    if rows > MAX_SERIES_ROWS:
        raise _refuse(
            "too_complex",
            f"a series of {rows:,} rows is over the limit of {MAX_SERIES_ROWS:,}",
            rows=rows,
        )


def _check_table_function(node: exp.Func) -> None:
    if _is_named(node):
        admitted = _anonymous_key(node) in TABLE_FUNCTION_NAMES
    else:
        admitted = type(node) in TABLE_FUNCTION_CLASSES
    if not admitted:
        name = _function_name(node)
        raise _refuse(
            "forbidden_function",
            f"table function {name}() is not allowed; only value generators such as "
            "generate_series, range and unnest may appear in FROM",
            function=name,
        )


def _check_type(node: exp.DataType) -> None:
    kind = node.this
    if kind not in DATA_TYPES:
        name = node.sql() if kind == exp.DataType.Type.USERDEFINED else getattr(kind, "name", "?")
        raise _refuse(
            "unsupported_syntax",
            f"type {name[:60]} is not allowed in a cast",
            type=name[:60],
        )


def _check_table_expression(table: exp.Table, dialect: str) -> None:
    this = table.this
    if isinstance(this, exp.Identifier | exp.Func):
        return
    raise _refuse(
        "file_access" if isinstance(this, exp.Literal) else "unsupported_syntax",
        f"{table.sql(dialect=dialect)[:80]!r} is not a table name; reading files or "
        "expressions as tables is not allowed",
        table=table.sql(dialect=dialect)[:80],
    )


# -- columns -----------------------------------------------------------------------------------
def _check_columns(
    root: exp.Expr,
    dialect: str,
    allowed_columns: Mapping[str, Collection[str]],
    warnings: list[str],
) -> None:
    from sqlglot.optimizer.qualify import qualify

    def low(name: str) -> str:
        return name.translate(_TO_LOWER)

    schema: dict[str, object] = {
        low(t): {low(c): "UNKNOWN" for c in cols} for t, cols in allowed_columns.items()
    }
    probe = root.copy()
    _, cte_of = _resolve_tables(probe, dialect)
    for table in probe.find_all(exp.Table):
        if isinstance(table.this, exp.Identifier):
            table.set("db", None)
            table.set("catalog", None)
            lname = low(table.name)
            if lname not in schema and id(table) not in cte_of:
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
    """Put a plain ``LIMIT n`` (n ≤ max_rows + 1) on the outermost query.

    A plain integer ``LIMIT`` (or plain ``FETCH FIRST n ROWS ONLY``) of at most ``max_rows`` is
    kept; a larger or negative one (SQLite's ``LIMIT -1`` means none) is replaced by the probe
    limit. Every other form — ``PERCENT``, ``WITH TIES``, ``ALL``, ``LIMIT a, b``, an expression
    — stays inside a subquery that the probe limit caps, so it can never widen the result.
    """
    probe = max_rows + 1
    current = root.args.get("limit")
    if current is None:
        root.set("limit", exp.Limit(expression=exp.Literal.number(probe)))
        return root, probe
    existing: int | None = None
    if isinstance(current, exp.Limit):
        others = {k for k, v in current.args.items() if v is not None} - {"expression"}
        existing = None if others else _literal_int(current.expression)
    elif isinstance(current, exp.Fetch):
        others = {k for k, v in current.args.items() if v is not None} - {
            "direction",
            "count",
            "limit_options",
        }
        options = current.args.get("limit_options")
        if isinstance(options, exp.LimitOptions) and (
            options.args.get("percent") or options.args.get("with_ties")
        ):
            others.add("limit_options")
        existing = None if others else _literal_int(current.args.get("count"))
    if existing is None:
        wrapped = exp.select("*").from_(root.subquery("_guarded", copy=False))
        wrapped.set("limit", exp.Limit(expression=exp.Literal.number(probe)))
        return wrapped, probe
    if 0 <= existing <= max_rows:
        root.set("limit", exp.Limit(expression=exp.Literal.number(existing)))
        return root, existing
    warnings.append(f"LIMIT {existing} is outside 0..max_rows={max_rows}; at most {max_rows} rows")
    root.set("limit", exp.Limit(expression=exp.Literal.number(probe)))
    return root, probe


# -- final re-check ----------------------------------------------------------------------------
def _check_outer_limit(root: exp.Expr, limit: int) -> None:
    """The re-parsed statement's outermost row limit is exactly the plain one we set."""
    current = root.args.get("limit")
    extra = (
        {k for k, v in current.args.items() if v is not None} - {"expression"}
        if isinstance(current, exp.Limit)
        else {"?"}
    )
    value = _literal_int(current.expression) if isinstance(current, exp.Limit) else None
    if extra or value is None or value != limit:
        raise _refuse(
            "unsupported_syntax",
            "the row limit could not be applied to this statement's outermost query",
        )
