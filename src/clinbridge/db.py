"""Connections to the databases clinbridge reads (and, for loaders, writes).

``Database.open(url)`` is read-only by construction. Loaders ask for ``read_only=False``.

* DuckDB opens the file with ``read_only=True``, with external access (files, network),
  extension auto-loading and Python replacement scans switched off, and the configuration locked.
* SQLite opens the file in ``mode=ro`` under an authorizer that refuses writes, ``ATTACH``
  (which would otherwise create files even on a read-only connection) and setting pragmas.
* PostgreSQL sessions run with ``default_transaction_read_only = on``, and every statement runs
  inside its own ``BEGIN READ ONLY ... ROLLBACK`` as a single prepared statement, so neither a
  second statement nor a ``SET`` can turn writing back on.

Every query runs under a statement timeout (PostgreSQL ``SET LOCAL statement_timeout``, DuckDB
``interrupt()`` from a timer thread, SQLite's progress handler) and a row limit. Driver errors
are translated at this boundary (:func:`map_driver_error`) into
:class:`~clinbridge.errors.QueryTimeoutError` or :class:`~clinbridge.errors.ExecutionError`.

``execute(..., sandbox=True)`` is what the guarded engine path uses: on top of the above it runs
only one ``SELECT`` (DuckDB checks with its own parser), inside a transaction that is rolled back
(DuckDB, PostgreSQL), under an authorizer that allows only reads (SQLite), even on a connection
opened for writing.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

from clinbridge.errors import ClinbridgeError, ConfigError, ExecutionError, QueryTimeoutError

__all__ = [
    "Database",
    "QueryResult",
    "default_url",
    "map_driver_error",
    "parse_url",
    "reader_role_sql",
]

logger = logging.getLogger(__name__)


_OPTION_NAMES = ("privileged", "query_role", "memory_limit")
"""clinbridge's own URL parameters (taken out of the URL before it reaches the driver)."""


@dataclass(frozen=True)
class ParsedURL:
    backend: str  # duckdb | sqlite | postgres
    path: str | None
    dsn: str | None
    schema: str | None
    options: tuple[tuple[str, str], ...] = ()
    """clinbridge's own parameters: ``privileged`` (``warn`` | ``refuse`` | ``allow``: what to
    do when a PostgreSQL role can do more than read), ``query_role`` (PostgreSQL role every
    sandboxed statement runs as), ``memory_limit`` (DuckDB, default ``2GB``)."""

    def option(self, name: str, default: str | None = None) -> str | None:
        return dict(self.options).get(name, default)


def parse_url(url: str) -> ParsedURL:
    """Parse ``duckdb:///file.duckdb``, ``sqlite:///file.db`` or ``postgresql://...``.

    A bare path ending in .duckdb/.db/.sqlite is accepted too. For PostgreSQL, the schema comes
    from ``?schema=cdm`` or ``?options=-csearch_path%3Dcdm``.
    """
    if "://" not in url:
        suffix = Path(url).suffix.lower()
        if suffix in {".duckdb", ".ddb"}:
            return ParsedURL("duckdb", url, None, None)
        if suffix in {".db", ".sqlite", ".sqlite3"}:
            return ParsedURL("sqlite", url, None, None)
        raise ConfigError(
            f"cannot tell the database type of {url!r}; use duckdb:///, sqlite:/// or postgresql://"
        )
    scheme, _, rest = url.partition("://")
    scheme = scheme.split("+")[0].lower()
    if scheme == "duckdb":
        path = rest[1:] if rest.startswith("/") else rest
        path, _, query = path.partition("?")
        qs = parse_qs(query)
        return ParsedURL(
            "duckdb",
            path or ":memory:",
            None,
            qs.get("schema", [None])[0],
            tuple((k, qs[k][0]) for k in _OPTION_NAMES if k in qs),
        )
    if scheme == "sqlite":
        path = rest[1:] if rest.startswith("/") else rest
        path, _, _ = path.partition("?")
        return ParsedURL("sqlite", path or ":memory:", None, None)
    if scheme in {"postgresql", "postgres"}:
        parsed = urlparse("postgresql://" + rest)
        qs = parse_qs(parsed.query)
        schema = qs.pop("schema", [None])[0]
        ours = tuple((k, qs.pop(k)[0]) for k in _OPTION_NAMES if k in qs)
        options = qs.get("options", [""])[0]
        if schema is None and "search_path" in options:
            schema = options.split("search_path", 1)[1].lstrip("=").split()[0].split(",")[0]
        kept = urlencode({k: v[0] for k, v in qs.items()})
        dsn = parsed._replace(query=kept).geturl()
        return ParsedURL("postgres", None, dsn, schema, ours)
    raise ConfigError(
        f"unsupported database URL scheme {scheme!r}: use duckdb, sqlite or postgresql"
    )


