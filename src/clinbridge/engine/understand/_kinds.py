"""A general condition name on a source without a concept hierarchy stands for its kinds too.

On OMOP, 'hypertension' grounds to the concept and, through CONCEPT_ANCESTOR, to 'Essential
hypertension'. A FHIR load (or any source whose codes carry no hierarchy) has only its own
labels: the exact label 'Hypertension' would count the patients coded with that one code and
miss those coded 'Essential hypertension (disorder)' — a wrong count, not an abstention.

Where no hierarchy is attached, an exact (or synonym / same-words) condition match is widened
to the other *condition* labels that contain every word of it, the way a phrase with no exact
label already grounds to every label it heads (``_ground.ground_text``). Left out, as they are
not kinds of the condition: labels where the words are only the argument of a preposition
('History of myocardial infarction', already cut by ``Lexicon.match``), situations
('... (situation)'), and labels carrying a word of uncertainty, history, risk or screening
('Suspected COVID-19', 'Awaiting transplantation of kidney'). The same labels are left out of a
general word's labels ('lung cancer' heads 'Suspected lung cancer (situation)' too).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._text import stem, tokens

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon, Match

__all__ = ["only_kinds", "widen_to_kinds"]

_NOT_A_KIND = frozenset(
    stem(w)
    for w in (
        *("suspected", "suspect", "possible", "probable", "history", "risk", "screening"),
        *("awaiting", "family", "fear", "excluded"),
        *("situation", "resolved", "test", "assessment", "monitoring", "examination"),
    )
)
_NEGATIONS = frozenset({"no", "not", "without", "absent", "absence"})
_SCREENS = frozenset(stem(w) for w in ("screening", "screen", "assessment", "assess"))
_TAG = re.compile(r"\((?:situation)\)\s*$", re.I)
_EXACT = frozenset({"exact", "synonym", "same_words"})


def widen_to_kinds(chosen: list[Match], matches: list[Match], lex: Lexicon) -> list[Match]:
    """``chosen`` plus the condition labels that are kinds of it (see the module docstring);
    ``chosen`` unchanged where the lexicon has a hierarchy or the match is not a condition's."""
    if getattr(lex, "has_hierarchy", True) or not chosen or chosen[0].how not in _EXACT:
        return chosen
    if any(lex.entries[i].stream != "condition" for m in chosen for i in m.entries):
        return chosen
    extra = []
    for m in matches:
        if m in chosen or m.how != "contains":
            continue
        if any(lex.entries[i].stream != "condition" for i in m.entries):
            continue
        if _not_a_kind(m):
            continue
        extra.append(m)
    return chosen + extra


def _not_a_kind(m: Match) -> bool:
    words = tokens(m.label)
    negated = bool(words) and words[0] in _NEGATIONS  # 'No ...'; not '... with no loss of ...'
    return bool(negated or _TAG.search(m.label) or {stem(w) for w in words} & _NOT_A_KIND)


def only_kinds(chosen: list[Match], lex: Lexicon, phrase: str = "") -> list[Match]:
    """A general word's labels ('lung cancer' → 'Non-small cell lung cancer') without the ones
    that are not the thing itself, where no hierarchy is attached: suspected / history /
    situation condition labels (as above), and labels of any stream that screen or assess for it
    ('Depression screening (procedure)' is not depression) unless the phrase says so. Empty when
    none is left: the phrase then names nothing the source holds."""
    if getattr(lex, "has_hierarchy", True):
        return chosen
    said = {stem(w) for w in tokens(phrase)}
    kept = []
    for m in chosen:
        words = {stem(w) for w in tokens(m.label)}
        if (words - said) & _SCREENS:
            continue
        condition = all(lex.entries[i].stream == "condition" for i in m.entries)
        if condition and _not_a_kind(m) and not (words & said & _NOT_A_KIND):
            continue
        kept.append(m)
    return kept
