"""A difference of two counts (issue 8, u28t): 'how many more patients with X than with Y', 'by
how many does the number of X exceed the number of Y', 'count of X minus count of Y' — each side
read as its own count, the answer the first minus the second (``QueryPlan.minus``)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.understand._devset2db import devset2_gold

from clinbridge.engine.plan import (
    Aggregate,
    ConceptRef,
    ConceptSet,
    EventFilter,
    GroupBy,
    QueryPlan,
)
from clinbridge.engine.understand._count_difference import _side_questions, _split

NOW = "2019-07-03"


def _patients(sql_concept: int) -> str:
    return (
        "SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN "
        f"(SELECT descendant_concept_id FROM concept_ancestor WHERE ancestor_concept_id = {sql_concept})"
    )


def test_the_sides_and_their_order() -> None:
    assert _split("how many more pts w PUD than w GI bleed") == (
        "pts w PUD",
        "w GI bleed",
        "how many",
    )
    # 'fewer' subtracts the other way round: the answer is still the larger minus the smaller
    assert _split("how many fewer women than men have gout?") == (
        "men have gout",
        "women",
        "how many",
    )
    assert _split("By how many patients does the number with X exceed the number with Y?") == (
        "with X",
        "with Y",
        "how many patients",
    )
    assert _split("count of X minus count of Y") == ("of X", "of Y", "number")
    # a bare 'persons with X minus persons with Y' may be a set difference: not read here
    for q in ("persons with X minus persons with Y", "how many patients with X", "X vs Y"):
        assert _split(q) is None


def test_a_side_takes_the_words_it_shares_with_the_other() -> None:
    sides = _side_questions("pts w PUD", "w GI bleed", "how many")
    assert ("how many pts w PUD", "how many pts w GI bleed") in sides
    sides = _side_questions("Td", "Tdap doses were given", "how many")
    assert ("how many Td doses were given", "how many Tdap doses were given") in sides
    sides = _side_questions("of fhir_immunization CVX 113", "of CVX 115", "number")
    assert ("number of fhir_immunization CVX 113", "number of fhir_immunization CVX 115") in sides
    # an aside closing the question belongs to both sides
    sides = _side_questions("of Td vaccinations", "of Tdap vaccinations (records)", "number")
    assert sides[0] == (
        "number of Td vaccinations (records)",
        "number of Tdap vaccinations (records)",
    )


def test_minus_takes_a_count_from_a_count_only() -> None:
    ulcer = EventFilter(stream="condition", concepts=ConceptSet(concepts=(ConceptRef(name="u"),)))
    other = QueryPlan(filters=(ulcer,))
    assert QueryPlan(minus=other).minus == other
    with pytest.raises(ValueError):
        QueryPlan(minus=QueryPlan(aggregate=Aggregate(op="first")))
    with pytest.raises(ValueError):
        QueryPlan(group_by=(GroupBy(key="sex"),), minus=other)


def test_how_many_more_patients_end_to_end(gibleed: Any) -> None:
    want = devset2_gold("gibleed", _patients(4027663)) - devset2_gold("gibleed", _patients(192671))
    for q in (
        "how many more patients with a peptic ulcer than with a gastrointestinal hemorrhage",
        "By how many patients does the number with a peptic ulcer exceed the number with a "
        "gastrointestinal hemorrhage?",
    ):
        a = gibleed.ask(q, now=NOW)
        assert a.decision == "accept", (q, a.reason)
        assert a.value == want
        assert a.plan is not None and a.plan["minus"]["aggregate"]["op"] == "count"
    a = gibleed.ask(
        "how many fewer patients with a gastrointestinal hemorrhage than with a peptic ulcer",
        now=NOW,
    )
    assert a.decision == "accept", a.reason
    assert a.value == want


def test_sides_that_differ_in_more_than_their_concepts_are_not_subtracted(gibleed: Any) -> None:
    # the sides count different things (patients, visits): no difference of counts is read
    q = "how many more patients with a peptic ulcer than inpatient visits"
    a = gibleed.ask(q, now=NOW)
    assert not (a.plan or {}).get("minus"), a.plan
