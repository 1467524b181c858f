"""Wording that a list of concepts cannot answer: an amount asked for, or one concept named.

A list intent ('tell me', 'what is', 'show') is the weakest reading of a question. When the
question also asks for an amount ('the total foley output', 'patient 7's total d5lr input') or
names the one concept it is about right before the kind listed ('the void output'), the list of
every concept of that kind is not what was asked: the reading abstains, naming the word.
"""

from __future__ import annotations

from clinbridge.engine.understand._context import Abstain
from clinbridge.engine.understand._ground import Concept, Word

__all__ = ["check_list_wording"]

AMOUNT_WORDS = frozenset(("total", "sum", "average", "mean", "median", "amount", "volume"))
"""Words that ask for an amount; inside a concept's own name ('total protein') they do not."""


def check_list_wording(items: list[object], noun: str | None = None) -> None:
    """Raise :class:`Abstain` when the items ask for more than a list of concepts.

    ``noun``: the stream the list reads; a concept standing right before a word naming that
    stream ('void output') is the thing asked about, not one of many to list.
    """
    for i, nxt in zip(items, [*items[1:], None], strict=True):
        in_name = isinstance(nxt, Concept) and isinstance(i, Word) and i.text in nxt.label.lower()
        if isinstance(i, Word) and i.text in AMOUNT_WORDS and not in_name:
            raise Abstain(f"'{i.text}' asks for an amount, not a list", i.text)
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
