"""Labels told apart by which side of a moment they stand: 'Clinical seizures before
randomisation' and 'Clinical seizures after randomisation' share every other word, yet are two
items, not one item at two time points. Their families are kept apart by these words, and a
question that says one of them ('seizures after randomisation') names the family whose label
says it; one that says neither stays tied between them (the caller abstains)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._trial_model import Abstain

if TYPE_CHECKING:
    from clinbridge.engine.understand._trial_model import Mention, Parse

__all__ = ["check_direction", "contradicts", "direction_key", "said_direction"]

_SIDES = {
    "before": "before",
    "prior": "before",
    "pre": "before",
    "preceding": "before",
    "after": "after",
    "post": "after",
    "following": "after",
    "since": "after",
}
_WORD = re.compile(r"\b(" + "|".join(_SIDES) + r")\b(?=[\s-])", re.I)


def _sides(text: str) -> set[str]:
    return {_SIDES[m.group(1).lower()] for m in _WORD.finditer(text)}


def direction_key(label: str) -> str:
    """The sides a label's words take ('|before', '|after'), '' for none: part of its family's key."""
    sides = _sides(label)
    return "|" + ",".join(sorted(sides)) if sides else ""


def said_direction(
    parse: Parse, best: Mention, rivals: list[Mention]
) -> tuple[Mention, list[Mention]]:
    """Of mentions tied on the same words, the one family whose label takes the side the
    question's words say within the mention ('after' in 'seizures after randomisation')."""
    said = _sides(parse.text[best.start : best.end] + " ")
    if not said:
        return best, rivals
    tied = [best, *rivals]
    fits = [
        mt
        for mt in tied
        if hasattr(mt.target, "label") and _sides(getattr(mt.target, "label", "")) == said
    ]
    return (fits[0], []) if len(fits) == 1 else (best, rivals)


def _label(mt: Mention) -> str:
    target = mt.target
    label = getattr(target, "label", None)
    if label is None:
        var = getattr(target, "var", None)
        label = (var.description or var.name) if var is not None else ""
    return str(label)


def contradicts(parse: Parse, mt: Mention) -> bool:
    """Whether the mention's words take a side of a moment its label does not take."""
    said = _sides(parse.text[mt.start : mt.end] + " ")
    own = _sides(_label(mt) + " ")
    return bool(said and own and not said & own)


def check_direction(parse: Parse, mt: Mention) -> None:
    """A mention whose words take one side of a moment ('seizures after randomisation') never
    names a label that takes the other ('Seizures before randomisation'): the reader abstains."""
    said = _sides(parse.text[mt.start : mt.end] + " ")
    label = _label(mt)
    own = _sides(label + " ")
    if said and own and not said & own:
        raise Abstain(
            f"{parse.text[mt.start : mt.end]!r} says {' and '.join(sorted(said))}, but "
            f"{label!r} says {' and '.join(sorted(own))}"
        )
