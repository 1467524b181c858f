"""Run a plan: resolve concepts → compile → guard → execute → shape → Answer.

The same path serves ``clinbridge ask --plan`` and every reader of natural language (the
built-in parser and the LLM backends emit plans and hand them to :func:`run_plan`).
"""

from __future__ import annotations

import datetime as dt
import decimal
import logging
import math
import re
from typing import Any

from clinbridge.catalog import Catalog
from clinbridge.db import Database, QueryResult
from clinbridge.engine._status import check_recorded
from clinbridge.engine.answer import Answer, Check, Provenance, Timings
from clinbridge.engine.compile import CompiledPlan, Shape, compile_plan
from clinbridge.engine.execute import execute
from clinbridge.engine.guard import GuardedSQL, guard_catalog_tables
from clinbridge.engine.plan import QueryPlan
from clinbridge.engine.resolve import Resolver
from clinbridge.errors import ClinbridgeError
from clinbridge.settings import Settings

__all__ = ["plan_now", "run_plan", "shape_value"]

logger = logging.getLogger(__name__)


def plan_now(plan: QueryPlan, catalog: Catalog, settings: Settings) -> dt.date:
    """What 'now' means: the plan's, the settings', the end of the data, else the clock."""
    if plan.now is not None:
        return plan.now.date()
    if settings.now:
        return dt.datetime.fromisoformat(settings.now).date()
    return catalog.data_end_date() or dt.date.today()


def run_plan(
    db: Database,
    catalog: Catalog,
    plan: QueryPlan,
    *,
    settings: Settings | None = None,
    resolver: Resolver | None = None,
    understanding: str = "plan",
) -> Answer:
    """Execute ``plan`` against ``db`` (described by ``catalog``) and return a checked Answer.

    Errors of the plan (unknown concepts, a stream the source lacks, an unsafe statement, a
    timeout) become abstentions with the error's code as ``reason_code``.
    """
    settings = settings or Settings()
    resolver = resolver or Resolver(db, catalog)
    timings = Timings()
    now = plan_now(plan, catalog, settings)
    provenance = Provenance.of_source(
        catalog,
        db.dialect,
        question=plan.question,
        now=now.isoformat(),
        understanding=understanding,
    )
    base: dict[str, Any] = {
        "plan": plan.to_dict(),
        "dialect": db.dialect,
        "timings": timings,
        "provenance": provenance,
    }
    compiled: CompiledPlan | None = None
    try:
        with timings.trace("compile"):
            compiled = compile_plan(plan, catalog, resolver.resolve, dialect=db.dialect, now=now)
            check_recorded(db, compiled.status_probes)  # a status needs a status or an end
        with timings.trace("guard"):
            guarded = _guard(compiled.expression, catalog, db, settings)
        with timings.trace("execute"):
            result = execute(db, guarded, settings=settings)
    except ClinbridgeError as exc:
        return Answer(
            decision="abstain",
            reason=str(exc),
            reason_code=exc.code,
            sql=compiled.sql if compiled else None,
            concept_sets=[c.to_dict() for c in compiled.concept_sets] if compiled else [],
            checks=[Check(name="plan_executes", passed=False, detail=str(exc), code=exc.code)],
            **base,
        )
    provenance.row_count = len(result.rows)
    provenance.truncated = result.truncated
    with timings.trace("shape"):
        value, details = shape_value(compiled.shape, result, round_to=plan.aggregate.round_to)
    if compiled.status_rules:  # how 'active' / 'ended' was read (engine/_status.py)
        details["status_rule"] = list(compiled.status_rules)
    checks = [
        Check(
            name="concepts_resolved",
            passed=all(c.values for c in compiled.concept_sets),
            detail=f"{len(compiled.concept_sets)} concept set(s)",
            code="concept_not_found",
        ),
        Check(
            name="not_truncated",
            passed=not result.truncated,
            detail=f"{len(result.rows)} row(s), limit {settings.max_rows}",
            code="truncated",
        ),
        Check(
            name="has_value",
            passed=value is not None,
            detail="the query returned a value"
            if value is not None
            else "no stored data matches the plan",
            code="no_data",
        ),
    ]
    if compiled.scope_check is not None and plan.scope is not None:
        try:
            scoped = execute(
                db, _guard(compiled.scope_check, catalog, db, settings), settings=settings
            )
        except ClinbridgeError as exc:
            return Answer(
                decision="abstain",
                reason=str(exc),
                reason_code=exc.code,
                sql=guarded.sql,
                checks=[Check(name="scope_exists", passed=False, detail=str(exc), code=exc.code)],
                **base,
            )
        n = int(scoped.rows[0][0]) if scoped.rows else 0
        what = f"{plan.scope.which} {plan.scope.type or ''} encounter".replace("  ", " ")
        checks.append(
            Check(
                name="scope_exists",
                passed=n > 0,
                detail=f"{n} {what}(s) in scope" if n else f"no {what} for the subject",
                code="scope_empty",
            )
        )
    failed = [c for c in checks if not c.passed]
    return Answer(
        decision="abstain" if failed else "accept",
        value=value,
        shape=compiled.shape,
        columns=result.columns,
        rows=[list(r) for r in result.rows],
        details=details,
        sql=guarded.sql,
        concept_sets=[c.to_dict() for c in compiled.concept_sets],
        checks=checks,
        reason=failed[0].detail if failed else None,
        reason_code=failed[0].code if failed else None,
        **base,
    )


