"""Runaway statements, per backend, shared by tests/engine/test_runaway.py and
bench/guard_bench.py: each must end (cancelled, refused, or stopped by a size limit) within the
statement timeout plus 10 %, the guard's own checking included.

``guarded`` ones go through the guard (it admits them: legitimate but expensive, or too
complex to plan); ``raw`` ones go straight to the sandbox, to show that the database-level
limits hold for functions the guard does not admit (SQLite's one-step ``zeroblob``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from guard_dbs import ALLOWED, COLUMNS  # type: ignore[import-not-found]

from clinbridge.db import Database
from clinbridge.engine.execute import execute
from clinbridge.engine.guard import guard
from clinbridge.errors import ExecutionError, QueryTimeoutError, SQLSafetyError
from clinbridge.settings import Settings

CARTESIAN = "SELECT count(*) FROM " + ", ".join(f"measurement m{i}" for i in range(7))
RECURSIVE = (
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 2000000000) "
    "SELECT count(*) FROM t"
)


def chained_ctes(n: int, refs: int = 1) -> str:
    parts = ["c0 AS (SELECT 1 AS x)"]
    for i in range(1, n):
        src = ", ".join(f"c{i - 1} AS a{j}" for j in range(refs))
        parts.append(f"c{i} AS (SELECT a0.x FROM {src})")
    return "WITH " + ", ".join(parts) + f" SELECT count(*) FROM c{n - 1}"


@dataclass(frozen=True)
class Runaway:
    name: str
    sql: str
    backends: tuple[str, ...] = ("duckdb", "sqlite", "postgres")
    raw: bool = False  # straight to the sandbox, no guard


RUNAWAYS = (
    Runaway("cartesian join", CARTESIAN),
    Runaway("recursive CTE", RECURSIVE),
    Runaway(
        "cross join of series",
        "SELECT count(*) FROM range((SELECT 1000000)) a, range((SELECT 1000000)) b",
        ("duckdb",),
    ),
    Runaway("huge range", "SELECT count(*) FROM range((SELECT 100000000000))", ("duckdb",)),
    Runaway(
        "huge list in memory",
        "SELECT length(list(range)) FROM range((SELECT 5000000000))",
        ("duckdb",),
    ),
    Runaway(
        "huge generate_series",
        "SELECT count(*) FROM (SELECT generate_series(1, (SELECT 100000000000))) AS s",
        ("postgres",),
    ),
    Runaway("800 chained CTEs", chained_ctes(800)),
    Runaway("3,000 chained CTEs", chained_ctes(3000)),
    Runaway("doubling CTE chain", chained_ctes(40, refs=2)),
    Runaway(
        "one-step printf",
        "SELECT length(replace(printf('%.*c', 1000000000, 'x'), 'x', 'yy')) AS n",
        ("sqlite",),
        raw=True,
    ),
    Runaway(
        "one-step zeroblob",
        "SELECT length(replace(zeroblob(1000000000), x'00', x'0101'))",
        ("sqlite",),
        raw=True,
    ),
    Runaway(
        "one-step randomblob", "SELECT length(hex(randomblob(1000000000)))", ("sqlite",), raw=True
    ),
    Runaway("one-step lpad", "SELECT length(lpad('x', 1000000000, 'yz')) AS n"),
    Runaway(
        "one-step lpad, computed size",
        "SELECT length(lpad('x', (SELECT 1000000000), 'yz')) AS n",
        ("duckdb", "postgres"),
    ),
    Runaway("one-step format", "SELECT length(format('{:>1000000000}', 'x'))", ("duckdb",)),
    Runaway("one-step scalar range", "SELECT len(range((SELECT 1000000000)))", ("duckdb",)),
    Runaway(
        "scalar series in unnest",
        "SELECT count(*) FROM unnest(generate_series(1, (SELECT 300000000))) AS t(x)",
        ("duckdb",),
    ),
)


def run_runaway(db: Database, case: Runaway, timeout_ms: int) -> tuple[str, float]:
    """Run one runaway under ``timeout_ms``; return (how it ended, elapsed ms incl. the guard)."""
    settings = Settings(max_rows=100, sql_timeout_ms=timeout_ms)
    start = time.perf_counter()
    outcome: str
    try:
        if case.raw:
            db.execute(case.sql, timeout_ms=timeout_ms, max_rows=100, sandbox=True)
        else:
            g = guard(
                case.sql,
                dialect=db.dialect,
                allowed_tables=ALLOWED,
                max_rows=100,
                allowed_columns=COLUMNS,
                timeout_ms=timeout_ms,
            )
            execute(db, g, settings=settings)
        outcome = "FINISHED"
    except QueryTimeoutError:
        outcome = "cancelled"
    except SQLSafetyError as exc:
        outcome = f"refused:{exc.details['reason']}"
    except ExecutionError as exc:
        outcome = f"stopped:{_short(exc)}"
    return outcome, (time.perf_counter() - start) * 1000


def _short(exc: Any) -> str:
    text = str(exc).lower()
    for key in ("too big", "memory", "out of", "interrupt"):
        if key in text:
            return key.replace(" ", "_")
    return str(exc.details.get("driver_error", "error"))
