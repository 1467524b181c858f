"""Guards on what a reading counts (called by :func:`._plan_guards.guard_reading`).

* **visits counted as records**: '# asthma visits for patient X' read as the patient's asthma
  records, with 'visits' left as a filter any patient with one visit meets (an encounter filter
  with no type, no window and a count of one): the question counts visits, the plan counts
  records of another table. Which visits are meant (by type, by reason, by a record made during
  them) is not read, so the reading abstains instead.
* **an admission for something, read as two facts**: 'a hospice admission' read as a hospice
  record *and* some inpatient stay, each on its own: the stay need not be for hospice (nor
  the hospice care given in a stay). The encounter's type or reason is what is asked, and
  it is not read.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinbridge.engine.plan import QueryPlan

__all__ = ["admission_for_concept", "visits_counted_as_records"]

_VISITS = re.compile(
    r"\b(?:visits?|encounters?|admissions?|admits?|appointments?|attendances?|stays?)\b", re.I
)
_COUNTED = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\b|#|\btotal\b", re.I)


def _vacuous(f: Any) -> bool:
    return (
        getattr(f, "kind", None) == "encounter"
        and getattr(f, "type", None) is None
        and getattr(f, "window", None) is None
        and getattr(f, "min_count", 1) <= 1
        and not getattr(f, "negate", False)
    )


def visits_counted_as_records(question: str, plan: QueryPlan) -> tuple[str, str] | None:
    """(reason, phrase) when visits are asked and the plan counts records of another stream."""
    m: Any = plan.measure
    said = _VISITS.search(question)
    if said is None or not _COUNTED.search(question):
        return None
    if m.of != "events" or (m.stream or "") in {"encounter", "visit", "visit_occurrence"}:
        return None
    if not any(_vacuous(f) for f in plan.filters):
        return None
    what = m.concepts.label if m.concepts is not None else m.stream
    return (
        f"the question counts {said[0]!r}, the reading counts {what!r} records; which visits "
        "are meant (by type, by reason, or those with such a record) is not read",
        said[0],
    )


_STAY = r"(?:admissions?|admisions?|admits?|admitted|visits?|stays?|encounters?|appointments?)"
_ENCOUNTER_NOUN = (
    re.compile(rf"\b(?P<w>[a-z][\w-]*)\s+{_STAY}\b", re.I),
    re.compile(rf"\b{_STAY}\s+(?:to|for|at|in)\s+(?:the\s+|a\s+)?(?P<w>[a-z][\w-]*)", re.I),
)


def _same_word(word: str, label: str) -> bool:
    from rapidfuzz.distance import OSA

    return any(w == word or (len(word) > 4 and OSA.distance(w, word) <= 1) for w in label.split())


def admission_for_concept(question: str, plan: QueryPlan) -> tuple[str, str] | None:
    """(reason, phrase) when 'X admission' became an X record beside an unrelated encounter."""
    enc = [f for f in plan.filters if getattr(f, "kind", None) == "encounter" and not f.negate]
    if not enc:
        return None
    labels = [
        (f.concepts.label or "").lower()
        for f in plan.filters
        if getattr(f, "kind", None) == "event"
        and getattr(f, "concepts", None) is not None
        and not f.negate
        and getattr(f, "encounter_type", None) is None
    ]
    for m in (m for pattern in _ENCOUNTER_NOUN for m in pattern.finditer(question)):
        word = m["w"].lower()
        if any(_same_word(word, label) for label in labels):
            return (
                f"{m[0]!r} reads as an encounter for {word!r}, but the reading finds a {word!r} "
                "record and an encounter apart; the encounter's type or reason is not read",
                m[0],
            )
    return None


def _numbers(text: str) -> set[float]:
    return {float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)}


def finding_and_its_threshold(plan: QueryPlan) -> tuple[str, str] | None:
    """(reason, phrase) when one condition is read twice: a recorded finding whose own name
    holds a measurement's threshold ('Body mass index 30+ - obesity') beside that measurement
    with the same threshold (BMI >= 30) — 'obese (BMI >= 30)' defines one word by the other,
    and patients with the finding or with the value are not told apart."""
    events = [f for f in plan.filters if getattr(f, "kind", None) == "event" and not f.negate]
    valued = [f for f in events if f.value is not None and f.concepts is not None]
    found = [f for f in events if f.value is None and f.concepts is not None]
    for v in valued:
        vwords = {
            w for c in v.concepts.concepts for w in str(c.name or "").lower().split() if len(w) > 3
        }
        for f in found:
            for c in f.concepts.concepts:
                name = str(c.name or "")
                words = {w for w in name.lower().split() if len(w) > 3}
                if v.value.value in _numbers(name) and len(words & vwords) >= 2:
                    return (
                        f"ambiguous: {f.concepts.label!r} is recorded as a finding ({name!r}) and "
                        f"defined by {v.concepts.label!r} >= {v.value.value:g}: the finding, the "
                        "measured value, or both? say which",
                        f.concepts.label or name,
                    )
    return None
