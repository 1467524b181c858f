"""Guard and executor figures: guard latency, sandbox overhead, how promptly timeouts stop.

Run: ``PYTHONPATH=src python bench/guard_bench.py`` (PostgreSQL rows are skipped when the server
at 127.0.0.1:5432 is down). Prints figures and ratios; asserts nothing.
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests" / "engine")]

from guard_dbs import (  # noqa: E402
    ALLOWED,
    COLUMNS,
    build_duckdb,
    build_postgres,
    build_sqlite,
    drop_postgres,
    pg_down_reason,
)
from test_guard import BENIGN, CORPUS  # noqa: E402

from clinbridge.db import Database  # noqa: E402
from clinbridge.engine.execute import execute  # noqa: E402
from clinbridge.engine.guard import guard  # noqa: E402
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


def main() -> None:
    bench_guard()
    with tempfile.TemporaryDirectory() as tmp:
        bench_backend("duckdb", build_duckdb(Path(tmp) / "b.duckdb"))
        bench_backend("sqlite", build_sqlite(Path(tmp) / "b.db"))
    reason = pg_down_reason()
    if reason:
        print(f"postgres skipped: {reason}")
        return
    url, schema = build_postgres()
    try:
        bench_backend("postgres", url)
    finally:
        drop_postgres(schema)


if __name__ == "__main__":
    main()
