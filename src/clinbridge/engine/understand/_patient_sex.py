"""One patient's recorded sex: 'what is the sex of patient 7', 'is patient 7 male or female'.

Read only when the question says nothing else: the words left after the patient, the sex word
('sex', 'gender', 'male or female') and polite or copular filler must be none, or the general
reader takes the question. The plan reports the stored sex code of the catalog's patient table
(``Measure(of="attribute", variable="sex")``); a source without a sex column abstains.
"""

from __future__ import annotations

import re
from typing import Any

from clinbridge.engine.plan import Aggregate, Measure, QueryPlan
from clinbridge.engine.understand._reading import Grounding, Reading

__all__ = ["read_patient_sex"]

_SEX = re.compile(r"\b(?:sex|gender|male\s+or\s+female|female\s+or\s+male)\b", re.I)
_PATIENT = re.compile(r"\bpatient\s+(?:id\s+)?([0-9]+)(?:'s)?", re.I)
_FILLER = frozenset(
    [
        "what",
        "is",
        "was",
        "the",
        "of",
        "please",
        "tell",
        "me",
        "can",
        "could",
        "you",
        "confirm",
        "if",
        "a",
        "an",
        "show",
        "give",
        "provide",
        "recorded",
        "registered",
        "documented",
        "listed",
        "stored",
        "their",
        "his",
        "her",
        "do",
        "does",
        "know",
        "i",
        "want",
        "to",
        "would",
        "like",
        "state",
        "identify",
        "say",
        "which",
    ]
)


def read_patient_sex(question: str, ctx: Any) -> list[Reading] | None:
    """The reading of a question asking one patient's sex, or None for any other question."""
    if not _SEX.search(question):
        return None
    ids = _PATIENT.findall(question)
    if len(set(ids)) != 1 and ctx.patient_id is None:
        return None
    rest = _PATIENT.sub(" ", _SEX.sub(" ", question))
    words = re.findall(r"[a-z]+", rest.lower())
    if any(w not in _FILLER and w != "patient" for w in words):
        return None
    pid = ids[0] if ids else ctx.patient_id
    pt = ctx.catalog.patients if ctx.catalog is not None else None
    if pt is None or not pt.sex_column:
        return [
            Reading(
                question=question,
                abstain_reason="cannot answer: this source records no sex for its patients",
                unresolved=("sex",),
            )
        ]
    plan = QueryPlan(
        question=question,
        patient_id=str(pid),
        measure=Measure(of="attribute", variable="sex"),
        aggregate=Aggregate(op="first"),
        now=ctx.now,
    )
    g = Grounding(phrase="sex", kind="field", target=f"{pt.table}.{pt.sex_column}")
    return [Reading(question=question, plan=plan, confidence=0.95, groundings=(g,))]
