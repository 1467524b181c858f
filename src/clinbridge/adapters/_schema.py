"""The actual names of a database's tables and columns, looked up the way adapters need them.

Stored names keep their case (Eunomia's upper-case headers, MIMIC's mixed case); adapters ask by
lower-case name and get the spelling to quote. Shared by the OMOP and MIMIC adapters.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlglot import exp

from clinbridge.db import Database

__all__ = ["SchemaNames", "iso_date"]

logger = logging.getLogger(__name__)


def iso_date(value: Any) -> str | None:
    """A date or timestamp (or its text) as ``YYYY-MM-DD``; None stays None."""
    if value is None:
        return None
    if hasattr(value, "isoformat"):
        return str(value.isoformat())[:10]
    return str(value)[:10]


class SchemaNames:
    """Actual (case-preserving) names of a database's tables and columns, looked up by lower case."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.tables = {t.lower(): t for t in db.table_names()}
        self._columns: dict[str, list[tuple[str, str]]] = {}

    def table(self, name: str) -> str | None:
        return self.tables.get(name.lower())

    def columns(self, table: str) -> list[tuple[str, str]]:
        actual = self.table(table)
        if actual is None:
            return []
        if actual not in self._columns:
            self._columns[actual] = self.db.columns(actual)
        return self._columns[actual]

    def column(self, table: str, *names: str | None) -> str | None:
        """The first of ``names`` that the table has (actual spelling), else None."""
        have = {c.lower(): c for c, _ in self.columns(table)}
        return next((have[n.lower()] for n in names if n and n.lower() in have), None)

    def sql_table(self, table: str) -> str:
        actual = self.table(table) or table
        schema = self.db.schema if self.db.backend == "duckdb" else None
        node = (
            exp.table_(actual, db=schema, quoted=True)
            if schema
            else exp.table_(actual, quoted=True)
        )
        return node.sql(dialect=self.db.dialect)

    def sql_col(self, table: str, column: str) -> str:
        return exp.to_identifier(self.column(table, column) or column, quoted=True).sql(
            dialect=self.db.dialect
        )

    def rows(self, sql: str, max_rows: int | None = None) -> list[tuple[Any, ...]]:
        """The rows of a metadata query; [] when it fails (a missing or odd table)."""
        try:
            return [tuple(r) for r in self.db.execute(sql, max_rows=max_rows).rows]
        except Exception as exc:
            logger.debug("metadata query failed (%s): %s", exc, sql)
            return []

    def scalar(self, sql: str) -> Any:
        """The first value of a metadata query; None when it fails or is empty."""
        rows = self.rows(sql, max_rows=1)
        return rows[0][0] if rows else None
