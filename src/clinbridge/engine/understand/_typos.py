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
        *("admission", "admitted", "hospital", "longest", "shortest", "total", "split"),
        *("deceased", "died", "alive", "living", "vaccinated", "prescriptions", "prescription"),
        *("procedures", "procedure", "diagnoses", "encounter", "visit", "measurement"),
        *("measurements", "reading", "readings", "discharged", "discharge", "started", "stopped"),
    ]
)
_WORD = re.compile(r"\b[a-z]{3,}\b")


@lru_cache(maxsize=1)
def _short_english() -> frozenset[str]:
    """Three-letter words of the packaged MiniLM's WordPiece vocabulary ('day', 'any', 'wit'):
    a short word found there is meant as written; empty without the model package."""
    try:
        from clinbridge.embed import model_path

        text = (model_path() / "vocab.txt").read_text("utf-8")
    except (ImportError, OSError):
        return frozenset()
    return frozenset(w for w in text.split() if w.isalpha() and len(w) == 3)


@lru_cache(maxsize=1)
def _english() -> frozenset[str]:
    from clinbridge.engine.understand._ground import _english_words

    return _english_words()


@lru_cache(maxsize=1)
def _known_short() -> frozenset[str]:
    """The shorthand lexicon's own terms ('ast', 'mch', 'mos'): an abbreviation, not a slip."""
    from clinbridge.engine.understand._shorthand import concept_shorthand, word_shorthand

    return frozenset(concept_shorthand()) | frozenset(word_shorthand()) | {"mos", "hrs", "mins"}


def _near(word: str) -> str | None:
    from rapidfuzz.distance import OSA

    if len(word) == 3:  # 'mny', 'hav': a three-letter slip is only a dropped letter
        near = [w for w in _STRUCTURE if len(w) == 4 and OSA.distance(word, w) <= 1]
        return near[0] if len(near) == 1 else None
    near = [w for w in _STRUCTURE if abs(len(w) - len(word)) <= 1 and OSA.distance(word, w) <= 1]
    return near[0] if len(near) == 1 else None


def fix_structure_typos(text: str, lex: Lexicon | None) -> str:
    """``text`` with each unknown word one slip from exactly one structure word replaced by it.

    Words of the source's vocabulary (with ``lex``) and common English are never touched; the
    acceptance rules, which have no lexicon, read their words through it with ``lex`` None.
    """
    english = _english()

    def fix(m: re.Match[str]) -> str:
        w = m[0]
        if w in _STRUCTURE or w in english or (lex is not None and lex.token_frequency(w)):
            return w
        if len(w) == 3 and (w in _short_english() or not _short_english() or w in _known_short()):
            return w
        return _near(w) or w

    return _WORD.sub(fix, text)
