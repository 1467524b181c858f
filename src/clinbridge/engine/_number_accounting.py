"""Every number the question gives is used by the reading, or the reading abstains.

A rule that does not recognise how a number is said ('at least 3 sprains of ankle') leaves it
in the text as a bare word, and the rest of the question still makes a plausible plan — the
count of everyone with an ankle sprain. A number carries content as surely as a concept does,
so the reading must account for it: as a value, a count, an age, a window, a date, a patient,
or part of a concept's name. This pass compares the numbers of the question (as the rules read
it) with the numbers of the plan (its JSON: thresholds, counts, ages, window dates and the
spans between them, concept names, the patient) and turns a reading that drops one into an
abstention naming it.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

__all__ = ["account_numbers", "dropped_number", "plan_numbers"]

# a number standing alone (not inside a code, an identifier or a word like 'a1c', 'b12')
_NUM = re.compile(
    r"(?<![\w.\-/^*])(\d+(?:\.\d+)?)(?![.\d])(?![\w\-/^*]*\d)(?!(?:st|nd|rd|th|'?s)\b)"
    r"\s*(%|days?|weeks?|months?|years?)?"
)
# a number that names a kind rather than an amount: 'type 2', 'stage 3'
_NAMING = re.compile(
    r"\b(?:type|stage|grade|class|phase|category|tier|factor|schedule|part|covid)\s*-?$"
)


def plan_numbers(text: str) -> set[float]:
    """The numbers a plan's JSON uses, with the lengths of the date ranges it spells out."""
    out = {abs(float(x)) for x in re.findall(r"\d+(?:\.\d+)?", text)}
    dates = []
    for y, m, d in re.findall(r"(\d{4})-(\d{2})-(\d{2})", text):
        try:
            dates.append(dt.date(int(y), int(m), int(d)))
        except ValueError:
            continue
    for i, a in enumerate(dates):
        for b in dates[i + 1 :]:
            days = abs((b - a).days) + 1
            for n in (days, days - 1):
                out |= {
                    float(n),
                    float(round(n / 365.25)),
                    float(round(n / 30.44)),
                    float(round(n / 7)),
                }
    return out


def _options(n: float, unit: str) -> set[float]:
    if unit.startswith("week"):
        return {n, n * 7}
    if unit.startswith("month"):
        return {n, n * 30, n * 31, float(round(n * 30.44))}
    if unit.startswith("year"):
        return {n, n * 365, n * 366, float(round(n * 365.25))}
    if unit == "%":
        return {n, n / 100}
    if n.is_integer() and 1900 <= n <= 2100:  # 'after 1999' is a window from 2000-01-01
        return {n, n - 1, n + 1}
    return {n}


def dropped_number(text: str, plan: Any) -> str | None:
    """The first number of ``text`` (the question as the rules read it) that ``plan`` does not
    use, or None when it uses them all."""
    have = plan_numbers(plan.model_dump_json(exclude={"question"}))
    for m in _NUM.finditer(text):
        if _NAMING.search(text[: m.start()]):
            continue
        n, unit = float(m.group(1)), (m.group(2) or "").lower()
        if not _options(n, unit) & have:
            return m.group(0).strip()
    return None


def account_numbers(readings: list[Any], text: str) -> list[Any]:
    """``readings``, or one abstaining reading when the best drops a number of ``text``."""
    from clinbridge.engine.understand._reading import Reading

    first = readings[0] if readings else None
    if first is None or first.plan is None:
        return readings
    missing = dropped_number(text, first.plan)
    if missing is None:
        return readings
    reason = f"the question says {missing!r} but the reading does not use it (how is it meant?)"
    return [Reading(question=first.question, abstain_reason=reason)]
