"""A gestation kept in two columns, its completed weeks and the days past them: ``GAWK``
'Gestational age at birth, completed weeks' and ``GADAY`` '..., additional days (0-6)'.

Where the dictionary labels two numeric columns with one stem and a tail that says completed
weeks on one and days (0 to 6) on the other, and the data agree (whole weeks from 20 to 45,
whole days from 0 to 6), a column of the gestation in weeks (weeks + days / 7) is derived under
the stem's label; the two parts leave the catalog (the table keeps them) and the report says so.
A row where either part is missing (a missing code, a blank) has no gestation.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from clinbridge.adapters.trial._codes import is_number
from clinbridge.adapters.trial._dictionary import Entry
from clinbridge.adapters.trial._sql_name import sql_name

if TYPE_CHECKING:
    from clinbridge.adapters.trial._report import TrialLoadReport

__all__ = ["PARTS_OF", "derive_weeks_days"]

PARTS_OF = "a part of"
"""``trial_variables.source`` of a weeks or days column a derived gestation stands for."""
_WEEKS = re.compile(r"^(?P<stem>.+?)\s*[,;:(-]\s*(?:in\s+)?completed\s+weeks\)?\s*$", re.I)
_DAYS = re.compile(
    r"^(?P<stem>.+?)\s*[,;:(-]\s*(?:additional\s+|extra\s+|plus\s+|and\s+)?days?"
    r"(?:\s+(?:past|beyond|after)\s+(?:the\s+)?(?:completed\s+)?weeks?)?\s*(?:\(\s*0\s*[-–]\s*6\s*\))?\)?\s*$",
    re.I,
)


def _present(entry: Entry, values: Any) -> np.ndarray:
    arr = np.asarray(values, dtype=float)
    codes = [float(c) for c in entry.missing if is_number(c)]
    return np.where(np.isin(arr, codes), np.nan, arr)


def derive_weeks_days(
    entries: list[tuple[Entry, str]], columns: dict[str, Any], report: TrialLoadReport
) -> None:
    """Derive each gestation kept as completed weeks and days (module docstring)."""
    numeric = [(e, c) for e, c in entries if e.numeric and not e.codes and e.source != "derived"]
    days_by_stem: dict[tuple[str, str | None], tuple[Entry, str]] = {}
    for e, c in numeric:
        m = _DAYS.match(e.label or "")
        if m and not _WEEKS.match(e.label or ""):
            days_by_stem.setdefault((m.group("stem").strip().lower(), e.time_point), (e, c))
    taken = {e.name.lower() for e, _ in entries}
    for weeks, wcol in numeric:
        m = _WEEKS.match(weeks.label or "")
        if m is None:
            continue
        stem = m.group("stem").strip()
        found = days_by_stem.get((stem.lower(), weeks.time_point))
        if found is None:
            continue
        days, dcol = found
        w, d = _present(weeks, columns[wcol]), _present(days, columns[dcol])
        both = ~np.isnan(w) & ~np.isnan(d)
        if not both.any() or (w[both] != np.round(w[both])).any():
            continue
        if w[both].min() < 20 or w[both].max() > 45 or d[both].min() < 0 or d[both].max() > 6:
            continue
        name = f"{weeks.name}_{days.name}"
        col = sql_name(name)
        if name.lower() in taken or col in columns:
            continue
        columns[col] = np.where(both, w + d / 7, np.nan)
        entry = Entry(
            name=name,
            label=stem,
            type="float",
            unit="weeks",
            time_point=weeks.time_point,
            time_point_text=weeks.time_point_text,
            trials=weeks.trials,
            form=weeks.form,
            source="derived",
        )
        for part in (weeks, days):
            part.source = f"{PARTS_OF} {name}"
        entries.append((entry, col))
        report.derived_columns.append(
            f"{name}: {stem!r} in weeks, from {weeks.name} (completed weeks) and {days.name} "
            "(days past them): weeks + days / 7; the two parts leave the catalog"
        )
