"""Time expressions: calendar ranges, windows relative to now, to the observation period, and
to another event ("within 30 days after the first X", "in the year before X", "before the first
Y"). Anchored expressions return the anchor phrase, which the parser grounds like any other.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

__all__ = [
    "DAY_PATTERN",
    "MONTHS",
    "TimeSpec",
    "days_of",
    "iso_days",
    "parse_date",
]

MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m} | {
    m.lower(): i for i, m in enumerate(calendar.month_abbr) if m
}

_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}


def days_of(n: float, unit: str) -> int:
    """Days in ``n`` units (a month is 30 days, a year 365)."""
    u = unit.lower().rstrip("s")
    if u not in _UNIT_DAYS:
        raise ValueError(f"unknown time unit {unit!r}")
    return round(float(n) * _UNIT_DAYS[u])


@dataclass(frozen=True)
class TimeSpec:
    """A parsed time expression, not yet tied to a plan.

    kind: ``calendar`` (start/end dates), ``now`` (start_days/end_days relative to now),
    ``patient`` (relative to a patient point such as observation_start) or ``event``
    (relative to the first/last event named by ``anchor_text``).
    """

    kind: str
    start: dt.date | None = None
    end: dt.date | None = None
    start_days: int | None = None
    end_days: int | None = None
    point: str | None = None
    anchor_text: str | None = None
    which: str = "first"
    relative_year: int | None = None
    """For 'last year'/'this year' (and month, week, day): offset in calendar units from now's."""
    relative_unit: str = "year"
    ago: bool = False
    """'since 3 months ago': from now minus ``-relative_year`` units, with no end."""
    month_day: tuple[int, int] | None = None
    """'on 11/26/this year': that month and day of the relative year."""
    start_at: dt.datetime | None = None
    """'since 3 days ago' from a 'now' with a time of day: the start to the minute."""
    through_now: bool = False
    """'in the last 6 months': after now minus ``-relative_year`` calendar units, up to now."""


def parse_date(text: str, *, end: bool = False) -> dt.date | None:
    """'2019', '2019-03', '2019-03-04', 'march 2019' → a date (first or last day when ``end``)."""
    t = text.strip().lower()
    m = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", t)
    if m:
        try:
            return dt.date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            return None
    m = re.fullmatch(r"(\d{1,2})/(\d{1,2})/(\d{4})", t)  # month/day/year
    if m and 1 <= int(m[1]) <= 12:
        return dt.date(int(m[3]), int(m[1]), int(m[2]))
    m = re.fullmatch(r"(\d{1,2})/(\d{4})", t)  # month/year
    if m and 1 <= int(m[1]) <= 12:
        y, mo = int(m[2]), int(m[1])
        return dt.date(y, mo, calendar.monthrange(y, mo)[1] if end else 1)
    m = re.fullmatch(r"(\d{4})-(\d{1,2})", t)
    if m:
        y, mo = int(m[1]), int(m[2])
        return dt.date(y, mo, calendar.monthrange(y, mo)[1] if end else 1)
    m = re.fullmatch(r"([a-z]+)\.?\s+(\d{4})", t)
    if m and m[1] in MONTHS:
        y, mo = int(m[2]), MONTHS[m[1]]
        return dt.date(y, mo, calendar.monthrange(y, mo)[1] if end else 1)
    m = re.fullmatch(r"(\d{4})", t)
    if m and 1800 <= int(m[1]) <= 2200:
        return dt.date(int(m[1]), 12, 31) if end else dt.date(int(m[1]), 1, 1)
    return None


_MONTH_NAMES = "|".join(sorted((k for k in MONTHS if len(k) >= 3), key=len, reverse=True))
DATE = rf"(?:\d{{1,2}}/\d{{1,2}}/\d{{4}}|\d{{1,2}}/\d{{4}}|\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{4}}-\d{{1,2}}|(?:{_MONTH_NAMES})\.?\s+\d{{4}}|(?<![\d.])(?:18|19|20|21)\d{{2}}(?![\d.]))"
UNIT = r"(?P<u>day|week|month|year)s?"
NUM = r"(?P<n>\d+(?:\.\d+)?)"
_ANCHOR_END = (
    r"(?=\s*(?:,|;|\band\b|\bbut\b|\bwho\b|\bwhich\b|\bamong\b|\bby\s+(?:sex|gender|year|age)|\bper\b"
    r"|\bin\s+(?:18|19|20)\d\d|\bduring\b|\bwithin\b|\bbetween\b|\bsince\b|⟦|$"
    r"|\bhow\s+many\b|\bcount\b|\bnumber\s+of\b|\s-\s|\())"
)
_WHICH = r"(?:(?:the|their|his|her|its|a|an|this\s+patient\s+'s|the\s+patient\s+'s)\s+)?(?P<which>first|initial|earliest|index|last|latest|final|most\s+recent|starting|initiating|beginning|start\s+of|initiation\s+of)?\s*"

