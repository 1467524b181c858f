"""Unit tests: time expressions, numbers with units, ages, sexes, counts, scope, aggregates."""

from __future__ import annotations

import datetime as dt

import pytest

from clinbridge.engine.understand._slots import Slot, extract
from clinbridge.engine.understand._text import normalize, stem
from clinbridge.engine.understand._time import days_of, parse_date, resolve_relative_year


def slots(question: str, kind: str | None = None) -> list[Slot]:
    found = [p for p in extract(normalize(question)) if isinstance(p, Slot)]
    return [s for s in found if kind is None or s.kind == kind]


def window(question: str):  # type: ignore[no-untyped-def]
    (s,) = slots(question, "window")
    return s.data["spec"]


@pytest.mark.parametrize(
    ("text", "end", "expected"),
    [
        ("2019", False, dt.date(2019, 1, 1)),
        ("2019", True, dt.date(2019, 12, 31)),
        ("2019-03", True, dt.date(2019, 3, 31)),
        ("2020-02", True, dt.date(2020, 2, 29)),
        ("2019-03-04", False, dt.date(2019, 3, 4)),
        ("march 2019", False, dt.date(2019, 3, 1)),
        ("feb 2021", True, dt.date(2021, 2, 28)),
        ("hello", False, None),
    ],
)
def test_parse_date(text: str, end: bool, expected: dt.date | None) -> None:
    assert parse_date(text, end=end) == expected


def test_days_of_units() -> None:
    assert days_of(30, "days") == 30
    assert days_of(2, "weeks") == 14
    assert days_of(6, "months") == 180
    assert days_of(1, "year") == 365
    with pytest.raises(ValueError):
        days_of(1, "fortnight")


def test_calendar_year_and_ranges() -> None:
    w = window("How many patients had asthma in 2019?")
    assert (w.kind, w.start, w.end) == ("calendar", dt.date(2019, 1, 1), dt.date(2019, 12, 31))
    w = window("patients treated between 2015 and 2017")
    assert (w.start, w.end) == (dt.date(2015, 1, 1), dt.date(2017, 12, 31))
    w = window("visits since 2017")
    assert (w.start, w.end) == (dt.date(2017, 1, 1), None)
    w = window("diagnoses before 2000")
    assert (w.start, w.end) == (None, dt.date(1999, 12, 31))
    w = window("admissions in March 2020")
    assert (w.start, w.end) == (dt.date(2020, 3, 1), dt.date(2020, 3, 31))


def test_relative_to_now_and_last_year() -> None:
    # calendar months and years back from now: (now - 6 months, now]
    w = window("How many ER visits in the last 6 months?")
    assert (w.kind, w.relative_year, w.relative_unit, w.through_now) == (
        "calendar",
        -6,
        "month",
        True,
    )
    done = resolve_relative_year(w, dt.date(2022, 10, 10))
    assert (done.start, done.end) == (dt.date(2022, 4, 11), dt.date(2022, 10, 10))
    w = window("during the past year")
    assert (w.kind, w.relative_year, w.relative_unit, w.through_now) == (
        "calendar",
        -1,
        "year",
        True,
    )
    w = window("visits in the last 30 days")
    assert (w.kind, w.start_days, w.end_days) == ("now", -30, 0)
    w = window("How many patients had pneumonia last year?")
    assert (w.kind, w.relative_year) == ("calendar", -1)


def test_anchored_windows() -> None:
    w = window("a GI bleed within 30 days after their first celecoxib exposure")
    assert (w.kind, w.start_days, w.end_days, w.which) == ("event", 0, 30, "first")
    assert w.anchor_text == "celecoxib exposure"
    w = window("esophagitis in the year before their first gastrointestinal hemorrhage")
    assert (w.start_days, w.end_days, w.anchor_text) == (-365, -1, "gastrointestinal hemorrhage")
    w = window("a peptic ulcer before their first exposure to celecoxib")
    assert (w.start_days, w.end_days) == (None, -1)
    w = window("furosemide within two weeks of the last admission for heart failure")
    assert (w.start_days, w.end_days, w.which) == (0, 14, "last")


def test_observation_period_window() -> None:
    w = window("received acetaminophen in their first year of observation")
    assert (w.kind, w.point, w.start_days, w.end_days) == ("patient", "observation_start", 0, 365)
    w = window("during the first 6 months of follow-up")
    assert (w.point, w.end_days) == ("observation_start", 180)


