"""Ranked lists, applied: a reading that lists a stream's concepts gets ``top`` places.

The plan's ``list`` gets ``top`` (a dense rank by number of events, so tied concepts share a
place). Any other reading abstains naming the rank.
"""

from __future__ import annotations

import itertools
from typing import Any

from clinbridge.engine.plan import QueryPlan
from clinbridge.engine.understand._context import Abstain
from clinbridge.engine.understand._ground import Word
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._pieces import Slot

__all__ = ["apply_rank"]


def apply_rank(plan: QueryPlan, items: list[Any], lex: Lexicon) -> QueryPlan:
    """The plan with its list ranked to the slot's ``top`` places (or an abstention)."""
    ranks = [i for i in items if isinstance(i, Slot) and i.kind == "rank"]
    if not ranks:
        return plan
    s = ranks[0]
    if len(ranks) > 1:
        raise Abstain(f"two rankings in one question ({s.text!r})", s.text)
    if plan.aggregate.op != "list" or plan.measure.of != "concept" or plan.measure.concepts:
        raise Abstain(
            f"a ranking ({s.text!r}) needs a list of the kinds of things recorded "
            "(diagnoses, drugs, tests)",
            s.text,
        )
    if plan.filters or plan.scope is not None or plan.group_by or plan.patient_id:
        raise Abstain(
            f"a ranking ({s.text!r}) is read over all patients' events only, without cohort "
            "filters, encounter scope or grouping",
            s.text,
        )
    win = plan.window
    if win is not None and not (win.kind == "calendar" or win.anchor.kind == "fixed"):
        raise Abstain(
            f"a ranking ({s.text!r}) of events timed relative to other events is not read",
            s.text,
        )
    words = [i for i in items if isinstance(i, Word)]
    for w, head in itertools.pairwise(words):
        if (
            w.role == "stream_noun"
            and w.text in lex.stream_words
            and head.role == "event_noun"
            and head.value
        ):
            # 'microbiology tests': a table named by a word of its description, the things
            # ranked by a generic noun; what the table's codes name (specimens? tests?) is
            # not known, so the names ranked might not be the things asked for
            raise Abstain(
                f"a ranking ({s.text!r}) of {w.text + ' ' + head.text!r}: the kind of thing "
                "ranked is not the one the source codes",
                s.text,
            )
    top = int(s.data["top"])
    if top < 1:
        raise Abstain(f"a ranking needs at least one place ({s.text!r})", s.text)
    return plan.model_copy(update={"aggregate": plan.aggregate.model_copy(update={"top": top})})
