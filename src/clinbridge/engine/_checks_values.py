"""The validator's checks of the measured quantity (see :mod:`clinbridge.engine.validate`).

Whether the measured values are stored at all, whether their units are consistent (or convert to
the plan's unit), whether the answer's numbers are plausible, and whether a proportion's numerator
stays within its denominator. Each check returns :class:`Check` objects.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from clinbridge.engine._analytes import analyte_of_set
from clinbridge.engine._checks import (
    Check,
    _Ctx,
    _in_list,
    _q,
    _run,
    _streams_for,
    _table,
    failed,
)
from clinbridge.engine._checks_thresholds import check_thresholds
from clinbridge.engine._shapes import (
    _GENERIC_RANGES,
    _MEASURE_COLUMN,
    _norm_unit,
    _units_convertible,
    plausible_range,
)
from clinbridge.engine._units import engine_converts
from clinbridge.errors import ClinbridgeError

if TYPE_CHECKING:
    from clinbridge.catalog import EventStream


def _numbers(value: Any, rows: Sequence[Sequence[Any]]) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float | decimal.Decimal):
        return [float(value)]
    out: list[float] = []
    if isinstance(value, list | tuple):
        for v in value:
            if isinstance(v, int | float | decimal.Decimal) and not isinstance(v, bool):
                out.append(float(v))
            elif isinstance(v, list | tuple) and v:
                last = v[-1]
                if isinstance(last, int | float | decimal.Decimal) and not isinstance(last, bool):
                    out.append(float(last))
    return out


def _value_stats(
    ctx: _Ctx,
    streams: list[EventStream],
    ids: list[Any] | None,
    column_of: Callable[[EventStream], str | None],
) -> tuple[int, int, dict[str, int]]:
    """(rows, rows with a value, {unit: n}) for the measured events (of the patient, if any)."""
    total = with_value = 0
    units: dict[str, int] = {}
    _, internal = ctx.patient()
    for s in streams:
        col = column_of(s)
        if col is None or (ids is not None and s.code_column is None):
            continue
        where = "1 = 1"
        if ids is not None and s.code_column is not None:
            where = f"{_q(s.code_column)} IN ({_in_list(ids)})"
        params: list[Any] = list(ids or [])
        if internal is not None:
            where += f" AND {_q(s.patient_column)} = ?"
            params.append(internal)
        t = _table(ctx.catalog, s.table)
        unit_col = s.unit_label_column or s.unit_column
        unit_expr = f"CAST({_q(unit_col)} AS TEXT)" if unit_col else "NULL"
        for unit, n, nv in _run(
            ctx.db,
            f"SELECT {unit_expr}, COUNT(*), COUNT({_q(col)}) FROM {t} WHERE {where} GROUP BY 1",
            params,
        ):
            total += int(n)
            with_value += int(nv)
            if nv and unit not in (None, "", "0"):
                units[str(unit)] = units.get(str(unit), 0) + int(nv)
    if (
        units
        and streams[0].unit_column
        and not streams[0].unit_label_column
        and streams[0].unit_dictionary
    ):
        units = _unit_labels(ctx, streams[0], units)
    return total, with_value, units


def _unit_labels(ctx: _Ctx, s: EventStream, units: dict[str, int]) -> dict[str, int]:
    try:
        d = ctx.catalog.dictionary(s.unit_dictionary or "")
    except ClinbridgeError:
        return units
    keys = list(units)
    rows = _run(
        ctx.db,
        f"SELECT CAST({_q(d.code_column)} AS TEXT), {_q(d.source_code_column or d.label_column)} "
        f"FROM {_table(ctx.catalog, d.table)} WHERE CAST({_q(d.code_column)} AS TEXT) "
        f"IN ({_in_list(keys)})",
        keys,
    )
    names = {str(k): str(v) for k, v in rows}
    out: dict[str, int] = {}
    for k, n in units.items():
        out[names.get(k, k)] = out.get(names.get(k, k), 0) + n
    return out


def _check_values(
    ctx: _Ctx, resolved: dict[str, tuple[list[EventStream], list[Any]]]
) -> list[Check]:
    """Data stored, units consistent, values plausible — for the measured quantity (and the
    units of its value thresholds)."""
    plan, checks = ctx.plan, []
    if plan is None:
        nums = _numbers(ctx.value, ctx.rows)
        bad = [x for x in nums if not math.isfinite(x)]
        if bad:
            checks.append(
                failed("values_plausible", "value_implausible", f"non-finite value {bad[0]}")
            )
        return checks
    m, op = plan.measure, plan.aggregate.op
    numeric_op = op not in {"count", "count_distinct", "exists", "proportion"}  # the values' own
    column_of = _MEASURE_COLUMN.get(m.of)
    measured: tuple[list[EventStream], list[Any] | None] | None = resolved.get("measure")
    if measured is None and m.concepts is None and m.stream is not None:
        measured = (_streams_for(ctx.catalog, m.stream), None)  # every event of the stream
    if column_of is not None and numeric_op and measured is not None and measured[0]:
        streams, ids = measured
        total, with_value, units = _value_stats(ctx, streams, ids, column_of)
        label = m.concepts.describe() if m.concepts else f"{m.stream} {m.of}"
        who = f" for patient {plan.patient_id}" if plan.patient_id else ""
        if total == 0 and plan.patient_id:
            checks.append(
                failed(
                    "data_stored",
                    "no_data",
                    f"no such data for this patient: no {label!r} recorded{who}",
                )
            )
        elif with_value == 0:
            checks.append(
                failed(
                    "data_stored",
                    "not_stored",
                    f"{label!r} is recorded{who} but its {m.of} is never stored (all NULL)",
                )
            )
        else:
            checks.append(
                Check(
                    name="data_stored",
                    passed=True,
                    detail=f"{with_value} of {total} rows have a {m.of}",
                )
            )
        if with_value and m.of == "value":
            if m.unit is not None:
                same = all(_norm_unit(u) == _norm_unit(m.unit) for u in units)
                convertible = same or _units_convertible(units, m.unit)
                # the engine's compiled plans do not convert values (free SQL may): for them the
                # asked unit must be the stored one
                from clinbridge.engine.answer import Answer

                engine = (
                    isinstance(ctx.draft, Answer) and ctx.draft.provenance.understanding != "sql"
                )
                # (the compiled plans convert mass, length and temperature themselves)
                ok = (
                    (same or engine_converts(units, m.unit, analyte_of_set(m.concepts)))
                    if engine
                    else convertible
                )
                checks.append(
                    Check(
                        name="units_consistent",
                        passed=ok,
                        code="unit_mixed",
                        detail=f"values are stored in {sorted(units)}, the question asks for "
                        f"{m.unit}"
                        + (
                            ""
                            if ok
                            else " (convertible, but values are not converted)"
                            if convertible
                            else " (not convertible)"
                        ),
                    )
                )
            elif len({_norm_unit(u) for u in units}) > 1:
                checks.append(
                    Check(
                        name="units_consistent",
                        passed=False,
                        code="unit_mixed",
                        detail=f"{label!r} values are stored in several units {sorted(units)} "
                        f"and the plan names none to convert to",
                    )
                )
            else:
                checks.append(
                    Check(
                        name="units_consistent",
                        passed=True,
                        detail=f"one unit: {next(iter(units), 'not recorded')}",
                    )
                )
        if m.of == "value" and op not in {"count", "count_distinct", "exists", "proportion"}:
            unit = m.unit or (next(iter(units)) if len(units) == 1 else None)
            rng = plausible_range(label, unit)
            if (
                rng is not None and op not in {"stddev", "range"} and plan.minus is None
            ):  # not a spread or change
                nums = _numbers(ctx.value, ctx.rows)
                bad = [x for x in nums if not (rng[0] <= x <= rng[1])]
                checks.append(
                    Check(
                        name="values_plausible",
                        passed=not bad,
                        code="value_implausible",
                        detail=(
                            f"{label} {bad[0]:g} {unit or ''} is outside the possible range "
                            f"{rng[0]:g}–{rng[1]:g}"
                            if bad
                            else f"within {rng[0]:g}–{rng[1]:g}"
                        ),
                    )
                )
    if m.of in _GENERIC_RANGES and op in {
        "mean",
        "median",
        "min",
        "max",
        "sum",
        "first",
        "last",
        "count",
    }:
        lo, hi = _GENERIC_RANGES[m.of]
        if op in {"min", "max", "first", "last"}:
            # One stored value, reported as recorded (an extreme is data, not a computing error).
            lo, hi = -math.inf, math.inf
        elif op in {"sum", "count"}:
            hi = math.inf  # totals over a cohort exceed any one item's range
        nums = _numbers(ctx.value, ctx.rows)
        bad = [x for x in nums if not (math.isfinite(x) and lo <= x <= hi)]
        checks.append(
            Check(
                name=f"values_plausible[{m.of}]",
                passed=not bad,
                code="value_implausible",
                detail=f"{m.of} {bad[0]:g} outside {lo:g}–{hi:g}"
                if bad
                else f"{m.of} within {lo:g}–{hi:g}",
            )
        )
    if op == "proportion":
        checks.extend(_check_proportion(ctx))
    return checks + check_thresholds(ctx, _value_stats)  # thresholds given in a unit


def _proportion_fails(code: str, detail: str) -> list[Check]:
    return [failed("numerator_le_denominator", code, detail)]


def _check_proportion(ctx: _Ctx) -> list[Check]:
    details = getattr(ctx.draft, "details", None) or {}
    num, den = details.get("numerator"), details.get("denominator")
    if isinstance(num, int | float) and isinstance(den, int | float):  # the engine's Answer.details
        if num > den or num < 0:
            return _proportion_fails(
                "numerator_gt_denominator", f"numerator {num} > denominator {den}"
            )
        if den == 0:
            return _proportion_fails("no_data", "the denominator (the cohort) is empty")
        return [Check(name="numerator_le_denominator", passed=True, detail=f"{num} ≤ {den}")]
    cols = [c.lower() for c in ctx.columns]
    if "numerator" in cols and "denominator" in cols and ctx.rows:
        i, j = cols.index("numerator"), cols.index("denominator")
        bad = [r for r in ctx.rows if r[i] is not None and r[j] is not None and r[i] > r[j]]
        if bad:
            return _proportion_fails(
                "numerator_gt_denominator", f"numerator {bad[0][i]} > denominator {bad[0][j]}"
            )
        zero = [r for r in ctx.rows if not r[j]]
        if zero and len(zero) == len(ctx.rows):
            return _proportion_fails("no_data", "the denominator (the cohort) is empty")
    nums = _numbers(ctx.value, ctx.rows) if not isinstance(ctx.value, list) else []
    if any(x < 0 or x > 1 for x in nums):
        return _proportion_fails(
            "numerator_gt_denominator", f"proportion {nums[0]:g} is outside 0–1"
        )
    return [Check(name="numerator_le_denominator", passed=True, detail="numerator ≤ denominator")]
