"""Misspelt words of a trial question read as the dictionary word they are one letter from.

A word the dictionary lacks, one letter away from exactly one word it has (the first letter
kept), is that word ('platelts' → platelet); a word near a general word too, or near several, is
left ('height' is not 'weight'). A closed-class English word ('whose', 'other', 'should') is no
misspelling of anything: it is never corrected, so it is either read as what it is or left
unread and named in an abstention — never turned into a code ('whose' is not 'whole'). A past
tense the dictionary lacks is the one noun its stem begins ('babies who seized' → seizure), and
a clipped word of five letters or more the start of one dictionary word ('normo' → normothermia),
and a shorter one only where that word stands beside the question's next word in a label
('lac/NAA' → lactate, as in 'lactate/NAA ratio').
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._trial_vocab import Token, one_edit_apart
from clinbridge.engine.understand._trial_words import EXTRA_FILLER, SUBJECT_NOUNS

CLOSED_CLASS = frozenset(
    {
        *("whose", "whom", "whoever", "whatever", "whichever", "whether", "whereas", "while"),
        *("their", "theirs", "there", "these", "those", "itself", "other", "others", "another"),
        *("either", "neither", "every", "each", "should", "would", "could", "might", "shall"),
        *("about", "above", "below", "under", "until", "since", "though", "although", "because"),
        *("against", "around", "beyond", "except", "toward", "towards", "through", "upon"),
        *("throughout", "unless", "after", "before", "during", "within", "without", "among"),
    }
)
"""English function words (pronouns, determiners, modals, conjunctions, prepositions)."""


def correct_typos(
    content: Iterable[Token],
    vocabulary: frozenset[str] | set[str],
    in_time: Callable[[int], bool],
    groundings: list[Grounding],
    neighbours: frozenset[tuple[str, str]] = frozenset(),
) -> None:
    """Re-read each misspelt content word as its one near dictionary word (module docstring)."""
    general = EXTRA_FILLER | SUBJECT_NOUNS
    content = list(content)
    for k, t in enumerate(content):
        if t.norm in vocabulary or len(t.norm) < 3 or in_time(t.start):
            continue
        if any(ch.isdigit() for ch in t.norm) or t.text in CLOSED_CLASS:
            continue
        near = derived_forms(t.text, vocabulary)  # 'passively' passive, 'hypoglycemic'
        if not near:
            near = [
                w
                for w in vocabulary | general
                if len(t.norm) >= 5 and w[:1] == t.norm[:1] and one_edit_apart(t.norm, w)
            ]
        if not near and t.text.endswith("ed") and len(t.norm) >= 4:
            # a past tense said of the noun its stem begins ('seized' → seizure): one such noun
            near = [w for w in vocabulary if w.startswith(t.norm) and len(w) > len(t.norm) + 1]
        clip = max(t.norm, t.text.lower(), key=len)  # ('resus', not its stem 'resu')
        if not near and len(clip) >= 5 and t.text not in general:
            # a clipped word ('normo' for normothermia): the start of one dictionary word
            near = [w for w in vocabulary if w.startswith(clip) and len(w) >= len(clip) + 3]
        if not near and len(clip) >= 3 and t.text.isalpha() and t.text not in general:
            near = _clipped_beside(content, k, clip, vocabulary, neighbours)
        if len(near) == 1 and near[0] in vocabulary and len(near[0]) >= 5:
            groundings.append(
                Grounding(phrase=t.text, kind="spelling", target=f"read as {near[0]!r}")
            )
            t.norm = near[0]


def _clipped_beside(
    content: list[Token],
    k: int,
    clip: str,
    vocabulary: frozenset[str] | set[str],
    neighbours: frozenset[tuple[str, str]],
) -> list[str]:
    """A short clipped word ('lac' of 'lac/NAA ratio') read as the dictionary word it starts
    only where that word stands, in a label, beside the word the question says next to it
    ('lactate/NAA'): the word's context confirms it."""
    t = content[k]
    nxt = content[k + 1].norm if k + 1 < len(content) and content[k + 1].start - t.end <= 1 else ""
    prev = content[k - 1].norm if k > 0 and t.start - content[k - 1].end <= 1 else ""
    return [
        w
        for w in vocabulary
        if w.startswith(clip)
        and len(w) >= len(clip) + 3
        and ((nxt and (w, nxt) in neighbours) or (prev and (prev, w) in neighbours))
    ]


def _us(word: str) -> str:
    """A British spelling written the American way ('haemoglobin' hemoglobin, 'oedema')."""
    return word.replace("ae", "e").replace("oe", "e")


def derived_forms(word: str, vocabulary: frozenset[str] | set[str]) -> list[str]:
    """The one dictionary word that ``word`` is a derived form of: an adverb of its adjective
    ('passively' → passive), an adjective in -ic of its noun in -ia ('hypoglycaemic' →
    hypoglycaemia, 'hypoxic' → hypoxia), either spelt the American or the British way
    ('hypoglycemic'); none, or several, gives []."""
    w = word.lower()
    if len(w) < 6 or not w.isalpha():
        return []
    forms = {_us(w)}
    if w.endswith("ly"):
        forms.add(_us(w[:-2]))
    if w.endswith("ic"):
        forms.add(_us(w[:-2] + "ia"))
    near = sorted({v for v in vocabulary if len(v) >= 5 and _us(v) in forms and v != w})
    return near if len(near) == 1 else []
