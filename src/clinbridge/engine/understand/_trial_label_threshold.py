"""'% hyperthermia (>38)', 'overcooled (core <32)': a threshold said beside a yes/no item whose
label states that same threshold ('Core temperature above 38.0 °C in first 96 hours') restates
what the item is, and is read as such — never as a condition of its own that no numeric
variable takes (nor dropped when it says another threshold: that stays, to be read)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._trial_model import Family

if TYPE_CHECKING:
    from clinbridge.engine.understand._trial_model import Mention

__all__ = ["drop_label_thresholds", "label_thresholds", "said_after_threshold"]

_NUM = r"(\d+(?:\.\d+)?)"
_SIDES = (
    (
        ">",
        re.compile(
            rf"(?:\babove|\bover|\bgreater\s+than|\bmore\s+than|\bexceeding|>=?|≥)\s*{_NUM}"
        ),
    ),
    ("<", re.compile(rf"(?:\bbelow|\bunder|\bless\s+than|\blower\s+than|<=?|≤)\s*{_NUM}")),
)


def label_thresholds(label: str) -> set[tuple[str, float]]:
    return {(side, float(m.group(1))) for side, p in _SIDES for m in p.finditer(label.lower())}


def said_after_threshold(label: str, side: str, value: float) -> str:
    """What a label says after its threshold ('during cooling' of 'Any core temperature below
    32.5 °C during cooling'); empty when the label states no such threshold."""
    for s, p in _SIDES:
        for m in p.finditer(label.lower()):
            if s == side and float(m.group(1)) == value:
                return label.lower()[m.end() :]
    return ""


def drop_label_thresholds(
    comparisons: list[tuple[str, float, float | None, int, int]],
    mentions: list[Mention],
    text: str,
    groundings: list[Grounding],
) -> list[tuple[str, float, float | None, int, int]]:
    """The comparisons left once those a yes/no mention's label restates are read."""
    kept = []
    for comp in comparisons:
        kind, value, value2, a, b = comp
        side = kind[:1] if kind[:1] in {"<", ">"} else None
        restated = (
            side is not None
            and value2 is None
            and any(
                isinstance(mt.target, Family)
                and mt.target.kind == "binary"
                and mt.start <= a
                and b <= mt.end + 12
                and re.search(r"\(", text[mt.start : a])
                and (side, value) in label_thresholds(mt.target.label)
                for mt in mentions
            )
        )
        if restated:
            groundings.append(
                Grounding(phrase=text[a:b].strip(), kind="value", target="the item's own threshold")
            )
            continue
        kept.append(comp)
    return kept
