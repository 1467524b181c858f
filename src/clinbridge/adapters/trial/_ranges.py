"""Range declarations: a numeric field's allowed values written where codes would go.

``range 30 to 40`` · ``30-40`` · ``30 – 40 °C`` · ``[0, 10]`` · ``min 0, max 10`` ·
``between 500 and 6000`` · ``0..10`` · ``>= 0 and <= 10`` — a range, not the codes 30 and 40.
A range may share its cell with missing codes (``range 30 to 40; -999 = not done``):
:func:`split_range` returns the range and the rest. Values outside a declared range are listed
(:func:`outside`), not dropped; one that is a usual missing code (-999, 99, 8888) counts as missing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from clinbridge.adapters.trial._codes import is_number

__all__ = [
    "check_range",
    "outside",
    "range_lines",
    "sentinel_like",
    "split_range",
    "usual_codes_beside",
]

_NUM = r"[-+]?\d+(?:\.\d+)?"
_TAIL = r"(?:\s*\(?[^\d=:;()]{0,16}\)?)?\s*$"
"""A unit or a word after the range ('°C', '(integer)')."""
_PATTERNS = (
    re.compile(
        rf"^\s*(?:(?:valid|plausible|allowed|permitted|acceptable|possible)\s+)?"
        rf"(?:range|limits?|values?)?\s*(?:of\s+values?)?\s*[:=]?\s*(?:from\s+)?"
        rf"(?P<lo>{_NUM})\s*(?:-|–|—|\bto\b|\.\.)\s*(?P<hi>{_NUM}){_TAIL}",
        re.I,
    ),
    re.compile(
        rf"^\s*(?:range\s*[:=]?\s*)?[\[(]\s*(?P<lo>{_NUM})\s*[,;]\s*(?P<hi>{_NUM})\s*[\])]{_TAIL}",
        re.I,
    ),
    re.compile(
        rf"^\s*(?:range\s*[:=]?\s*)?between\s+(?P<lo>{_NUM})\s+and\s+(?P<hi>{_NUM}){_TAIL}", re.I
    ),
    re.compile(
        rf"^\s*min(?:imum)?\.?\s*[:=]?\s*(?P<lo>{_NUM})\s*[,;/]?\s*(?:and\s+)?"
        rf"max(?:imum)?\.?\s*[:=]?\s*(?P<hi>{_NUM}){_TAIL}",
        re.I,
    ),
    re.compile(
        rf"^\s*(?:x\s*)?(?:>=|≥)\s*(?P<lo>{_NUM})\s*(?:and|,|&)?\s*(?:x\s*)?(?:<=|≤)\s*(?P<hi>{_NUM}){_TAIL}",
        re.I,
    ),
    re.compile(rf"^\s*(?P<lo>{_NUM})\s*(?:<=|≤)\s*x\s*(?:<=|≤)\s*(?P<hi>{_NUM}){_TAIL}", re.I),
)


def _one(segment: str) -> tuple[float, float] | None:
    for pattern in _PATTERNS:
        m = pattern.match(segment)
        if m:
            lo, hi = float(m.group("lo")), float(m.group("hi"))
            if lo < hi:
                return lo, hi
    return None


@functools.lru_cache(maxsize=4096)
def split_range(text: str) -> tuple[tuple[float, float] | None, str]:
    """(the declared range or None, what else the cell says) — '30-40; -999 = not done'."""
    if not text or not re.search(r"\d", text):
        return None, text
    parts = re.split(r"\s*[;\n|]\s*", text.strip())
    for k, part in enumerate(parts):
        found = _one(part)
        if found:
            return found, "; ".join(p for i, p in enumerate(parts) if i != k and p)
    return None, text


def sentinel_like(x: float) -> bool:
    """-9, -99, 99, 999, 8888, -777...: one digit 7, 8 or 9 repeated, the usual missing codes."""
    if not float(x).is_integer():
        return False
    digits = str(abs(int(x)))
    return len(set(digits)) == 1 and digits[0] in "789" and (len(digits) >= 2 or x < 0 or x == 9)


def outside(arr: np.ndarray, present: np.ndarray, rng: tuple[float, float]) -> np.ndarray:
    """Indexes of the present values outside the declared range."""
    lo, hi = rng
    return np.flatnonzero(present & ((arr < lo) | (arr > hi)))


def check_range(
    entry: Any,
    arr: np.ndarray,
    stats: tuple[int, int, int],
    locate: Callable[..., dict[str, Any]],
    found: list[dict[str, Any]],
) -> tuple[int, int, int]:
    """List in ``found`` the values of one column outside its declared range; a usual missing
    code among them (-999, 99) becomes a missing code of the variable, said so in its label.

    ``stats``: the column's (blank, missing, value) cell counts, returned updated;
    ``locate(i, entry=, value=, reason=)``: the sheet, row and column of the i-th cell.
    """
    lo, hi = entry.range
    codes = [float(c) for c in entry.missing if is_number(c)]
    present = ~np.isnan(arr) & ~np.isin(arr, codes)
    moved = 0
    for i in outside(arr, present, (lo, hi)).tolist():
        x = float(arr[i])
        shown = str(int(x)) if x.is_integer() else f"{x:g}"
        if sentinel_like(x):
            entry.missing.setdefault(
                shown, "undeclared: outside the declared range, a usual missing code"
            )
            moved += 1
            action = "treated as missing (a usual missing code)"
        else:
            action = "kept as a value"
        where = locate(
            i, entry=entry, value=x, reason=f"outside the declared range {lo:g} to {hi:g}"
        )
        found.append({**where, "action": action})
    blank, missing, values = stats
    return blank, missing + moved, values - moved


def range_lines(found: list[dict[str, Any]]) -> list[str]:
    """The load report's line about values outside their declared range."""
    if not found:
        return []
    missing = sum(1 for f in found if f["action"].startswith("treated"))
    first = found[0]
    return [
        f"{len(found)} value(s) outside their variable's declared range ({missing} of them usual "
        f"missing codes, treated as missing); first: sheet {first['sheet']!r} row {first['row']} "
        f"column {first['column']} ({first['variable']}) = {first['value']!r}"
    ]


def usual_codes_beside(entry: Any, bad: np.ndarray, allowed: set[float]) -> list[float]:
    """The usual negative missing codes (-9, -99, -999, -88, -77) among a coded variable's
    values that are none of its codes, where the variable declares no missing code and all its
    codes are positive: missing codes declared nowhere (as a builder who states them once for
    the workbook, in words the loader did not read, leaves them), said so in their label.
    """
    if entry.missing or not allowed or min(allowed) < 0:
        return []
    usual = sorted({float(x) for x in bad.tolist() if x < 0 and sentinel_like(x)})
    for x in usual:
        entry.missing[str(int(x))] = "undeclared: a usual missing code"
    return usual
