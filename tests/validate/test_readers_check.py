"""The dual-reader agreement check: unit tests over constructed readings (no model)."""

from __future__ import annotations

from clinbridge.engine._checks_readers import check_readers, plan_intent
from clinbridge.engine.plan import (
    AgeFilter,
    Aggregate,
    ConceptRef,
    ConceptSet,
    EventFilter,
    Measure,
    QueryPlan,
    ValueFilter,
)
from clinbridge.engine.understand import Grounding
from clinbridge.engine.understand.learned import LearnedReading, Span


def cs(name: str) -> ConceptSet:
    return ConceptSet(concepts=(ConceptRef(name=name),))


def reading(q: str, intent: str, conf: float, *spans: tuple[str, str, float]) -> LearnedReading:
    out = []
    for text, kind, c in spans:
        i = q.index(text)
        out.append(Span(text, i, i + len(text), kind, c))
    return LearnedReading(q, intent, conf, spans=tuple(out))


GI = EventFilter(stream="condition", concepts=cs("Gastrointestinal hemorrhage"))
COUNT_GI = QueryPlan(filters=(GI,))
G_GI = (Grounding(phrase="gi bleed", kind="concept", target="condition: GI hemorrhage"),)


def test_agreeing_readers_pass() -> None:
    q = "How many patients had a GI bleed?"
    r = reading(q, "count", 0.99, ("How many", "AGG", 0.99), ("GI bleed", "CONCEPT", 0.95))
    [c] = check_readers(COUNT_GI, G_GI, r)
    assert c.passed and c.name == "readers_agree"


def test_intent_disagreement_fails_with_both_readings() -> None:
    q = "What is the average GI bleed?"
    r = reading(q, "mean", 0.97, ("GI bleed", "CONCEPT", 0.95))
    [c] = check_readers(COUNT_GI, G_GI, r)
    assert not c.passed and c.code == "readings_disagree"
    assert "count" in c.detail and "mean" in c.detail and "gi bleed" in c.detail


def test_unsure_learned_reader_does_not_veto() -> None:
    q = "What is the average GI bleed?"
    r = reading(q, "mean", 0.6, ("GI bleed", "CONCEPT", 0.5))
    assert check_readers(COUNT_GI, G_GI, r)[0].passed


def test_concept_the_plan_dropped_fails() -> None:
    q = "How many patients with a GI bleed were given warfarin?"
    r = reading(q, "count", 0.99, ("GI bleed", "CONCEPT", 0.95), ("warfarin", "CONCEPT", 0.93))
    [c] = check_readers(COUNT_GI, G_GI, r)
    assert not c.passed and "'warfarin' is not in the plan" in c.detail


def test_value_and_identifier_must_be_in_the_plan() -> None:
    q = "What was the last potassium above 5.5 of patient 1234?"
    plan = QueryPlan(
        patient_id="1234",
        measure=Measure(
            of="value",
            stream="measurement",
            concepts=cs("Potassium"),
            value=ValueFilter(op=">", value=5.5),
        ),
        aggregate=Aggregate(op="last"),
    )
    g = (Grounding(phrase="potassium", kind="concept", target="measurement: Potassium"),)
    ok = reading(
        q, "last", 0.99, ("potassium", "CONCEPT", 0.9), ("5.5", "VALUE", 0.9), ("1234", "ID", 0.9)
    )
    assert check_readers(plan, g, ok)[0].passed
    other_patient = plan.model_copy(update={"patient_id": "99"})
    [c] = check_readers(other_patient, g, ok)
    assert not c.passed and "'1234'" in c.detail
    no_value = plan.model_copy(update={"measure": plan.measure.model_copy(update={"value": None})})
    [c] = check_readers(no_value, g, ok)
    assert not c.passed and "'5.5'" in c.detail


def test_compatible_intents_and_unanswerable_never_veto() -> None:
    plan = QueryPlan(
        patient_id="7",
        measure=Measure(of="date", stream="condition", concepts=cs("Asthma")),
        aggregate=Aggregate(op="first"),
    )
    assert plan_intent(plan) == "date"
    q = "When was patient 7 first diagnosed with asthma?"
    g = (Grounding(phrase="asthma", kind="concept", target="condition: Asthma"),)
    assert check_readers(plan, g, reading(q, "first", 0.99, ("7", "ID", 0.9)))[0].passed
    assert check_readers(plan, g, reading(q, "unanswerable", 0.99))[0].passed
    assert not check_readers(plan, g, reading(q, "mean", 0.99))[0].passed


def test_ages_and_numbers_anywhere_in_the_plan_count() -> None:
    plan = QueryPlan(filters=(AgeFilter(op=">", value=65), GI))
    q = "How many patients over 65 had a GI bleed?"
    r = reading(q, "count", 0.99, ("65", "VALUE", 0.9), ("GI bleed", "CONCEPT", 0.9))
    assert check_readers(plan, G_GI, r)[0].passed


def test_a_rewritten_lay_term_counts_when_it_means_the_grounded_concept() -> None:
    q = "How many patients had a heart attack?"
    plan = QueryPlan(filters=(EventFilter(stream="condition", concepts=cs("MI")),))
    g = (
        Grounding(
            phrase="myocardial infarction",
            kind="concept",
            target="condition: Myocardial infarction",
        ),
    )
    r = reading(q, "count", 0.99, ("heart attack", "CONCEPT", 0.95))
    assert not check_readers(plan, g, r)[0].passed  # words alone: unaccounted

    def similarity(phrase: str, texts: object) -> list[float]:
        return [0.6 if "infarction" in str(t).lower() else 0.1 for t in texts]  # type: ignore[attr-defined]

    assert check_readers(plan, g, r, similarity=similarity)[0].passed
    low = check_readers(plan, g, r, similarity=lambda p, ts: [0.2 for _ in ts])
    assert not low[0].passed
