"""'In which calendar year did she have her first hearing exam': a date asked for by its year.

A question that asks which year (not which date) something happened, read as one first, last,
earliest or latest date, is answered with that date's calendar year (``Measure.part``); a
reading of anything else is left as it is. 'Which year had the most visits' (a ranking of
years) and 'how many years' (a number of years) are not asking for a date's year.
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._reading import Reading

__all__ = ["year_asked"]

_YEAR_ASKED = re.compile(
    r"^\W*(?:in\s+|during\s+)?(?:what|which)\s+(?:calendar\s+)?(?:yr|year)\s+"
    r"(?:did|was|were|does|do)\b",
    re.I,
)
_DATED = frozenset({"date", "end_date"})
_ONE_DATE = frozenset({"first", "last", "min", "max"})


def year_asked(question: str, reading: Reading) -> Reading:
    """The reading answering with the year of its date where the question asks for a year."""
    plan = reading.plan
    if plan is None or not _YEAR_ASKED.search(question):
        return reading
    m = plan.measure
    if (
        m.of not in _DATED
        or plan.aggregate.op not in _ONE_DATE
        or plan.group_by
        or plan.minus is not None
        or m.elapsed is not None
        or m.part is not None
    ):
        return reading
    measure = m.model_copy(update={"part": "year"})
    return reading.model_copy(
        update={
            "plan": plan.model_copy(update={"measure": measure}),
            "notes": (*reading.notes, "the year of the date is asked"),
        }
    )