ISO_DAY = r"(?P<day>\d{4}-\d{1,2}-\d{1,2})"
_DAY_NOUN = (
    r"(?P<noun>(?:exposures?|prescriptions?|diagnos[ie]s|conditions?|procedures?|visits?|"
    r"encounters?|admissions?|measurements?|tests?|events?|records?|drugs?|medications?)\s+)"
)
_MON = r"(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DAY_FORMS = re.compile(
    rf"\b(?P<d1>\d{{1,2}})\s+{_MON}\s+(?P<y1>\d{{4}})\b"
    rf"|\b{_MON.replace('mon>', 'mon2>')}\s+(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y2>\d{{4}})\b"
    r"|\b(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y3>\d{4})\b"
)


def iso_days(text: str) -> str:
    """Write the days of a question as ISO dates: '10 november 1957', 'nov 10, 1957' and
    '11/10/1957' → '1957-11-10'. A slashed date is month/day/year (the US order of the
    sources' own dates) unless its first number cannot be a month; one that is not a real
    day is left as it is (and read as unsupported)."""

    def iso(m: re.Match[str]) -> str:
        g = m.groupdict()
        if g["y3"]:
            a, b, y = int(g["a"]), int(g["b"]), int(g["y3"])
            mo, d = (b, a) if a > 12 else (a, b)
        else:
            mon = (g["mon"] or g["mon2"])[:3]
            mo, d, y = MONTHS[mon], int(g["d1"] or g["d2"]), int(g["y1"] or g["y2"])
        try:
            return dt.date(y, mo, d).isoformat()
        except ValueError:
            return m[0]

    return _DAY_FORMS.sub(iso, text)


DAY_PATTERN = re.compile(
    r"\b(?:(?:on|dated|for)\s+(?:the\s+)?(?:(?:day|date)\s+(?:of\s+)?)?"
    r"|(?:with|having)\s+(?:an?\s+|the\s+)?(?:start(?:ing)?\s+)?date\s+(?:of\s+|=\s*|:\s*)?"
    rf"|{_DAY_NOUN}(?:starting|started|beginning|began|dated)\s+(?:on\s+)?)"
    rf"{ISO_DAY}\b"
    r"(?!\s+(?:or|and)\s+(?:later|after|afterwards?|onwards?|beyond|since|earlier|before)\b)"
)
"""One calendar day ("on 2019-03-04", "exposures starting 2019-03-04", "with start date ...");
days are written as ISO dates first (:func:`iso_days`)."""

PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # first N units of observation / follow-up
    (
        "observation",
        re.compile(
            rf"\b(?:in|during|within|over)\s+(?:the\s+|their\s+|his\s+|her\s+)?(?P<pos>first|last)\s+(?:{NUM}\s+)?{UNIT}\s+"
            r"(?:of|after\s+the\s+start\s+of|since\s+the\s+start\s+of)\s+(?:their\s+|the\s+|his\s+|her\s+)?"
            r"(?:observation(?:\s+period)?|follow[- ]?up|enrol?ment|records?|data|history)\b"
        ),
    ),
    # "in the 6 months before today", "the 365 days up to now": relative to now
    (
        "now2",
        re.compile(
            rf"\b(?:in|during|within|over|for)\s+the\s+(?:(?:last|past|previous|preceding|prior)\s+)?{NUM}\s+{UNIT}\s+"
            r"(?:before|prior\s+to|preceding|up\s+to|leading\s+up\s+to|until)\s+(?:today|now|the\s+present)\b"
        ),
    ),
    # "in the year before 2019-07-03", "within 30 days after 2020-01-15": N units beside a day
    (
        "date_n",
        re.compile(
            rf"\b(?:within|in|during|over)\s+(?:the\s+)?(?:{NUM}\s+)?{UNIT}\s+"
            r"(?P<dir>before|prior\s+to|preceding|leading\s+up\s+to|after|following|from|since)\s+"
            r"(?:(?:the\s+)?(?:date\s+|day\s+)?)(?P<a>\d{4}-\d{1,2}-\d{1,2})\b"
        ),
    ),
    # within N units after/before <anchor>
    (
        "event_n",
        re.compile(
            rf"\b(?:within|in|during|over)\s+(?:the\s+)?(?:first\s+|next\s+)?(?:{NUM}\s+)?{UNIT}\s+(?P<dir>after|following|of|from|since|before|prior\s+to|preceding|leading\s+up\s+to)\s+"
            rf"{_WHICH}(?P<anchor>.+?){_ANCHOR_END}"
        ),
    ),
    (  # "0-60 days after the first X", "from 7 to 30 days before X"
        "event_range",
        re.compile(
            rf"\b(?:from\s+|between\s+)?(?P<a>\d+)\s*(?:-|–|to|and)\s*(?P<b>\d+)\s+{UNIT}\s+"
            rf"(?P<dir>after|following|from|since|before|prior\s+to|preceding)\s+"
            rf"{_WHICH}(?P<anchor>.+?){_ANCHOR_END}"
        ),
    ),
    (
        "event_n2",
        re.compile(
            rf"\b{NUM}\s+{UNIT}\s+or\s+(?:less|fewer)\s+(?P<dir>after|before)\s+{_WHICH}(?P<anchor>.+?){_ANCHOR_END}"
        ),
    ),
    # relative to now
    (
        "now",
        re.compile(
            rf"\b(?P<prep>in|during|within|over|for)\s+the\s+(?P<lw>last|past|previous|preceding|prior)\s+(?:{NUM}\s+)?{UNIT}\b"
        ),
    ),
    ("now2", re.compile(rf"\b(?:in|during|within)\s+(?:the\s+)?(?:last|past)\s+{NUM}\s+{UNIT}\b")),
    # "since 3 months ago": from that point up to now
    ("ago", re.compile(rf"\b(?:since|from|after|starting)\s+{NUM}\s+{UNIT}\s+ago\b")),
    # "dated 2000-01-01 or later", "in 2015 or earlier": an open end on that date's side
    (
        "or_later",
        re.compile(
            rf"\b(?:(?:on|in|from|dated)\s+)?(?P<a>{DATE})\s+(?:or|and)\s+(?:later|after(?:wards?)?|onwards?|beyond|since)\b"
        ),
    ),
    (
        "or_earlier",
        re.compile(rf"\b(?:(?:on|in|dated)\s+)?(?P<a>{DATE})\s+(?:or|and)\s+(?:earlier|before)\b"),
    ),
    # one calendar day: "on 2100-03-12", "on 03/12/2100", "on 11/26/this year", "on 12/24/last year"
    (
        "md_day",
        re.compile(
            r"(?:\b(?:on|in|during)\s+(?:the\s+(?:day|date)\s+)?)?(?<![\d/])(?P<md>\d{1,2}/\d{1,2})/(?:(?P<y>\d{4})\b|(?P<rel>this|last|previous|current)\s+year\b)"
            r"|\bon\s+(?P<a>\d{4}-\d{1,2}-\d{1,2})\b"
        ),
    ),
    (
        "relyear",
        re.compile(
            r"\b(?:in\s+|during\s+|on\s+)?(?P<rel>last|this|previous|current|past)\s+"
            r"(?:calendar\s+)?(?P<ru>year|month|week|day)\b"
        ),
    ),
    ("relday", re.compile(r"\b(?:on\s+|since\s+)?(?P<rel>today|yesterday)\b")),
    (
        "between",
        re.compile(
            rf"\b(?:between|from)\s+(?P<a>{DATE})\s+(?:and|to|through|until|till|-)\s+(?P<b>{DATE})\b"
        ),
    ),
    (
        "range",
        re.compile(
            r"\b(?:in|during)?\s*(?P<a>(?:18|19|20)\d{2})\s*(?:-|–|\bthrough\b|\bthru\b|\bto\b)\s*"
            r"(?P<b>(?:18|19|20)\d{2})\b"
        ),
    ),
    (
        "since",
        re.compile(
            rf"\b(?P<dir>since|from|after|starting(?:\s+in)?|beginning(?:\s+in)?|on\s+or\s+after)\s+(?P<a>{DATE})\b"
        ),
    ),
    (
        "until",
        re.compile(
            rf"\b(?P<dir>before|prior\s+to|until|till|up\s+to|by|on\s+or\s+before)\s+(?P<a>{DATE})\b"
        ),
    ),
    (
        "in",
        re.compile(
            rf"\b(?:in|during|within|for|throughout)\s+(?:(?:the\s+)?(?:year|calendar\s+year)\s+)?(?P<a>{DATE})\b"
        ),
    ),
    (  # "encounters with a 2022 start date"
        "in",
        re.compile(
            rf"\b(?:with|having)\s+(?:an?\s+|the\s+)?(?P<a>{DATE})\s+"
            r"(?:(?:start(?:ing)?|admission|visit|diagnosis|event)\s+)?date\b"
        ),
    ),
    (  # "in the 1990s", "during the 90s" (a two-digit decade needs 'the': 'their 60s' is an age)
        "decade",
        re.compile(
            r"\b(?:in|during|throughout)\s+(?:the\s+)?(?P<c>18|19|20)(?P<d>\d)0\s*'?s\b"
            r"|\b(?:in|during|throughout)\s+the\s+'?(?P<d2>[2-9])0\s*'?s\b"
        ),
    ),
    # "on the same (calendar) day as a stroke diagnosis": the day of any such event (or of the
    # first, when said), compared by calendar day
    (
        "same_day",
        re.compile(
            r"\b(?:(?:on|at)\s+)?(?:the\s+)?(?:very\s+)?same\s+(?:calendar\s+)?(?:day|date)\s+(?:as|that)\s+"
            rf"{_WHICH}(?P<anchor>.+?){_ANCHOR_END}"
        ),
    ),
    # open-ended relative to an anchor (no length)
    (
        "event_open",
        re.compile(
            rf"\b(?P<dir>before|after|following|prior\s+to|preceding|since)\s+(?!(?:the\s+)?age\b|\d)"
            rf"{_WHICH}(?P<anchor>.+?){_ANCHOR_END}"
        ),
    ),
]


