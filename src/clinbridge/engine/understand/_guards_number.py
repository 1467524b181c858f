"""Guards on a number of things per patient (called by :func:`._plan_guards.guard_reading`).

* **a number of different things**: 'at least 10 different drug products', '3+ diff providers',
  'count(DISTINCT drug_concept_id) >= 10': a threshold on how many *different* concepts (or
  providers) a patient has is not a count of their records, and the plan holds no count of
  distinct things per patient; a reading that kept the records (or nothing of the number)
  answers another question.
* **a count read as an age**: 'patients who received at least 10 drug products' read as
  patients aged 10 or more: a number followed by a plural noun that is not a span of years
  counts those things.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.engine.plan import QueryPlan

__all__ = ["count_read_as_age", "number_of_different"]

_AT_LEAST = r"(?:at\s+least|more\s+than|over|greater\s+than|no\s+(?:fewer|less)\s+than|>=?|≥)"
_DIFFERENT = r"(?:different|distinct|diff\.?|unique|separate|individual)"
_NUMBER_OF_DIFFERENT = re.compile(
    rf"\b{_AT_LEAST}\s*(?P<n>\d+)\s+{_DIFFERENT}\s+(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
    rf"|\b(?P<n2>\d+)\s*(?:\+|or\s+more)\s+{_DIFFERENT}\s+(?P<what2>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
    r"|\bcount\s*\(\s*distinct\s+(?P<col>[\w.]+)\s*\)\s*(?:>=?|≥)\s*(?P<n3>\d+)",
    re.I,
)
_COUNTED_THING = re.compile(
    rf"\b(?P<op>{_AT_LEAST})\s*(?P<n>\d+)\s+(?P<next>[a-z][\w-]*)(?:\s+(?P<next2>[a-z][\w-]*))?",
    re.I,
)
_AGE_WORDS = frozenset(
    {
        "year",
        "years",
        "yrs",
        "yr",
        "yo",
        "y",
        "old",
        "of",
        "and",
        "or",
        "with",
        "who",
        "at",
        "in",
        "on",
        "for",
        "to",
        "as",
        "the",
        "by",
        "from",
        "that",
        "when",
        "but",
    }
)


def number_of_different(question: str, plan: QueryPlan) -> tuple[str, str] | None:
    """'at least 10 different drug products' per patient: the plan counts no distinct things."""
    m = _NUMBER_OF_DIFFERENT.search(question)
    if m is None or plan.patient_id:
        return None
    what = (m["what"] or m["what2"] or m["col"] or "").strip()
    said = m[0].strip()
    return (
        f"{said!r} counts the different {what} each patient has, which the reading does not "
        "count (it reads records, or nothing of the number)",
        said,
    )


def count_read_as_age(question: str, plan: QueryPlan) -> tuple[str, str] | None:
    """An age filter whose number, in the question, counts a plural noun ('at least 10 drug
    products'), not years."""
    ages = {getattr(f, "value", None) for f in plan.filters if getattr(f, "kind", None) == "age"}
    if not ages:
        return None
    for m in _COUNTED_THING.finditer(question):
        n = int(m["n"])
        nxt = m["next"].lower()
        if n not in ages or nxt in _AGE_WORDS:
            continue
        noun = (m["next2"] or nxt).lower()
        if noun.endswith("s") and len(noun) > 3 and noun not in _AGE_WORDS:
            said = m[0].strip()
            return (f"the number in {said!r} counts {noun}, not years of age", said)
    return None
