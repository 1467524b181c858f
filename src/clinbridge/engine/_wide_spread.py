"""The spread asked beside a summary over a trial table: 'mean (SD)', 'median (IQR)'.

The answer's value stays the summary the plan computed; the spread is added beside it — ``sd``
(sample standard deviation) beside a mean, ``q1``/``q3`` (the quartiles, linear interpolation as
pandas and R's default compute them) beside a median — for the whole answer or for each of its
groups. It is computed from the same per-subject values the plan aggregates (the compiler's own
cohort and measure, through the guard), so the two cannot disagree about who is counted.
"""

from __future__ import annotations

import math
import statistics
from typing import TYPE_CHECKING, Any

from clinbridge.engine._wide import _WideCompiler, is_wide
from clinbridge.engine.guard import guard_catalog_tables
from clinbridge.engine.plan import QueryPlan

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.engine.answer import Answer

__all__ = ["SPREADS", "add_spread"]

SPREADS = {"sd": "mean", "iqr": "median"}
"""The spread a note asks for, and the summary it goes beside."""


def _quartiles(values: list[float]) -> tuple[float, float]:
    xs = sorted(values)
    out = []
    for p in (0.25, 0.75):
        h = (len(xs) - 1) * p
        lo = math.floor(h)
        hi = min(lo + 1, len(xs) - 1)
        out.append(xs[lo] + (h - lo) * (xs[hi] - xs[lo]))
    return out[0], out[1]


def _stats(kind: str, values: list[float]) -> dict[str, float | None]:
    if kind == "sd":
        return {"sd": statistics.stdev(values) if len(values) > 1 else None}
    if not values:
        return {"q1": None, "q3": None}
    q1, q3 = _quartiles(values)
    return {"q1": q1, "q3": q3}


def add_spread(answer: Answer, kind: str, catalog: Catalog, db: Any, max_rows: int) -> None:
    """Add the spread ``kind`` ('sd' or 'iqr') to an accepted mean/median answer, in place."""
    plan_d = answer.plan
    if not plan_d or not answer.accepted:
        return
    plan = QueryPlan.model_validate(plan_d)
    if (
        not is_wide(plan, catalog)
        or plan.aggregate.op != SPREADS.get(kind)
        or plan.measure.variable is None
    ):
        return
    comp = _WideCompiler(catalog, db.dialect)
    vals, groups = comp.values_of(plan)
    guarded = guard_catalog_tables(vals, catalog, dialect=db.dialect, max_rows=max_rows)
    result = db.execute(guarded.sql, max_rows=max_rows)
    rows = result.rows
    if getattr(result, "truncated", False) or (
        guarded.limit is not None and len(rows) >= guarded.limit
    ):
        return  # cut at the row limit: a spread of part of the cohort is not given
    by: dict[tuple[str, ...], list[float]] = {}
    for r in rows:
        if r[-1] is None:
            continue
        key = tuple(
            g.codes.get(_code(r[i]), _code(r[i])) or _code(r[i]) for i, g in enumerate(groups)
        )
        by.setdefault(key, []).append(float(r[-1]))
    if not groups:
        answer.details.update(_stats(kind, by.get((), [])))
    elif isinstance(answer.value, list):
        for row in answer.value:
            key = tuple(str(row.get(g.column)) for g in groups)
            row.update(_stats(kind, by.get(key, [])))
    answer.details["spread"] = "sd (sample)" if kind == "sd" else "q1-q3 (interquartile range)"


def _code(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