# A time of its own inside an event window's anchor ('within 2 days after X this month'): the
# window is relative to X and X is itself windowed; one TimeSpec cannot carry both, so the
# pattern does not apply (the words stay unread and are named, never dropped).
_TIME_IN_ANCHOR = re.compile(
    r"\b((this|last|next|current|previous|past|same|first|latest|earliest)\s+(\w+\s+)?"
    r"(day|week|month|year|visit|admission|encounter|hospital|icu|stay)|since|ago|today|"
    r"yesterday|\d{4}|\d{1,2}/\d{1,2}|in\s+the\s+last)\b",
    re.I,
)


def match_to_spec(kind: str, m: re.Match[str]) -> TimeSpec | None:
    """Turn one regex match from :data:`PATTERNS` into a :class:`TimeSpec`."""
    g = m.groupdict()
    if g.get("anchor") and _TIME_IN_ANCHOR.search(g["anchor"]):
        return None
    n = float(g["n"]) if g.get("n") else 1.0
    if kind == "observation":
        length = days_of(n, g["u"])
        if g["pos"] == "first":
            return TimeSpec("patient", point="observation_start", start_days=0, end_days=length)
        return TimeSpec("patient", point="observation_end", start_days=-length, end_days=0)
    if kind == "date_n":
        day = parse_date(g["a"])
        if day is None or n != int(n):
            return None
        unit = g["u"].lower()
        if g["dir"] in {"before", "preceding", "leading up to"} or g["dir"].startswith("prior"):
            start = _shift(day, -int(n), unit) if unit != "week" else day - dt.timedelta(weeks=n)
            return TimeSpec("calendar", start=start, end=day - dt.timedelta(days=1))
        first = day + dt.timedelta(days=1) if g["dir"] in {"after", "following"} else day
        end = _shift(first, int(n), unit) if unit != "week" else first + dt.timedelta(weeks=n)
        return TimeSpec("calendar", start=first, end=end - dt.timedelta(days=1))
    if kind in {"event_n", "event_n2"}:
        length = days_of(n, g["u"])
        which = _which(g.get("which"))
        anchor = g["anchor"].strip()
        if g["dir"] in {"before", "prior to", "preceding", "leading up to"} or g["dir"].startswith(
            "prior"
        ):
            return TimeSpec(
                "event", start_days=-length, end_days=-1, anchor_text=anchor, which=which
            )
        # 'within 2 days after a bronchoscopy' (no first/last said): after any of them
        which = which if g.get("which") else "each"
        return TimeSpec("event", start_days=0, end_days=length, anchor_text=anchor, which=which)
    if kind == "event_range":
        lo, hi = days_of(float(g["a"]), g["u"]), days_of(float(g["b"]), g["u"])
        if lo > hi:
            return None
        which = _which(g.get("which"))
        anchor = g["anchor"].strip()
        if g["dir"] in {"before", "preceding"} or g["dir"].startswith("prior"):
            return TimeSpec("event", start_days=-hi, end_days=-lo, anchor_text=anchor, which=which)
        return TimeSpec("event", start_days=lo, end_days=hi, anchor_text=anchor, which=which)
    if kind == "now" and not g.get("n") and g["prep"] in {"in", "during"} and g["lw"] != "past":
        # "in the previous year", "during the last month": the calendar unit before now's
        return TimeSpec("calendar", relative_year=-1, relative_unit=g["u"])
    if kind == "ago":
        return TimeSpec("calendar", relative_year=-round(n), relative_unit=g["u"], ago=True)
    if kind == "md_day":
        return _day(g)
    if kind in {"now", "now2"} and g["u"] in {"month", "year"} and n == int(n):
        # calendar months and years back from now, now's own day the last one counted
        return TimeSpec("calendar", relative_year=-int(n), relative_unit=g["u"], through_now=True)
    if kind in {"now", "now2"}:
        return TimeSpec("now", start_days=-days_of(n, g["u"]), end_days=0)
    if kind == "relyear":
        return TimeSpec(
            "calendar",
            relative_year=-1 if g["rel"] in {"last", "previous", "past"} else 0,
            relative_unit=g.get("ru") or "year",
        )
    if kind == "relday":
        return TimeSpec(
            "calendar", relative_year=-1 if g["rel"] == "yesterday" else 0, relative_unit="day"
        )
    if kind == "decade":
        start = int((g["c"] or "19") + (g["d"] if g["c"] else g["d2"]) + "0")
        return TimeSpec("calendar", start=dt.date(start, 1, 1), end=dt.date(start + 9, 12, 31))
    if kind == "day":
        day = parse_date(g["day"])
        return None if day is None else TimeSpec("calendar", start=day, end=day)
    if kind in {"between", "range"}:
        a, b = parse_date(g["a"]), parse_date(g["b"], end=True)
        if a is None or b is None or a > b:
            return None
        return TimeSpec("calendar", start=a, end=b)
    if kind == "or_later":
        return TimeSpec("calendar", start=parse_date(g["a"]))
    if kind == "or_earlier":
        return TimeSpec("calendar", end=parse_date(g["a"], end=True))
    if kind == "since":
        a = parse_date(g["a"])
        if a is None:
            return None
        if g["dir"] == "after":
            after = parse_date(g["a"], end=True)
            a = after + dt.timedelta(days=1) if after else a
        return TimeSpec("calendar", start=a)
    if kind == "until":
        if g["dir"] in {"until", "till", "up to", "by", "on or before"}:
            return TimeSpec("calendar", end=parse_date(g["a"], end=True))
        a = parse_date(g["a"])
        return None if a is None else TimeSpec("calendar", end=a - dt.timedelta(days=1))
    if kind == "in":
        a, b = parse_date(g["a"]), parse_date(g["a"], end=True)
        return None if a is None else TimeSpec("calendar", start=a, end=b)
    if kind == "same_day":
        which = _which(g.get("which")) if g.get("which") else "each"
        anchor = g["anchor"].strip()
        return TimeSpec("event", start_days=0, end_days=0, anchor_text=anchor, which=which)
    if kind == "event_open":
        which = _which(g.get("which"))
        anchor = g["anchor"].strip()
        if g["dir"] in {"before", "preceding"} or g["dir"].startswith("prior"):
            return TimeSpec("event", start_days=None, end_days=-1, anchor_text=anchor, which=which)
        return TimeSpec("event", start_days=1, end_days=None, anchor_text=anchor, which=which)
    return None


