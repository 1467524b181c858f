"""'avg heart rate at 48h cooled vs normothermic': both sides of a 'vs' must be read.

A comparison 'A vs B' of groups whose one side is a code (the normothermia arm) and whose other
side was read as something else (a word of the measured variable) or not at all would answer
one side's figure as if it were the comparison: the reading abstains instead, naming the side
it could not place. Two sides that are codes of one variable (or one mention spanning both) are
a grouping by it, read elsewhere.
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._trial_model import Abstain, CodeSet, Mention

__all__ = ["check_versus_sides"]

_VERSUS = re.compile(r"\b(?:vs\.?|versus|compared\s+(?:with|to)|against)(?=\s)")


def check_versus_sides(text: str, mentions: list[Mention]) -> None:
    """Abstain when a 'vs' has a code on one side and no code of the same variable on the other."""
    for m in _VERSUS.finditer(text):
        if any(mt.start < m.start() and mt.end > m.end() for mt in mentions):
            continue  # one mention spans both sides ('hypothermia vs normothermia')
        before = [mt for mt in mentions if mt.end <= m.start()]
        after = [mt for mt in mentions if mt.start >= m.end()]
        left = max(before, key=lambda mt: mt.end) if before else None
        right = min(after, key=lambda mt: mt.start) if after else None
        # a side is what stands beside the 'vs' ('0h vs 72h' sets time points apart)
        if left is not None and not _beside(text[left.end : m.start()]):
            left = None
        if right is not None and not _beside(text[m.end() : right.start]):
            right = None
        coded = [mt for mt in (left, right) if mt is not None and _coded(mt)]
        if not coded:
            continue  # no group compared ('24 h vs 72 h', 'lactate vs pH')
        sides = {_coded(mt) for mt in (left, right) if mt is not None}
        if len(coded) == 2 and len(sides) == 1:
            continue
        names = sorted(sides - {None})
        said = text[max(0, m.start() - 25) : m.end() + 25].strip()
        raise Abstain(
            f"the comparison {said!r} sets codes of different variables ({', '.join(names)}) "
            "against each other; ask for the figures 'by' one of them"
            if len(names) > 1
            else f"the comparison {said!r} names a side of {names[0]} that the reading could "
            f"not place; ask 'by {names[0]}'"
        )


def _beside(gap: str) -> bool:
    """Whether the words between a mention and the 'vs' leave it beside it (no number between,
    at most one word: 'the', 'arm', 'group')."""
    return not re.search(r"\d", gap) and len(re.findall(r"[a-z]+", gap.lower())) <= 1


def _coded(mt: Mention) -> str | None:
    """The variable name of a code mention (None for anything else)."""
    return mt.target.var.name if isinstance(mt.target, CodeSet) and mt.codes else None
