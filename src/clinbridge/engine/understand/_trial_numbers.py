"""Amounts said in words in trial questions ('forty weeks', 'four thousand grams', 'two hundred
and fifty mL', 'day one'), read as the figure they name.

Only a run of number words is read, and 'and' only after 'hundred' or 'thousand' ('two hundred
and fifty'); 'between one and two kilos' stays two numbers. Where a run is read (before a unit,
after a bound, after 'day') is the caller's (``_trial_rewrites``)."""

from __future__ import annotations

import re

from clinbridge.engine.understand._text import NUMBER_WORDS

__all__ = ["NUMBER_RUN", "number_of"]

_VALUES = {w: n for w, n in NUMBER_WORDS.items() if n >= 1} | {"thousand": 1000}
_WORD = "(?:" + "|".join(sorted(_VALUES, key=len, reverse=True)) + ")"
NUMBER_RUN = rf"{_WORD}(?:(?:[\s-]+|(?<=hundred)\s+and\s+|(?<=thousand)\s+and\s+){_WORD})*(?![\w-])"
"""A run of number words ('forty', 'four thousand', 'two hundred and fifty')."""


def number_of(said: str) -> int | None:
    """The figure a run of number words names (None when the words make no number)."""
    total = current = 0
    last = None
    for w in re.findall(r"[a-z]+", said.lower()):
        if w == "and":
            continue
        n = _VALUES.get(w)
        if n is None:
            return None
        if n == 100:
            current = (current or 1) * 100
        elif n == 1000:
            total += (current or 1) * 1000
            current = 0
        else:
            if last is not None and last < 100 and (last < 20 or n >= 10):
                return None  # 'five six', 'twenty thirty': no one number
            current += n
        last = n
    return total + current
