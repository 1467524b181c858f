"""Gestational ages written in completed weeks and days ('38+4', '40 + 0'), read as weeks.

Obstetric and neonatal records write a gestation as its completed weeks, a plus and the days
past them (0 to 6): ``38+4`` is 38 weeks and 4 days, 38.57 weeks. A text column whose values are
written so (nine in ten at least, the rest left for the missing codes to account for), whose
label or unit speaks of weeks or gestation, becomes a number of weeks; the report lists it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinbridge.adapters.trial._dictionary import Entry

__all__ = ["weeks_and_days"]

_WD = re.compile(r"^\s*(\d{1,2})\s*\+\s*([0-6])\s*$")
_WEEKS = re.compile(r"\bweeks?\b|\bwks?\b|gestation|\bGA\b|post[\s-]?menstrual", re.I)


def weeks_and_days(entry: Entry, raw: list[Any]) -> list[Any] | None:
    """The column's values in weeks ('38+4' → 38.571...), or None when it is not written so."""
    if entry.numeric or entry.codes or not _WEEKS.search(f"{entry.label} {entry.unit or ''}"):
        return None
    filled = [v for v in raw if v is not None and str(v).strip()]
    hits = [v for v in filled if isinstance(v, str) and _WD.match(v)]
    if len(hits) < 10 or len(hits) < 0.9 * len(filled):
        return None
    out: list[Any] = []
    for v in raw:
        m = _WD.match(v) if isinstance(v, str) else None
        out.append(int(m.group(1)) + int(m.group(2)) / 7 if m else v)
    entry.type, entry.typed = "float", True
    if not entry.unit or "+" in entry.unit or _WEEKS.search(entry.unit):
        entry.unit = "weeks"
    return out
