"""Bulk writes into DuckDB (from pandas), PostgreSQL (COPY) and SQLite (executemany)."""

from __future__ import annotations

import contextlib
import itertools
import operator
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from clinbridge.adapters.fhir.schema import (
    CODE_TABLE,
    LOAD_TABLE,
    QUARANTINE_TABLE,
    RESOURCE_TABLE,
    TABLES,
    VIEWS,
    Table,
    ddl,
    view_ddl,
)
from clinbridge.db import Database

__all__ = ["ALL_TABLES", "Writer"]

ALL_TABLES: tuple[Table, ...] = (
    *TABLES.values(),
    RESOURCE_TABLE,
    QUARANTINE_TABLE,
    CODE_TABLE,
    LOAD_TABLE,
)

_counter = itertools.count()


def _may_hold_nul(table: Table, rows: list[tuple[Any, ...]]) -> bool:
    """Whether some value of the batch may contain NUL (checked column by column, in C)."""
    if not rows:
        return False
    cols = list(zip(*rows, strict=True))
    try:
        return any(
            any(map(operator.contains, filter(None, cols[i]), itertools.repeat("\x00")))
            for i, (_, kind) in enumerate(table.columns)
            if kind not in ("float", "integer", "boolean")
        )
    except TypeError:  # a value that is not text in a text column: check row by row
        return True


class Writer:
    """Creates the FHIR tables and writes batches of rows into them."""

    def __init__(self, db: Database) -> None:
        if db.read_only:
            raise ValueError("the FHIR loader needs a database opened with read_only=False")
        self.db = db
        self.backend = db.backend
        self.conn = db.conn

    # -- schema -------------------------------------------------------------------------------
    def ensure_schema(self) -> None:
        """Create the FHIR tables, views and indexes that do not exist yet."""
        if self.backend == "duckdb":
            self.conn.execute("SET enable_progress_bar = false")
        with self.transaction():
            if self.backend == "postgres" and self.db.schema:
                self._exec(f'CREATE SCHEMA IF NOT EXISTS "{self.db.schema}"')
                self._exec(f'SET search_path TO "{self.db.schema}", public')
            for table in ALL_TABLES:
                for stmt in ddl(table, self.backend):
                    self._exec(stmt)
            if self.backend != "duckdb":
                self._exec(
                    'CREATE INDEX IF NOT EXISTS "ix_fhir_code_key" ON "fhir_code" ("system", "code")'
                )
                self._exec(
                    'CREATE INDEX IF NOT EXISTS "ix_fhir_resource_load" ON "fhir_resource" ("load_id")'
                )
            for name in VIEWS:
                self._exec(view_ddl(name, self.backend))

    # -- primitives ---------------------------------------------------------------------------
    def _exec(self, sql: str, params: Sequence[Any] = ()) -> None:
        if self.backend == "duckdb":
            self.conn.execute(sql, list(params))
        elif self.backend == "sqlite":
            self.conn.execute(sql, tuple(params))
        else:
            self.conn.execute(sql, tuple(params))

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run a query; all its rows."""
        if self.backend == "postgres":
            sql = sql.replace("?", "%s")
        cur = self.conn.execute(sql, list(params) if self.backend == "duckdb" else tuple(params))
        return [tuple(r) for r in cur.fetchall()]

    def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run a statement that returns nothing."""
        if self.backend == "postgres":
            sql = sql.replace("?", "%s")
        self._exec(sql, params)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Commit what runs inside the block together, or roll it all back."""
        if self.backend == "postgres":
            with self.conn.transaction():
                yield
        elif self.backend == "duckdb":
            self.conn.execute("BEGIN TRANSACTION")
            try:
                yield
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        else:
            try:
                yield
            except BaseException:
                self.conn.rollback()
                raise
            self.conn.commit()

    # -- bulk operations ----------------------------------------------------------------------
    def insert(self, table: Table, rows: list[tuple[Any, ...]]) -> None:
        """Insert ``rows`` (in ``table``'s column order) with the backend's bulk path."""
        if not rows:
            return
        cols = table.column_names
        collist = ", ".join(f'"{c}"' for c in cols)
        if self.backend == "duckdb":
            import pandas as pd

            df = pd.DataFrame.from_records(rows, columns=list(cols))
            name = f"_cb_batch_{next(_counter)}"
            self.conn.register(name, df)
            try:
                self.conn.execute(
                    f'INSERT INTO "{table.name}" ({collist}) SELECT {collist} FROM {name}'
                )
            finally:
                self.conn.unregister(name)
        elif self.backend == "postgres":
            with (
                self.conn.cursor() as cur,
                cur.copy(f'COPY "{table.name}" ({collist}) FROM STDIN') as cp,
            ):
                if not _may_hold_nul(table, rows):
                    for row in rows:
                        cp.write_row(row)
                    return
                for row in rows:
                    if any(type(v) is str and "\x00" in v for v in row):
                        # PostgreSQL text cannot hold NUL: U+FFFD marks where one was.
                        row = tuple(
                            v.replace("\x00", "\ufffd") if type(v) is str else v for v in row
                        )
                    cp.write_row(row)
        else:
            marks = ", ".join("?" * len(cols))
            self.conn.executemany(f'INSERT INTO "{table.name}" ({collist}) VALUES ({marks})', rows)

    def delete_where_in(
        self,
        table: str,
        column: str,
        values: Iterable[Any],
        extra: str = "",
        extra_params: Sequence[Any] = (),
    ) -> None:
        """DELETE FROM table WHERE column IN values [AND extra]."""
        vals = list(values)
        if not vals:
            return
        cond = f" AND {extra}" if extra else ""
        if self.backend == "duckdb":
            import pandas as pd

            name = f"_cb_keys_{next(_counter)}"
            self.conn.register(name, pd.DataFrame({"k": vals}))
            try:
                self.conn.execute(
                    f'DELETE FROM "{table}" WHERE "{column}" IN (SELECT k FROM {name}){cond}',
                    list(extra_params),
                )
            finally:
                self.conn.unregister(name)
        elif self.backend == "postgres":
            self.conn.execute(
                f'DELETE FROM "{table}" WHERE "{column}" = ANY(%s){cond.replace("?", "%s")}',
                (vals, *extra_params),
            )
        else:
            for i in range(0, len(vals), 500):
                part = vals[i : i + 500]
                marks = ", ".join("?" * len(part))
                self.conn.execute(
                    f'DELETE FROM "{table}" WHERE "{column}" IN ({marks}){cond}',
                    (*part, *extra_params),
                )

    def delete_resources(self, resource_type: str, ids: Iterable[str]) -> None:
        """Remove every row owned by these resources (before an upsert, or to quarantine them)."""
        ids = list(ids)
        for table in TABLES.values():
            if table.owner == resource_type:
                self.delete_where_in(table.name, table.owner_column, ids)
        self.delete_where_in(
            RESOURCE_TABLE.name, "id", ids, '"resource_type" = ?', (resource_type,)
        )
