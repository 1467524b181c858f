"""Plan latency on Eunomia GiBleed: p50/p95 per plan on DuckDB and PostgreSQL.

    python bench/bench_plans.py [--repeats 5] [--no-postgres]

Loads synthetic_data/eunomia-gibleed-5.3 into a temporary DuckDB file and a temporary
PostgreSQL schema, runs every plan in tests/engine/plans/ (compile → guard → execute → Answer),
and prints per-backend p50/p95 and the ratio to the 50 ms goal.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from clinbridge.adapters import describe
from clinbridge.adapters.omop.loader import load_omop_csv
from clinbridge.db import Database
from clinbridge.engine.plan import QueryPlan
from clinbridge.engine.resolve import Resolver
from clinbridge.engine.run import run_plan
from clinbridge.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
EUNOMIA = ROOT / "synthetic_data" / "eunomia-gibleed-5.3"
PLANS = {
    p.stem: QueryPlan.from_json(p.read_bytes())
    for p in sorted((ROOT / "tests/engine/plans").glob("*.json"))
}
PG = "postgresql://postgres@127.0.0.1:5432/test"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench(url: str, label: str, repeats: int) -> None:
    settings = Settings(now="2019-07-01")
    with Database.open(url) as db:
        catalog = describe(db)
        resolver = Resolver(db, catalog)
        for plan in PLANS.values():  # warm-up: concept resolution cache, DB caches
            run_plan(db, catalog, plan, settings=settings, resolver=resolver)
        times: list[float] = []
        cold: list[float] = []
        for name, plan in PLANS.items():
            t0 = time.perf_counter()
            a = run_plan(
                db, catalog, plan, settings=settings
            )  # fresh resolver: includes concept lookup
            cold.append((time.perf_counter() - t0) * 1000)
            assert a.decision == "accept", (name, a.reason)
            for _ in range(repeats):
                t0 = time.perf_counter()
                run_plan(db, catalog, plan, settings=settings, resolver=resolver)
                times.append((time.perf_counter() - t0) * 1000)
    p50, p95 = statistics.median(times), pct(times, 0.95)
    print(
        f"{label:10s} plans={len(PLANS)} runs={len(times)}  p50={p50:7.1f} ms  p95={p95:7.1f} ms  "
        f"(with concept lookup: p50={statistics.median(cold):.1f} ms)  p50/goal(50 ms)={p50 / 50:.2f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-postgres", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "eunomia.duckdb"
        t0 = time.perf_counter()
        load_omop_csv(EUNOMIA, f"duckdb:///{path}")
        print(f"loaded Eunomia into DuckDB in {time.perf_counter() - t0:.1f} s")
        bench(f"duckdb:///{path}", "duckdb", args.repeats)
    if args.no_postgres:
        return
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    url = f"{PG}?schema={schema}"
    try:
        t0 = time.perf_counter()
        load_omop_csv(EUNOMIA, url)
        print(f"loaded Eunomia into PostgreSQL in {time.perf_counter() - t0:.1f} s")
        bench(url, "postgres", args.repeats)
    finally:
        with Database.open(PG, read_only=False) as db:
            db.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE', max_rows=None)


if __name__ == "__main__":
    main()
