"""Parser → plan fragments on Eunomia (what the plan says, not what the data answers)."""

from __future__ import annotations

from typing import Any

from clinbridge.engine.plan import (
    AgeFilter,
    CalendarWindow,
    EncounterFilter,
    EventAnchor,
    EventFilter,
    PatientAnchor,
    RelativeWindow,
    SexFilter,
)


def plan(conn: Any, question: str, **kw: Any):  # type: ignore[no-untyped-def]
    readings = conn.readings(question, **kw)
    assert readings[0].plan is not None, readings[0].abstain_reason
    return readings[0].plan


def ids(f: Any) -> set[int]:
    return {int(c.concept_id) for c in f.concepts.concepts}


def test_cohort_with_sex_and_synonym(eunomia_conn: Any) -> None:
    p = plan(eunomia_conn, "How many women had a GI bleed?")
    assert p.aggregate.op == "count" and p.measure.of == "patients"
    sex = [f for f in p.filters if isinstance(f, SexFilter)]
    ev = [f for f in p.filters if isinstance(f, EventFilter)]
    assert sex[0].sex == "female"
    assert ev[0].stream == "condition" and ids(ev[0]) == {192671}


def test_negation_and_conjunction(eunomia_conn: Any) -> None:
    p = plan(eunomia_conn, "How many patients were prescribed warfarin but never clopidogrel?")
    ev = [f for f in p.filters if isinstance(f, EventFilter)]
    assert [(f.stream, f.negate) for f in ev] == [("drug", False), ("drug", True)]


def test_or_merges_concepts(eunomia_conn: Any) -> None:
    p = plan(eunomia_conn, "How many patients took celecoxib or diclofenac?")
    (ev,) = [f for f in p.filters if isinstance(f, EventFilter)]
    assert ids(ev) == {1118084, 1124300}


def test_anchored_window(eunomia_conn: Any) -> None:
    p = plan(
        eunomia_conn,
        "How many patients had a GI bleed within 30 days after their first celecoxib exposure?",
    )
    (ev,) = p.filters
    assert isinstance(ev.window, RelativeWindow)
    assert isinstance(ev.window.anchor, EventAnchor) and ev.window.anchor.stream == "drug"
    assert (ev.window.start_days, ev.window.end_days) == (0, 30)


def test_observation_window_and_calendar(eunomia_conn: Any) -> None:
    p = plan(
        eunomia_conn, "How many patients received acetaminophen in their first year of observation?"
    )
    assert isinstance(p.filters[0].window.anchor, PatientAnchor)
    p = plan(eunomia_conn, "How many patients were diagnosed with GI hemorrhage in 2015?")
    assert isinstance(p.filters[0].window, CalendarWindow)


def test_age_at_event_and_now(eunomia_conn: Any) -> None:
    p = plan(
        eunomia_conn,
        "How many patients were diagnosed with atrial fibrillation before the age of 50?",
    )
    (ev,) = p.filters
    assert ev.age_at_event is not None and (ev.age_at_event.op, ev.age_at_event.value) == ("<", 50)
    p = plan(eunomia_conn, "How many patients older than 60 have osteoporosis?")
    assert any(isinstance(f, AgeFilter) and f.op == ">" and f.value == 60 for f in p.filters)


def test_proportion_split(eunomia_conn: Any) -> None:
    p = plan(
        eunomia_conn,
        "What percentage of patients exposed to celecoxib developed gastrointestinal hemorrhage?",
    )
    assert p.aggregate.op == "proportion"
    assert p.filters[0].stream == "drug" and p.aggregate.numerator[0].stream == "condition"
    p = plan(eunomia_conn, "Among patients with osteoarthritis, what fraction received diclofenac?")
    assert p.filters[0].stream == "condition" and p.aggregate.numerator[0].stream == "drug"


def test_patient_level_lookups(eunomia_conn: Any) -> None:
    p = plan(
        eunomia_conn,
        "When was this patient first diagnosed with osteoarthritis?",
        patient_id="3048",
    )
    assert (p.patient_id, p.aggregate.op, p.measure.of, p.measure.stream) == (
        "3048",
        "first",
        "date",
        "condition",
    )
    p = plan(eunomia_conn, "List all the conditions this patient has had.", patient_id="3048")
    assert (p.aggregate.op, p.measure.of, p.measure.stream) == ("list", "concept", "condition")
    p = plan(eunomia_conn, "Has this patient ever had a GI hemorrhage?", patient_id="3048")
    assert p.aggregate.op == "exists"
    p = plan(eunomia_conn, "How many visits did the patient have?", patient_id="3516")
    assert (p.aggregate.op, p.measure.of) == ("count", "encounters")


def test_encounter_scope_and_grouping(eunomia_conn: Any) -> None:
    p = plan(
        eunomia_conn,
        "What conditions were recorded during this patient's last inpatient visit?",
        patient_id="3516",
    )
    assert p.scope is not None and (p.scope.which, p.scope.type) == ("last", "inpatient")
    p = plan(eunomia_conn, "Number of inpatient visits per year since 2015")
    assert [g.key for g in p.group_by] == ["year"] and p.measure.of == "encounters"
    p = plan(
        eunomia_conn, "How many patients with at least 2 inpatient admissions had a peptic ulcer?"
    )
    assert any(isinstance(f, EncounterFilter) and f.min_count == 2 for f in p.filters)


def test_misspelling_is_corrected_against_the_source(eunomia_conn: Any) -> None:
    p = plan(eunomia_conn, "How many patients had gastrointestinal hemorrage?")
    assert ids(p.filters[0]) == {192671}


def test_readings_are_ranked_with_evidence(eunomia_conn: Any) -> None:
    readings = eunomia_conn.readings("How many patients had a fracture of the ankle?")
    assert readings[0].confidence > 0
    assert any(g.kind == "concept" for g in readings[0].groundings)
    assert all(r.confidence <= readings[0].confidence for r in readings[1:])