def default_url() -> str:
    """The embedded default: a DuckDB file in the user's data directory."""
    base = Path.home() / ".clinbridge"
    return f"duckdb:///{base / 'clinbridge.duckdb'}"


@dataclass
class QueryResult:
    """The rows of one query, with their column names and whether more were available."""

    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool
    elapsed_ms: float
    sql: str = ""
    """The statement that ran (set by the engine's guarded path)."""
    dialect: str = ""

    @property
    def row_count(self) -> int:
        """How many rows came back."""
        return len(self.rows)


class Database:
    """One open connection, with its dialect, schema and safety settings."""

    def __init__(self, url: str, conn: Any, parsed: ParsedURL, *, read_only: bool) -> None:
        self.url = url
        self.conn = conn
        self.backend = parsed.backend
        self.schema = parsed.schema
        self.read_only = read_only
        self._parsed = parsed
        self.privileges: tuple[str, ...] = ()
        """What the connection's PostgreSQL role can do beyond reading (``superuser``,
        ``pg_read_server_files`` ...); empty for a least-privilege reader and other backends."""
        self.warnings: list[str] = []
        """Safety warnings found when the database was opened (a privileged role ...)."""
        self.query_role = parsed.option("query_role")

    # sqlglot's dialect name
    @property
    def dialect(self) -> str:
        """The sqlglot dialect of this database."""
        return self.backend

    @classmethod
    def open(cls, url: str, *, read_only: bool = True, schema: str | None = None) -> Database:
        """Open the database at ``url`` (read-only unless asked otherwise)."""
        parsed = parse_url(url)
        if schema:
            parsed = ParsedURL(parsed.backend, parsed.path, parsed.dsn, schema, parsed.options)
        try:
            conn = _connect(parsed, read_only=read_only)
        except ConfigError:
            raise
        except Exception as exc:
            raise ExecutionError(f"cannot open database {url!r}: {exc}", url=url) from exc
        db = cls(url, conn, parsed, read_only=read_only)
        if parsed.schema and parsed.backend == "postgres":
            with db.cursor() as cur:
                cur.execute(f'SET search_path TO "{parsed.schema}", public')
        if parsed.backend == "postgres" and read_only:
            db._check_privileges()
        return db

    def _check_privileges(self) -> None:
        """Warn loudly, or refuse (``?privileged=refuse``), when the role can do more than read.

        The role that runs user queries should be a reader of the catalogued schema only
        (docs/guard.md, :func:`reader_role_sql`). A superuser, or a member of a role that reads
        or writes server files, runs programs, signals other backends or reads all data, would
        let any guard bug matter.
        """
        mode = self._parsed.option("privileged", "warn")
        if mode not in {"warn", "refuse", "allow"}:
            raise ConfigError(f"privileged={mode!r}: use warn, refuse or allow")
        role = self.query_role
        with self.cursor() as cur:
            cur.execute(
                "SELECT r.rolname, r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolbypassrls "
                "FROM pg_roles r WHERE r.rolname = coalesce(%s, current_user)",
                (role,),
            )
            row = cur.fetchone()
            if row is None:
                raise ConfigError(f"query_role {role!r} does not exist", role=role)
            name = row[0]
            found = [
                label
                for label, flag in zip(
                    ("superuser", "createrole", "createdb", "bypassrls"), row[1:], strict=True
                )
                if flag
            ]
            cur.execute(
                "SELECT g FROM unnest(%s::text[]) AS g WHERE to_regrole(g) IS NOT NULL "
                "AND pg_has_role(%s, g, 'MEMBER')",
                (list(_PG_DANGEROUS_ROLES), name),
            )
            found += [r[0] for r in cur.fetchall()]
            if role is not None:
                cur.execute("SELECT pg_has_role(current_user, %s, 'MEMBER')", (role,))
                member = cur.fetchone()
                if not (member and member[0]):
                    raise ConfigError(
                        f"query_role {role!r} is not granted to the connecting role", role=role
                    )
        self.privileges = tuple(found)
        if not found or mode == "allow":
            return
        message = (
            f"PostgreSQL role {name!r} can do more than read ({', '.join(found)}); user "
            "queries should run as a reader of the catalogued schema only (see docs/guard.md, "
            "'A least-privilege role')"
        )
        if mode == "refuse":
            self.close()
            raise ConfigError(message, role=name, privileges=found)
        self.warnings.append(message)
        logger.warning("SECURITY: %s", message)

    def close(self) -> None:
        """Close the connection."""
        with contextlib.suppress(Exception):
            self.conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def cursor(self) -> Iterator[Any]:
        """A cursor, closed after the block."""
        if self.backend == "duckdb":
            yield self.conn
            return
        cur = self.conn.cursor()
        try:
            yield cur
        finally:
            cur.close()

    # -- introspection ---------------------------------------------------------------------
    def table_names(self) -> list[str]:
        """The names of the tables (and views) in this database's schema."""
        if self.backend == "sqlite":
            rows = self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table','view')"
            ).fetchall()
            return sorted(r[0] for r in rows)
        schema = self.schema or ("main" if self.backend == "duckdb" else "public")
        sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = %s"
        if self.backend == "duckdb":
            sql = sql.replace("%s", "?")
        with self.cursor() as cur:
            cur.execute(sql, (schema,))
            return sorted(r[0] for r in cur.fetchall())

    def columns(self, table: str) -> list[tuple[str, str]]:
        """(name, declared type) of a table's columns, in order."""
        if self.backend == "sqlite":
            rows = self.conn.execute(f'PRAGMA table_info("{table}")').fetchall()
            return [(r[1], r[2] or "") for r in rows]
        schema = self.schema or ("main" if self.backend == "duckdb" else "public")
        sql = (
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position"
        )
        if self.backend == "duckdb":
            # duckdb_columns() answers about twice as fast as information_schema.columns
            sql = (
                "SELECT column_name, data_type FROM duckdb_columns() "
                "WHERE schema_name = ? AND table_name = ? ORDER BY column_index"
            )
        with self.cursor() as cur:
            cur.execute(sql, (schema, table))
            return [(r[0], r[1]) for r in cur.fetchall()]

    # -- execution -------------------------------------------------------------------------
    def execute(
        self,
        sql: str,
        params: Sequence[Any] | None = None,
        *,
        timeout_ms: int = 30_000,
        max_rows: int | None = 10_000,
        sandbox: bool = False,
    ) -> QueryResult:
        """Run one statement under a timeout; fetch at most ``max_rows`` rows (+1 to flag truncation).

        Args:
            sql: One statement in this database's dialect.
            params: Positional parameters (``%s`` on PostgreSQL, ``?`` elsewhere).
            timeout_ms: Statement timeout; longer statements are stopped.
            max_rows: Most rows returned; ``truncated`` says whether more were available.
            sandbox: Run only a single read-only SELECT, whatever the connection allows
                (see the module docstring). The engine's guarded path sets it.

        Raises:
            QueryTimeoutError: The statement ran past ``timeout_ms``.
            ExecutionError: The driver refused or failed the statement.
        """
        start = time.perf_counter()
        fired = threading.Event()
        try:
            with self._statement(timeout_ms, fired, sandbox=sandbox) as run:
                cur = run(sql, params)
                columns = [d[0] for d in (cur.description or [])]
                if max_rows is None:
                    rows = cur.fetchall() if cur.description else []
                    truncated = False
                else:
                    rows = cur.fetchmany(max_rows + 1) if cur.description else []
                    truncated = len(rows) > max_rows
                    rows = rows[:max_rows]
        except ClinbridgeError:
            raise
        except Exception as exc:
            raise map_driver_error(
                exc, backend=self.backend, sql=sql, timeout_ms=timeout_ms, timed_out=fired.is_set()
            ) from exc
        elapsed = (time.perf_counter() - start) * 1000
        return QueryResult(columns, [tuple(r) for r in rows], truncated, elapsed)

    @contextlib.contextmanager
    def _statement(
        self, timeout_ms: int, fired: threading.Event, *, sandbox: bool
    ) -> Iterator[Callable[[str, Sequence[Any] | None], Any]]:
        """Set up timeout and read-only protections; yield ``run(sql, params) -> cursor``."""
        if self.backend == "postgres":
            with self._pg_statement(timeout_ms, sandbox=sandbox) as run:
                yield run
        elif self.backend == "sqlite":
            with self._sqlite_statement(timeout_ms, sandbox=sandbox) as run:
                yield run
        else:
            with self._duckdb_statement(timeout_ms, fired, sandbox=sandbox) as run:
                yield run

    @contextlib.contextmanager
    def _pg_statement(
        self, timeout_ms: int, *, sandbox: bool
    ) -> Iterator[Callable[[str, Sequence[Any] | None], Any]]:
        guarded = sandbox or self.read_only
        cur = self.conn.cursor()
        # statement_timeout covers parsing and planning, but a prepared statement is two
        # protocol exchanges (parse, then bind/execute), each timed on its own: a client-side
        # cancel at the deadline bounds the whole.
        # It fires a little after statement_timeout, so that the server's own timeout normally
        # wins, and is joined before the rollback, so that a late cancel cannot hit it.
        conn = self.conn
        timer = threading.Timer(timeout_ms * 1.05 / 1000, lambda: _pg_cancel(conn))
        timer.daemon = True
        try:
            if guarded:
                # A read-only transaction that is always rolled back: a SET inside it is undone,
                # and "transaction read-write mode must be set before any query".
                cur.execute("BEGIN READ ONLY")
                if sandbox and self.query_role:
                    ident = self.query_role.replace('"', '""')
                    cur.execute(f'SET LOCAL ROLE "{ident}"')
                cur.execute(f"SET LOCAL statement_timeout = {int(timeout_ms)}")
            else:
                cur.execute(f"SET statement_timeout = {int(timeout_ms)}")

            def run(sql: str, params: Sequence[Any] | None) -> Any:
                # prepare=True: the extended protocol refuses a second statement in the text.
                timer.start()
                cur.execute(sql, tuple(params) if params else None, prepare=guarded or None)
                return cur

            yield run
        finally:
            _stop(timer)
            if guarded:
                with contextlib.suppress(Exception):
                    cur.execute("ROLLBACK")
                self._rollback()  # a cancel that landed on the ROLLBACK leaves a transaction
            else:
                self._rollback()
                # the session's later statements (a loader's COPY) must not inherit the limit
                with contextlib.suppress(Exception):
                    cur.execute("SET statement_timeout = DEFAULT")
            cur.close()

    @contextlib.contextmanager
    def _sqlite_statement(
        self, timeout_ms: int, *, sandbox: bool
    ) -> Iterator[Callable[[str, Sequence[Any] | None], Any]]:
        deadline = time.monotonic() + timeout_ms / 1000
        # The handler runs every N virtual-machine instructions; non-zero aborts the statement.
        self.conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 1_000)
        limits: dict[int, int] = {}
        if sandbox:
            self.conn.set_authorizer(_sqlite_select_only)
            # One VM step can take as long as the value it builds (zeroblob, replace, printf):
            # cap every string and blob so that no single step outlasts the timeout.
            limits = {
                limit: self.conn.setlimit(limit, value) for limit, value in _SQLITE_LIMITS.items()
            }
        cur = self.conn.cursor()
        try:

            def run(sql: str, params: Sequence[Any] | None) -> Any:
                cur.execute(sql, tuple(params or ()))
                return cur

            yield run
        finally:
            cur.close()
            self.conn.set_progress_handler(None, 0)
            for limit, value in limits.items():
                self.conn.setlimit(limit, value)
            if sandbox:
                self.conn.set_authorizer(_sqlite_read_only if self.read_only else None)
                if self.conn.in_transaction:
                    self.conn.rollback()

    @contextlib.contextmanager
    def _duckdb_statement(
        self, timeout_ms: int, fired: threading.Event, *, sandbox: bool
    ) -> Iterator[Callable[[str, Sequence[Any] | None], Any]]:
        import duckdb

        began = False

        def run(sql: str, params: Sequence[Any] | None) -> Any:
            nonlocal began
            if sandbox:
                statements = self.conn.extract_statements(sql)
                if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
                    kinds = ", ".join(str(s.type).rsplit(".", 1)[-1] for s in statements)
                    raise ExecutionError(
                        f"sandboxed execution runs exactly one SELECT; got {kinds or 'nothing'}",
                        sql=sql,
                        backend="duckdb",
                    )
                # Rolled back afterwards: nothing persists even on a writable connection.
                with contextlib.suppress(duckdb.TransactionException):
                    self.conn.execute("BEGIN TRANSACTION")
                    began = True
            return self.conn.execute(sql, tuple(params or ()))

        def stop() -> None:
            fired.set()
            with contextlib.suppress(Exception):
                self.conn.interrupt()

        timer = threading.Timer(timeout_ms / 1000, stop)
        timer.daemon = True
        timer.start()
        try:
            yield run
        finally:
            _stop(timer)
            if began:
                with contextlib.suppress(Exception):
                    self.conn.execute("ROLLBACK")

    def _rollback(self) -> None:
        if self.backend == "postgres":
            with contextlib.suppress(Exception):
                self.conn.rollback()