def _guard(expression: Any, catalog: Catalog, db: Database, settings: Settings) -> GuardedSQL:
    """The guard with the catalog's tables; a catalog that lists none is refused, not unchecked."""
    return guard_catalog_tables(expression, catalog, dialect=db.dialect, max_rows=settings.max_rows)


def _number(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, bool | int):
        return v  # never through a float: 64-bit ids stay exact
    if isinstance(v, decimal.Decimal) and v == v.to_integral_value():
        return int(v)
    try:
        f = float(v)
    except (TypeError, ValueError):
        return v
    if math.isnan(f):
        return None
    return int(f) if f.is_integer() and not isinstance(v, float) else f


def shape_value(
    shape: Shape, result: QueryResult, *, round_to: int | None = None
) -> tuple[Any, dict[str, Any]]:
    """Turn result rows into the answer's value (number, date, boolean, list, rows)."""
    rows = result.rows
    details: dict[str, Any] = {}
    value: Any
    if shape == "proportion":
        num, den = rows[0] if rows else (None, None)
        num = int(num or 0)
        den = int(den or 0)
        details = {"numerator": num, "denominator": den}
        value = None if den == 0 else num / den
    elif shape == "scalar":
        value = _number(rows[0][0]) if rows else None
        if rows and len(result.columns) > 1:  # counts behind the value (trial tables: n, subjects)
            details = {c: _number(v) for c, v in zip(result.columns[1:], rows[0][1:], strict=True)}
    elif shape == "date":
        raw = rows[0][0] if rows else None
        value = _iso(raw)
    elif shape == "boolean":
        value = bool(rows[0][0]) if rows and rows[0][0] is not None else None
    elif shape == "list":
        value = [_number(r[0]) if not isinstance(r[0], str) else r[0] for r in rows]
    elif shape == "value_at":
        if not rows:
            value = None
        else:
            values = [_number(r[0]) if not isinstance(r[0], str) else r[0] for r in rows]
            value = values[0] if len(values) == 1 else values
            details = {"date": _iso(rows[0][1])}
            if len(values) > 1:
                details["tied"] = len(values)
            if len(rows[0]) > 2 and rows[0][2] is not None:
                details["unit"] = rows[0][2]
    else:  # rows
        value = [
            dict(
                zip(
                    result.columns,
                    (_iso(v) if isinstance(v, dt.date) else _number(v) for v in r),
                    strict=True,
                )
            )
            for r in rows
        ]
    if round_to is not None and isinstance(value, float):
        value = round(value, round_to)
    return value, details


def _iso(raw: Any) -> str | None:
    """A stored date or time as ISO text: the day, and the time of day where the source keeps
    one ('2100-09-12 13:23:00'); a midnight timestamp is a date ('2054-04-21')."""
    if raw is None:
        return None
    if isinstance(raw, dt.datetime):
        if raw.time() == dt.time(0, 0):
            return raw.date().isoformat()
        return raw.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(raw, dt.date):
        return raw.isoformat()
    text = str(raw)
    m = _STAMP.match(text)
    if m is None or m.group(2) is None:
        return text[:10]
    clock = (m.group(2) + ":00")[:8]
    return m.group(1) if clock == "00:00:00" else f"{m.group(1)} {clock}"


_STAMP = re.compile(r"(\d{4}-\d\d-\d\d)(?:[ T](\d\d:\d\d(?::\d\d)?))?")
