"""Passes over the slot reader's pieces after its rule table (:mod:`._slots`): each looks at a
slot and the text beside it, which no single rule sees ('total' before an amount, the 'to' of a
time between two events, a date every patient has asked of one named patient)."""

from __future__ import annotations

import re

from clinbridge.engine.understand._pieces import Maker, Piece, Slot, split_pieces

__all__ = ["patient_dates", "split_between", "total_before_amount"]


_TOTAL_END = re.compile(r"\b(?:total|summed|sum\s+of(?:\s+the)?)\s*$", re.I)


def total_before_amount(pieces: list[Piece]) -> list[Piece]:
    """'total days supply', 'the total quantity': 'total' right before an amount read as its
    own slot is the sum of that amount (the rule reading 'total' sees only its own text)."""
    out = list(pieces)
    for k in range(len(out) - 1, 0, -1):
        p, prev = out[k], out[k - 1]
        if not (isinstance(p, Slot) and p.kind == "measure" and isinstance(prev, str)):
            continue
        if p.data.get("of") not in {"days_supply", "quantity"}:
            continue
        m = _TOTAL_END.search(prev)
        if m is not None:
            out[k - 1 : k] = [prev[: m.start()], Slot("intent", {"op": "sum"}), " "]
    return [x for x in out if not (isinstance(x, str) and not x)]


def split_between(pieces: list[Piece]) -> list[Piece]:
    """'days from X to Y': the 'to' (or 'until', 'and') after a time-between measure separates
    its two events, so that 'X to Y' is never read as one phrase."""
    out = list(pieces)
    for k, p in enumerate(out):
        if not (isinstance(p, Slot) and p.kind == "measure" and p.data.get("of") == "days_between"):
            continue
        for j in range(k + 1, len(out)):
            text = out[j]
            if isinstance(text, str):
                m = re.search(r"\b(?:to|until|till|and)\b", text)
                if m:
                    out[j : j + 1] = [text[: m.start()], " and ", text[m.end() :]]
                    return [x for x in out if not (isinstance(x, str) and not x.strip())]
    return out


def _patient_date_maker(point: str) -> Maker:
    def make(m: re.Match[str]) -> list[Piece]:
        return [Slot("intent", {"op": "date"}), Slot("patient_date", {"point": point})]

    return make


def patient_dates(pieces: list[Piece]) -> list[Piece]:
    """'the date of birth of patient X', 'death date for pt Y', 'when was X born': a date every
    patient has, asked of one patient named in the question (elsewhere the words stay words)."""
    if not any(isinstance(p, Slot) and p.kind == "patient_ref" for p in pieces):
        return pieces
    for point in ("birth", "death"):
        pieces = split_pieces(
            pieces,
            re.compile(
                rf"\b(?:the\s+)?date\s+of\s+{point}\b|\b{point}\s*-?\s*date\b"
                + (r"|\bbirthdate\b|\bbirthday\b" if point == "birth" else "")
            ),
            _patient_date_maker(point),
        )
    joined = " ".join(p.text if isinstance(p, Slot) else p for p in pieces)
    if re.search(r"^\s*(?:when|on\s+what\s+date|what\s+date)\b.*\bborn\b", joined):
        pieces = split_pieces(
            pieces, re.compile(r"\bborn\b"), lambda m: Slot("patient_date", {"point": "birth"})
        )
    return pieces
