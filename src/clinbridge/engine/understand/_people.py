"""Phrases about people in a question's items: 'which patients', 'asthma patients', a person
word, and the next item that carries meaning (connectors and order words aside)."""

from __future__ import annotations

from collections.abc import Sequence

from clinbridge.engine.understand._context import Item
from clinbridge.engine.understand._ground import Concept, Word
from clinbridge.engine.understand._slots import Slot

__all__ = ["PLURAL_PEOPLE"]

PLURAL_PEOPLE = frozenset({"patients", "people", "persons", "individuals", "subjects", "cases"})


def _which_people(items: list[Item]) -> int | None:
    """'which patients / which women had X', 'which asthma patients ...' (a plural person, or
    a concept qualifying people, right after an opening which or what): the position of the
    'which', else None."""
    wh = next((k for k, i in enumerate(items) if isinstance(i, Slot) and i.kind == "wh"), None)
    if wh is None or any(
        isinstance(i, Slot) or (isinstance(i, Word) and i.role != "hint") for i in items[:wh]
    ):
        return None
    nxt = items[wh + 1] if wh + 1 < len(items) else None
    if isinstance(nxt, Word) and nxt.role == "subject" and nxt.text in PLURAL_PEOPLE:
        return wh
    if (
        isinstance(nxt, Slot)
        and nxt.kind == "sex"
        and nxt.text in {"women", "men", "females", "males"}
    ):
        return wh
    if isinstance(nxt, Concept) and _followed_by_person(items, nxt):
        return wh  # 'which asthma patients never got albuterol'
    return None


def _next_significant(items: Sequence[Item]) -> Item | None:
    for i in items:
        if isinstance(i, Word) and i.role in {"hint", "connector"} and not i.value:
            continue
        if isinstance(i, Slot) and i.kind in {"order", "wh", "neg"}:
            continue
        return i
    return None


def _followed_by_person(items: Sequence[Item], concept: Concept) -> bool:
    """'atrial fibrillation patients', 'celecoxib users': the concept qualifies people."""
    k = next(k for k, i in enumerate(items) if i is concept)
    nxt = _next_significant(items[k + 1 :])
    if nxt is None:
        return False
    if (
        isinstance(nxt, Word)
        and nxt.role == "hint"
        and nxt.value == "drug"
        and nxt.text.startswith("user")
    ):
        return True
    return isinstance(nxt, Word) and nxt.role == "subject"


def _is_person(i: Item) -> bool:
    if isinstance(i, Word) and i.role == "subject":
        return True
    return isinstance(i, Slot) and i.kind in {"sex", "age"}
