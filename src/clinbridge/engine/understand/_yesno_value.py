"""'Was her last PSA over 4?': a yes/no about a value's threshold is not the value itself.

The parser reads 'the last PSA' as the measure (a value) and has no place for the comparison
that follows when no cohort is counted: the number would be dropped and the value returned to a
yes/no question. When a question opens as a yes/no ('was', 'is', 'did' ...), the plan's measure
is a value, and the question compares with a number ('over 4', 'above 4 ng/mL', '> 4'), the
reading abstains and says to ask for the value (which it can give) instead.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.engine.plan import QueryPlan

__all__ = ["threshold_yesno"]

_YESNO = re.compile(r"^\s*(?:was|were|is|are|did|does|do|has|have|had)\b", re.I)
_COMPARED = re.compile(
    r"(?:\b(?:over|above|under|below|exceed(?:s|ed|ing)?|(?:more|less|greater|higher|lower|fewer)"
    r"\s+than|at\s+(?:least|most))|[<>]=?)\s*-?\d",
    re.I,
)


def threshold_yesno(question: str, plan: QueryPlan | None) -> str | None:
    """The abstention reason for a yes/no about a value's threshold read as the value."""
    if plan is None or plan.measure.of != "value" or not _YESNO.search(question):
        return None
    m = _COMPARED.search(question)
    if m is None:
        return None
    return (
        f"the question asks yes or no about a value compared with a number ({m.group(0)!r}); "
        "that comparison is not read here: ask for the value itself"
    )
