"""An age group said of a cohort: 'patients in their 40s', 'aged 30s', 'with an age of 50s',
'who are 60 or above', 'in the 20s age group'.

A decade ('40s') is the ages 40 to 49; 'N or above / or older / and over' is N and more. The
clause is said of the patients at their visits, so a reader puts it on the encounters (the age
the source records at each encounter, :attr:`EncounterScope.age`), never on an age 'now'. The
clause's words are blanked out of the text, so what is left is checked word by word as before.
"""

from __future__ import annotations

import re

from clinbridge.engine.plan import AgeFilter

__all__ = ["age_group"]

_LEAD = (
    r"(?:(?:who\s+(?:are|were)|that\s+(?:are|were)|aged|of\s+age|with\s+(?:an\s+)?age(?:\s+of)?"
    r"|age(?:d)?\s+of|age|whose\s+ages?\s+(?:falls?|are|is|were|was))\s+)?"
    r"(?:(?:in|into|from|within|of)\s+(?:their|the)\s+)?"
)
_AGE_GROUP = re.compile(
    rf"\b{_LEAD}(?:(?P<dec>[1-9]0)\s*(?:s|'s)"
    r"|(?P<min>\d{2})\s+(?:years?\s+(?:old\s+)?)?(?:or|and)\s+(?:above|older|over|up|more))"
    r"(?:\s+age\s+group|\s+years?\s+old)?\b"
)


def age_group(text: str) -> tuple[AgeFilter | None, str, str]:
    """The one age group in ``text`` (its words, lower case), the text with the clause blanked
    out, and the clause as written; (None, text, '') when none is said. Two age groups: the
    text is returned untouched with None and the clause '*' (the caller leaves the question)."""
    found = list(_AGE_GROUP.finditer(text))
    if not found:
        return None, text, ""
    if len(found) > 1:
        return None, text, "*"
    m = found[0]
    if m["dec"]:
        low = int(m["dec"])
        age = AgeFilter(op="between", value=low, value2=low + 9)
    else:
        age = AgeFilter(op=">=", value=int(m["min"]))
    return age, text[: m.start()] + " " * len(m[0]) + text[m.end() :], m[0]
