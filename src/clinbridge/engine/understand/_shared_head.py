"""'Ankle or wrist sprain': modifiers coordinated before one head noun share it.

In 'ankle or wrist sprain' the head 'sprain' belongs to both modifiers: the question names
'ankle sprain' and 'wrist sprain'. Read alone, 'ankle' names whatever contains the word (an
ankle sprain and an ankle fracture), a different and wider set. When the item after the
connector is a concept named exactly (or by a synonym) and the lone modifier before it, with
that concept's trailing head words, is also a concept named exactly, the modifier is read with
the head. Nothing changes where the modifier with the head names no concept of the source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinbridge.engine.understand._ground import Concept, Word, ground_text
from clinbridge.engine.understand._text import tokens

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["share_head"]

_CONNECTORS = frozenset({"or", "and", "and/or", "/"})
_NAMED = frozenset({"exact", "synonym"})


def _named(phrase: str, lex: Lexicon) -> Concept | None:
    """The one concept a phrase names exactly or by a synonym, else None."""
    found = ground_text(phrase, lex, embeddings=False)
    if len(found) != 1 or not isinstance(found[0], Concept):
        return None
    c = found[0]
    return c if c.how in _NAMED and c.score >= 0.97 else None


def _modifier_words(item: object) -> list[str] | None:
    """The words of a lone modifier: a concept matched only by containing them, or words left
    unresolved (one or two words)."""
    if isinstance(item, Concept) and item.how == "contains":
        words = tokens(item.phrase)
    elif isinstance(item, Word) and item.role == "unresolved":
        words = tokens(item.text)
    else:
        return None
    return words if 1 <= len(words) <= 2 else None


def share_head(items: list[object], lex: Lexicon) -> list[object]:
    """The items with each 'A or B H' modifier A read as 'A H' where that names a concept."""
    out = list(items)
    for k in range(len(out) - 2):
        a, conj, b = out[k], out[k + 1], out[k + 2]
        if not (isinstance(conj, Word) and conj.role == "connector" and conj.text in _CONNECTORS):
            continue
        if not (isinstance(b, Concept) and b.how in _NAMED and b.score >= 0.97):
            continue
        mod = _modifier_words(a)
        b_words = tokens(b.phrase)
        if mod is None or len(b_words) < 2 or set(mod) & set(b_words):
            continue
        for j in range(1, len(b_words)):
            named = _named(" ".join([*mod, *b_words[j:]]), lex)
            if named is None or set(named.entries) & set(b.entries):
                continue
            # the modifier's own words stay the phrase: the question says 'ankle', not the head
            phrase = a.phrase if isinstance(a, Concept) else a.text  # type: ignore[union-attr]
            named.phrase = phrase
            out[k] = named
            break
    return out
