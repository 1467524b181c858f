"""A distribution asked: each category of a coded variable with its n and its %.

'distribution of HIE grade', 'HIE grade breakdown', 'mode of delivery, n (%)', 'number and
percentage of infants in each HIE grade', 'percent per category', 'sex by arm (n, %)', 'count
and share of each code', 'how were the infants spread across the grades', 'mode of birth split
in LOTUS'. The
coded variable named without a code is the one distributed (grouped last); the groups said
before it ('by arm') are the denominators' groups. Said with something to count ('death, n (%),
by arm') it is a plain percentage, which states n and its denominator already.
"""

from __future__ import annotations

import re
from typing import Protocol

__all__ = ["DISTRIBUTION", "find_distribution"]

DISTRIBUTION = re.compile(
    r"\b(?:the\s+)?(?:distribution|breakdown|frequencies)\b(?:\s+(?:of|for)\b)?"
    r"|\(?\s*\bn\s*(?:\(\s*%\s*\)|,?\s*(?:and|&)?\s*%)\s*\)?"
    r"|\b(?:numbers?|counts?)\s+(?:and|&)\s+(?:percentages?|proportions?|shares?|%)"
    r"(?:\s+(?:of|for)\s+each\s+(?:code|category|value|level)\b|\s+of\b)?"
    r"|\b(?:percent(?:ages?)?|%|proportions?|shares?)\s+(?:per|by|in each|for each|of each)\s+"
    r"(?:category|categories|level|levels|value|values|code|codes)\b"
    r"|\b(?:per|by|in each|for each|of each)\s+(?:category|categories)\b"
    # 'how were the infants spread across the disability grades'
    r"|\b(?:spread|distributed|split)\s+(?:across|over|among|between)\b"
    # 'mode of birth split in LOTUS', 'sex split?': the split of a variable (not 'split by')
    r"|\bsplit\b(?=\s*(?:$|[,;:?.!()]|(?:in|for|among|within|pls|please)\b))"
)


class _Read(Protocol):
    masked: str

    def blank(self, a: int, b: int) -> None: ...


def find_distribution(q: _Read) -> bool:
    """Whether a distribution is asked; its words are blanked (they have been read)."""
    found = False
    for m in DISTRIBUTION.finditer(q.masked):
        found = True
        q.blank(m.start(), m.end())
    return found
