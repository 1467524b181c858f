"""'mean(rSO2_48h - rSO2_24h)': a data manager's within-subject change, written as the summary of
one column minus another. When both columns are one measurement (the same label and unit) at two
time points, the later minus the earlier, it is the change between them ('mean change in
Cerebral oxygen saturation from 24 h to 48 h'); any other pair is left as written, for the
minus check to abstain on."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from clinbridge.timepoint import parse_time_point

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["column_change_rewrites"]

_RANK = {"baseline": 0, "min": 1, "h": 2, "mo": 3, "discharge": 4}


def _order(time_point: str | None) -> tuple[int, float] | None:
    tp = parse_time_point(time_point)
    return None if tp is None else (_RANK.get(tp.scale, 5), tp.amount)


def column_change_rewrites(
    catalog: Catalog,
) -> list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]]:
    """The rewrite of 'mean(A - B)' / 'median(A - B)' for columns A and B of one measurement."""
    by_name = {
        v.name.lower(): v
        for v in catalog.variables
        if v.time_point and v.type in {"float", "integer"} and not v.codes
    }
    if len(by_name) < 2:
        return []

    def sub(m: re.Match[str]) -> str:
        a, b = by_name.get(m.group("a").lower()), by_name.get(m.group("b").lower())
        if a is None or b is None or a is b:
            return m.group(0)
        if (a.description or "").lower() != (b.description or "").lower() or a.unit != b.unit:
            return m.group(0)
        later, earlier = _order(a.time_point), _order(b.time_point)
        if later is None or earlier is None or later <= earlier:
            return m.group(0)
        label = re.sub(r"[,:]", " ", a.description or a.name)
        return f"{m.group('f')} change in | {label} | from {b.time_point} to {a.time_point}"

    pattern = re.compile(
        r"\b(?P<f>mean|median|average)\s*\(\s*(?P<a>[A-Za-z][\w.]*)\s*[-−–]\s*(?P<b>[A-Za-z][\w.]*)\s*\)",
        re.I,
    )
    return [(pattern, sub)]