def _day(g: dict[str, str | None]) -> TimeSpec | None:
    if g.get("a"):
        a = parse_date(g["a"] or "")
        return None if a is None else TimeSpec("calendar", start=a, end=a)
    mo, d = (int(x) for x in (g["md"] or "").split("/"))
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return None
    if g.get("y"):
        try:
            a = dt.date(int(g["y"] or 0), mo, d)
        except ValueError:
            return None
        return TimeSpec("calendar", start=a, end=a)
    return TimeSpec(
        "calendar",
        relative_year=-1 if g["rel"] in {"last", "previous"} else 0,
        relative_unit="year",
        month_day=(mo, d),
    )


def _which(word: str | None) -> str:
    if word and word.split()[0] in {"last", "latest", "final", "most"}:
        return "last"
    return "first"


def _shift(day: dt.date, k: int, unit: str) -> dt.date:
    """``day`` moved ``k`` calendar units (a month keeps its day, clipped to the month's end)."""
    if unit == "day":
        return day + dt.timedelta(days=k)
    if unit == "week":
        return day + dt.timedelta(weeks=k)
    months = k * (12 if unit == "year" else 1)
    y, m = divmod(day.year * 12 + day.month - 1 + months, 12)
    return dt.date(y, m + 1, min(day.day, calendar.monthrange(y, m + 1)[1]))


