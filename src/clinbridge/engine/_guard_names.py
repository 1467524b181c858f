"""Names for the SQL guard: refusals, identifier comparison per database, CTE scoping and the
table check. Split from :mod:`clinbridge.engine.guard`, which re-exports the public parts."""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Collection, Mapping
from typing import Literal

from sqlglot import exp

from clinbridge.errors import SQLSafetyError

__all__ = ["RefusalReason", "identifier_key"]

RefusalReason = Literal[
    "empty",
    "too_long",
    "too_complex",
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


def refuse(reason: RefusalReason, message: str, **details: object) -> SQLSafetyError:
    return SQLSafetyError(f"refused ({reason}): {message}", reason=reason, **details)


_SYSTEM_SCHEMAS = frozenset(
    {"information_schema", "pg_catalog", "pg_toast", "system", "temp", "pg_temp"}
)
_SYSTEM_TABLES = frozenset({"sqlite_master", "sqlite_schema", "sqlite_temp_master"})
_SYSTEM_PREFIXES = ("pg_", "sqlite_", "duckdb_", "pragma_")
_FILE_SUFFIX = re.compile(
    r"\.(csv|tsv|txt|parquet|json|ndjson|jsonl|xlsx?|gz|zst|bz2|db|duckdb|sqlite3?|arrow|avro)$",
    re.IGNORECASE,
)

# -- identifiers -------------------------------------------------------------------------------
_TO_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_TO_UPPER = str.maketrans(string.ascii_lowercase, string.ascii_uppercase)

# How each database compares identifiers: "ci" ASCII-case-insensitive whether quoted or not
# (DuckDB, SQLite, and engines that fold everything), "lower"/"upper" fold unquoted names (ASCII
# letters only) and keep quoted ones exact, "exact" compares code points.
_IDENTIFIER_RULES: dict[str, str] = {
    "duckdb": "ci", "sqlite": "ci", "mysql": "ci", "spark": "ci", "spark2": "ci",
    "databricks": "ci", "hive": "ci", "trino": "ci", "presto": "ci", "athena": "ci",
    "postgres": "lower", "redshift": "lower", "materialize": "lower", "risingwave": "lower",
    "snowflake": "upper", "oracle": "upper", "exasol": "upper",
}  # fmt: skip
_NATIVE = frozenset({"duckdb", "sqlite", "postgres"})


def identifier_key(name: str, *, quoted: bool, dialect: str) -> str:
    """The form under which ``dialect``'s database compares an identifier.

    Two identifiers name the same object exactly when their keys are equal. Only ASCII letters
    are ever folded (PostgreSQL's ``downcase_identifier``, SQLite's ``sqlite3StrICmp`` and
    DuckDB's case-insensitive lookup all leave other letters alone), so the Kelvin sign ``K``
    is not ``k`` here, whatever ``str.lower`` says. Dialects without a rule compare exactly.
    """
    rule = _IDENTIFIER_RULES.get(dialect, "exact")
    if rule == "ci" or (rule == "lower" and not quoted):
        return name.translate(_TO_LOWER)
    if rule == "upper" and not quoted:
        return name.translate(_TO_UPPER)
    return name


def _catalog_key(name: str, dialect: str) -> str:
    """Key of a catalogued table name: the stored name on the three native backends, an
    unquoted identifier elsewhere (where catalogs give names as a user would type them)."""
    return identifier_key(name, quoted=dialect in _NATIVE, dialect=dialect)


def _loose(name: str) -> str:
    """A deliberately over-matching form, used only to REFUSE system names: compatibility
    normalised, case folded, format characters (zero-width ...) removed."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")


def _ident(node: exp.Expr | None) -> tuple[str, bool]:
    if isinstance(node, exp.Identifier):
        return node.name, bool(node.quoted)
    if node is None:
        return "", False
    return (node.name if isinstance(node, exp.Expr) else str(node)), False


# -- tables ------------------------------------------------------------------------------------
def _cte_name(cte: exp.CTE) -> tuple[str, bool]:
    alias = cte.args.get("alias")
    return _ident(alias.this if isinstance(alias, exp.TableAlias) else None)


def _resolve_tables(root: exp.Expr, dialect: str) -> tuple[list[exp.Table], dict[int, exp.CTE]]:
    """Split table references into real tables and CTE references, the way the database does.

    A CTE is visible in the query that defines it, in the CTEs after it in the same WITH, and
    in its own body only when it is a recursive CTE (``WITH RECURSIVE`` and a ``UNION``) and the
    reference is in the recursive term. Anything the database would look up as a table is a
    real table here; resolving a CTE reference as a real table can only over-refuse.
    """
    real: list[exp.Table] = []
    cte_of: dict[int, exp.CTE] = {}
    stack: list[tuple[exp.Expr, dict[str, exp.CTE]]] = [(root, {})]
    while stack:
        node, visible = stack.pop()
        with_ = node.args.get("with_") or node.args.get("with")
        if isinstance(with_, exp.With):
            recursive = bool(with_.args.get("recursive"))
            scope = dict(visible)
            for cte in with_.expressions:
                if not isinstance(cte, exp.CTE):
                    continue
                name, quoted = _cte_name(cte)
                key = identifier_key(name, quoted=quoted, dialect=dialect)
                body = cte.this
                before = dict(scope)
                if recursive and isinstance(body, exp.Union):
                    stack.append((body.this, before))  # the anchor cannot see the CTE
                    stack.append((body.expression, {**before, key: cte}))
                    for k, value in body.args.items():
                        if k not in ("this", "expression"):
                            values = value if isinstance(value, list) else [value]
                            stack.extend((v, before) for v in values if isinstance(v, exp.Expr))
                elif isinstance(body, exp.Expr):
                    stack.append((body, before))
                scope[key] = cte
            visible = scope
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
            name, quoted = _ident(node.this)
            key = identifier_key(name, quoted=quoted, dialect=dialect)
            if not node.args.get("db") and not node.args.get("catalog") and key in visible:
                cte_of[id(node)] = visible[key]
            else:
                real.append(node)
        for child in node.iter_expressions():
            if child is not with_:
                stack.append((child, visible))
    return real, cte_of


def _check_expanded_size(root: exp.Expr, cte_of: Mapping[int, exp.CTE], limit: int) -> None:
    """Refuse statements whose size, with every CTE reference inlined, is over the limit."""
    if not cte_of:
        return
    memo: dict[int, int] = {}

    def size(node: exp.Expr) -> int:
        total = 0
        for n in node.walk():
            total += 1
            cte = cte_of.get(id(n))
            if cte is not None:
                if id(cte) not in memo:
                    memo[id(cte)] = 1  # a recursive reference to itself counts once
                    memo[id(cte)] = size(cte.this)
                total += memo[id(cte)]
            if total > limit:
                break
        return total

    total = size(root)
    if total > limit:
        raise refuse(
            "too_complex",
            f"with its CTEs inlined the statement has more than {limit:,} syntax "
            "nodes (a planner bomb)",
        )


def _is_system(schema: str, catalog: str, name: str) -> bool:
    s, c, n = _loose(schema), _loose(catalog), _loose(name)
    return (
        s in _SYSTEM_SCHEMAS
        or c in _SYSTEM_SCHEMAS
        or s.startswith("pg_temp")
        or n in _SYSTEM_TABLES
        or n.startswith(_SYSTEM_PREFIXES)
        or (not s and n in {"information_schema", "pg_catalog"})
    )


def _check_tables(
    tables: list[exp.Table],
    dialect: str,
    allowed: Collection[str] | None,
    schemas: Collection[str] | None = None,
) -> set[str]:
    allowed_keys = {_catalog_key(t, dialect): t for t in allowed} if allowed is not None else None
    schema_keys = {_catalog_key(s, dialect) for s in schemas} if schemas is not None else None
    read: set[str] = set()
    for table in tables:
        name, quoted = _ident(table.this)
        schema, schema_quoted = _ident(table.args.get("db"))
        catalog, _ = _ident(table.args.get("catalog"))
        if "/" in name or "\\" in name or ":" in name or _FILE_SUFFIX.search(name):
            raise refuse(
                "file_access",
                f"{name!r} looks like a file path; reading files is not allowed",
                table=name,
            )
        if _is_system(schema, catalog, name):
            qualified = ".".join(p for p in (catalog, schema, name) if p)
            raise refuse(
                "system_catalog",
                f"{qualified} is a system catalog; only the source's own tables may be read",
                table=qualified,
            )
        key = identifier_key(name, quoted=quoted, dialect=dialect)
        if allowed_keys is not None and key not in allowed_keys:
            listed = sorted(allowed_keys.values())
            known = ", ".join(listed[:12]) + (
                f" (+{len(listed) - 12} more)" if len(listed) > 12 else ""
            )
            raise refuse(
                "unknown_table",
                f"table {name!r} is not in the catalog (known: {known or 'none'})",
                table=name,
                known=listed,
            )
        if catalog and schema_keys is not None:
            raise refuse(
                "unknown_table",
                f"table {catalog}.{schema}.{name} names a database; only the source's own "
                "schema may be read",
                table=f"{catalog}.{schema}.{name}",
            )
        schema_key = identifier_key(schema, quoted=schema_quoted, dialect=dialect)
        if schema_keys is not None and schema and schema_key not in schema_keys:
            raise refuse(
                "unknown_table",
                f"table {schema}.{name} is outside the source's schema "
                f"({', '.join(sorted(schemas or ())) or 'none'})",
                table=f"{schema}.{name}",
            )
        read.add(allowed_keys[key] if allowed_keys is not None else key)
    return read
