"""Run compiled plans on Apache Spark (Databricks, a local ``pyspark`` session).

clinbridge has no live Spark backend in :mod:`clinbridge.db`: the path today is *compile here,
run there*. A plan is compiled to Spark SQL (``compile_plan(..., dialect="spark")``) with its
concepts resolved against a clinbridge :class:`~clinbridge.db.Database` that holds the same
vocabulary (the OMOP ``concept`` tables), and the SQL runs through the caller's own
``SparkSession`` over tables or temporary views named like the CDM tables. The result rows are
shaped into the same value the local engine returns (:func:`shape_value`).

``pyspark`` is an optional extra (``pip install 'clinbridge[spark]'``, needs Java 17+); this
module imports it only inside :func:`local_session`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clinbridge.db import QueryResult
from clinbridge.engine.compile import compile_plan
from clinbridge.engine.resolve import Resolver
from clinbridge.engine.run import plan_now, shape_value
from clinbridge.errors import ConfigError

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.settings import Settings

__all__ = ["SparkAnswer", "duckdb_to_parquet", "local_session", "register_parquet", "run_on_spark"]


class SparkAnswer:
    """The value of one plan computed on Spark, with the SQL that ran and its wall time."""

    def __init__(self, value: Any, sql: str, rows: list[tuple[Any, ...]], ms: float) -> None:
        self.value = value
        self.sql = sql
        self.rows = rows
        self.ms = ms


def local_session(app: str = "clinbridge", *, cores: int = 2) -> Any:
    """A local-mode SparkSession (UTC, small shuffles); ConfigError when pyspark is absent."""
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:  # pragma: no cover - depends on the optional extra
        raise ConfigError("pyspark is not installed: pip install 'clinbridge[spark]'") from exc
    session = (
        SparkSession.builder.master(f"local[{cores}]")
        .appName(app)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", str(cores * 2))
        .config("spark.ui.enabled", "false")
        .config("spark.sql.ansi.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def duckdb_to_parquet(path: str | Path, folder: str | Path, tables: list[str]) -> dict[str, Path]:
    """Copy ``tables`` of a DuckDB file to one parquet file each under ``folder``.

    A separate in-memory DuckDB attaches the file and writes the parquet: DuckDB shares one
    instance per file within a process, and clinbridge's read-only connection disables file
    access for that instance, so the file's own connection may not be allowed to write.
    """
    import duckdb

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    # A fresh in-memory instance (file access on) attaches the file read-only and writes parquet.
    writer = duckdb.connect(":memory:")
    try:
        src = str(path).replace("'", "''")
        writer.execute(f"ATTACH '{src}' AS _clinbridge_src (READ_ONLY)")
        for name in tables:
            target = out / f"{name}.parquet"
            ident = '"' + name.replace('"', '""') + '"'
            target_sql = str(target).replace("'", "''")
            writer.execute(
                f"COPY (SELECT * FROM _clinbridge_src.{ident}) TO '{target_sql}' (FORMAT parquet)"
            )
            written[name] = target
    finally:
        writer.close()
    return written


def register_parquet(spark: Any, files: dict[str, Path]) -> None:
    """Expose each parquet file as a Spark temporary view named like its table."""
    for name, file in files.items():
        spark.read.parquet(str(file)).createOrReplaceTempView(name)


def run_on_spark(
    spark: Any,
    db: Database,
    catalog: Catalog,
    plan: QueryPlan,
    *,
    settings: Settings,
    resolver: Resolver | None = None,
) -> SparkAnswer:
    """Compile ``plan`` to Spark SQL (concepts resolved on ``db``), run it on ``spark``, shape it."""
    resolver = resolver or Resolver(db, catalog)
    compiled = compile_plan(
        plan, catalog, resolver.resolve, dialect="spark", now=plan_now(plan, catalog, settings)
    )
    sql = compiled.sql
    t0 = time.perf_counter()
    frame = spark.sql(sql)
    collected = frame.collect()
    ms = (time.perf_counter() - t0) * 1000
    rows = [tuple(r) for r in collected]
    result = QueryResult(columns=list(frame.columns), rows=rows, truncated=False, elapsed_ms=ms)
    value, _ = shape_value(compiled.shape, result, round_to=plan.aggregate.round_to)
    return SparkAnswer(value, sql, rows, ms)
