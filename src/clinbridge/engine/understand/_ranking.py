"""Ranked lists, applied: a reading that lists a stream's concepts gets ``top`` places.

The plan's ``list`` gets ``top`` (a dense rank, so tied concepts share a place), counted in
events (every record of the concept) or, where the question says so, in distinct patients
(``Aggregate.rank_by``). Patients ranked ('the 3 patients with the most encounters') turn the
reading of what they have most of — a count of encounters or of a stream's events — into the
patients' ids in the first ``top`` places by their own number of them. Any other reading
abstains naming the rank.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from clinbridge.engine.plan import Aggregate, ConceptSet, Measure, QueryPlan
from clinbridge.engine.understand._context import Abstain
from clinbridge.engine.understand._ground import Word
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._pieces import Slot
from clinbridge.engine.understand._reading import Choice

__all__ = ["apply_rank", "rank_choices", "unit_choices"]


def apply_rank(plan: QueryPlan, items: list[Any], lex: Lexicon) -> QueryPlan:
    """The plan with its list ranked to the slot's ``top`` places (or an abstention)."""
    ranks = [i for i in items if isinstance(i, Slot) and i.kind == "rank"]
    if not ranks:
        return plan
    s = ranks[0]
    if len(ranks) > 1:
        raise Abstain(f"two rankings in one question ({s.text!r})", s.text)
    if s.data.get("of") == "patients":
        return _rank_patients(plan, s)
    cs = plan.measure.concepts
    if plan.aggregate.op != "list" or plan.measure.of != "concept" or (cs and not _a_class(cs)):
        raise Abstain(
            f"a ranking ({s.text!r}) needs a list of the kinds of things recorded "
            "(diagnoses, drugs, tests)",
            s.text,
        )
    if (
        (plan.filters and not _AMONG.search(plan.question or ""))
        or any(f.kind not in {"event", "sex", "age", "patient"} for f in plan.filters)
        or plan.scope is not None
        or plan.group_by
        or plan.patient_id
    ):
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
    by = "patients" if s.data.get("by") == "patients" else None
    return plan.model_copy(
        update={"aggregate": plan.aggregate.model_copy(update={"top": top, "rank_by": by})}
    )


def rank_choices(plan: QueryPlan, items: list[Any]) -> tuple[Choice, ...]:
    """A ranking of concepts that does not say what it counts ('the top 3 drugs', 'the most
    common diagnoses'): read both ways — by records and by patients — so that the answer is
    given when both rank the same concepts and asked about when they do not."""
    ranks = [i for i in items if isinstance(i, Slot) and i.kind == "rank"]
    agg = plan.aggregate
    if not ranks or ranks[0].data.get("by") or agg.top is None or plan.measure.of != "concept":
        return ()
    said = " ".join(
        i.text for i in items if isinstance(i, Slot) and i.kind in {"rank", "rank_word"}
    )
    return unit_choices(plan, said)


_AMONG = re.compile(
    r"\bamong(?:st)?\s+(?:the\s+|all\s+)?(?:[\w'-]+\s+){0,4}?(?:patients|pts|persons|people|women"
    r"|men|females|males|children|adults|individuals|those)\b"
    r"|\b(?:restricted\s+to|in|for)\s+(?:the\s+|all\s+)?(?:patients|pts|persons|people|women|men"
    r"|those|individuals)\s+(?:with|who|having|diagnosed)\b",
    re.I,
)
"""The ranking's cohort said as such ('among patients with X', 'among GI bleed pts'): the
events ranked are those patients' (their filters), not events qualified by the filters."""

_HOW_OFTEN = re.compile(r"\b(?:frequent(?:ly)?|often)\b")


def unit_choices(plan: QueryPlan, said: str) -> tuple[Choice, ...]:
    """Both units of a concept ranking whose words (``said``) do not name one; none when they
    say how often ('most frequent', 'most often': its records are counted)."""
    if _HOW_OFTEN.search(said.lower()):
        return ()
    agg = plan.aggregate
    by_patients = plan.model_copy(
        update={"aggregate": agg.model_copy(update={"rank_by": "patients"})}
    )
    return (
        Choice(description="ranked by their number of records", plan=plan),
        Choice(description="ranked by their number of patients", plan=by_patients),
    )


def _a_class(cs: ConceptSet) -> bool:
    """Concepts a ranking can rank inside: several, or one with its descendants ('vaccines',
    'NSAIDs'), never one concept by itself."""
    return len(cs.concepts) > 1 or (cs.include_descendants and not cs.exclude)


def _rank_patients(plan: QueryPlan, s: Slot) -> QueryPlan:
    """The patients ranked by their number of the encounters or events the plan counts."""
    m, top = plan.measure, int(s.data["top"])
    if plan.aggregate.op != "count" or m.of not in {"encounters", "events"} or top < 1:
        raise Abstain(
            f"a ranking of patients ({s.text!r}) needs what they have most of: their encounters "
            "or their events of one kind",
            s.text,
        )
    if plan.patient_id or plan.group_by or plan.scope is not None or plan.minus is not None:
        raise Abstain(
            f"a ranking of patients ({s.text!r}) is read over the cohort's patients only, "
            "without a patient, grouping or encounter scope",
            s.text,
        )
    if m.of == "encounters" and m.stream is not None:
        raise Abstain(
            f"a ranking of patients ({s.text!r}) by encounters holding an event is not read",
            s.text,
        )
    by = "encounters" if m.of == "encounters" else "events"
    return plan.model_copy(
        update={
            "measure": Measure(
                of="patients",
                stream=m.stream,
                concepts=m.concepts,
                value=m.value,
                encounter_type=m.encounter_type,
            ),
            "aggregate": Aggregate(op="list", top=top, rank_by=by),
        }
    )
