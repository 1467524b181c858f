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
from urllib.parse import parse_qs, urlparse

from clinbridge.errors import ClinbridgeError, ConfigError, ExecutionError, QueryTimeoutError

__all__ = ["Database", "QueryResult", "default_url", "map_driver_error", "parse_url"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ParsedURL:
    backend: str  # duckdb | sqlite | postgres
    path: str | None
    dsn: str | None
    schema: str | None


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
        return ParsedURL(
            "duckdb", path or ":memory:", None, parse_qs(query).get("schema", [None])[0]
        )
    if scheme == "sqlite":
        path = rest[1:] if rest.startswith("/") else rest
        path, _, _ = path.partition("?")
        return ParsedURL("sqlite", path or ":memory:", None, None)
    if scheme in {"postgresql", "postgres"}:
        parsed = urlparse("postgresql://" + rest)
        qs = parse_qs(parsed.query)
        schema = qs.pop("schema", [None])[0]
        options = qs.get("options", [""])[0]
        if schema is None and "search_path" in options:
            schema = options.split("search_path", 1)[1].lstrip("=").split()[0].split(",")[0]
        kept = "&".join(f"{k}={v[0]}" for k, v in qs.items())
        dsn = parsed._replace(query=kept).geturl()
        return ParsedURL("postgres", None, dsn, schema)
    raise ConfigError(
        f"unsupported database URL scheme {scheme!r}: use duckdb, sqlite or postgresql"
    )


def default_url() -> str:
    """The embedded default: a DuckDB file in the user's data directory."""
    base = Path.home() / ".clinbridge"
    return f"duckdb:///{base / 'clinbridge.duckdb'}"


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool
    elapsed_ms: float
    sql: str = ""
    """The statement that ran (set by the engine's guarded path)."""
    dialect: str = ""

    @property
    def row_count(self) -> int:
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

    # sqlglot's dialect name
    @property
    def dialect(self) -> str:
        return self.backend

    @classmethod
    def open(cls, url: str, *, read_only: bool = True, schema: str | None = None) -> Database:
        parsed = parse_url(url)
        if schema:
            parsed = ParsedURL(parsed.backend, parsed.path, parsed.dsn, schema)
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
        return db

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def cursor(self) -> Iterator[Any]:
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
        try:
            if guarded:
                # A read-only transaction that is always rolled back: a SET inside it is undone,
                # and "transaction read-write mode must be set before any query".
                cur.execute("BEGIN READ ONLY")
                cur.execute(f"SET LOCAL statement_timeout = {int(timeout_ms)}")
            else:
                cur.execute(f"SET statement_timeout = {int(timeout_ms)}")

            def run(sql: str, params: Sequence[Any] | None) -> Any:
                # prepare=True: the extended protocol refuses a second statement in the text.
                cur.execute(sql, tuple(params) if params else None, prepare=guarded or None)
                return cur

            yield run
        finally:
            if guarded:
                with contextlib.suppress(Exception):
                    cur.execute("ROLLBACK")
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
        if sandbox:
            self.conn.set_authorizer(_sqlite_select_only)
        cur = self.conn.cursor()
        try:

            def run(sql: str, params: Sequence[Any] | None) -> Any:
                cur.execute(sql, tuple(params or ()))
                return cur

            yield run
        finally:
            cur.close()
            self.conn.set_progress_handler(None, 0)
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
            timer.cancel()
            if began:
                with contextlib.suppress(Exception):
                    self.conn.execute("ROLLBACK")

    def _rollback(self) -> None:
        if self.backend == "postgres":
            with contextlib.suppress(Exception):
                self.conn.rollback()


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
            for setting in (
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
