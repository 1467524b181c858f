"""Ranges (stop 24): the highest minus the lowest value ('the range of X (max minus min)',
'max(value_num) - min(value_num)') is ``Aggregate(op="range")``; any other sum or difference of
two aggregates that the plan does not hold abstains. Our own wordings on devset2's databases,
gold by hand SQL.
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.understand._devset2db import devset2_gold

from clinbridge.engine.plan import Aggregate, Measure, QueryPlan

S27_NOW = "2022-10-10"


def test_highest_minus_lowest_is_a_range(s27: Any) -> None:
    gold = devset2_gold(
        "synthea27nj",
        "SELECT max(value_as_number) - min(value_as_number) FROM measurement "
        "WHERE person_id = 5 AND measurement_concept_id = 3038553",
    )
    for q in (
        "highest minus lowest bmi of patient 5",
        "what is the range of patient 5's body mass index (max minus min)?",
        "the difference between the highest and the lowest BMI of pt 5",
    ):
        a = s27.ask(q, now=S27_NOW)
        assert a.decision == "accept", (q, a.reason)
        assert a.plan["aggregate"]["op"] == "range"
        assert a.value == pytest.approx(gold), q


def test_two_aggregates_the_plan_does_not_hold_abstain(s27: Any) -> None:
    for q in (
        "max(value_as_number) - avg(value_as_number) for BMI of person_id 5",
        "highest bmi minus mean bmi of patient 5",
        "max(value_as_number) - min(value_source_value) for BMI of person_id 5",
    ):
        a = s27.ask(q, now=S27_NOW)
        assert a.decision == "abstain", (q, a.value)


def test_a_range_needs_a_numeric_measure() -> None:
    with pytest.raises(ValueError, match="numeric"):
        QueryPlan(measure=Measure(of="patients"), aggregate=Aggregate(op="range"))
    ok = QueryPlan(
        measure=Measure(of="value", stream="measurement"), aggregate=Aggregate(op="range")
    )
    assert QueryPlan.from_json(ok.to_json()) == ok
