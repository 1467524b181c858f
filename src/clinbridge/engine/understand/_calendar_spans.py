"""Calendar spans written as a pair of ISO days, before the time patterns read them.

A span of the calendar can be written many ways; each is rewritten to the one form the time
grammar already reads exactly (``between <day> and <day>``, both days inclusive):

* a month range of one year: 'jan-jun 2018', 'january to june 2018', 'from March through May
  2019' → the first day of the first month to the last day of the last;
* a half or a quarter of a year: 'the first half of 2018', 'H2 2018', 'the third quarter of
  2019', 'Q3 2019';
* a day range sharing one year: '1 January to 30 June 2018' (the year written once, at the end);
* an interval with its bounds marked open or closed: '(2022-09-22, 2023-03-22]' (after the
  22nd, up to and including the 22nd), '[2018-01-01, 2018-07-01)', 'in (D1, D2)' (two round
  brackets alone may list two days, and are left);
* 'after <day>, up to <day>' (and 'on or after', 'up to and including', 'before'): one span,
  each side open or closed as its word says;
* '<day> to <day>', each day marked 'inclusive' or 'exclusive' (or 'both inclusive'; a day
  not marked is inside the span).

Days are written as ISO dates first (:func:`_time.iso_days`); a span whose days are not real
days, or whose end comes before its start, is left as written (and then read as unsupported,
never dropped).
"""

from __future__ import annotations

import calendar
import datetime as dt
import re

from clinbridge.engine.understand._time import MONTHS, iso_days

__all__ = ["calendar_spans"]

_MON = "(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?"
_ISO = r"\d{4}-\d{1,2}-\d{1,2}"
_TO = r"\s*(?:-|–|\bto\b|\bthrough\b|\bthru\b|\buntil\b|\btill\b)\s*"

_SHARED_YEAR = re.compile(
    rf"\b(?P<d1>\d{{1,2}})\s+(?P<m1>{_MON})\s*{_TO}\s*(?P<d2>\d{{1,2}})\s+(?P<m2>{_MON})\s+(?P<y>\d{{4}})\b"
)
_MONTH_RANGE = re.compile(
    rf"\b(?:(?:in|during|from|between)\s+)?(?P<m1>{_MON})\s*(?:{_TO}|\s+and\s+)\s*(?P<m2>{_MON})\s+(?P<y>\d{{4}})\b"
)
_ORDINAL = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
}
_PART = re.compile(
    r"\b(?:(?:in|during)\s+)?(?:the\s+)?(?P<o>first|1st|second|2nd|third|3rd|fourth|4th)\s+"
    r"(?P<p>half|quarter)\s+of\s+(?P<y>\d{4})\b"
    r"|\b(?:(?:in|during)\s+)?(?P<hq>[hq])(?P<k>[1-4])\s+(?P<y2>\d{4})\b"
)
_INTERVAL = re.compile(
    rf"(?:\b(?P<in>in|within)\s+)?(?P<lb>[(\[])\s*(?P<a>{_ISO})\s*,\s*(?P<b>{_ISO})\s*(?P<rb>[)\]])"
)
_AFTER_UP_TO = re.compile(
    rf"\b(?P<lo>on\s+or\s+after|after|from|since)\s+(?P<a>{_ISO})\s*[,;]?\s*(?:and\s+)?"
    rf"(?P<hi>up\s+to\s+and\s+including|up\s+to|until|till|through|to|on\s+or\s+before|before)\s+(?P<b>{_ISO})\b"
)

_BARE_SPAN = re.compile(
    rf"\b(?:(?:from|between)\s+)?(?P<a>{_ISO})(?:\s+(?P<ea>exclusive|inclusive))?{_TO}"
    rf"(?P<b>{_ISO})(?:\s+(?P<eb>exclusive|inclusive))?(?:\s*,?\s*both\s+(?P<both>inclusive|exclusive))?\b"
)


def _month(word: str) -> int:
    return MONTHS[word.rstrip(".")[:3]]


def _between(start: dt.date, end: dt.date, whole: str) -> str:
    if end < start:
        return whole
    return f"between {start.isoformat()} and {end.isoformat()}"


def _last_day(y: int, m: int) -> dt.date:
    return dt.date(y, m, calendar.monthrange(y, m)[1])


def _shared_year(m: re.Match[str]) -> str:
    y = m["y"]
    return f"{m['d1']} {m['m1']} {y} to {m['d2']} {m['m2']} {y}"


def _month_range(m: re.Match[str]) -> str:
    y = int(m["y"])
    return _between(dt.date(y, _month(m["m1"]), 1), _last_day(y, _month(m["m2"])), m[0])


def _part(m: re.Match[str]) -> str:
    if m["o"]:
        k, y, half = _ORDINAL[m["o"]], int(m["y"]), m["p"] == "half"
    else:
        k, y, half = int(m["k"]), int(m["y2"]), m["hq"] == "h"
    if half and k > 2:
        return m[0]
    months = 6 if half else 3
    first = (k - 1) * months + 1
    return _between(dt.date(y, first, 1), _last_day(y, first + months - 1), m[0])


def _day(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat("-".join(p.zfill(2) for p in text.split("-")))
    except ValueError:
        return None


def _interval(m: re.Match[str]) -> str:
    a, b = _day(m["a"]), _day(m["b"])
    if a is None or b is None or (m["lb"] + m["rb"] == "()" and not m["in"]):
        return m[0]  # '(D1, D2)' alone may list two days; 'in (D1, D2)' is the interval
    start = a + dt.timedelta(days=1) if m["lb"] == "(" else a
    end = b - dt.timedelta(days=1) if m["rb"] == ")" else b
    return _between(start, end, m[0])


def _after_up_to(m: re.Match[str]) -> str:
    a, b = _day(m["a"]), _day(m["b"])
    if a is None or b is None:
        return m[0]
    start = a + dt.timedelta(days=1) if m["lo"] == "after" else a
    end = b - dt.timedelta(days=1) if m["hi"] == "before" else b
    return _between(start, end, m[0])


def _bare_span(m: re.Match[str]) -> str:
    a, b = _day(m["a"]), _day(m["b"])
    if a is None or b is None:
        return m[0]
    start_open = (m["ea"] or m["both"]) == "exclusive"
    end_open = (m["eb"] or m["both"]) == "exclusive"
    start = a + dt.timedelta(days=1) if start_open else a
    end = b - dt.timedelta(days=1) if end_open else b
    return _between(start, end, m[0])


def calendar_spans(text: str) -> str:
    """``text`` with its days as ISO dates and its calendar spans as 'between <day> and <day>'
    (see the module's docstring); anything else is left as it is."""
    text = _SHARED_YEAR.sub(_shared_year, text)
    text = iso_days(text)
    text = _MONTH_RANGE.sub(_month_range, text)
    text = _PART.sub(_part, text)
    text = _INTERVAL.sub(_interval, text)
    text = _AFTER_UP_TO.sub(_after_up_to, text)
    return _BARE_SPAN.sub(_bare_span, text)
