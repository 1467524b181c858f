"""Where an asked age is taken: at death, at an event the question names, or now.

"How old was she at death" takes the age at death; "mean age at their first X", "how old was
patient 2 when first diagnosed with X", "at what age was patient 22 first diagnosed with X"
take it at that event; any other age is the age now. Read from the question's pieces before
the rules assemble them (moved here from ``_slots``).
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._pieces import Piece, Slot

__all__ = ["age_anchor"]


def age_anchor(pieces: list[Piece]) -> tuple[list[Piece], bool, bool]:
    """Whether an age is taken at death ("how old was she at death") or at an event ("mean
    age at their first X"); the 'at death' marks go back to words when no age is asked."""
    marks = [p for p in pieces if isinstance(p, Slot) and p.kind == "at_death"]
    death_age = bool(marks) and any(isinstance(p, str) and "how old" in p for p in pieces)
    joined = " ".join(p.text if isinstance(p, Slot) else p for p in pieces)
    event_age = not death_age and bool(
        re.search(r"\bhow\s+old\b.*\b(?:when|at)\b", joined)
        or re.search(
            r"\bages?\b[^?]{0,80}?\b(?:at|when)\s+(?:(?:their|his|her|the)\s+)?"
            r"(?:first|earliest|initial|last|latest|index)\b",
            joined,
        )
        or re.search(
            r"\bages?\b[^?]{0,80}?\b(?:at\s+which|when|at\s+the\s+time\s+(?:of|when))\b", joined
        )
        # 'at what age was patient 22 first diagnosed with X': the age at that event
        or re.search(r"\bat\s+(?:what|which)\s+age\b", joined)
    )  # "how old was patient 2 when first diagnosed with X", "mean age ... at their first X"
    if death_age:  # "how old was she at death": the age is taken at death
        pieces = [p for p in pieces if p not in marks]
    else:  # not about an age: back to words
        pieces = [p.text if isinstance(p, Slot) and p.kind == "at_death" else p for p in pieces]
    return pieces, death_age, event_age
