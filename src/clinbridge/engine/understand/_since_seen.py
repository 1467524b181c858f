"""Read the time since one patient was last seen: 'how many days since patient 20 was last
seen', 'days since patient 20's last visit', 'how many days has it been since pt 20's most
recent encounter'.

The shape: a number of days (or hours) since, one patient, and their last visit said as an
encounter ('was last seen', 'last visited', 'last visit / encounter / appointment', 'most
recent visit'); every other word frames it. The plan is the date of the patient's last
encounter (one that has ended, as for any 'last visit') with ``Measure.elapsed``: the time
from it to 'now'. Any other word leaves the question to the other readers (None); the time
since an event of a kind is ``_elapsed``'s.
"""

from __future__ import annotations

import datetime as dt
import re

from clinbridge.catalog import Catalog
from clinbridge.engine.plan import Aggregate, Measure, QueryPlan
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._span_read import named_patient, shape_reading

__all__ = ["read_since_seen"]

_UNIT = re.compile(r"\b(?:how\s+many\s+)?(?P<unit>days|hours)\b")
_LAST_SEEN = re.compile(
    r"\b(?:was|were)\s+last\s+seen\b|\blast\s+(?:visited|seen|came\s+in)\b"
    r"|\b(?:last|latest|most\s+recent)\s+(?:visit|encounter|appointment)\b"
)
_FRAME = frozenset(
    [
        "how",
        "many",
        "days",
        "hours",
        "since",
        "has",
        "have",
        "it",
        "been",
        "elapsed",
        "passed",
        "gone",
        "what",
        "is",
        "the",
        "number",
        "of",
        "patient",
        "s",
        "pt",
        "'s",
        "their",
        "his",
        "her",
        "he",
        "she",
        "they",
    ]
)


def read_since_seen(
    question: str, catalog: Catalog, patient_id: str | None, now: dt.datetime | None
) -> Reading | None:
    """A reading of a time-since-last-seen question; None when it is not one."""
    if catalog.encounters is None or not catalog.encounters.end_column:
        return None
    said = re.sub(r"\bpt\.?\s*(?=\d)", "patient ", question.replace("?", " "), flags=re.I)
    named = named_patient(said, patient_id)
    if named is None:
        return None
    text, pid = named
    unit, seen = _UNIT.search(text), _LAST_SEEN.search(text)
    if unit is None or seen is None or not re.search(r"\bsince\b", text):
        return None
    rest = text[: seen.start()] + " " + text[seen.end() :]
    if any(w not in _FRAME for w in re.findall(r"[a-z0-9']+", rest)):
        return None
    plan = QueryPlan(
        question=question,
        patient_id=pid,
        measure=Measure(of="date", elapsed=unit["unit"]),  # type: ignore[arg-type]
        aggregate=Aggregate(op="last"),
        now=now,
    )
    grounding = Grounding(
        phrase=seen[0], kind="aggregate", target=f"{unit['unit']} since the last encounter"
    )
    return shape_reading(question, plan, (grounding,), "read as the time since the last visit")
