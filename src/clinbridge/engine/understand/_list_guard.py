"""Wording that a list of concepts cannot answer: an amount asked for, or one concept named.

A list intent ('tell me', 'what is', 'show') is the weakest reading of a question. When the
question also asks for an amount ('the total foley output', 'patient 7's total d5lr input') or
names the one concept it is about right before the kind listed ('the void output'), the list of
every concept of that kind is not what was asked: the reading abstains, naming the word.
"""

from __future__ import annotations

from clinbridge.engine.understand._context import Abstain
from clinbridge.engine.understand._ground import Concept, Word

__all__ = ["amount_word", "check_list_wording"]

AMOUNT_WORDS = frozenset(("total", "sum", "average", "mean", "median", "amount", "volume"))
"""Words that ask for an amount; inside a concept's own name ('total protein') they do not."""


def amount_word(items: list[object], words: frozenset[str] = AMOUNT_WORDS) -> str | None:
    """The first of ``words`` standing as a word of its own (not the first word of the concept
    name after it, as in 'total protein'); None when there is none."""
    for i, nxt in zip(items, [*items[1:], None], strict=True):
        in_name = isinstance(nxt, Concept) and isinstance(i, Word) and i.text in nxt.label.lower()
        if isinstance(i, Word) and i.text in words and not in_name:
            return i.text
    return None


def check_list_wording(items: list[object], noun: str | None = None) -> None:
    """Raise :class:`Abstain` when the items ask for more than a list of concepts.

    ``noun``: the stream the list reads; a concept standing right before a word naming that
    stream ('void output') is the thing asked about, not one of many to list.
    """
    word = amount_word(items)
    if word is not None:
        raise Abstain(f"'{word}' asks for an amount, not a list", word)
    for i, nxt in zip(items, [*items[1:], None], strict=True):
        if (
            noun is not None
            and isinstance(i, Concept)
            and isinstance(nxt, Word)
            and nxt.role in {"stream_noun", "event_noun"}
            and nxt.value == noun
        ):
            raise Abstain(
                f"'{i.label}' names one of the {noun} asked about; a list of every one does not "
                "answer it",
                i.label,
            )
