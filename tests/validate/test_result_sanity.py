"""Degenerate results and open choices become abstentions (engine/_result_sanity.py)."""

from __future__ import annotations

from typing import Any

from clinbridge.engine._result_sanity import check_ambiguous, check_result
from clinbridge.engine.plan import QueryPlan

_EVENT = {
    "kind": "event",
    "stream": "condition",
    "concepts": {"concepts": [{"concept_id": 80502, "name": "Osteoporosis"}]},
}


def _plan(**kw: Any) -> QueryPlan:
    base: dict[str, Any] = {
        "question": "q",
        "filters": [],
        "measure": {"of": "patients"},
        "aggregate": {"op": "count"},
        "now": "2019-07-03T00:00:00",
    }
    base.update(kw)
    return QueryPlan.model_validate(base)


def _codes(checks: list[Any]) -> list[str]:
    return [c.code for c in checks if not c.passed]


def test_a_zero_count_abstains_but_a_positive_one_does_not() -> None:
    plan = _plan(filters=[_EVENT])
    assert _codes(check_result(plan, 0, "how many pts with osteoporosis")) == ["no_data"]
    assert check_result(plan, 57, "how many pts with osteoporosis") == []


def test_an_all_zero_breakdown_abstains() -> None:
    plan = _plan(filters=[_EVENT], group_by=[{"key": "sex"}])
    rows = [{"sex": "female", "value": 0}, {"sex": "male", "value": 0}]
    assert _codes(check_result(plan, rows, "how many by sex")) == ["no_data"]
    rows[0]["value"] = 3
    assert check_result(plan, rows, "how many by sex") == []


def test_a_proportion_of_everyone_equal_to_one_abstains_but_of_a_cohort_not() -> None:
    num = {"op": "proportion", "numerator": [_EVENT]}
    assert _codes(check_result(_plan(aggregate=num), 1.0, "what share")) == ["value_implausible"]
    cohort = _plan(aggregate=num, filters=[_EVENT])
    assert check_result(cohort, 1.0, "of the osteoporosis pts what share") == []
    assert _codes(check_result(cohort, 0.0, "what share")) == ["value_implausible"]


def test_an_age_asked_is_not_answered_with_a_date() -> None:
    plan = _plan(
        patient_id="22", filters=[_EVENT], measure={"of": "date"}, aggregate={"op": "first"}
    )
    found = check_result(plan, "1986-12-03", "At what age was patient 22 first diagnosed?")
    assert _codes(found) == ["shape_mismatch"]


def test_cohort_mean_age_needs_now_or_at() -> None:
    plan = _plan(filters=[_EVENT], measure={"of": "age"}, aggregate={"op": "mean"})
    assert _codes(check_ambiguous(plan, "avg age of osteoporosis pts")) == ["ambiguous"]
    assert check_ambiguous(plan, "current mean age of osteoporosis pts") == []
    assert check_ambiguous(plan, "mean age of osteoporosis pts now") == []


def test_one_patients_length_of_stay_needs_a_summary_word() -> None:
    plan = _plan(patient_id="7", measure={"of": "length_of_stay"}, aggregate={"op": "max"})
    assert _codes(check_ambiguous(plan, "LOS for patient 7?")) == ["ambiguous"]
    assert check_ambiguous(plan, "longest LOS for patient 7?") == []


def test_last_year_is_ambiguous_unless_pinned() -> None:
    window = {"kind": "calendar", "start": "2021-01-01", "end": "2021-12-31"}
    plan = _plan(measure={"of": "encounters"}, window=window)
    assert _codes(check_ambiguous(plan, "ER visits last year?")) == ["ambiguous"]
    assert check_ambiguous(plan, "ER visits in calendar year 2021 (last year)?") == []
