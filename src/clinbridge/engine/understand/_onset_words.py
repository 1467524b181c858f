"""A condition's onset said as its start: 'a diagnosis with an onset date in 2022', 'by year of
onset'.

The readers read an event's date from its stream's time column — when it started — and know it
as the start date; 'onset date' and 'date of onset' are that date, 'year / month of onset' its
year or month. Only these phrases are rewritten ('age at onset' is read where ages are).
"""

from __future__ import annotations

import re

__all__ = ["onset_words"]

_RULES = (
    (re.compile(r"\b(?:an\s+)?onset\s+(dates?)\b", re.I), r"a start \1"),
    (re.compile(r"\b(?:the\s+)?dates?\s+of\s+onset\b", re.I), "the start date"),
    (re.compile(r"\b(year|month)\s+of\s+onset\b", re.I), r"\1"),
)


def onset_words(question: str) -> str:
    """The question with a condition's onset date said as its start date."""
    for pattern, repl in _RULES:
        question = pattern.sub(repl, question)
    return question
