"""A count implied by a plural event noun and nothing else: 'deaths in site 4', 'seizures in
the cooled arm, by trial' ask how many (a yes/no item said in the plural, no aggregate word, no
measurement). A singular ('death in site 4') or a share word keeps its own reading."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinbridge.engine.understand._trial_model import Family

if TYPE_CHECKING:
    from clinbridge.engine.understand._trial_model import Mention

__all__ = ["implied_count"]


def implied_count(text: str, mentions: list[Mention], measured: list[Mention]) -> bool:
    """Whether the one yes/no item said is said as a plural noun ('deaths') with nothing measured."""
    if measured:
        return False
    binary = [
        mt
        for mt in mentions
        if isinstance(mt.target, Family) and mt.target.kind == "binary" and not mt.grouped
    ]
    if len(binary) != 1 or binary[0].negated:
        return False
    said = text[binary[0].start : binary[0].end].split()
    return len(said) == 1 and said[0].endswith("s") and not said[0].endswith("ss")
