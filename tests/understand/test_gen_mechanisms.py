"""The general mechanisms of the understand-gen work (issue 8), on real databases.

Each test states a class of question, not one question: a measurement two readings fit, an age
taken at an event, the stays during which something was recorded, days between a patient's
first and last event, the unit asked for, the answer type asked, encounter codes.
"""

from __future__ import annotations

from typing import Any

import pytest

FHIR_PT = "14867dba-fb11-4df3-9829-8e8e081b39e6"


def _plan(conn: Any, question: str) -> Any:
    r = conn.readings(question)[0]
    assert r.plan is not None, r.abstain_reason
    return r.plan


def test_tied_measurements_ask_even_when_their_values_agree(fhir_conn: Any) -> None:
    a = fhir_conn.ask("How many patients have had a blood pressure of 85 mmHg or higher?")
    assert a.decision == "abstain" and a.reason_code == "ambiguous"
    assert len(a.alternatives) == 2
    assert fhir_conn.ask("How many patients have had a systolic BP of 85 or higher?").accepted


@pytest.mark.parametrize(
    "question",
    [
        "count of patients aged 65+ at their first closed hip fracture",
        "hip fx pts 65+ at time of fracture, how many",
        "How many patients were 65 or older when they first had a closed hip fracture?",
    ],
)
def test_an_age_threshold_is_taken_at_the_event_it_names(eunomia_conn: Any, question: str) -> None:
    plan = _plan(eunomia_conn, question)
    events = [f for f in plan.filters if f.kind == "event"]
    assert len(events) == 1 and not [f for f in plan.filters if f.kind == "age"]
    assert events[0].age_at_event is not None and events[0].age_at_event.value == 65
    assert events[0].first_only


def test_an_age_held_for_an_event_no_concept_takes_abstains(eunomia_conn: Any) -> None:
    a = eunomia_conn.ask("how many patients aged 65+ at the end of the study")
    assert a.decision == "abstain"


def test_mean_age_at_which_a_first_event_happened(eunomia_conn: Any) -> None:
    plan = _plan(
        eunomia_conn,
        "What is the mean age (completed years) at which patients had their first recorded "
        "myocardial infarction?",
    )
    assert plan.measure.of == "age" and plan.measure.age_at is not None


def test_length_of_stay_of_the_stays_during_which_something_was_recorded(
    eunomia_conn: Any,
) -> None:
    linked = _plan(eunomia_conn, "average length of stay of inpatient visits linked to a GI bleed")
    assert linked.measure.stream == "condition" and not linked.filters
    cohort = _plan(
        eunomia_conn, "mean length of stay of inpatient visits of patients with GI bleed"
    )
    assert cohort.measure.stream is None and cohort.filters
    a = eunomia_conn.ask("average length of stay of inpatient visits linked to a GI bleed")
    b = eunomia_conn.ask("mean length of stay of inpatient visits of patients with GI bleed")
    assert a.accepted and b.accepted and a.value != b.value


def test_days_between_a_patients_first_and_last_event_of_one_kind(s27_conn: Any) -> None:
    answers = [
        s27_conn.ask(q)
        for q in (
            "days btwn pt 24's first and last visit",
            "How many days elapsed between patient 24's first and most recent visit?",
            "number of days from earliest to latest visit start date for patient 24",
        )
    ]
    assert all(a.accepted for a in answers), [a.reason for a in answers]
    assert len({a.value for a in answers}) == 1 and answers[0].value > 0


def test_values_are_converted_to_the_unit_asked(fhir_conn: Any) -> None:
    kg = fhir_conn.ask(f"latest body weight in kg for patient {FHIR_PT}")
    lb = fhir_conn.ask(f"latest body weight in lb for patient {FHIR_PT}")
    assert kg.accepted and lb.accepted
    assert lb.value == pytest.approx(kg.value / 0.45359237)
    # an analyte-dependent conversion is made by the analyte's molar mass (engine/_analytes.py)
    mg, mmol = fhir_conn.ask("mean LDL in mg/dL"), fhir_conn.ask("mean LDL in mmol/L")
    assert mg.accepted and mmol.accepted
    assert mmol.value == pytest.approx(mg.value * 10 / 386.65)
    # and none to a unit of no family of the analyte's
    assert fhir_conn.ask("mean LDL in mmol/mol").decision == "abstain"


def test_ever_on_a_headless_patient_phrase_is_a_count(s27_conn: Any) -> None:
    a = s27_conn.ask("M pts w DBP >= 90 ever")
    assert a.accepted and isinstance(a.value, int) and not isinstance(a.value, bool)
    yes = s27_conn.ask("has any patient ever had a SBP over 200?")
    assert yes.accepted and isinstance(yes.value, bool)


def test_a_bare_measurement_for_a_patient_is_not_a_yes_no(fhir_conn: Any) -> None:
    a = fhir_conn.ask(f"body weight on file for patient {FHIR_PT}")
    assert a.decision == "abstain"


def test_an_encounter_code_is_read_only_when_its_type_holds_no_other(fhir_conn: Any) -> None:
    assert fhir_conn.ask("share of patients with any IMP-class encounter").accepted
    amb = fhir_conn.ask("number of AMB-class encounters in 2021")
    assert amb.decision == "abstain" and "AMB" in (amb.reason or "")


def test_open_ended_dates(eunomia_conn: Any) -> None:
    later = _plan(eunomia_conn, "how many patients had a GI bleed dated 2010-01-01 or later")
    window = next(f for f in later.filters if f.kind == "event").window
    assert window is not None and window.end is None and str(window.start) == "2010-01-01"


def test_a_class_widened_by_y_included(eunomia_conn: Any) -> None:
    plan = _plan(
        eunomia_conn,
        "How many patients have a seizure disorder of any kind, epilepsy included?",
    )
    events = [f for f in plan.filters if f.kind == "event"]
    assert len(events) == 1 and len(events[0].concepts.concepts) == 2