def ago_at(now: dt.datetime, k: int, unit: str) -> dt.datetime:
    """``now`` moved ``k`` calendar units at its time of day; a month or year landing past
    its month's end rolls over into the next month (Dec 31 minus one month is Dec 1), as SQL
    date arithmetic does."""
    if unit in {"day", "week"}:
        return now + dt.timedelta(days=k * (7 if unit == "week" else 1))
    months = k * (12 if unit == "year" else 1)
    y, m = divmod(now.year * 12 + now.month - 1 + months, 12)
    first = dt.datetime.combine(dt.date(y, m + 1, 1), now.time())
    return first + dt.timedelta(days=now.day - 1)


def resolve_relative_year(spec: TimeSpec, now: dt.date | dt.datetime) -> TimeSpec:
    """'last year' with ``now`` in 2019 → 2018-01-01 .. 2018-12-31; 'this month', 'last week',
    'yesterday' likewise (calendar units counted back from ``now``)."""
    if spec.relative_year is None:
        return spec
    k = spec.relative_year
    if spec.through_now:  # (now - k units, now], in whole days
        day = now.date() if isinstance(now, dt.datetime) else now
        return TimeSpec(
            "calendar", start=_shift(day, k, spec.relative_unit) + dt.timedelta(days=1), end=day
        )
    if isinstance(now, dt.datetime):  # a 'now' with a time of day: its date, or the next one
        day = now.date()
        if spec.ago:  # 'since 3 days ago' at 23:59: from that minute, 3 days back
            at = ago_at(now, k, spec.relative_unit)
            return TimeSpec("calendar", start=at.date(), start_at=at)
        now = day
    if spec.ago:
        return TimeSpec("calendar", start=_shift(now, k, spec.relative_unit))
    if spec.month_day is not None:
        mo, d = spec.month_day
        day = dt.date(now.year + k, mo, min(d, calendar.monthrange(now.year + k, mo)[1]))
        return TimeSpec("calendar", start=day, end=day)
    if spec.relative_unit == "month":
        y, m = divmod(now.year * 12 + now.month - 1 + k, 12)
        m += 1
        return TimeSpec(
            "calendar", start=dt.date(y, m, 1), end=dt.date(y, m, calendar.monthrange(y, m)[1])
        )
    if spec.relative_unit == "week":
        monday = now - dt.timedelta(days=now.weekday()) + dt.timedelta(weeks=k)
        return TimeSpec("calendar", start=monday, end=monday + dt.timedelta(days=6))
    if spec.relative_unit == "day":
        day = now + dt.timedelta(days=k)
        return TimeSpec("calendar", start=day, end=day)
    year = now.year + k
    return TimeSpec("calendar", start=dt.date(year, 1, 1), end=dt.date(year, 12, 31))
