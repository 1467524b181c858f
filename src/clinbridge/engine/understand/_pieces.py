"""What the slot reader splits a question into: text pieces and structural slots."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Piece", "Slot"]


@dataclass
class Slot:
    """One structural element read from a question (a window, a value, an intent...)."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    text: str = ""

    def __repr__(self) -> str:
        return f"⟦{self.kind}{':' + repr(self.data) if self.data else ''}⟧"


Piece = str | Slot
