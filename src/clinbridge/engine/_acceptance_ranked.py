"""Patients ranked by their own lowest / highest value: one unit, or no ranking.

'Which patient had the highest temperature' ranks each patient's extreme value
(``Aggregate.rank_by`` ``lowest`` / ``highest``); where the values are stored in several units
(°C and °F, kg and lb), the least number is not the least quantity, and the ranking abstains
naming the units, as a min or max of those values does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinbridge.engine._checks import _streams_for, failed, resolve_concept_ids

if TYPE_CHECKING:
    from clinbridge.engine._checks import Check, _Ctx


def ranked_units(ctx: _Ctx) -> list[Check]:
    """A failed check for a ranking by value over values stored in several units."""
    from clinbridge.engine._checks_values import _value_stats
    from clinbridge.engine._shapes import _norm_unit

    plan = ctx.plan
    if plan is None or plan.aggregate.rank_by not in {"lowest", "highest"}:
        return []
    m = plan.measure
    if m.stream is None or m.concepts is None:
        return []
    streams = list(_streams_for(ctx.catalog, m.stream))
    ids: list[object] = []
    for s in streams:
        ids += resolve_concept_ids(ctx.catalog, ctx.db, s, m.concepts)
    if not streams or not ids:
        return []
    _, _, units = _value_stats(ctx, streams, ids, lambda s: s.value_column)
    if len({_norm_unit(u) for u in units}) <= 1:
        return []
    return [
        failed(
            "units_consistent",
            "unit_mixed",
            f"{m.concepts.describe()!r} values are stored in several units {sorted(units)}: "
            "patients cannot be ranked by them",
        )
    ]
