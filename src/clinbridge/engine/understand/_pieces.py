"""What the slot reader splits a question into: text pieces and structural slots."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Maker", "Piece", "Slot", "split_pieces"]


@dataclass
class Slot:
    """One structural element read from a question (a window, a value, an intent...)."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    text: str = ""

    def __repr__(self) -> str:
        return f"⟦{self.kind}{':' + repr(self.data) if self.data else ''}⟧"


Piece = str | Slot
Maker = Callable[[re.Match[str]], list[Piece] | Slot | None]
"""What a pattern's match becomes: a slot, several pieces, or None (the match is left as text)."""


def split_pieces(pieces: list[Piece], pattern: re.Pattern[str], make: Maker) -> list[Piece]:
    """Cut every match of ``pattern`` out of the text pieces and put what ``make`` makes of it
    in its place (a slot without text gets the matched text); slots pass through, and text
    pieces left blank are dropped."""
    out: list[Piece] = []
    for piece in pieces:
        if isinstance(piece, Slot):
            out.append(piece)
            continue
        pos = 0
        for m in pattern.finditer(piece):
            made = make(m)
            if made is None:
                continue
            out.append(piece[pos : m.start()])
            if isinstance(made, Slot):
                made.text = made.text or m.group(0)
                out.append(made)
            else:
                out.extend(made)
            pos = m.end()
        out.append(piece[pos:])
    return [p for p in out if not (isinstance(p, str) and not p.strip())]
