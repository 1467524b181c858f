"""The validator's check of value thresholds given with a unit (see :mod:`clinbridge.engine.validate`).

'weight over 200 lb', 'temperature of 100.4 °F or more', 'height above 6 feet': a threshold the
question states in a unit is compared with values the source stores in its own unit. The
compiled plans convert mass, length and temperature row by row (``_units.in_unit``); any other
pair of units would compare the bare numbers (200 'lb' against kilograms, 6 'feet' against
centimetres) and count the wrong patients. This check passes a threshold whose unit is the
stored one (spelled either way) or one the engine converts from every stored unit, and fails
any other pair of units it knows apart, naming both, so that the answer abstains instead; a
spelling it does not know is left as before (compared as stored).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from clinbridge.engine._checks import Check, _Ctx, _streams_for, failed
from clinbridge.engine._shapes import _norm_unit
from clinbridge.engine._units import engine_converts

__all__ = ["check_thresholds"]

# spellings of one unit (thousands per microlitre = 10^9 per litre; beats per minute = /min)
_SAME: dict[str, str] = {
    **dict.fromkeys(
        ("10*3/ul", "x10^3/ul", "10^3/ul", "k/ul", "thou/ul", "10*9/l", "x10^9/l", "10^9/l"),
        "10*3/ul",
    ),
    **dict.fromkeys(("beatsperminute", "beats/minute", "beats/min", "{beats}/min", "bpm"), "/min"),
    **dict.fromkeys(("percent", "pct"), "%"),
}
# units told apart for sure: a threshold or a stored unit outside this list is left as it was
# (compared as stored), since an unknown spelling may well be the stored unit
_KNOWN = frozenset(
    {
        *("mg/dl", "mmol/l", "umol/l", "g/dl", "g/l", "mg/l", "ng/ml", "pg/ml", "u/l"),
        *("iu/l", "meq/l", "%", "mmol/mol", "/min", "mm[hg]", "kg/m2", "10*3/ul", "/ul"),
    }
)


def _key(unit: str) -> str:
    u = _norm_unit(unit)
    return _SAME.get(u, u)


def _known(unit: str) -> bool:
    k = _key(unit)
    return k in _KNOWN or engine_converts([unit], unit)


def _event_filters(plan: Any) -> list[Any]:
    out = []
    for f in getattr(plan, "filters", ()) or ():
        value = getattr(f, "value", None)
        if getattr(f, "kind", None) == "event" and value is not None and value.unit:
            out.append(f)
    return out


def check_thresholds(ctx: _Ctx, value_stats: Callable[..., Any]) -> list[Check]:
    """One check per value threshold with a unit: stored in that unit, or converted from it.

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
        if not units:
            continue  # no unit recorded: nothing to compare the threshold's with
        same = all(_key(u) == _key(unit) for u in units)
        unknown = not _known(unit) or not all(_known(u) for u in units)
        if same or unknown or engine_converts(units, unit):
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
