"""'When did her ESRD resolve?', 'end date of the condition': the end of an event is not its start.

Plans read an event's date from the stream's time column — when it started (onset, authored,
performed). A question about when an event *ended* (resolved, abated, stopped, cleared up) read
that way answers with the start date: a wrong answer, not an abstention. Encounters have their
own end measure (discharge, ``Measure.of == 'end_date'``) and are not concerned. Where the
plan's measure is the date of events and the question asks for their end, the reading abstains
and names it. 'End-stage' (a disease name) is not an end.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.engine.plan import QueryPlan

__all__ = ["event_end_asked"]

_NAME = re.compile(r"\bend[- ]stage\b", re.I)
_END = re.compile(
    r"\b(?:end(?:ed|s|ing)?|resol(?:ve|ved|ves|ution)|abat(?:e|ed|es|ement)|"
    r"stop(?:ped|s)?|cleared(?:\s+up)?|went\s+away|go\s+away|discontinu(?:e|ed|ation)|"
    r"cured|recover(?:ed|y)|remission|finish(?:ed)?)\b",
    re.I,
)


def event_end_asked(question: str, plan: QueryPlan | None) -> str | None:
    """The abstention reason when ``plan`` reads an event's (start) date and the question asks
    when the event ended; None otherwise."""
    if plan is None or plan.measure.of != "date" or not plan.measure.stream:
        return None
    m = _END.search(_NAME.sub(" ", question))
    if m is None:
        return None
    return (
        f"the question asks when the {plan.measure.stream} ended ({m.group(0)!r}): only when "
        "events started is read here, not their end, resolution or abatement date"
    )
