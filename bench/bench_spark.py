"""Spark timings: the synthetic golden plans compiled to Spark SQL and run on local pyspark.

    python bench/bench_spark.py [--patients 300] [--plans N] [--json figures.json]

Generates the OMOP CDM (seed 1) into a temporary DuckDB, exports it to parquet, registers the
tables as Spark temporary views (local[2]) and runs every plan of tests/engine/plans_synth
(or the first N) on Spark and on DuckDB: per-plan wall time, p50/p95 on each engine, their
ratio, Spark session start and parquet export time, and how many answers agree.
Prints 'skipped: <reason>' and exits 0 when pyspark or Java is absent.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from clinbridge.adapters import describe
from clinbridge.db import Database
from clinbridge.engine.plan import QueryPlan
from clinbridge.engine.resolve import Resolver
from clinbridge.engine.run import run_plan
from clinbridge.settings import Settings
from clinbridge.synthetic.omop import generate_omop

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = Settings(now="2025-01-01")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-6 * max(1.0, abs(a))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if hasattr(a, "isoformat") or hasattr(b, "isoformat"):
        return str(getattr(a, "isoformat", lambda: a)()) == str(
            getattr(b, "isoformat", lambda: b)()
        )
    return bool(a == b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--patients", type=int, default=300)
    ap.add_argument("--plans", type=int, default=0, help="run only the first N plans")
    ap.add_argument("--json", help="write the figures as JSON to this file")
    args = ap.parse_args()
    try:
        import pyspark  # noqa: F401
    except ImportError:
        print("skipped: pyspark is not installed (pip install 'clinbridge[spark]')")
        return
    if shutil.which("java") is None:
        print("skipped: no Java runtime on PATH (Spark needs Java 17+)")
        return
    from clinbridge.spark import duckdb_to_parquet, local_session, register_parquet, run_on_spark

    plans = {
        p.stem: QueryPlan.from_json(p.read_bytes())
        for p in sorted((ROOT / "tests/engine/plans_synth").glob("*.json"))
    }
    if args.plans:
        plans = dict(list(plans.items())[: args.plans])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "synth.duckdb"
        t0 = time.perf_counter()
        generate_omop(f"duckdb:///{path}", patients=args.patients, seed=1)
        gen_s = time.perf_counter() - t0
        with Database.open(f"duckdb:///{path}") as db:
            tables = sorted(describe(db).table_names())
        t0 = time.perf_counter()
        files = duckdb_to_parquet(path, Path(tmp) / "parquet", tables)
        export_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        spark = local_session("clinbridge-bench")
        register_parquet(spark, files)
        start_s = time.perf_counter() - t0
        spark_ms: list[float] = []
        duck_ms: list[float] = []
        agree = 0
        try:
            with Database.open(f"duckdb:///{path}") as db:
                catalog = describe(db)
                resolver = Resolver(db, catalog)
                for name, plan in plans.items():
                    t0 = time.perf_counter()
                    local = run_plan(db, catalog, plan, settings=SETTINGS, resolver=resolver)
                    duck_ms.append((time.perf_counter() - t0) * 1000)
                    remote = run_on_spark(
                        spark, db, catalog, plan, settings=SETTINGS, resolver=resolver
                    )
                    spark_ms.append(remote.ms)
                    ok = _same(remote.value, local.value)
                    agree += ok
                    print(
                        f"{name:45s} duckdb {duck_ms[-1]:8.1f} ms  spark {remote.ms:8.1f} ms  "
                        f"{'same answer' if ok else f'DIFFERENT: {remote.value!r} vs {local.value!r}'}",
                        flush=True,
                    )
        finally:
            spark.stop()
    figures = {
        "spark plans": (len(plans), ""),
        "spark answers equal to duckdb": (agree, f"of {len(plans)}"),
        "spark plan p50": (round(statistics.median(spark_ms), 1), "ms"),
        "spark plan p95": (round(pct(spark_ms, 0.95), 1), "ms"),
        "duckdb plan p50 (same plans)": (round(statistics.median(duck_ms), 1), "ms"),
        "spark/duckdb p50 ratio": (round(statistics.median(spark_ms) / statistics.median(duck_ms), 1), "x"),
        "spark session start + view registration": (round(start_s, 1), "s"),
        "duckdb -> parquet export": (round(export_s, 2), "s"),
        "generate OMOP into duckdb": (round(gen_s, 1), "s"),
    }  # fmt: skip
    print(
        f"\n{args.patients} patients, {len(plans)} plans: same answer {agree}/{len(plans)}; "
        f"spark p50={figures['spark plan p50'][0]} ms p95={figures['spark plan p95'][0]} ms; "
        f"duckdb p50={figures['duckdb plan p50 (same plans)'][0]} ms; "
        f"ratio spark/duckdb p50={figures['spark/duckdb p50 ratio'][0]}x; "
        f"session start {start_s:.1f} s, parquet export {export_s:.2f} s"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {"figures": [{"name": k, "value": v, "unit": u} for k, (v, u) in figures.items()]}
            )
        )


if __name__ == "__main__":
    main()
