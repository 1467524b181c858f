"""'% on inotropes severe HIE babies that were cooled': what a share word is followed by at once,
through a preposition of having ('on', 'with', 'receiving'), is what is counted; the subjects
named after it — their attributes and their relative clause ('severe HIE babies that were
cooled') — are the cohort. Without this the relative clause would be read as the thing counted
(the share of cooled among those on inotropes: the wrong denominator)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._trial_model import CodeSet, Mention
from clinbridge.engine.understand._trial_vocab import tokenize
from clinbridge.engine.understand._trial_words import SUBJECT_NOUNS

if TYPE_CHECKING:
    from clinbridge.catalog import Variable

__all__ = ["counted_at_once"]

_HAVING = re.compile(
    r"\s*(?:on|with|having|receiving|given|needing|requiring)\s+(?:\|\s*)?(?:an?\s+|the\s+)?"
)


def counted_at_once(
    mentions: list[Mention], text: str, groups: list[Variable], share_end: int
) -> bool:
    """Set the zones when the share word (ending at ``share_end``) is followed at once by 'on'/
    'with' and a condition, and the subjects are named after that condition; else leave them."""
    m = _HAVING.match(text, share_end)
    if m is None:
        return False
    conds = [
        mt
        for mt in mentions
        if mt.variable is not None
        and not (isinstance(mt.target, CodeSet) and mt.target.var in groups)
    ]
    head = next((mt for mt in conds if mt.start == m.end()), None)
    if head is None:
        return False
    rest = [mt for mt in conds if mt is not head]
    nouns = [t for t in tokenize(text[head.end :]) if t.norm in SUBJECT_NOUNS]
    if not rest or not nouns:
        return False
    noun_at = head.end + nouns[0].start
    if not text[head.end : noun_at].strip(" |") and not any(mt.start > noun_at for mt in rest):
        return False  # nothing said of the subjects: no cohort to read
    if any(mt.start < noun_at and re.search(r"[,;:?]", text[head.end : mt.start]) for mt in rest):
        return False  # a clause of its own before the subjects: not their attributes
    head.zone = "numerator"
    for mt in rest:
        mt.zone = "cohort"
    return True
