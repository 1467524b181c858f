"""'Days from IUD insertion to removal': the second event's object is the first's, elided.

In a time between two events, a bare action noun for the second event ('removal',
'replacement', 'discontinuation', 'revision') takes the object of the first ('IUD insertion'
→ 'IUD removal'): read alone, 'removal' names every removal the source records (a
cholecystectomy, a contraceptive implant's removal). The repair grounds the object with the
action noun and, when that names a part of what the bare noun named, narrows the event to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinbridge.engine.plan import QueryPlan

__all__ = ["ACTIONS", "elided_object"]

ACTIONS = frozenset(
    """insertion removal replacement revision discontinuation start stop cessation placement
    reversal closure repair extraction implantation explantation initiation withdrawal
    resumption""".split()  # noqa: SIM905 (a word list reads better as words)
)


def _narrowed(start: Any, end: Any, ctx: Any) -> Any | None:
    from clinbridge.engine.plan import ConceptSet
    from clinbridge.engine.understand._ground import Concept, ground_text

    lex = getattr(ctx, "lexicon", None)
    s_words = (getattr(start.concepts, "label", "") or "").lower().split()
    e_words = (getattr(end.concepts, "label", "") or "").lower().split()
    if lex is None or len(e_words) != 1 or e_words[0] not in ACTIONS or len(s_words) < 2:
        return None
    obj = [w for w in s_words if w not in ACTIONS and w != "of"]
    if not obj or len(obj) == len(s_words):
        return None  # the first event has no action noun of its own to swap
    items = ground_text(" ".join([*obj, e_words[0]]), lex, embeddings=False)
    if len(items) != 1 or not isinstance(items[0], Concept) or items[0].how == "embedding":
        return None
    entries = [lex.entries[i] for i in (items[0].primary or items[0].entries)]
    codes = {str(e.code) for e in entries}
    had = {str(c.concept_id) for c in end.concepts.concepts}
    if not codes or not codes < had:
        return None
    refs = tuple(c for c in end.concepts.concepts if str(c.concept_id) in codes)
    label = " ".join([*obj, e_words[0]])
    return end.model_copy(update={"concepts": ConceptSet(concepts=refs, label=label)})


def elided_object(plan: QueryPlan, ctx: Any) -> QueryPlan | None:
    """The plan with its second event narrowed to the first event's object, or None."""
    m: Any = plan.measure
    if m.of != "days_between" or m.start_at is None or m.end_at is None:
        return None
    if getattr(m.start_at, "concepts", None) is None or getattr(m.end_at, "concepts", None) is None:
        return None
    end = _narrowed(m.start_at, m.end_at, ctx)
    if end is None:
        return None
    return plan.model_copy(update={"measure": m.model_copy(update={"end_at": end})})
