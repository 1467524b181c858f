"""'Since 1 January 2018 (up to today)', 'the last 30 days, from 2019-06-03 up to today': a
window's end said again as now.

A window that starts at a day and runs on, or one counted back from now, already ends now;
'up to today' beside it restates that end and is no second window (read alone, 'today' would
be one: the day itself). The restatement is dropped only where it closes such a window, and a
window back from now said again by its first day is kept only when that day is its own (within
a day), as ``._meta_asides`` does for the same words in parentheses.
"""

from __future__ import annotations

import datetime as dt
import re

__all__ = ["drop_until_now"]

_NOW = r"(?:up\s+)?(?:to|until|till|through|thru)\s+(?:today|now|the\s+present(?:\s+day)?)"
_OPEN_END = re.compile(
    r"\b(?P<w>(?:since|from|after|starting(?:\s+(?:on|in|from))?|beginning(?:\s+(?:on|in))?|"
    r"on\s+or\s+after)\s+[^,;()?]{3,30}?)\s*(?:,\s*)?(?P<p>\(\s*)?" + _NOW + r"\b(?(p)\s*\))"
)
_BACK = re.compile(
    r"\b(?P<w>(?:past|last|previous|prior|preceding)\s+(?P<n>\d+)\s*(?P<u>days?|weeks?|months?|years?))"
    r"\s*,\s*(?:i\.e\.,?\s*|that\s+is,?\s*)?(?:from|since)\s+(?P<d>[^,;()?]{6,24}?)\s*"
    + _NOW
    + r"\b"
)


def _back_start(n: int, unit: str, today: dt.date) -> dt.date:
    if unit.startswith("d"):
        return today - dt.timedelta(days=n)
    if unit.startswith("w"):
        return today - dt.timedelta(weeks=n)
    months = n * 12 if unit.startswith("y") else n
    y, m = divmod(today.year * 12 + today.month - 1 - months, 12)
    return dt.date(y, m + 1, min(today.day, 28))


def drop_until_now(text: str, today: dt.date | None) -> str:
    """``text`` without a restated 'up to today' closing a window that already ends now."""
    from clinbridge.engine.understand._time import iso_days, parse_date

    def back(m: re.Match[str]) -> str:
        day = parse_date(iso_days(m["d"]))
        if today is None or not isinstance(day, dt.date):
            return m[0]
        start = _back_start(int(m["n"]), m["u"].lower(), today)
        return m["w"] if abs((day - start).days) <= 3 else m[0]

    text = _BACK.sub(back, text)
    return _OPEN_END.sub(lambda m: m["w"] + " ", text)
