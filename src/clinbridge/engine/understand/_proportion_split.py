"""The two halves of a proportion: 'what share of X had Y' — the cohort X and the numerator Y.

The predicates read from the question are split by where they stand: before the intent word
('women with X: what share ...'), around the subject word ('share of LDL-tested patients with an
LDL >= 130'), around 'among' ('proportion of women among celecoxib users'), people named first
('share of women with X'), or at the first boundary word ('of patients with cystitis, who
are female', 'whose').
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinbridge.engine.understand._ground import Word

if TYPE_CHECKING:
    from clinbridge.engine.understand._context import Item
    from clinbridge.engine.understand._filters import Pred

__all__ = ["split_proportion"]


def split_proportion(
    items: list[Item], preds: list[Pred], intent_pos: int
) -> tuple[list[Pred], list[Pred]]:
    """Denominator (the cohort) and numerator filters of 'what proportion of X had Y'."""
    before = [p for p in preds if p.pos < intent_pos]
    after = [p for p in preds if p.pos > intent_pos]
    if before:
        return before, after
    among = next(
        (
            k
            for k, i in enumerate(items)
            if k > intent_pos and isinstance(i, Word) and i.role == "among"
        ),
        None,
    )
    subject = next(
        (
            k
            for k, i in enumerate(items)
            if k > intent_pos and isinstance(i, Word) and i.role == "subject"
        ),
        None,
    )
    if (
        among is None
        and subject is not None
        and any(p.pos < subject for p in after)
        and any(p.pos > subject for p in after)
    ):  # "share of LDL-tested patients with an LDL >= 130": the cohort is named before 'patients'
        return [p for p in after if p.pos < subject], [p for p in after if p.pos > subject]
    if among is not None:  # "proportion of women among celecoxib users"
        return [p for p in after if p.pos > among], [p for p in after if p.pos < among]
    lead = [p for p in after if p.kind in {"sex", "age"}]
    if lead and len(lead) < len(after) and after[: len(lead)] == lead:
        return lead, after[len(lead) :]  # "share of women with X": the people named first
    boundaries = [
        k
        for k, i in enumerate(items)
        if k > intent_pos and isinstance(i, Word) and i.role == "boundary"
    ]
    for b in boundaries:
        den = [p for p in after if p.pos < b]
        num = [p for p in after if p.pos > b]
        if den and num:
            return den, num
    for b in boundaries:
        num = [p for p in after if p.pos > b]
        if num:
            return [p for p in after if p.pos < b], num
    return [], after