_PG_DANGEROUS_ROLES = (
    "pg_read_server_files",
    "pg_write_server_files",
    "pg_execute_server_program",
    "pg_signal_backend",
    "pg_read_all_data",
    "pg_write_all_data",
    "pg_read_all_settings",
    "pg_read_all_stats",
    "pg_monitor",
    "pg_checkpoint",
)
"""Predefined PostgreSQL roles that let a member do more than read its own tables."""


def _stop(timer: threading.Timer) -> None:
    """Cancel a statement's watchdog and wait out one that has begun to fire."""
    timer.cancel()
    if timer.is_alive():
        timer.join(5)


def _pg_cancel(conn: Any) -> None:
    with contextlib.suppress(Exception):
        conn.cancel_safe(timeout=1.0)


def reader_role_sql(
    role: str,
    *,
    schema: str,
    tables: Sequence[str] | None = None,
    database: str | None = None,
    login: bool = True,
    statement_timeout_ms: int = 30_000,
) -> list[str]:
    """The statements that create a least-privilege reader for clinbridge on PostgreSQL.

    Run them as the database owner. The role can connect, use ``schema`` and SELECT from its
    tables (``tables``, or all of them), nothing else: not a superuser, no membership in the
    file, program, signal or read-all roles, read-only by default, with a statement timeout.

    Example:
        >>> reader_role_sql("cb_reader", schema="cdm", tables=["person"])[-1]
        'GRANT SELECT ON "cdm"."person" TO "cb_reader"'
    """

    def q(name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    r = q(role)
    out = [
        f"CREATE ROLE {r} {'LOGIN' if login else 'NOLOGIN'} NOSUPERUSER NOCREATEDB "
        "NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS",
        f"ALTER ROLE {r} SET default_transaction_read_only = on",
        f"ALTER ROLE {r} SET statement_timeout = {int(statement_timeout_ms)}",
        f"ALTER ROLE {r} SET search_path = {q(schema)}",
    ]
    if database:
        out.append(f"GRANT CONNECT ON DATABASE {q(database)} TO {r}")
    out.append(f"GRANT USAGE ON SCHEMA {q(schema)} TO {r}")
    if tables is None:
        out.append(f"GRANT SELECT ON ALL TABLES IN SCHEMA {q(schema)} TO {r}")
    else:
        out += [f"GRANT SELECT ON {q(schema)}.{q(t)} TO {r}" for t in tables]
    return out


def map_driver_error(
    exc: BaseException,
    *,
    backend: str,
    sql: str | None = None,
    timeout_ms: int | None = None,
    timed_out: bool = False,
) -> ExecutionError:
    """Translate a DuckDB, SQLite or psycopg error into clinbridge's error tree.

    A statement stopped by the timeout (PostgreSQL ``QueryCanceled``, DuckDB
    ``InterruptException``, SQLite ``interrupted``) becomes :class:`QueryTimeoutError`; anything
    else becomes :class:`ExecutionError` naming the backend and the driver's error type.
    """
    if isinstance(exc, ExecutionError):
        return exc
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if timed_out or _is_timeout(exc):
        limit = f"{timeout_ms} ms" if timeout_ms is not None else "the statement timeout"
        return QueryTimeoutError(
            f"query ran longer than {limit} and was stopped ({backend})",
            timeout_ms=timeout_ms,
            backend=backend,
            driver_error=type(exc).__name__,
        )
    return ExecutionError(
        f"{backend} query failed: {type(exc).__name__}: {first}",
        sql=sql,
        backend=backend,
        driver_error=type(exc).__name__,
    )


def _is_timeout(exc: BaseException) -> bool:
    name = type(exc).__name__
    if name in {"QueryCanceled", "InterruptException"}:
        return True
    if isinstance(exc, sqlite3.OperationalError):
        return "interrupted" in str(exc).lower()
    text = str(exc).lower()
    return "statement timeout" in text or "canceling statement" in text


# SQLite authorizer action codes (sqlite3.h); the module exposes most, not all, as constants.
_SQLITE_OK, _SQLITE_DENY = 0, 1
_SQLITE_PRAGMA, _SQLITE_READ, _SQLITE_SELECT, _SQLITE_TRANSACTION = 19, 20, 21, 22
_SQLITE_FUNCTION, _SQLITE_SAVEPOINT, _SQLITE_RECURSIVE = 31, 32, 33
_SQLITE_MAX_LENGTH = 16_000_000
"""Longest string or blob a sandboxed SQLite statement may build, in bytes."""
_SQLITE_LIMITS = {
    sqlite3.SQLITE_LIMIT_LENGTH: _SQLITE_MAX_LENGTH,
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 200_000,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
}
_SQLITE_BAD_FUNCTIONS = frozenset(
    {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "zipfile", "fsdir"}
)
_SQLITE_READ_PRAGMAS = frozenset(
    {
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
        "foreign_key_list", "database_list", "user_version", "schema_version", "encoding",
        "page_size", "page_count", "collation_list", "function_list", "compile_options",
    }
)  # fmt: skip


_SQLITE_ONE_STEP_FUNCTIONS = ("printf", "format")
"""SQLite functions whose single call can outlast any timeout (``printf('%.*c', 10^9, 'x')``
runs ~24 s in one virtual-machine step that neither the progress handler nor
``interrupt()`` can stop, whatever SQLITE_LIMIT_LENGTH says). Read-only connections replace
them with a function that fails."""


def _sqlite_disable_one_step_functions(conn: sqlite3.Connection) -> None:
    def refused(*_: object) -> None:
        raise sqlite3.OperationalError("printf/format are disabled on read-only connections")

    for name in _SQLITE_ONE_STEP_FUNCTIONS:
        conn.create_function(name, -1, refused)


def _sqlite_read_only(action: int, arg1: str | None, arg2: str | None, *_: object) -> int:
    """Authorizer of read-only SQLite connections: reads, introspection, no writes or ATTACH."""
    if action in (_SQLITE_SELECT, _SQLITE_READ, _SQLITE_RECURSIVE):
        return _SQLITE_OK
    if action == _SQLITE_FUNCTION:
        return _SQLITE_DENY if (arg2 or "").lower() in _SQLITE_BAD_FUNCTIONS else _SQLITE_OK
    if action == _SQLITE_PRAGMA:
        # Reading a pragma has no argument value (arg2) except for the table-valued ones.
        name = (arg1 or "").lower()
        readable = name in _SQLITE_READ_PRAGMAS and (
            arg2 is None or name.endswith(("info", "list"))
        )
        return _SQLITE_OK if readable else _SQLITE_DENY
    if action in (_SQLITE_TRANSACTION, _SQLITE_SAVEPOINT):
        return _SQLITE_OK
    return _SQLITE_DENY


def _sqlite_select_only(action: int, arg1: str | None, arg2: str | None, *_: object) -> int:
    """Authorizer of the sandbox: a SELECT and the functions it calls, nothing else."""
    if action in (_SQLITE_SELECT, _SQLITE_READ, _SQLITE_RECURSIVE):
        return _SQLITE_OK
    if action == _SQLITE_FUNCTION:
        return _SQLITE_DENY if (arg2 or "").lower() in _SQLITE_BAD_FUNCTIONS else _SQLITE_OK
    return _SQLITE_DENY


def _connect(parsed: ParsedURL, *, read_only: bool) -> Any:
    conn: Any
    if parsed.backend == "duckdb":
        import duckdb

        path = parsed.path or ":memory:"
        if path != ":memory:":
            if read_only and not Path(path).exists():
                raise ConfigError(f"DuckDB file {path!r} does not exist")
            Path(path).parent.mkdir(parents=True, exist_ok=True) if not read_only else None
        conn = duckdb.connect(path, read_only=read_only and path != ":memory:")
        if parsed.schema:
            # before the configuration is locked below; a loader may be about to create it
            if not read_only:
                ident = parsed.schema.replace('"', '""')
                conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{ident}"')
            quoted = parsed.schema.replace("'", "''")
            try:
                conn.execute(f"SET search_path = '{quoted},main'")
            except duckdb.CatalogException as exc:
                if read_only:
                    conn.close()
                    raise ConfigError(
                        f"DuckDB file {path!r} has no schema {parsed.schema!r}",
                        schema=parsed.schema,
                    ) from exc
                # a loader opens the file to create the schema: qualified names only until then
                logger.debug("schema %s does not exist yet in %s", parsed.schema, path)
        if read_only:
            # No file or network access, no extension loading, no reading Python variables as
            # tables from queries; then lock the settings: defence in depth behind the guard.
            memory = (parsed.option("memory_limit") or "2GB").replace("'", "")
            for setting in (
                f"memory_limit = '{memory}'",
                # no spilling to <file>.tmp: a read-only connection writes no file at all
                "temp_directory = ''",
                "allow_community_extensions = false",
                "enable_external_access = false",
                "autoinstall_known_extensions = false",
                "autoload_known_extensions = false",
                "python_enable_replacements = false",
                "lock_configuration = true",
            ):
                try:
                    conn.execute(f"SET {setting}")
                except duckdb.Error as exc:  # pragma: no cover - an older DuckDB
                    logger.debug("DuckDB setting %s not applied: %s", setting, exc)
        return conn
    if parsed.backend == "sqlite":
        path = parsed.path or ":memory:"
        if read_only and path != ":memory:":
            if not Path(path).exists():
                raise ConfigError(f"SQLite file {path!r} does not exist")
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            conn.execute("PRAGMA foreign_keys = OFF")
            for limit, value in _SQLITE_LIMITS.items():
                conn.setlimit(limit, value)
            _sqlite_disable_one_step_functions(conn)
            # mode=ro alone still lets ATTACH create files; the authorizer refuses it.
            conn.set_authorizer(_sqlite_read_only)
            return conn
        else:
            if path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, check_same_thread=False)
        conn.execute("PRAGMA foreign_keys = OFF")
        return conn
    import psycopg

    dsn = parsed.dsn or ""
    extra: dict[str, Any] = {} if "connect_timeout" in dsn else {"connect_timeout": 10}
    conn = psycopg.connect(dsn, autocommit=True, **extra)
    if read_only:
        conn.execute("SET default_transaction_read_only = on")
    return conn
