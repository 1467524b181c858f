"""How strictly an exclusion ('any statin except X', 'other than X') must ground.

An exclusion is read with the same grounding as an inclusion and must be as sure: a loose match
that heads several concepts abstains instead of cutting them all, and one the asker named must
remove something from the set it qualifies (checked by the resolver once descendants are known).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinbridge.engine.understand._context import Abstain
from clinbridge.engine.understand._ground import Concept
from clinbridge.engine.understand._text import content_tokens

if TYPE_CHECKING:
    from clinbridge.engine.plan import ConceptSet
    from clinbridge.engine.understand._filters import Pred, _Walk

__all__ = ["check_exclusion"]

STRICT_HOW = frozenset({"exact", "synonym", "same_words"})
"""Groundings an exclusion may take with several concepts (a name or synonym, its own words)."""


def check_exclusion(
    w: _Walk, item: Concept, extra: ConceptSet, last: Pred, st: str, *, variant: bool
) -> bool:
    """An exclusion grounds as strictly as an inclusion: its score counts in the confidence, and
    a loose reading (contained words, a spelling, a neighbour) must name one concept — '325 mg
    tabs' heads every 325 mg tablet, not the one the asker means. True when the exclusion must
    cut something out of the set (the resolver checks; an emptied set abstains there too):
    always, but for a variant ('COVID-19, not suspected') where the source holds no other one."""
    w.confidence *= item.score if item.how != "exact" else 1.0
    base = last.concept
    words = set(content_tokens(base.label)) or set(content_tokens(base.phrase)) if base else set()
    names = sorted({c.name or str(c.concept_id) for c in extra.concepts})
    # the concepts the exclusion could cut: those named like the set's concept, where any are
    # ('suspected' next to COVID-19 is Suspected COVID-19, not Suspected lung cancer)
    names = [n for n in names if words <= set(content_tokens(n))] or names
    if item.how not in STRICT_HOW and len(names) > 1:
        shown = "; ".join(names[:5]) + (f"; ... ({len(names)})" if len(names) > 5 else "")
        raise Abstain(
            f"the exclusion {item.phrase!r} matches several concepts ({shown}); "
            "name the one to leave out",
            item.phrase,
        )
    if not variant or not words or last.concept_set is None:
        return True
    # 'sinusitis other than viral sinusitis' with 'sinusitis' read as one concept: the asker
    # means a class (chronic, acute bacterial ...); the set must hold the variant to cut it
    held = {c.concept_id for c in (*last.concept_set.concepts, *extra.concepts)}
    return any(
        e.stream == st and e.code not in held and words < set(content_tokens(e.name))
        for e in w.ctx.lex.entries
    )
