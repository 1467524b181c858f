"""Facts of one patient's admission: 'the insurance of patient 7 on their last hospital visit',
'when was patient 7 last discharged'; and the dispatch of the readings outside the main path.

A fact (``attribute`` slot: insurance, admission type, ...) or a discharge (``discharge`` slot)
of one patient's first, last or current encounter becomes an encounter-level plan: the
``attribute`` measure (the catalog's encounter attributes) or the ``end_date`` measure, taken
first/last. Without a patient, or without saying which encounter, or with anything else in
the question (a concept, a window, a count), the reading abstains naming it.
"""

from __future__ import annotations

import re

from clinbridge.engine.plan import Aggregate, EncounterScope, Measure, QueryPlan
from clinbridge.engine.understand._context import Abstain, Ctx, Item
from clinbridge.engine.understand._costs import cost_plan
from clinbridge.engine.understand._ground import Concept, Word
from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._slots import Slot

__all__ = ["special_plan"]

_ALLOWED = {"intent", "wh", "patient_ref", "scope", "order", "encounter", "attribute", "discharge"}
_COUNTED = re.compile(r"\b(?:how\s+many|count|number|times|ever|any)\b")


def special_plan(items: list[Item], ctx: Ctx) -> tuple[QueryPlan, float] | None:
    """The plan of a cost or encounter-fact question, or None for every other question."""
    kinds = {i.kind for i in items if isinstance(i, Slot)}
    if "cost" in kinds:
        return cost_plan(items, ctx)
    if kinds & {"attribute", "discharge"}:
        return _fact_plan(items, ctx)
    return None


def _fact_plan(items: list[Item], ctx: Ctx) -> tuple[QueryPlan, float]:
    slots = [i for i in items if isinstance(i, Slot)]
    fact = next(s for s in slots if s.kind in {"attribute", "discharge"})
    unresolved = [
        w.text
        for w in items
        if isinstance(w, Word) and w.role == "unresolved" and w.text.lower() != "name"
    ]  # 'the name of patient 7's insurance': the fact's own name
    if unresolved:
        names = ", ".join(repr(u) for u in unresolved)
        raise Abstain(
            f"could not ground {names} in this source's catalog or vocabulary", *unresolved
        )
    other = [s for s in slots if s.kind not in _ALLOWED]
    if other or any(isinstance(i, Concept) for i in items):
        what = repr(other[0].text) if other else "a concept"
        raise Abstain(
            f"{fact.text!r} is read only for one patient's first, last or current encounter, "
            f"without {what}",
            fact.text,
        )
    if sum(s.kind in {"attribute", "discharge"} for s in slots) > 1:
        raise Abstain(f"two encounter facts in one question ({fact.text!r})", fact.text)
    patient = next((s for s in slots if s.kind == "patient_ref"), None)
    patient_id = ctx.patient_id or (str(patient.data["id"]) if patient else None)
    if patient_id is None:
        return _cohort_discharge(fact, slots, ctx)
    if _COUNTED.search(ctx.question.lower()):
        raise Abstain(f"counts of {fact.text!r} are not read", fact.text)
    which = {s.data.get("which") for s in slots if s.kind in {"scope", "order"}}
    types = {s.data.get("type") for s in slots if s.kind == "scope"} - {None}
    if len(which) != 1 or types or not which <= {"first", "last", "current"}:
        raise Abstain(
            f"could not tell which encounter's {fact.text!r} is asked (first, last, current)",
            fact.text,
        )
    (order,) = which
    if fact.kind == "discharge":
        if order == "current":
            raise Abstain("a current encounter has not ended", fact.text)
        measure = Measure(of="end_date")
    else:
        measure = Measure(of="attribute", variable=fact.data["name"])
    scope = EncounterScope(which="current") if order == "current" else None
    ctx.groundings.append(
        Grounding(phrase=fact.text, kind="aggregate", target=f"{order} encounter's {fact.text}")
    )
    plan = QueryPlan(
        question=ctx.question,
        patient_id=patient_id,
        measure=measure,
        aggregate=Aggregate(op="first" if order == "first" else "last"),
        scope=scope,
        now=ctx.now,
    )
    return plan, 0.9


def _cohort_discharge(fact: Slot, slots: list[Slot], ctx: Ctx) -> tuple[QueryPlan, float]:
    """'the most recent inpatient discharge in the data': the latest (earliest) end of any
    patient's encounters (of one type), as stored; any other fact is one patient's only."""
    which = {s.data.get("which") for s in slots if s.kind in {"scope", "order"}}
    types = {s.data.get("type") for s in slots if s.kind in {"scope", "encounter"}}
    if fact.kind != "discharge" or len(which) != 1 or not which <= {"first", "last"}:
        raise Abstain(f"{fact.text!r} is read for one patient only", fact.text)
    if _COUNTED.search(ctx.question.lower()) or len(types - {None}) > 1:
        raise Abstain(f"{fact.text!r} is read for one patient only", fact.text)
    (order,) = which
    etype = next(iter(types - {None}), None)
    said = f"the {order} {etype or 'encounter'} end over all patients"
    ctx.groundings.append(Grounding(phrase=fact.text, kind="aggregate", target=said))
    plan = QueryPlan(
        question=ctx.question,
        measure=Measure(of="end_date", encounter_type=etype),
        aggregate=Aggregate(op=order),
        now=ctx.now,
    )
    return plan, 0.85
