"""An age taken on a stated date that is the question's 'now': the age today, said as such.

'How many living patients are aged 18 to 64 today (completed years on 2022-10-10)?', 'the mean
age, in completed years on 2022-10-10, of ...', 'whole-year age at 2022-10-10', 'how old is the
youngest patient today (2022-10-10)': the date says when the age is taken, not a time window
for events. Where it is the date of the question's 'now' — the day ages are taken on when
nothing else is said — the words are taken out ('today (2022-10-10)' → 'today', 'whole-year
age at 2022-10-10' → 'age'). Another date is left as it is (read, or refused, elsewhere).
"""

from __future__ import annotations

import datetime as dt
import re

__all__ = ["age_on_now"]

_DATE = r"(?P<d>\d{4}-\d{2}-\d{2})"
_WHOLE = r"(?:(?:in\s+)?(?:completed|whole|full)[-\s]+years?)"
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # '(completed years on 2022-10-10)', ', in completed years on 2022-10-10,'
    (re.compile(rf"\s*\(\s*{_WHOLE}\s+(?:on|at|as\s+of)\s+{_DATE}\s*\)", re.I), ""),
    (re.compile(rf",\s*{_WHOLE}\s+(?:on|at|as\s+of)\s+{_DATE}\s*,", re.I), ","),
    # 'aged 18 to 64 today (2022-10-10)', 'how old is the youngest patient today (2022-10-10)'
    (
        re.compile(
            rf"\b(?P<w>(?:aged?|old)\b[^.,;()]{{0,40}}?\b(?:today|now))\s*\(\s*{_DATE}\s*\)", re.I
        ),
        r"\g<w>",
    ),
    # 'whole-year age at 2022-10-10', 'age in completed years on 2022-10-10', 'age as of ...'
    (
        re.compile(
            rf"\b(?:(?:whole|completed|full)[-\s]+years?\s+)?(?P<w>age)(?:\s+{_WHOLE})?"
            rf"\s+(?:on|at|as\s+of)\s+{_DATE}",
            re.I,
        ),
        r"\g<w>",
    ),
)


def age_on_now(question: str, now: dt.datetime | None) -> str:
    """The question with an age's date taken out where that date is the day of ``now``."""
    if now is None:
        return question
    day = now.date().isoformat()
    out = question
    for pattern, repl in _RULES:

        def said(m: re.Match[str], r: str = repl) -> str:
            return m.expand(r) if m["d"] == day else m.group(0)

        out = pattern.sub(said, out)
    return out
