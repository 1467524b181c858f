"""'between 1 September 2022 and today (22 March 2023)': a range that ends now; 'as of
22 March 2023' where that is today.

The time rules read 'between <date> and <date>'; 'today' (or 'now', 'the present') as its end is
the plan's 'now', said here as that date so the rules read the range. A parenthesis right after
it that restates today's date ('(22 March 2023)') says the same and goes too; one that names
another day is left, and the reading abstains on it. 'as of <date>' naming today's date says
what the readers take anyway (ages and states now) and is dropped; another date is left.
"""

from __future__ import annotations

import datetime as dt
import re

__all__ = ["today_as_end"]

_END = re.compile(
    r"\b(?P<head>between|from)\s+(?P<a>[^()]+?)\s+(?P<and>and|to|through|until|till)\s+"
    r"(?:today|now|the\s+present(?:\s+day)?)\b(?:\s*\((?P<b>[^()]*)\))?",
    re.I,
)


_AS_OF = re.compile(
    r"\bas\s+(?:of|at)\s+(?P<d>\d{4}-\d{2}-\d{2}|\d{1,2}\s+[a-z]+\s+\d{4}|[a-z]+\s+\d{1,2},?\s+\d{4})\b",
    re.I,
)
_FORMATS = ("%Y-%m-%d", "%d %B %Y", "%d %b %Y", "%B %d %Y", "%b %d %Y")


def _date(text: str) -> dt.date | None:
    said = " ".join(text.replace(",", " ").split())
    for f in _FORMATS:
        try:
            return dt.datetime.strptime(said, f).date()
        except ValueError:
            continue
    return None


def _same_day(text: str, today: dt.date) -> bool:
    nums = set(re.findall(r"\d+", text))
    return str(today.year) in nums and (str(today.day) in nums or f"{today.day:02d}" in nums)


def today_as_end(text: str, today: dt.date | None) -> str:
    """``text`` with a range ending 'today' ending on today's date instead."""
    if today is None:
        return text

    def repl(m: re.Match[str]) -> str:
        b = m["b"]
        if b is not None and not _same_day(b, today):
            return m[0]
        return f"{m['head']} {m['a']} {m['and']} {today.isoformat()}"

    text = _END.sub(repl, text)
    # ages and states are taken now anyway: the phrase is dropped (read as a window, 'as of
    # today' would bound whatever it follows to that day)
    return _AS_OF.sub(lambda m: "" if _date(m["d"]) == today else m[0], text)
