"""Cost questions: 'what is the price of trimethoprim?', 'what does a colonoscopy cost?'.

A cost word (marked by :mod:`._unread` as a ``cost`` slot) asks for the charges the source's cost
table records for the events of one grounded concept: their distinct amounts (``cost`` measure,
``list``). Everything else about costs — totals per hospital stay, averages, a patient's bill,
costs in a time window — abstains naming what was not read.
"""

from __future__ import annotations

import re

from clinbridge.engine.plan import Aggregate, CalendarWindow, QueryPlan
from clinbridge.engine.plan import Measure as _Measure
from clinbridge.engine.understand._context import (
    Abstain,
    Ctx,
    Item,
    _concept_set,
    _ps,
    _stream_for,
)
from clinbridge.engine.understand._ground import Concept, Word
from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._slots import Slot
from clinbridge.engine.understand._time import resolve_relative_year

__all__ = ["cost_plan"]

# amounts combined over events or stays, or a patient's bill: not the per-event charge
_AGGREGATED = re.compile(
    r"\b(?:total|totals|sum|overall|average|mean|median|typical(?:ly)?|usual(?:ly)?|max(?:imum)?|"
    r"min(?:imum)?|highest|lowest|hospital|hospitals|stays?|visits?|encounters?|admissions?|"
    r"spend|spent|patients?|people)\b"
)


# 'the average total hospital cost that includes X': one statistic of the totals per stay
_PER_STAY = re.compile(
    r"\btotal\s+(?:cost\s+of\s+(?:a\s+|the\s+)?)?(?:hospital\s+)?(?:costs?|bills?|charges?|"
    r"expenses?|hospital|visits?|stays?|encounters?|admissions?)\b"
)
# the words that tie the stay to what it held ('... that includes a drug named X')
_TIES = frozenset(
    {
        "hospital",
        "includes",
        "include",
        "including",
        "involves",
        "involve",
        "involving",
        "contains",
        "containing",
        "named",
        "called",
        "with",
        "for",
        "bill",
        "bills",
        "person",
    }
)
_OPS = {"mean", "min", "max", "median"}


def _stay_totals(items: list[Item], ctx: Ctx, cost: Slot) -> tuple[QueryPlan, float]:
    """Mean/min/max/median over the stays that held one concept's event of each stay's total
    charges (charges in the window, if one is named)."""
    slots = [i for i in items if isinstance(i, Slot)]
    # the statistic asked ('tell me the', 'how much' carry their own ops, not one of these)
    ops = {s.data.get("op") for s in slots if s.kind == "intent"} & _OPS
    loose = [w.text for w in items if isinstance(w, Word) and w.role == "unresolved"]
    stray = [t for t in loose if any(part not in _TIES for part in t.split())]
    if stray:
        names = ", ".join(repr(u) for u in stray)
        raise Abstain(f"could not ground {names} in this source's catalog or vocabulary", *stray)
    if len(ops) != 1:
        raise Abstain(
            f"a total cost per hospital stay ({cost.text!r}) is read as its average, minimum, "
            "maximum or median over stays",
            cost.text,
        )
    other = [s for s in slots if s.kind not in {"cost", "intent", "wh", "window", "encounter"}]
    windows = [s for s in slots if s.kind == "window"]
    concepts = [i for i in items if isinstance(i, Concept)]
    if other or len(windows) > 1 or len(concepts) != 1 or ctx.patient_id:
        raise Abstain(
            f"a total cost per stay ({cost.text!r}) is read over the stays that held one "
            "drug, diagnosis, procedure or test, in at most one time window",
            cost.text,
        )
    window = None
    if windows:
        spec = windows[0].data["spec"]
        if spec.kind != "calendar":
            raise Abstain("charges are selected by a calendar window only", windows[0].text)
        if spec.relative_year is not None:
            spec = resolve_relative_year(spec, ctx.now or ctx.today)
        window = CalendarWindow(start=spec.start, end=spec.end, start_at=spec.start_at)
    c = concepts[0]
    st = _stream_for(c, ctx.lex)
    if st is None:
        raise Abstain(f"could not tell which records {c.label!r} is in", c.phrase)
    cs = _concept_set(c, st, ctx.lex, ctx)
    (op,) = ops
    ctx.groundings.append(Grounding(phrase=cost.text, kind="aggregate", target=f"{op} stay total"))
    plan = QueryPlan(
        question=ctx.question,
        measure=_Measure(of="encounter_cost", stream=_ps(c, st, ctx.lex), concepts=cs),
        aggregate=Aggregate(op=op),  # type: ignore[arg-type]
        window=window,
        now=ctx.now,
    )
    return plan, round(0.85 * c.score, 4)


def cost_plan(items: list[Item], ctx: Ctx) -> tuple[QueryPlan, float]:
    """The plan of a cost question (the distinct charges recorded for one concept's events) and
    its confidence."""
    slots = [i for i in items if isinstance(i, Slot)]
    cost = next(s for s in slots if s.kind == "cost")
    if _PER_STAY.search(ctx.question.lower()):
        return _stay_totals(items, ctx, cost)
    unresolved = [w.text for w in items if isinstance(w, Word) and w.role == "unresolved"]
    if unresolved:
        names = ", ".join(repr(u) for u in unresolved)
        raise Abstain(
            f"could not ground {names} in this source's catalog or vocabulary", *unresolved
        )
    if _AGGREGATED.search(ctx.question.lower()):
        raise Abstain(
            f"costs combined over events, stays or patients ({cost.text!r}) are not read; "
            "ask for the cost of one drug, diagnosis or procedure",
            cost.text,
        )
    allowed = {"cost", "intent", "wh"}
    other = [s for s in slots if s.kind not in allowed]
    if other:
        raise Abstain(
            f"a cost ({cost.text!r}) is read only for one drug, diagnosis or procedure, "
            f"without {other[0].kind} ({other[0].text!r})",
            other[0].text,
        )
    concepts = [i for i in items if isinstance(i, Concept)]
    if len(concepts) != 1:
        raise Abstain(
            f"a cost ({cost.text!r}) needs exactly one drug, diagnosis or procedure named",
            cost.text,
        )
    c = concepts[0]
    st = _stream_for(c, ctx.lex)
    if st is None:
        raise Abstain(f"could not tell which records {c.label!r} is in", c.phrase)
    cs = _concept_set(c, st, ctx.lex, ctx)
    ctx.groundings.append(Grounding(phrase=cost.text, kind="aggregate", target="cost"))
    plan = QueryPlan(
        question=ctx.question,
        measure=_Measure(of="cost", stream=_ps(c, st, ctx.lex), concepts=cs),
        aggregate=Aggregate(op="list"),
        now=ctx.now,
    )
    return plan, round(0.9 * c.score, 4)
