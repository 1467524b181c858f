"""The validator's check of value thresholds given with a unit (see :mod:`clinbridge.engine.validate`).

'weight over 200 lb', 'temperature of 100.4 °F or more', 'height above 6 feet': a threshold the
question states in a unit is compared with values the source stores in its own unit. The
compiled plans convert mass, length and temperature row by row (``_units.in_unit``); any other
pair of units would compare the bare numbers (200 'lb' against kilograms, 6 'feet' against
centimetres) and count the wrong patients. This check passes a threshold whose unit is the
stored one (spelled either way) or one the engine converts from every stored unit, and fails
any other pair of units it knows apart, naming both, so that the answer abstains instead; a
spelling it does not know is left as before (compared as stored). A threshold outside the
possible range of the measurement in its stored unit ('temperature above 101' on Celsius) fails
too: the unit it was meant in was left unsaid.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from clinbridge.engine._analytes import analyte_of_set
from clinbridge.engine._checks import Check, _Ctx, _streams_for, failed
from clinbridge.engine._shapes import _norm_unit, plausible_range
from clinbridge.engine._units import engine_converts

__all__ = ["check_thresholds"]

# spellings of one unit (thousands per microlitre = 10^9 per litre; beats per minute = /min)
_SAME: dict[str, str] = {
    **dict.fromkeys(
        ("10*3/ul", "x10^3/ul", "10^3/ul", "k/ul", "thou/ul", "10*9/l", "x10^9/l", "10^9/l"),
        "10*3/ul",
    ),
    **dict.fromkeys(
        ("10*6/ul", "x10^6/ul", "10^6/ul", "m/ul", "10*12/l", "x10^12/l", "10^12/l"), "10*6/ul"
    ),
    **dict.fromkeys(("beatsperminute", "beats/minute", "beats/min", "{beats}/min", "bpm"), "/min"),
    **dict.fromkeys(
        ("breathsperminute", "breaths/minute", "breaths/min", "{breaths}/min", "breathsaminute"),
        "/min",
    ),
    **dict.fromkeys(("percent", "pct"), "%"),
}
# units told apart for sure: a threshold or a stored unit outside this list is left as it was
# (compared as stored), since an unknown spelling may well be the stored unit
_KNOWN = frozenset(
    {
        *("mg/dl", "mmol/l", "umol/l", "g/dl", "g/l", "mg/l", "ng/ml", "pg/ml", "u/l"),
        *("iu/l", "meq/l", "%", "mmol/mol", "/min", "mm[hg]", "kg/m2", "10*3/ul", "/ul"),
        *("10*6/ul", "fl"),
    }
)


def _key(unit: str) -> str:
    u = _norm_unit(unit)
    return _SAME.get(u, u)


def _known(unit: str) -> bool:
    k = _key(unit)
    return k in _KNOWN or engine_converts([unit], unit)


def _event_filters(plan: Any) -> list[Any]:
    """The event filters with a value threshold, and the measure when it has one ('how many
    readings below 0.70'): both name a stream, its concepts and the threshold alike."""
    out = []
    for f in getattr(plan, "filters", ()) or ():
        value = getattr(f, "value", None)
        if getattr(f, "kind", None) == "event" and value is not None:
            out.append(f)
    m = getattr(plan, "measure", None)
    if m is not None and m.value is not None and m.stream and m.value.op != "in":
        out.append(m)
    return out


def _fraction_of_percent(f: Any, stored: str, name: str) -> Check | None:
    """A ratio stored as a percentage ('FEV1/FVC' in %) with a threshold written as a fraction
    (0.70): the bare numbers compare 0.70 with 70."""
    bounds = [f.value.value] + ([f.value.value2] if f.value.value2 is not None else [])
    ratio = "/" in name or re.search(r"\bratio\b", name, re.I)
    if _key(stored) != "%" or not ratio or not all(0 < abs(b) <= 1 for b in bounds):
        return None
    return failed(
        "threshold_plausible",
        "value_implausible",
        f"{name!r} is stored as a percentage; the threshold {f.value.value:g} reads as a "
        f"fraction ({f.value.value * 100:g} %): say the threshold in %",
    )


def _implausible(f: Any, units: dict[str, int]) -> Check | None:
    """A threshold outside what the measurement can be in its one stored unit ('temperature
    above 101' on Celsius values, 'taller than 5.5' on centimetres): a unit left unsaid."""
    if len(units) != 1 or f.concepts is None or not f.concepts.concepts:
        return None
    stored = next(iter(units))
    if f.value.unit and _key(f.value.unit) != _key(stored):
        return None
    name = f.concepts.concepts[0].name or f.concepts.label or ""
    if not f.value.unit and (fraction := _fraction_of_percent(f, stored, name)) is not None:
        return fraction
    rng = plausible_range(name, stored) if name else None
    if rng is None:
        return None
    lo, hi = rng
    bounds = [f.value.value] + ([f.value.value2] if f.value.value2 is not None else [])
    if all(lo <= b <= hi for b in bounds):
        return None
    return failed(
        "threshold_plausible",
        "value_implausible",
        f"the threshold {f.value.value:g} is outside what {name!r} can be in {stored} "
        f"({lo:g}-{hi:g}): was it meant in another unit? say the unit",
    )


def check_thresholds(ctx: _Ctx, value_stats: Callable[..., Any]) -> list[Check]:
    """Per value threshold: plausible in the stored unit; if given with a unit, stored in that
    unit or converted from it.

    ``value_stats(ctx, streams, ids, column_of)`` gives (rows, rows with a value, {unit: n}) of
    the filtered events (the values check's own reader, handed in).
    """
    if ctx.plan is None:
        return []
    checks: list[Check] = []
    for f in _event_filters(ctx.plan):
        unit = str(f.value.unit)
        ids = [r.concept_id for r in f.concepts.concepts] if f.concepts is not None else None
        streams = [s for s in _streams_for(ctx.catalog, f.stream) if s.value_column]
        if not streams or (ids is not None and not all(i is not None for i in ids)):
            continue
        _, _, units = value_stats(ctx, streams, ids, lambda s: s.value_column)
        bad = _implausible(f, units)
        if bad is not None:
            checks.append(bad)
            continue
        if not units or not f.value.unit:
            continue  # no unit recorded: nothing to compare the threshold's with
        same = all(_key(u) == _key(unit) for u in units)
        unknown = not _known(unit) or not all(_known(u) for u in units)
        if same or unknown or engine_converts(units, unit, analyte_of_set(f.concepts)):
            checks.append(
                Check(
                    name="threshold_unit",
                    passed=True,
                    detail=f"threshold in {unit}; values stored in {sorted(units)}",
                )
            )
            continue
        label = f.concepts.label if f.concepts is not None else f.stream
        checks.append(
            failed(
                "threshold_unit",
                "unit_mixed",
                f"the threshold {f.value.value:g} is given in {unit!r}, but {label!r} values are "
                f"stored in {sorted(units)} and are not converted to it",
            )
        )
    return checks
