"""Typing slips in a trial question, mended before it is read: a word of six letters or more
that is no word the reader knows, one adjacent swap (or, from seven letters, one letter added or
dropped) from exactly one word it knows (the first letter kept), is that word ('randoimsed' randomised, 'percetnage'
percentage, 'infnats' infants, 'betewen' between, 'temprtaure' temperature).

The words known are the dictionary's (labels and code labels, as written) and the reader's own
(aggregate words, fillers, synonyms, subject nouns). A changed letter is never mended here: it
makes real words of real words ('height' is not 'weight'); the reading's own spelling step
weighs those against the dictionary alone. A function word ('whose') is never a slip, nor the
plural of a word known ('readings' beside 'reading').
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from clinbridge.engine.understand._trial_spelling import CLOSED_CLASS

__all__ = ["TypoMender"]

_WORD = re.compile(r"(?<![\w-])[A-Za-z]{6,}(?![\w-])")


def _slip(typed: str, word: str) -> bool:
    """One adjacent swap, or one letter added or dropped (never one letter changed)."""
    if len(typed) == len(word):
        diff = [i for i in range(len(typed)) if typed[i] != word[i]]
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and typed[diff[0]] == word[diff[1]]
            and typed[diff[1]] == word[diff[0]]
        )
    if abs(len(typed) - len(word)) != 1 or len(typed) < 7:
        return False  # (a letter added or dropped in a short word makes real words: 'causes')
    short, long_ = (typed, word) if len(typed) < len(word) else (word, typed)
    i = next((k for k in range(len(short)) if short[k] != long_[k]), len(short))
    return short[i:] == long_[i + 1 :]


class TypoMender:
    """Mends a question's slips against the words of one catalog and of the reader."""

    def __init__(self, words: Iterable[str]) -> None:
        self.known = {w.lower() for w in words if w}
        self.by_start: dict[tuple[str, int], list[str]] = {}
        for w in self.known:
            if len(w) >= 5 and w.isalpha():
                self.by_start.setdefault((w[0], len(w)), []).append(w)

    def mend(self, text: str) -> tuple[str, list[tuple[str, str]]]:
        """(the text with its slips mended, [(typed, read as), ...])."""
        fixed: list[tuple[str, str]] = []

        def sub(m: re.Match[str]) -> str:
            typed = m.group(0)
            low = typed.lower()
            if low in self.known or low in CLOSED_CLASS or typed.isupper():
                return typed  # a word known, a function word, or a name ('NEOCOOL')
            if low.endswith("s") and (low[:-1] in self.known or low[:-2] in self.known):
                return typed  # a plural of a word known ('readings'), no slip
            near = {
                w
                for n in (len(low) - 1, len(low), len(low) + 1)
                for w in self.by_start.get((low[0], n), ())
                if _slip(low, w)
            }
            if len(near) != 1:
                return typed
            word = near.pop()
            fixed.append((typed, word))
            return word

        return _WORD.sub(sub, text), fixed
