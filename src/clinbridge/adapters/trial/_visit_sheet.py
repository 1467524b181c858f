"""Visit codes whose times stand on a visit schedule of their own (``Visits`` sheet).

A dictionary may give each variable's visit as a code (``V3``, ``FU18``, ``DSC``) that names no
time; a short sheet then lists every code with its nominal time::

    Visit code | Visit name        | Nominal time                | Window
    V3         | 24-hour assessment| hour 24 after randomisation | +/- 2 h
    D5         | Day 5             | postnatal day 5             | day 4-6

Such a sheet is found by content, whatever its name: a column holding the dictionary's visit
codes (at least two, and at most a row in four of anything else), beside columns whose cells read as time points. The
time of a code is read from the column whose header says it is a time (``Nominal time``,
``Timing``), else from the column where most cells read as one; a window or tolerance column is
never the time. A code the sheet gives no time (``Birth``) keeps none.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from clinbridge.adapters.trial._iso_time import time_point_of

if TYPE_CHECKING:
    from clinbridge.adapters.trial._dictionary import Entry
    from clinbridge.adapters.trial._read import Sheet

__all__ = ["apply_visit_times", "visit_times"]

_MOST_ROWS = 200
_TIME_HEAD = re.compile(r"\b(nominal|time|timing|scheduled|planned|target|when)\b", re.I)
_NOT_TIME = re.compile(r"\b(window|tolerance|range|allowed|deviation)\b", re.I)


def _key(v: Any) -> str | None:
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    text = str(v).strip()
    return text or None


def _schedule(sheet: Sheet, codes: set[str]) -> dict[str, str]:
    rows = [r for r in sheet.rows if any(_key(v) for v in r)]
    if len(rows) < 3 or len(rows) > _MOST_ROWS:
        return {}
    head, body = rows[0], rows[1:]
    width = max(len(r) for r in rows)
    cells = [[_key(r[j]) if j < len(r) else None for r in body] for j in range(width)]
    var = None
    for j in range(width):
        filled = [k for k in cells[j] if k is not None]
        hits = sum(k.lower() in codes for k in filled)
        # the dictionary's codes, and at most a row in four besides ('Day 1 / Day 2 / Day 7':
        # a note on days that are no codes), which the schedule then does not use
        if hits >= 2 and 4 * hits >= 3 * len(filled):
            var = j
            break
    if var is None:
        return {}
    heads = [str(head[j] or "") if j < len(head) else "" for j in range(width)]
    timed = {
        j: sum(1 for k in cells[j] if k is not None and time_point_of(k) is not None)
        for j in range(width)
        if j != var and not _NOT_TIME.search(heads[j])
    }
    order = sorted(
        (j for j, n in timed.items() if n),
        key=lambda j: (not _TIME_HEAD.search(heads[j]), -timed[j], j),
    )
    out: dict[str, str] = {}
    for i, code in enumerate(cells[var]):
        if code is None or code.lower() not in codes:
            continue
        for j in order:
            cell = cells[j][i]
            tp = time_point_of(cell) if cell is not None else None
            if tp is not None:
                out[code.lower()] = tp.text()
                break
    return out


def visit_times(sheets: list[Sheet], codes: set[str]) -> tuple[dict[str, str], str]:
    """({lower-case visit code: canonical time point}, the sheet's name) from the first sheet
    that lists the visit ``codes`` (lower case) with their times; ({}, '') when none does."""
    if len(codes) < 2:
        return {}, ""
    for sheet in sheets:
        found = _schedule(sheet, codes)
        if found:
            return found, sheet.name
    return {}, ""


def apply_visit_times(entries: list[Entry], sheets: list[Sheet]) -> list[str]:
    """Give each entry whose visit is a code on a visit schedule that visit's time; return the
    report's line ('' parts none)."""
    codes = {e.time_point_text.strip().lower() for e in entries if e.time_point_text}
    times, where = visit_times(sheets, codes)
    if not times:
        return []
    n = 0
    for e in entries:
        tp = times.get((e.time_point_text or "").strip().lower())
        if tp is not None:
            e.time_point = tp
            n += 1
    shown = ", ".join(f"{c.upper()} = {t}" for c, t in list(times.items())[:6])
    return [
        f"visit codes read as time points from sheet {where!r} ({len(times)} codes, "
        f"{n} variable(s)): {shown}" + (" ..." if len(times) > 6 else "")
    ]
