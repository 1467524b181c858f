"""'From the first dose to the second dose', 'between dose 1 and dose 2': the nth event of one
concept in a time between two events.

Inside a days-between question an ordinal before a word for one administration or record
('second dose', '2nd shot', 'third injection') or a number after it ('dose 2') names that
event of the concept the question is about, counted from the first. The order is marked only
where a days-between measure was read, so an ordinal elsewhere stays unread (and is named).
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._pieces import Piece, Slot, split_pieces

__all__ = ["mark_nth_events"]

_NOUN = r"(?:doses?|shots?|injections?|vaccinations?|jabs?|exposures?|prescriptions?|administrations?|fills?)"
_NTH = {"second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5}
_BEFORE = re.compile(rf"\b(?P<n>second|2nd|third|3rd|fourth|4th|fifth|5th)\s+(?={_NOUN}\b)")
_AFTER = re.compile(
    rf"\b(?P<noun>{_NOUN})\s+(?:(?:number|no\.?|#)\s*)?(?P<k>[1-5])\b(?!\s*(?:days?|weeks?|months?|years?|mg|ml)\b)"
)


def _ordered(nth: int) -> Slot:
    return Slot("order", {"which": "first", **({"nth": nth} if nth > 1 else {})})


def mark_nth_events(pieces: list[Piece]) -> list[Piece]:
    """``pieces`` with the nth events of a days-between question marked as order slots."""
    if not any(
        isinstance(p, Slot) and p.kind == "measure" and p.data.get("of") == "days_between"
        for p in pieces
    ):
        return pieces
    pieces = split_pieces(pieces, _BEFORE, lambda m: _ordered(_NTH[m["n"]]))

    def after(m: re.Match[str]) -> list[Piece]:
        return [_ordered(int(m["k"])), f" {m['noun']} "]

    return split_pieces(pieces, _AFTER, after)
