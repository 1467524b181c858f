"""The example bank joins understanding (FD-NL2SQL): approved question → plan pairs.

* an approved example with the same question (case and spacing ignored) on the same source is
  the first reading, the parser's own readings follow (the validator's repair);
* otherwise the parser's reading reuses approved predicates: a concept set of the reading whose
  phrase and stream equal those of a concept set in an approved plan of the same source takes
  the approved concepts (the user's definition of that phrase), and the parser's unchanged
  reading follows.

Each reading built this way says so in ``notes`` (``example <id>: ...``), which the answer
carries as provenance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clinbridge.engine.plan import ConceptSet, EventFilter, QueryPlan
from clinbridge.engine.understand._reading import Grounding, Reading

if TYPE_CHECKING:
    from clinbridge.engine.examples import Example, ExampleBank

__all__ = ["apply_examples"]

_TRUSTED = frozenset({"approved", "edited"})


def _key(label: str | None) -> str:
    return " ".join((label or "").lower().split())


def apply_examples(
    question: str,
    readings: list[Reading],
    bank: ExampleBank,
    *,
    source: str | None,
    patient_id: str | None,
) -> list[Reading]:
    """Readings with the bank's approved plans and predicates put first where they match."""
    examples = [e for e in bank if e.origin in _TRUSTED and e.plan is not None]
    if not examples:
        return readings
    same = bank.find(question)
    if (
        same is not None
        and same.plan is not None
        and same.origin in _TRUSTED
        and (same.source is None or source is None or same.source == source)
    ):
        plan = same.plan.model_copy(update={"question": question})
        if plan.patient_id is not None and patient_id is not None:
            plan = plan.model_copy(update={"patient_id": patient_id})
        first = Reading(
            question=question,
            plan=plan,
            confidence=1.0,
            groundings=(Grounding(phrase=question, kind="example", target=same.id, how="exact"),),
            notes=(f"example {same.id}: approved plan for the same question {same.question!r}",),
        )
        return [first, *readings]
    if not readings or readings[0].plan is None:
        return readings
    defs = _definitions([e for e in examples if source is None or e.source in (None, source)])
    plan, used = _reuse(readings[0].plan, defs)
    if not used:
        return readings
    notes = tuple(
        f"example {ex.id}: concept set {label!r} as approved with {ex.question!r}"
        for label, ex in used
    )
    reused = readings[0].model_copy(
        update={
            "plan": plan,
            "notes": readings[0].notes + notes,
            "groundings": readings[0].groundings
            + tuple(
                Grounding(phrase=label, kind="example", target=ex.id, how="example")
                for label, ex in used
            ),
        }
    )
    return [reused, *readings]


def _definitions(examples: list[Example]) -> dict[tuple[str, str], tuple[ConceptSet, Example]]:
    """(phrase, stream) → the approved concept set (the latest example wins)."""
    out: dict[tuple[str, str], tuple[ConceptSet, Example]] = {}
    for ex in examples:
        assert ex.plan is not None
        for stream, cs in _concept_sets(ex.plan):
            if cs.label:
                out[(_key(cs.label), stream)] = (cs, ex)
    return out


def _concept_sets(plan: QueryPlan) -> list[tuple[str, ConceptSet]]:
    found: list[tuple[str, ConceptSet]] = []
    for f in (*plan.filters, *plan.aggregate.numerator):
        if isinstance(f, EventFilter) and f.concepts is not None:
            found.append((f.stream, f.concepts))
    if plan.measure.concepts is not None and plan.measure.stream:
        found.append((plan.measure.stream, plan.measure.concepts))
    return found


def _reuse(
    plan: QueryPlan, defs: dict[tuple[str, str], tuple[ConceptSet, Example]]
) -> tuple[QueryPlan, list[tuple[str, Example]]]:
    used: list[tuple[str, Example]] = []

    def swap(node: Any) -> Any:
        cs = getattr(node, "concepts", None)
        stream = getattr(node, "stream", None)
        if cs is None or stream is None or not cs.label:
            return node
        hit = defs.get((_key(cs.label), stream))
        if hit is None or hit[0] == cs:
            return node
        used.append((cs.label, hit[1]))
        return node.model_copy(update={"concepts": hit[0]})

    new = plan.model_copy(
        update={
            "filters": tuple(swap(f) for f in plan.filters),
            "measure": swap(plan.measure),
            "aggregate": plan.aggregate.model_copy(
                update={"numerator": tuple(swap(f) for f in plan.aggregate.numerator)}
            ),
        }
    )
    return new, used
