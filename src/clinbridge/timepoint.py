"""Time points of trial variables, as dictionaries, column names and questions write them.

``parse_time_point("24 h") == parse_time_point("H24") == parse_time_point("at 24 hours")``;
``day 3`` is 72 hours (cooling trials count days of life from birth in 24-hour blocks);
months, minutes, baseline and discharge are their own scales. The canonical text
(:func:`canonical`) is what the catalog stores and what questions are compared against.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = [
    "TimePoint",
    "canonical",
    "find_time_points",
    "parse_time_point",
    "time_in_label",
    "time_in_name",
]


class TimePoint(NamedTuple):
    """A time point of a trial visit: an amount on a scale (hours, minutes, months) or a named moment."""

    scale: str
    """'h' (hours; days are 24 h), 'min', 'mo' (months; years are 12 mo), 'baseline', 'discharge'."""
    amount: float

    def text(self) -> str:
        """The time point in its canonical words ('24 h', '3 months', 'baseline')."""
        n = int(self.amount) if float(self.amount).is_integer() else self.amount
        if self.scale == "h":
            return f"{n} h"
        if self.scale == "min":
            return f"{n} min"
        if self.scale == "mo":
            return f"{n} months"
        return self.scale


_NUM = r"(\d+(?:\.\d+)?)"
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_PATTERNS: tuple[tuple[re.Pattern[str], str, float], ...] = (
    (re.compile(rf"\b{_NUM}\s*-?\s*(?:h|hr|hrs|hour|hours)\b", re.I), "h", 1.0),
    (re.compile(rf"\b(?:h|hr|hour)\s*{_NUM}\b", re.I), "h", 1.0),
    (re.compile(rf"\bday\s*(?:of\s+life\s*)?{_NUM}\b", re.I), "h", 24.0),
    (
        re.compile(
            rf"\b{_NUM}\s*-?\s*(?:d|days?)\b(?!\s+of\s+(?:mechanical|ventilation|stay))", re.I
        ),
        "h",
        24.0,
    ),
    (re.compile(rf"\b{_NUM}\s*-?\s*(?:min|mins|minutes?)\b", re.I), "min", 1.0),
    (re.compile(rf"\b{_NUM}\s*-?\s*(?:m|mo|mos|months?)\b", re.I), "mo", 1.0),
    (re.compile(rf"\bmonth\s*{_NUM}\b", re.I), "mo", 1.0),  # 'Month 18', as visits are named
    (re.compile(rf"\b{_NUM}\s*-?\s*(?:y|yr|yrs|years?)\b(?!\s+old)", re.I), "mo", 12.0),
)
_UNIT_SCALES: dict[str, tuple[str, float]] = {
    "h": ("h", 1.0),
    "hr": ("h", 1.0),
    "hour": ("h", 1.0),
    "day": ("h", 24.0),
    "min": ("min", 1.0),
    "minute": ("min", 1.0),
    "month": ("mo", 1.0),
}
_RANGE = re.compile(
    rf"\b(?:between|from)\s+(?P<a>{_NUM})\s*(?:and|to|-)\s*(?P<b>{_NUM})\s*"
    r"(?P<unit>hours?|hrs?|h|days?|minutes?|min|months?)\b",
    re.I,
)
_BASELINE = re.compile(
    r"(?<!after )(?<!before )(?<!since )(?<!prior to )(?<!post )(?<!post-)(?<!following )"
    r"\b(baseline|randomi[sz]ation|study entry|at entry|enrol?ment"
    r"|(?<!data )(?<!double )entry(?!\s*(?:dates?|forms?|by|users?|status|times?|criteria)\b))\b",
    re.I,
)
"""'at randomisation', 'Entry' (an assessment), 'from entry to 72 hours'; not 'data entry', and
not a window that starts or ends there ('seizures after randomisation', 'before enrolment')."""
_DISCHARGE = re.compile(r"\b(discharge|at discharge)\b", re.I)


def parse_time_point(text: str | None) -> TimePoint | None:
    """The time point a short text names ('24 h', 'Day 3', '18 months', 'Baseline'), or None."""
    if not text:
        return None
    found = find_time_points(text)
    return found[0][0] if found else None


def canonical(text: str | None) -> str | None:
    """The canonical words of the time point in ``text``, or None when it names none."""
    tp = parse_time_point(text)
    return tp.text() if tp else None


def find_time_points(text: str) -> list[tuple[TimePoint, tuple[int, int]]]:
    """Every time point a question mentions, with its character span, in order."""
    lowered = re.sub(
        r"\b(one|two|three|four|five|six|seven)\b(?=\s*(?:days?|months?|hours?))",
        lambda m: str(_WORDS[m.group(1).lower()]),
        text,
    )
    out: list[tuple[TimePoint, tuple[int, int]]] = []
    taken: list[tuple[int, int]] = []
    # 'between 0 and 48 hours', 'from 6 to 24 h': the unit is written once, after the second
    for m in _RANGE.finditer(lowered):
        unit = m.group("unit").lower()
        scale, factor = _UNIT_SCALES[unit.rstrip("s") if unit not in _UNIT_SCALES else unit]
        for g in ("a", "b"):
            out.append((TimePoint(scale, float(m.group(g)) * factor), m.span(g)))
        taken.append(m.span())
    for pattern, scale, factor in _PATTERNS:
        for m in pattern.finditer(lowered):
            span = m.span()
            if any(a < span[1] and span[0] < b for a, b in taken):
                continue
            taken.append(span)
            out.append((TimePoint(scale, float(m.group(1)) * factor), span))
    for pattern, scale in ((_BASELINE, "baseline"), (_DISCHARGE, "discharge")):
        for m in pattern.finditer(lowered):
            out.append((TimePoint(scale, 0.0), m.span()))
    out.sort(key=lambda x: x[1][0])
    return out


_SEP = r"[_.@\-+ ]"
"""What parts a column name: 'temp_24h', 'bayley.m18', 'TEMP@24h', 'hr-72h', 'T+36h'."""
_NAME_PATTERNS = (
    re.compile(rf"(?:^|{_SEP})(\d+)_?h(?:rs?)?(?:$|{_SEP})", re.I),  # TEMP_24H, hr_48h, TEMP@24h
    re.compile(rf"(?:^|{_SEP})h(\d+)(?:$|{_SEP})", re.I),  # map_h72
    re.compile(r"(\d+)h$", re.I),  # Gluc0h
    re.compile(rf"(?:^|{_SEP})t\+(\d+)(?:$|{_SEP})", re.I),  # temp_T+36
)
_NAME_DAYS = re.compile(rf"(?:^|{_SEP})d(?:ay)?0*(\d+)$", re.I)  # crp_d3, lact.D03, gluc-day3
_NAME_MONTHS = (
    re.compile(rf"(?:^|{_SEP})m(?:o|th)?0*(\d+)$", re.I),  # bayley.m18, bsid_M18, cog_mo18
    re.compile(rf"(?:^|{_SEP})(\d+)(?:m|mo|mth)$", re.I),  # dis_18m, cog.18mo
)


def time_in_name(name: str) -> TimePoint | None:
    """A time point written into a column name (``TEMP_24H``, ``map_h72``, ``Gluc0h``, ``X_D3``,
    ``bayley.m18``, ``TEMP@24h``, ``T+36h``, ``hr-72h``)."""
    for p in _NAME_PATTERNS:
        m = p.search(name)
        if m:
            return TimePoint("h", float(m.group(1)))
    m = _NAME_DAYS.search(name)
    if m:
        return TimePoint("h", 24.0 * float(m.group(1)))
    for p in _NAME_MONTHS:
        m = p.search(name)
        if m:
            return TimePoint("mo", float(m.group(1)))
    # 'Temp (24 h)', 'bayley_cog_18mo', 'apgar_10min', 'sz_day3': one time point in the words
    found = {tp for tp, _ in find_time_points(re.sub(r"[_()\[\]]+", " ", name))}
    timed = [tp for tp in found if tp.scale in {"h", "min", "mo"}]
    return timed[0] if len(timed) == 1 and len(found) == 1 else None


_LABEL_TIME = re.compile(
    r"(?:\bat\s+(?:age\s+)?|\(\s*|,\s*|\s[-–]\s*)(?P<tp>[^(),;]{1,24}?)\s*(?:\)|$)", re.I
)


def time_in_label(label: str) -> TimePoint | None:
    """The time point a label states as when it was taken ('Core temperature at 24 hours',
    'Lactate (72 h)', 'Bayley cognitive, 18 months'), never a window ('seizures in the first
    72 hours' is no time point)."""
    for m in _LABEL_TIME.finditer(label):
        tp = parse_time_point(m.group("tp"))
        if tp is not None and tp.scale in {"h", "min", "mo"}:
            return tp
    return None
