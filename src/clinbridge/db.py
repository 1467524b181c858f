"""Connections to the databases clinbridge reads (and, for loaders, writes).

``Database.open(url)`` is read-only by construction: DuckDB opens the file with
``read_only=True``, SQLite opens the file in ``mode=ro``, and PostgreSQL sessions run with
``default_transaction_read_only = on``. Loaders ask for ``read_only=False`` explicitly.
Every query runs under a statement timeout (PostgreSQL ``statement_timeout``, DuckDB
``interrupt()`` from a timer, SQLite's progress handler) and a row limit.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from clinbridge.errors import ConfigError, ExecutionError, QueryTimeoutError

__all__ = ["Database", "QueryResult", "default_url", "parse_url"]

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
        raise ConfigError(f"cannot tell the database type of {url!r}; use duckdb:///, sqlite:/// or postgresql://")
    scheme, _, rest = url.partition("://")
    scheme = scheme.split("+")[0].lower()
    if scheme == "duckdb":
        path = rest[1:] if rest.startswith("/") else rest
        path, _, query = path.partition("?")
        return ParsedURL("duckdb", path or ":memory:", None, parse_qs(query).get("schema", [None])[0])
    if scheme == "sqlite":
        path = rest[1:] if rest.startswith("/") else rest
        path, _, _ = path.partition("?")
        return ParsedURL("sqlite", path or ":memory:", None, None)
    if scheme in {"postgresql", "postgres"}:
        parsed = urlparse("postgresql://" + rest)
        query = parse_qs(parsed.query)
        schema = query.pop("schema", [None])[0]
        options = query.get("options", [""])[0]
        if schema is None and "search_path" in options:
            schema = options.split("search_path", 1)[1].lstrip("=").split()[0].split(",")[0]
        kept = "&".join(f"{k}={v[0]}" for k, v in query.items())
        dsn = parsed._replace(query=kept).geturl()
        return ParsedURL("postgres", None, dsn, schema)
    raise ConfigError(f"unsupported database URL scheme {scheme!r}: use duckdb, sqlite or postgresql")


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
            rows = self.conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')").fetchall()
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
            sql = sql.replace("%s", "?")
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
    ) -> QueryResult:
        """Run one statement under a timeout; fetch at most ``max_rows`` rows (+1 to flag truncation)."""
        start = time.perf_counter()
        try:
            with self._timeout(timeout_ms), self.cursor() as cur:
                cur.execute(sql, tuple(params or ()))
                columns = [d[0] for d in (cur.description or [])]
                if max_rows is None:
                    rows = cur.fetchall()
                    truncated = False
                else:
                    rows = cur.fetchmany(max_rows + 1)
                    truncated = len(rows) > max_rows
                    rows = rows[:max_rows]
        except QueryTimeoutError:
            raise
        except Exception as exc:
            if _is_timeout(exc):
                self._rollback()
                raise QueryTimeoutError(
                    f"query ran longer than {timeout_ms} ms and was stopped", timeout_ms=timeout_ms
                ) from exc
            self._rollback()
            raise ExecutionError(f"query failed: {exc}", sql=sql) from exc
        return QueryResult(columns, [tuple(r) for r in rows], truncated, (time.perf_counter() - start) * 1000)

    def _rollback(self) -> None:
        if self.backend == "postgres":
            with contextlib.suppress(Exception):
                self.conn.rollback()

    @contextlib.contextmanager
    def _timeout(self, timeout_ms: int) -> Iterator[None]:
        if self.backend == "postgres":
            with self.cursor() as cur:
                cur.execute(f"SET statement_timeout = {int(timeout_ms)}")
            yield
            return
        if self.backend == "sqlite":
            deadline = time.monotonic() + timeout_ms / 1000
            self.conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
            try:
                yield
            finally:
                self.conn.set_progress_handler(None, 0)
            return
        # duckdb: interrupt from a timer thread
        fired = threading.Event()

        def stop() -> None:
            fired.set()
            with contextlib.suppress(Exception):
                self.conn.interrupt()

        timer = threading.Timer(timeout_ms / 1000, stop)
        timer.daemon = True
        timer.start()
        try:
            yield
        except Exception as exc:
            if fired.is_set():
                raise QueryTimeoutError(
                    f"query ran longer than {timeout_ms} ms and was stopped", timeout_ms=timeout_ms
                ) from exc
            raise
        finally:
            timer.cancel()


def _is_timeout(exc: Exception) -> bool:
    text = str(exc).lower()
    return "statement timeout" in text or "interrupted" in text or "canceling statement" in text


def _connect(parsed: ParsedURL, *, read_only: bool) -> Any:
    if parsed.backend == "duckdb":
        import duckdb

        path = parsed.path or ":memory:"
        if path != ":memory:":
            if read_only and not Path(path).exists():
                raise ConfigError(f"DuckDB file {path!r} does not exist")
            Path(path).parent.mkdir(parents=True, exist_ok=True) if not read_only else None
        conn = duckdb.connect(path, read_only=read_only and path != ":memory:")
        if read_only:
            # No file access or extension loading from queries: defence in depth behind the guard.
            with contextlib.suppress(Exception):
                conn.execute("SET enable_external_access = false")
            with contextlib.suppress(Exception):
                conn.execute("SET lock_configuration = true")
        return conn
    if parsed.backend == "sqlite":
        path = parsed.path or ":memory:"
        if read_only and path != ":memory:":
            if not Path(path).exists():
                raise ConfigError(f"SQLite file {path!r} does not exist")
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        else:
            if path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, check_same_thread=False)
        conn.execute("PRAGMA foreign_keys = OFF")
        return conn
    import psycopg

    conn = psycopg.connect(parsed.dsn or "", autocommit=True)
    if read_only:
        conn.execute("SET default_transaction_read_only = on")
    return conn
