"""The engine's golden plans, compiled to Spark SQL and run for real on a local Spark session
over the generated OMOP CDM (300 patients, DuckDB -> parquet -> temp views): the same answers as
DuckDB. Optional: marked ``spark``, skipped with the reason when pyspark or Java is absent."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
from pathlib import Path

import pytest

from clinbridge.adapters import describe
from clinbridge.db import Database
from clinbridge.engine.plan import QueryPlan
from clinbridge.engine.resolve import Resolver
from clinbridge.engine.run import run_plan
from clinbridge.settings import Settings

pytestmark = [pytest.mark.spark, pytest.mark.slow]

PLANS = {
    p.stem: QueryPlan.from_json(p.read_bytes())
    for p in sorted((Path(__file__).parent.parent / "engine/plans_synth").glob("*.json"))
}
SETTINGS = Settings(now="2025-01-01")


def _why_no_spark() -> str | None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install 'clinbridge[spark]')"
    java = shutil.which("java")
    if java is None:
        return "no Java runtime on PATH (Spark needs Java 17+)"
    try:
        subprocess.run([java, "-version"], capture_output=True, check=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"java -version failed: {exc}"
    return None


@pytest.fixture(scope="module")
def spark_env(synth_duckdb, tmp_path_factory):
    reason = _why_no_spark()
    if reason:
        pytest.skip(reason)
    from clinbridge.spark import duckdb_to_parquet, local_session, register_parquet

    with Database.open(f"duckdb:///{synth_duckdb}") as db:
        tables = sorted(describe(db).table_names())
    # exported before clinbridge opens the file again (its connection disables file access)
    files = duckdb_to_parquet(synth_duckdb, tmp_path_factory.mktemp("parquet"), tables)
    db = Database.open(f"duckdb:///{synth_duckdb}")
    catalog = describe(db)
    spark = local_session("clinbridge-tests")
    register_parquet(spark, files)
    yield spark, db, catalog
    spark.stop()
    db.close()


def _norm(value):
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, list):
        return [
            tuple(sorted((k, _norm(x)) for k, x in item.items()))
            if isinstance(item, dict)
            else _norm(item)
            for item in value
        ]
    return value


def test_corpus_size():
    assert len(PLANS) >= 20


@pytest.mark.parametrize("name", sorted(PLANS))
def test_spark_answers_match_duckdb(name, spark_env):
    from clinbridge.spark import run_on_spark

    spark, db, catalog = spark_env
    local = run_plan(db, catalog, PLANS[name], settings=SETTINGS)
    assert local.decision == "accept", local.reason
    remote = run_on_spark(
        spark, db, catalog, PLANS[name], settings=SETTINGS, resolver=Resolver(db, catalog)
    )
    assert _norm(remote.value) == _norm(local.value), remote.sql
