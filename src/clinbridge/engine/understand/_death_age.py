"""'died before 65', 'aged under 65 at death': an age bound tied to the death is the age at death.

The parser reads a death ('died', 'deceased') as 'a recorded death' (age at death >= 0) and an
age bound ('under 65') as today's age; side by side the result check abstains, since the bound
may be on either age. When the words tie the bound to the death — the death word followed within
a few words by the comparison and the number ('died before 65', 'death before age 65', 'died
before reaching age 65'), or the age said to be taken at death ('age at death is under 65',
'aged under 65 at death') — the two become one filter: the age at death within the bound.
Elsewhere (an age bound with no such tie) nothing changes and the check still asks.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["age_at_death"]

_TIED = re.compile(
    r"\b(?:died|dying|die|death|deceased|passed\s+away)\s+"
    r"(?:(?:before|under|below|after|over|above|younger\s+than|older\s+than)\s+)"
    r"(?:(?:reaching|turning|the|age|ages|of|aged)\s+)*\d+\b"
    r"|\bage\s+(?:at|of)\s+(?:the\s+time\s+of\s+)?death\b"
    r"|\baged?\b[^.;]*?\bat\s+(?:the\s+time\s+of\s+)?death\b",
    re.I,
)


def age_at_death(preds: list[Any], question: str) -> list[Any]:
    """``preds`` with one today's-age bound folded into the death predicate when the question
    ties the two (see the module docstring); unchanged otherwise."""
    deaths = [p for p in preds if p.kind == "death"]
    ages = [p for p in preds if p.kind == "age"]
    if len(deaths) != 1 or len(ages) != 1 or not _TIED.search(question):
        return preds
    death, age = deaths[0], ages[0]
    death.age = dict(age.age or {})
    return [p for p in preds if p is not age]