def test_encounter_scope() -> None:
    (s,) = slots("hemoglobin during their last emergency visit", "scope")
    assert s.data == {"type": "emergency", "which": "last"}
    (s,) = slots("drugs given during the patient's first ICU stay", "scope")
    assert s.data == {"type": "icu", "which": "first"}
    (s,) = slots("labs on the second hospitalization", "scope")
    assert s.data == {"type": "inpatient", "which": "nth", "n": 2}
    (s,) = slots("diagnosed during inpatient stays", "scope")
    assert s.data == {"type": "inpatient", "which": "all"}


@pytest.mark.parametrize(
    ("question", "op", "value", "unit"),
    [
        ("HbA1c above 9%", ">", 9.0, "%"),
        ("hemoglobin below 10 g/dL", "<", 10.0, "g/dl"),
        ("creatinine >= 1.5 mg/dl", ">=", 1.5, "mg/dl"),
        ("potassium of at least 5.5", ">=", 5.5, None),
        ("systolic pressure ≤ 90 mmHg", "<=", 90.0, "mmhg"),
    ],
)
def test_values_with_units(question: str, op: str, value: float, unit: str | None) -> None:
    (s,) = slots(question, "value")
    assert (s.data["op"], s.data["value"], s.data["unit"]) == (op, value, unit)


def test_value_between() -> None:
    (s,) = slots("glucose between 70 and 100 mg/dL", "value")
    assert (s.data["op"], s.data["value"], s.data["value2"], s.data["unit"]) == (
        "between",
        70.0,
        100.0,
        "mg/dl",
    )


@pytest.mark.parametrize(
    ("question", "op", "value", "at_event"),
    [
        ("patients older than 60", ">", 60, False),
        ("women over 65 with asthma", ">", 65, False),
        ("patients aged 65 or older", ">=", 65, False),
        ("patients 18 years or younger", "<=", 18, False),
        ("patients under 18", "<", 18, False),
        ("diagnosed before the age of 50", "<", 50, True),
        ("diagnosed after age 40", ">", 40, True),
        ("children with asthma", "<", 18, False),
    ],
)
def test_ages(question: str, op: str, value: int, at_event: bool) -> None:
    (s,) = slots(question, "age")
    assert (s.data["op"], s.data["value"], bool(s.data.get("at_event"))) == (op, value, at_event)


def test_age_between() -> None:
    (s,) = slots("patients aged 40 to 60", "age")
    assert (s.data["op"], s.data["value"], s.data["value2"]) == ("between", 40, 60)


def test_sexes_and_counts() -> None:
    assert [s.data["sex"] for s in slots("How many women and how many men", "sex")] == [
        "female",
        "male",
    ]
    (c,) = slots("at least 3 episodes of acute bronchitis", "count")
    assert c.data["min"] == 3
    (c,) = slots("more than 2 prescriptions of warfarin", "count")
    assert c.data["min"] == 3
    (c,) = slots("diagnosed more than once", "count")
    assert c.data["min"] == 2
    (c,) = slots("two or more ER visits", "count")
    assert c.data["min"] == 2


@pytest.mark.parametrize(
    ("question", "op"),
    [
        ("How many patients had X", "count"),
        ("What percentage of patients had X", "proportion"),
        ("What is the average hemoglobin", "mean"),
        ("median creatinine", "median"),
        ("the highest glucose", "max"),
        ("lowest potassium", "min"),
        ("how many different drugs", "count_distinct"),
        ("When was the patient first diagnosed", "date"),
        ("List the medications", "list"),
        ("Has the patient ever had X", "exists"),
    ],
)
def test_aggregates(question: str, op: str) -> None:
    assert slots(question, "intent")[0].data["op"] == op


def test_grouping_and_negation() -> None:
    assert [s.data["key"] for s in slots("patients with X by sex", "group")] == ["sex"]
    assert [s.data["key"] for s in slots("visits per year", "group")] == ["year"]
    assert [s.data["key"] for s in slots("broken down by age group", "group")] == ["age_group"]
    assert len(slots("patients without diabetes", "neg")) == 1
    assert len(slots("never prescribed metformin", "neg")) == 1


def test_heart_rate_is_not_a_rate_question() -> None:
    assert not [s for s in slots("maximum heart rate") if s.data.get("op") == "proportion"]


def test_stemmer_is_light() -> None:
    assert [
        stem(w) for w in ("fractures", "allergies", "patients", "diabetes", "analysis", "glass")
    ] == ["fracture", "allergy", "patient", "diabete", "analysis", "glass"]
