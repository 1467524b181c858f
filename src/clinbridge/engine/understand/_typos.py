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

from clinbridge.engine.understand._spelling import one_slip
from clinbridge.engine.understand._text import stem

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["fix_question_typos", "fix_structure_typos"]

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
        *("together", "times", "episodes", "episode", "supply", "positive", "negative", "both"),
        *("separately", "currently", "recently", "documented", "allergic"),
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


@lru_cache(maxsize=1)
def _terms() -> frozenset[str]:
    """One-word terms of the shorthand lexicon and the drug classes ('opioid', 'antibiotics',
    'shingles', 'lipitor'): a slip in one ('opiod', 'antibiotcs', 'shingels') is mended to it
    as to a structure word. Five letters or more: a shorter term has too many neighbours."""
    from clinbridge.engine.understand._shorthand import concept_shorthand, drug_classes

    words = {t for t in concept_shorthand() if t.isalpha()}
    for c in drug_classes():
        words.update(n for n in (c.name, *c.synonyms) if n.isalpha())
    return frozenset(w for w in words if len(w) >= 5)


def _slips(word: str, words: frozenset[str]) -> set[str]:
    if len(word) == 3:  # 'mny', 'hav': a three-letter slip is only a dropped letter
        return {w for w in words if len(w) == 4 and one_slip(word, w)}
    return {w for w in words if abs(len(w) - len(word)) <= 1 and one_slip(word, w)}


def _one_of(word: str, near: set[str]) -> str | None:
    """The one word meant, or None when the slip could be more than one ('vist': 'visit' or
    'list'). Forms of one word ('time', 'times') are one word: the form ending as typed wins."""
    if len(near) == 1:
        return next(iter(near))
    if near and len({stem(w) for w in near}) == 1:
        same_end = sorted(w for w in near if w[-1] == word[-1])
        return same_end[0] if len(same_end) == 1 else None
    return None


def _near(word: str, lex: Lexicon | None = None) -> str | None:
    near = _slips(word, _STRUCTURE)
    if len(word) >= 5:
        near |= _slips(word, _terms())
    if lex is not None and len(word) >= 5:
        # the source's own vocabulary is a candidate too: a slip one edit from a structure or
        # shorthand word and from a different vocabulary word is ambiguous, never picked
        vocab = lex.nearest_token(word)
        if vocab is not None and not near:
            return None  # the grounder mends it against the vocabulary itself
        if vocab is not None:
            near.add(vocab)
    return _one_of(word, near)


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
        if w in _known_short() or w in _terms():
            return w
        return _near(w, lex) or w

    return _WORD.sub(fix, text)


_RAW_WORD = re.compile(r"(?<![\w'.-])[A-Za-z][a-z]{2,}(?![\w'-]|\.\w)")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”")


def fix_question_typos(question: str, lex: Lexicon) -> str:
    """The question as typed with the slips of :func:`fix_structure_typos` mended before any
    reader sees it ('whch pt is homless', 'days sicne pt 20 last vist', 'fractrue pts lsat year'):
    every reader, not only the grounder, then reads the word meant.

    Untouched: capitalised words inside the question (a name, an abbreviation), words inside
    quotes (a concept's name as the data stores it), words joined to digits, hyphens or
    underscores (ids, codes, field names) and patients' names.
    """
    quoted = [m.span() for m in _QUOTED.finditer(question)]
    names = {part for name in lex.patient_names for part in name.split()}

    def fix(m: re.Match[str]) -> str:
        w = m[0]
        if w[0].isupper() and m.start() > 0:
            return w
        if any(a <= m.start() < b for a, b in quoted):
            return w
        low = w.lower()
        if low in names:
            return w
        fixed = fix_structure_typos(low, lex)
        if fixed == low:
            return w
        return fixed.capitalize() if w[0].isupper() else fixed

    return _RAW_WORD.sub(fix, question)
