"""Typos in the words that carry a question's structure ('how mnay', 'most recnt').

The lexicon corrects a misspelt concept word against the source's own vocabulary; the words
that say what to compute ('many', 'recent', 'average', 'between') are not in any source, so a
slip in one of them left a word nobody could ground and the question abstained. Here a word
that is neither in the source's vocabulary nor common English, and is one letter slip
(swapped, dropped, doubled or mistyped) from exactly one structure word, is that word. The
list is the reader's own structural vocabulary, general English, not any question's.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["fix_structure_typos"]

_STRUCTURE = frozenset(
    [
        *("many", "much", "number", "count", "total", "average", "mean", "median", "maximum"),
        *("minimum", "highest", "lowest", "largest", "smallest", "recent", "latest", "earliest"),
        *(
            "first",
            "last",
            "most",
            "least",
            "ever",
            "never",
            "before",
            "after",
            "between",
            "during",
        ),
        *("within", "since", "until", "among", "proportion", "percentage", "percent", "fraction"),
        *("share", "which", "what", "when", "where", "whose", "patients", "patient", "people"),
        *("persons", "women", "female", "females", "male", "males", "children", "older", "younger"),
        *("diagnosed", "diagnosis", "received", "prescribed", "admitted", "admissions", "visits"),
        *("encounters", "recorded", "measured", "value", "values", "result", "results", "level"),
        *("levels", "list", "distinct", "each", "per", "every", "year", "years", "month", "months"),
        *("days", "weeks", "date", "dates", "age", "aged", "old", "how", "have", "having", "with"),
        *("without", "their", "there", "were", "does", "did", "has", "had", "been", "than", "more"),
        *("less", "over", "under", "above", "below", "least", "greater"),
    ]
)
_WORD = re.compile(r"\b[a-z]{4,}\b")


@lru_cache(maxsize=1)
def _english() -> frozenset[str]:
    from clinbridge.engine.understand._ground import _english_words

    return _english_words()


def _near(word: str) -> str | None:
    from rapidfuzz.distance import OSA

    near = [w for w in _STRUCTURE if abs(len(w) - len(word)) <= 1 and OSA.distance(word, w) <= 1]
    return near[0] if len(near) == 1 else None


def fix_structure_typos(text: str, lex: Lexicon) -> str:
    """``text`` with each unknown word one slip from exactly one structure word replaced by it.

    Words of the source's vocabulary and common English are never touched.
    """
    english = _english()

    def fix(m: re.Match[str]) -> str:
        w = m[0]
        if w in _STRUCTURE or w in english or lex.token_frequency(w):
            return w
        return _near(w) or w

    return _WORD.sub(fix, text)
