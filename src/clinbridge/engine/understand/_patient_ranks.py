"""'Which patient has the most encounters?': one patient ranked, and '(id)' after a patient word.

Rankings of patients with a number ('the 3 patients with the most visits') are read by
:mod:`._rank_marks`. The same question asked of one patient names no number: 'which patient
has the largest number of procedures', 'pt w the most ER visits', 'who had the most
admissions'. Said at the head of the question, it is the same ranking with one place
(:data:`ONE_RANKED`; ties share the place, so every patient with the greatest number comes
back). Anywhere else ('how old is the patient with the most visits') the patient ranked is
only part of what is asked, and the phrase is left to the rules (which do not read it).

'(id)', '(ids)', '(patient id)', '(person_id)' right after a patient word say how the patients
are to be named: a list of patients is a list of their ids anyway, so the aside is dropped
(:func:`drop_id_asides`).
"""

from __future__ import annotations

import re

__all__ = ["ONE_RANKED", "drop_id_asides"]

_MOST = (
    r"(?:most|(?:largest|highest|greatest|biggest)\s+(?:number|count|total)s?\s+of"
    r"|(?:largest|highest|greatest|biggest)\s+numbers\s+of)"
)
_ONE = r"(?:patient|person|individual|subject|pt)"
_HAD = r"(?:(?:has|have)\s+had|has|had|have)"
_HAS = rf"(?:with|having|(?:(?:who|that)\s+)?{_HAD})"

ONE_RANKED = re.compile(
    r"^\s*(?:(?:(?:which|what)\s+(?:is\s+the\s+|was\s+the\s+)?|the\s+)?"
    rf"{_ONE}\s+{_HAS}|who\s+(?:{_HAD}|got))\s+the\s+{_MOST}\b"
)
"""One patient ranked, at the head of the question (the number of places is 1)."""

_ID_ASIDE = re.compile(
    r"\b(?P<who>patients?|persons?|people|pts?|individuals?|subjects?)\s*"
    r"\(\s*(?:(?:the|their|its|by)\s+)?(?:(?:patient|person|subject)[\s_]?)?ids?\s*\)"
)


def drop_id_asides(text: str) -> str:
    """``text`` (normalised) without '(id)' / '(ids)' after a patient word."""
    return _ID_ASIDE.sub(lambda m: m["who"], text)
