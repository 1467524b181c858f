"""'The hepatitis vaccine': a definite singular that the source's names split into variants.

A phrase matched only by containing its words may name several concepts whose names put a
different word inside it: 'hepatitis vaccine' is in 'hepatitis A vaccine, ...' and in
'hepatitis B vaccine, ...'. Said with the definite article and in the singular ('the hepatitis
vaccine'), the question presupposes one of them, not their union: each variant is a candidate
reading, and when their answers differ the question is asked back (the caller's choices). A
general word heading its kinds ('fracture', 'the fracture of the hip' and its kinds) is not
split: a variant needs a word *inside* the phrase, never only before or after it.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._text import tokens

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import ConceptEntry as Entry
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["definite_variants", "vaccine_act"]

_WIDE = re.compile(
    r"\b(?:any|all|every|each|either|some|various|different|types?\s+of|kinds?\s+of)\b"
)


def _same(word: str, name_word: str) -> bool:
    return name_word == word or (len(word) >= 3 and name_word.startswith(word))


def _inserted(phrase: list[str], name: list[str]) -> tuple[str, ...] | None:
    """The words a name puts inside the phrase ('hepatitis [a] vaccine' → ('a',)); None when
    the name does not hold the phrase's words in order, or holds them side by side."""
    pos: list[int] = []
    start = 0
    for w in phrase:
        k = next((i for i in range(start, len(name)) if _same(w, name[i])), None)
        if k is None:
            return None
        pos.append(k)
        start = k + 1
    inside = tuple(name[i] for a, b in itertools.pairwise(pos) for i in range(a + 1, b))
    return inside or None


def definite_variants(phrase: str, entries: list[Entry], question: str) -> list[list[Entry]] | None:
    """The variants a definite singular phrase names (each a list of entries, most recorded
    first), or None when the phrase is not said so or names no variants."""
    words = tokens(phrase)
    said = " ".join(tokens(question))
    if len(words) < 2 or f" the {' '.join(words)} " not in f" {said} ":
        return None
    before = said[: said.find(f"the {' '.join(words)}")]
    if _WIDE.search(before.split(" and ")[-1].split(" or ")[-1]) or words[-1].endswith("s"):
        return None
    groups: dict[tuple[str, ...], list[Entry]] = {}
    for e in entries:
        inside = _inserted(words, tokens(e.name))
        if inside is None:
            return None  # one name holds the phrase as it is said: no split
        groups.setdefault(inside, []).append(e)
    if len(groups) < 2:
        return None
    out = sorted(groups.values(), key=lambda g: -sum(e.events for e in g))
    return out


_ACTS = frozenset(
    {"injection", "injections", "shot", "shots", "jab", "jabs", "booster", "boosters"}
)


def vaccine_act(phrase: str, entries: list[Entry], lex: Lexicon) -> str | None:
    """'A tetanus injection' read as a procedure ('Injection of tetanus antitoxin') where the
    source also records vaccines of that group (CVX): a shot or injection of X is either; the
    reason to ask which, or None."""
    from clinbridge.engine.understand._vaccines import vaccine_group_entries

    words = tokens(phrase)
    acts = [w for w in words if w in _ACTS]
    rest = [w for w in words if w not in _ACTS and w not in {"of", "a", "an", "the"}]
    if len(acts) != 1 or not rest:
        return None
    found = vaccine_group_entries(" ".join([*rest, "vaccine"]), lex)
    if found is not None:
        group, vaccines = found[0].name, found[1]
    else:  # no code system to go by (OMOP): the vaccines and toxoids named with the words
        group = " ".join(rest)
        vaccines = [
            i
            for i, e in enumerate(lex.entries)
            if set(rest) <= set(name := tokens(e.name))
            and any(w.startswith(("vaccin", "toxoid")) for w in name)
        ]
        if not vaccines:
            return None
    codes = {lex.entries[i].code for i in vaccines}
    if not entries or any(e.code in codes for e in entries):
        return None
    names = "; ".join(sorted({e.name for e in entries})[:3])
    return f"ambiguous: {phrase!r} may be a {group} vaccine (drug records) or {names!r}; say which"
