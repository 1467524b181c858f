"""Phrasings that mean a plainer question, rewritten before the slots are read.

* 'what was the first time (that) X ...' asks when X first happened: 'when was the first time X'
  (read as a value it would answer the measurement instead of its time);
* 'the name of the diagnosis ...' asks for the diagnosis: a concept is answered by its name;
* 'before their 40th birthday' is 'before the age of 40' (an age, not a date to ground);
* 'strictly before / after' is 'before / after', which already mean an earlier / later day.

Each is a general shape of English, never a phrase from one question set.
"""

from __future__ import annotations

import re

__all__ = ["plain_phrasing"]

_WHAT_TIME = re.compile(
    r"\bwhat\s+(?:time\s+)?(?:was|is|were)\s+(?P<the>the\s+(?:first|last|latest|earliest|most\s+recent)\s+time)\b"
)
_NAME_OF = re.compile(r"\b(?:the\s+)?names?\s+of\s+(?=(?:the|a|an|that|this)\s+)")
_BIRTHDAY = re.compile(
    r"\bbefore\s+(?:their|his|her|the(?:ir)?\s+patient\s*'?s?|the)\s+(?P<n>\d{1,3})(?:st|nd|rd|th)\s+birthday\b"
)
_STRICTLY = re.compile(r"\bstrictly\s+(?=(?:before|after|earlier|later|prior)\b)")


def plain_phrasing(text: str) -> str:
    """``text`` (normalised, lower case) with the phrasings above made plain."""
    text = _WHAT_TIME.sub(lambda m: f"when was {m['the']}", text)
    text = _BIRTHDAY.sub(lambda m: f"before the age of {m['n']}", text)
    text = _STRICTLY.sub("", text)
    return _NAME_OF.sub("", text)
