"""Guard and executor figures: guard latency (benign, hostile, the engine's own golden plans,
before/after this guard), guard time on ~95 kB and near-limit statements, sandbox overhead,
and how promptly runaway statements end on each backend (actual / timeout, guard included).

Run: ``PYTHONPATH=src python bench/guard_bench.py [--skip-runaway]`` (PostgreSQL rows are
skipped when the server at 127.0.0.1:5432 is down). The "before" guard is the previous
version of guard.py read from git (``--before REV``, default ``ab6cdfd``); it is skipped when
git or that revision is missing. Prints figures and ratios; asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests" / "engine"), str(ROOT / "tests")]

from guard_dbs import (  # noqa: E402
    ALLOWED,
    COLUMNS,
    build_duckdb,
    build_postgres,
    build_sqlite,
    drop_postgres,
    pg_down_reason,
)
from runaway import RUNAWAYS, run_runaway  # noqa: E402
from test_guard import BENIGN, CORPUS  # noqa: E402

from clinbridge.db import Database  # noqa: E402
from clinbridge.engine.execute import execute  # noqa: E402
from clinbridge.engine.guard import MAX_SQL_LENGTH, guard  # noqa: E402
from clinbridge.errors import QueryTimeoutError, SQLSafetyError  # noqa: E402
from clinbridge.settings import Settings  # noqa: E402

SLOW = (
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 2000000000) "
    "SELECT count(*) FROM t"
)


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def bench_guard() -> None:
    for label, cases, columns in (
        ("benign", BENIGN, None),
        ("benign+columns", BENIGN, COLUMNS),
        ("hostile", [c["sql"] for c in CORPUS], COLUMNS),
    ):
        for dialect in ("duckdb", "sqlite", "postgres"):
            times = []
            for _ in range(5):
                for sql in cases:
                    start = time.perf_counter()
                    with contextlib.suppress(SQLSafetyError):
                        guard(
                            sql,
                            dialect=dialect,
                            allowed_tables=ALLOWED,
                            max_rows=1000,
                            allowed_columns=columns,
                        )
                    times.append((time.perf_counter() - start) * 1000)
            print(
                f"guard {label:15s} {dialect:8s} n={len(times):4d} "
                f"p50={statistics.median(times):6.3f} ms p95={pct(times, 0.95):6.3f} ms"
            )


def bench_backend(name: str, url: str) -> None:
    settings = Settings(max_rows=1000, sql_timeout_ms=10_000)
    with Database.open(url) as db:
        g = guard(BENIGN[1], dialect=db.dialect, allowed_tables=ALLOWED, max_rows=1000)
        plain, sandboxed = [], []
        for _ in range(50):
            start = time.perf_counter()
            db.execute(g.sql, max_rows=1000)
            plain.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            execute(db, g, settings=settings)
            sandboxed.append((time.perf_counter() - start) * 1000)
        p, s = statistics.median(plain), statistics.median(sandboxed)
        print(
            f"execute {name:8s} join query p50 plain={p:6.3f} ms sandboxed={s:6.3f} ms "
            f"ratio={s / p:4.2f}"
        )
        slow = guard(SLOW, dialect=db.dialect, allowed_tables=ALLOWED, max_rows=10)
        for timeout_ms in (100, 500):
            start = time.perf_counter()
            try:
                execute(db, slow, settings=Settings(sql_timeout_ms=timeout_ms))
                print(f"timeout {name:8s} {timeout_ms} ms: NOT STOPPED")
            except QueryTimeoutError:
                elapsed = (time.perf_counter() - start) * 1000
                print(
                    f"timeout {name:8s} limit={timeout_ms:4d} ms stopped after {elapsed:7.1f} ms "
                    f"ratio={elapsed / timeout_ms:4.2f}"
                )


OMOP_TABLES = {
    "person", "observation_period", "visit_occurrence", "visit_detail", "condition_occurrence",
    "drug_exposure", "procedure_occurrence", "device_exposure", "measurement", "observation",
    "death", "note", "specimen", "payer_plan_period", "drug_era", "condition_era", "concept",
    "concept_ancestor", "concept_relationship", "concept_synonym", "vocabulary", "care_site",
    "provider", "location", "cost", "episode", "note_nlp", "fact_relationship", "dose_era",
    "cdm_source", "metadata",
}  # fmt: skip


def golden_sql() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"duckdb": [], "sqlite": [], "postgres": []}
    for path in sorted((ROOT / "tests" / "engine" / "golden").glob("*/*.sql")):
        out[path.stem].append(path.read_text(encoding="utf-8"))
    return out


def old_guard(rev: str) -> Any:
    """The guard as it was at ``rev`` (from git), or None."""
    try:
        text = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:src/clinbridge/engine/guard.py"],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    module = types.ModuleType("guard_before")
    sys.modules["guard_before"] = module  # dataclasses look their module up
    exec(compile(text, f"guard.py@{rev}", "exec"), module.__dict__)  # our own file, from git
    return module.guard


def bench_plans_guard(rev: str) -> None:
    before = old_guard(rev)
    for dialect, statements in golden_sql().items():
        for label, fn in (("after", guard), ("before", before)):
            if fn is None:
                print(f"guard plans  {dialect:8s} before: skipped (no git revision {rev})")
                continue
            times = []
            for _ in range(5):
                for sql in statements:
                    start = time.perf_counter()
                    fn(sql, dialect=dialect, allowed_tables=OMOP_TABLES, max_rows=10_000)
                    times.append((time.perf_counter() - start) * 1000)
            print(
                f"guard plans  {dialect:8s} {label:6s} n={len(times):4d} "
                f"p50={statistics.median(times):6.3f} ms p95={pct(times, 0.95):6.3f} ms "
                f"max={max(times):6.3f} ms"
            )


def big_statements() -> dict[str, str]:
    n = 95_000
    chain = "SELECT 1" + " + 1" * ((n - 8) // 4)
    ctes = (
        "WITH "
        + ", ".join(
            f"c{i} AS (SELECT * FROM c{i - 1})" if i else "c0 AS (SELECT 1 AS x)"
            for i in range(3000)
        )
        + " SELECT * FROM c2999"
    )
    in_list = (
        "SELECT * FROM person WHERE person_id IN (" + ",".join(str(i) for i in range(14_500)) + ")"
    )
    out = {"95kB + chain": chain, "95kB 3000 CTEs": ctes, "95kB IN list": in_list}
    # just under the length limit, the most tokens and nodes the limits let through
    near = MAX_SQL_LENGTH - 100
    out["49kB IN list"] = (
        "SELECT * FROM person WHERE person_id IN (" + ",".join("1" for _ in range(3_900)) + ")"
    )
    out["49kB literal"] = "SELECT '" + "x" * (near - 20) + "' AS s"
    out["49kB 60 CTEs"] = (
        "WITH "
        + ", ".join(
            f"c{i} AS (SELECT * FROM c{i - 1} WHERE x > {i})" if i else "c0 AS (SELECT 1 AS x)"
            for i in range(60)
        )
        + " SELECT * FROM c59"
    )
    return out


def bench_big() -> None:
    for label, sql in big_statements().items():
        for dialect in ("duckdb", "postgres"):
            start = time.perf_counter()
            try:
                guard(sql, dialect=dialect, allowed_tables=ALLOWED, max_rows=100)
                outcome = "accepted"
            except SQLSafetyError as exc:
                outcome = f"refused ({exc.details['reason']})"
            ms = (time.perf_counter() - start) * 1000
            print(
                f"guard big    {label:16s} {dialect:8s} {len(sql):6d} chars {ms:8.2f} ms {outcome}"
            )


def bench_runaways(name: str, url: str, timeout_ms: int) -> None:
    with Database.open(url) as db:
        for case in RUNAWAYS:
            if name not in case.backends:
                continue
            outcome, elapsed = run_runaway(db, case, timeout_ms)
            print(
                f"runaway {name:8s} {case.name:30s} limit={timeout_ms} ms "
                f"ended after {elapsed:8.1f} ms ratio={elapsed / timeout_ms:5.2f} {outcome}"
            )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"runaway {name:8s} process peak RSS so far: {peak:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-runaway", action="store_true")
    parser.add_argument("--before", default="ab6cdfd", help="git revision of the old guard")
    parser.add_argument("--runaway-timeout-ms", type=int, default=2_000)
    args = parser.parse_args()
    bench_guard()
    bench_plans_guard(args.before)
    bench_big()
    with tempfile.TemporaryDirectory() as tmp:
        for name, url in (
            ("duckdb", build_duckdb(Path(tmp) / "b.duckdb")),
            ("sqlite", build_sqlite(Path(tmp) / "b.db")),
        ):
            bench_backend(name, url)
            if not args.skip_runaway:
                bench_runaways(name, url, args.runaway_timeout_ms)
    reason = pg_down_reason()
    if reason:
        print(f"postgres skipped: {reason}")
        return
    url, schema = build_postgres()
    try:
        bench_backend("postgres", url)
        if not args.skip_runaway:
            bench_runaways("postgres", url, args.runaway_timeout_ms)
    finally:
        drop_postgres(schema)


if __name__ == "__main__":
    main()
