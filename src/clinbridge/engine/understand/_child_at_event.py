"""'Kids with their first otitis before age 5': the child word names the age at the event.

A cohort word for children ('kids', 'children', 'paeds') reads as an age bound today
(under 18 now). Where the question also bounds the age at an event below that ('before age 5',
'under 12 at diagnosis'), the child word says the same of the age at the event — the patients
were children then — and an extra bound on today's age would drop every grown-up who was a
child at the event. The repair removes the bound on today's age.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinbridge.engine.plan import QueryPlan

__all__ = ["child_word_at_event"]

_CHILD = re.compile(
    r"\b(?:kids?|child(?:ren)?|paeds?|peds|pediatric|paediatric|infants?|toddlers?|minors?|boys?|girls?)\b",
    re.I,
)
_NOW = re.compile(r"\b(?:now|today|currently|current|still)\b", re.I)


def _child_now(f: Any) -> bool:
    return (
        getattr(f, "kind", None) == "age"
        and getattr(f, "at", None) is None
        and getattr(f, "window", None) is None
        and not getattr(f, "negate", None)
        and f.op in {"<", "<="}
        and f.value in {18, 17}
    )


def _young_at_event(f: Any) -> bool:
    age = getattr(f, "age_at_event", None)
    if getattr(f, "kind", None) != "event" or age is None or getattr(f, "negate", False):
        return False
    if age.op in {"<", "<="}:
        return age.value <= 18
    return age.op == "between" and age.value2 is not None and age.value2 <= 18


def child_word_at_event(question: str, plan: QueryPlan) -> QueryPlan | None:
    """The plan without its 'child today' bound when an age at an event already says it."""
    if not _CHILD.search(question) or _NOW.search(question):
        return None
    now = [f for f in plan.filters if _child_now(f)]
    if len(now) != 1 or not any(_young_at_event(f) for f in plan.filters):
        return None
    return plan.model_copy(update={"filters": tuple(f for f in plan.filters if f is not now[0])})
