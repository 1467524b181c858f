"""Guards on what the question asks (called by :func:`._plan_guards.guard_reading`).

* **'who' asked, not answered**: 'anyone ever on digoxin? who', 'pts w knee OA - who': an
  interrogative *who* closing the question (after '?', '-', ',' or ':') asks for the patients;
  a reading that answers how many, or whether any, answers another question.
* **an age at resolution**: 'how old was X when his eczema resolved', 'age at abatement_time':
  the age asked is at the condition's end; a plan that measures an age reads its onset.
* **a letter that tells concepts apart**: 'hepatitis A vaccine' grounded to concepts that
  name 'hepatitis B': a single letter after a word names the variant (hepatitis A, B, C;
  influenza A, B; vitamin B, D); a concept set holding a different letter after that word
  mixes variants the question kept apart.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinbridge.engine.plan import QueryPlan

__all__ = ["age_at_resolution", "letter_variant", "who_unanswered"]

_WHO_TAIL = re.compile(
    r"(?:[?,:;]|\s[-–—])\s*who(?:\s+(?:are|were|is|was)\s+(?:they|it|those))?\s*\??\s*$", re.I
)
_RESOLVED = re.compile(
    r"\b(?:resolv\w*|resolution|abate\w*|abatement\w*|cleared\s+up|went\s+away)\b", re.I
)
_LETTER = re.compile(r"\b(?P<w>[a-z]{3,})\s+(?P<l>[a-e])\b(?!\s*[-'’/.]\w)")


def who_unanswered(question: str, plan: QueryPlan) -> tuple[str, str] | None:
    """'... ? who' read as a count or a yes/no: the patients were asked."""
    m = _WHO_TAIL.search(question)
    if m is None or plan.aggregate.op == "list":
        return None
    return (f"'who' asks for the patients, read as a {plan.aggregate.op}", "who")


def age_at_resolution(question: str, plan: QueryPlan) -> tuple[str, str] | None:
    """An age asked at a condition's end, measured at its start."""
    m = _RESOLVED.search(question)
    if m is None or plan.measure.of != "age":
        return None
    return (f"an age at {m[0]!r} (the condition's end), read at its onset", m[0])


def _sets(plan: QueryPlan) -> list[Any]:
    out = [plan.measure.concepts] if plan.measure.concepts is not None else []
    return out + [f.concepts for f in plan.filters if getattr(f, "concepts", None) is not None]


def letter_variant(question: str, plan: QueryPlan) -> tuple[str, str] | None:
    """The question says 'word X' but a concept set holds a concept naming 'word Y'."""
    asked = {(m["w"], m["l"]) for m in _LETTER.finditer(question.lower())}
    if not asked:
        return None
    for cs in _sets(plan):
        for c in cs.concepts:
            name = str(c.name or "").lower()
            for m in _LETTER.finditer(name):
                same = [let for w, let in asked if m["w"].startswith(w)]
                if same and m["l"] not in same:
                    return (
                        f"the question names {same[0].upper()!r}; {c.name!r} is another variant",
                        cs.label or "",
                    )
    return None
