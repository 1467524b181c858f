"""The OMOP CDM 5.3 / 5.4 table specification and the DDL emitted from it for any dialect.

The spec lives in ``clinbridge/adapters/omop_ddl/cdm_<version>.csv``, generated from OHDSI
CommonDataModel's field-level CSVs (see that folder's SOURCE.md). Column names, order and
nullability are exactly OHDSI's; types are mapped to portable SQL so that every backend stores
values the same way:

========== ================ ========= ===================
spec type  DuckDB           SQLite    PostgreSQL
========== ================ ========= ===================
integer    BIGINT           INTEGER   BIGINT
float      DOUBLE           REAL      DOUBLE PRECISION
varchar(n) TEXT             TEXT      TEXT
date       DATE             TEXT      DATE
datetime   TIMESTAMP        TEXT      TIMESTAMP
========== ================ ========= ===================

(Integers are 64-bit everywhere: real CDMs, such as the MIMIC-IV demo in OMOP, use 19-digit ids;
SQLite's INTEGER is already 64-bit. Text is unbounded: the same demo writes 70-character drug
source values and 22-character vocabulary ids into varchar(50)/varchar(20) columns; the loader
reports such values instead of refusing the rows. OHDSI's own DDL uses NUMERIC for floats, which DuckDB reads as DECIMAL(18,3), and REAL for dates
in SQLite; ISO text dates keep SQLite's date functions working.) Other sqlglot dialects
(spark, bigquery, snowflake, trino, redshift, ...) come for free from the same expressions.
"""

from __future__ import annotations

import csv
import functools
import re
from dataclasses import dataclass
from importlib import resources
from typing import Literal

from sqlglot import exp

from clinbridge.errors import ConfigError

REJECTED_TABLE = "clinbridge_rejected"
"""Where loaders keep rejected rows with their reason (never a CDM table)."""

__all__ = [
    "CDM_VERSIONS",
    "REJECTED_TABLE",
    "ColumnSpec",
    "PortableType",
    "TableSpec",
    "cdm_spec",
    "create_table",
    "create_table_sql",
    "ddl",
    "qualified_table",
    "table_spec",
]

CDM_VERSIONS = ("5.3", "5.4")
PortableType = Literal["integer", "float", "string", "date", "timestamp"]


@dataclass(frozen=True)
class ColumnSpec:
    """One column of a CDM table, as the OHDSI field-level spec gives it."""

    name: str
    datatype: str
    """As OHDSI writes it: integer, float, varchar(50), varchar(max), date, datetime."""
    required: bool
    primary_key: bool
    description: str = ""

    @property
    def portable(self) -> PortableType:
        """The column's type in the loaders' portable terms."""
        t = self.datatype
        if t == "integer":
            return "integer"
        if t == "float":
            return "float"
        if t == "date":
            return "date"
        if t == "datetime":
            return "timestamp"
        return "string"

    @property
    def max_length(self) -> int | None:
        """The n of a varchar(n) column, else None."""
        m = re.fullmatch(r"varchar\((\d+)\)", self.datatype)
        return int(m.group(1)) if m else None


@dataclass(frozen=True)
class TableSpec:
    """One CDM table: its name and columns, in the spec's order."""

    name: str
    columns: tuple[ColumnSpec, ...]
    required: bool = False
    description: str = ""

    @property
    def column_names(self) -> tuple[str, ...]:
        """The column names, in table order."""
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> ColumnSpec | None:
        """The column called ``name`` (any case), or None."""
        lname = name.lower()
        return next((c for c in self.columns if c.name == lname), None)


@functools.cache
def cdm_spec(version: str) -> dict[str, TableSpec]:
    """All tables of a CDM version, in OHDSI's order."""
    version = normalise_version(version)
    text = (
        resources.files("clinbridge.adapters.omop_ddl")
        .joinpath(f"cdm_{version}.csv")
        .read_text("utf-8")
    )
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    tables: dict[str, dict[str, object]] = {}
    for r in rows:
        t = tables.setdefault(r["table"], {"columns": [], "required": False, "description": ""})
        if not r["column"]:
            t["required"] = r["required"] == "True"
            t["description"] = r["description"]
            continue
        cols = t["columns"]
        assert isinstance(cols, list)
        cols.append(
            ColumnSpec(
                name=r["column"],
                datatype=r["datatype"],
                required=r["required"] == "True",
                primary_key=r["primary_key"] == "True",
                description=r["description"],
            )
        )
    return {
        name: TableSpec(name, tuple(t["columns"]), bool(t["required"]), str(t["description"]))  # type: ignore[arg-type]
        for name, t in tables.items()
    }


def normalise_version(version: str) -> str:
    v = version.strip().lower().lstrip("v")
    if v.startswith("5.3"):
        return "5.3"
    if v.startswith("5.4"):
        return "5.4"
    raise ConfigError(f"unsupported OMOP CDM version {version!r}; use 5.3 or 5.4")


def table_spec(table: str, version: str) -> TableSpec | None:
    """A table's spec in ``version``, or in the other version when only that one defines it
    (e.g. ``cohort``, which 5.3 keeps in the results schema)."""
    name = table.lower()
    spec = cdm_spec(version).get(name)
    if spec is None:
        for other in CDM_VERSIONS:
            spec = spec or cdm_spec(other).get(name)
    return spec


def _sql_type(col: ColumnSpec, dialect: str) -> exp.DataType:
    t = col.portable
    if t == "integer":
        return exp.DataType.build("BIGINT")
    if t == "float":
        return exp.DataType.build("DOUBLE")
    if dialect == "sqlite":
        return exp.DataType.build("TEXT")
    if t == "date":
        return exp.DataType.build("DATE")
    if t == "timestamp":
        return exp.DataType.build("TIMESTAMP")
    return exp.DataType.build("TEXT")


def qualified_table(name: str, schema: str | None = None) -> exp.Table:
    """The sqlglot table ``name``, in ``schema`` when given."""
    return exp.table_(name, db=schema, quoted=True) if schema else exp.table_(name, quoted=True)


def create_table(
    spec: TableSpec, dialect: str, *, schema: str | None = None, if_not_exists: bool = True
) -> exp.Create:
    """A sqlglot CREATE TABLE expression for one CDM table."""
    cols = []
    for c in spec.columns:
        constraints = (
            [exp.ColumnConstraint(kind=exp.NotNullColumnConstraint())] if c.required else []
        )
        cols.append(
            exp.ColumnDef(
                this=exp.to_identifier(c.name, quoted=True),
                kind=_sql_type(c, dialect),
                constraints=constraints,
            )
        )
    schema_expr = exp.Schema(this=qualified_table(spec.name, schema), expressions=cols)
    return exp.Create(this=schema_expr, kind="TABLE", exists=if_not_exists)


def create_table_sql(
    spec: TableSpec, dialect: str, *, schema: str | None = None, if_not_exists: bool = True
) -> str:
    """The CREATE TABLE statement of one CDM table for ``dialect``."""
    sqlglot_dialect = "postgres" if dialect in {"postgres", "postgresql"} else dialect
    return create_table(spec, sqlglot_dialect, schema=schema, if_not_exists=if_not_exists).sql(
        dialect=sqlglot_dialect
    )


def ddl(version: str, dialect: str, *, schema: str | None = None) -> list[str]:
    """CREATE TABLE statements for every table of a CDM version, in any sqlglot dialect.

    Example:
        >>> ddl("5.4", "duckdb")[0].startswith('CREATE TABLE IF NOT EXISTS "person"')
        True
    """
    return [create_table_sql(t, dialect, schema=schema) for t in cdm_spec(version).values()]
