"""The validator on Eunomia GiBleed, the same on DuckDB, SQLite and PostgreSQL (real engine).

Eunomia stores 44,053 measurements and not one value (value_as_number is NULL everywhere), so a
mean temperature must abstain with ``not_stored`` — not answer 0 or NULL.
"""

from __future__ import annotations

import datetime as dt

import pytest

from clinbridge.adapters import describe
from clinbridge.db import Database
from clinbridge.engine.plan import (
    Aggregate,
    CalendarWindow,
    ConceptRef,
    ConceptSet,
    EventFilter,
    Measure,
    QueryPlan,
    SexFilter,
)
from clinbridge.engine.validate import answer_with_validation


def cs(name: str) -> ConceptSet:
    return ConceptSet(concepts=(ConceptRef(name=name),))


GI = EventFilter(stream="condition", concepts=cs("Gastrointestinal hemorrhage"))
CASES = [
    # (question, plan, expected decision, expected value or reason)
    (
        "How many women had a GI bleed?",
        QueryPlan(filters=(SexFilter(sex="female"), GI)),
        "accept",
        242,
    ),
    (
        "What is the mean oral temperature?",
        QueryPlan(
            measure=Measure(of="value", stream="measurement", concepts=cs("Oral temperature")),
            aggregate=Aggregate(op="mean"),
        ),
        "abstain",
        "not_stored",
    ),
    (
        "How many patients had a GI bleed in 2035?",
        QueryPlan(
            filters=(
                GI.model_copy(
                    update={
                        "window": CalendarWindow(
                            start=dt.date(2035, 1, 1), end=dt.date(2035, 12, 31)
                        )
                    }
                ),
            )
        ),
        "abstain",
        "window_outside_data",
    ),
    (
        "When was the first GI bleed of patient 99999999?",
        QueryPlan(
            patient_id="99999999",
            measure=Measure(
                of="date", stream="condition", concepts=cs("Gastrointestinal hemorrhage")
            ),
            aggregate=Aggregate(op="first"),
        ),
        "abstain",
        "patient_not_found",
    ),
]


@pytest.fixture(params=["duckdb", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def eunomia(request):
    fixture = {
        "duckdb": "eunomia_duckdb_url",
        "sqlite": "eunomia_sqlite_url",
        "postgres": "eunomia_pg_url",
    }
    url = request.getfixturevalue(fixture[request.param])
    with Database.open(url) as db:
        yield db, describe(db)


def test_same_decisions_on_every_backend(eunomia):
    db, catalog = eunomia
    assert catalog.data_end, "the OMOP adapter records the data's date range"
    for question, plan, decision, expected in CASES:
        out = answer_with_validation(question, [plan], catalog=catalog, db=db)
        assert out.decision == decision, (question, out.to_dict())
        if decision == "accept":
            assert out.value == expected
        else:
            assert out.reason == expected, (question, out.reason, out.detail)
            assert out.value is None


def test_coverage_checks_run_on_every_backend(eunomia):
    db, catalog = eunomia
    everyone = QueryPlan(aggregate=Aggregate(op="count"))
    out = answer_with_validation(
        "How many patients had a gastrointestinal hemorrhage?",
        [everyone],
        catalog=catalog,
        db=db,
        coverage=True,
    )
    assert out.decision == "abstain" and out.reason == "question_not_covered"
    assert "gastrointestinal hemorrhage" in out.detail
    good = QueryPlan(filters=(GI,))
    out = answer_with_validation(
        "How many patients had a gastrointestinal hemorrhage?",
        [good],
        catalog=catalog,
        db=db,
        coverage=True,
    )
    assert out.decision == "accept" and out.value == 479


def test_values_of_a_whole_stream_that_are_never_stored(eunomia_duckdb_url):
    with Database.open(eunomia_duckdb_url) as db:
        catalog = describe(db)
        plan = QueryPlan(
            patient_id="6",
            measure=Measure(of="value", stream="measurement"),
            aggregate=Aggregate(op="series"),
        )
        out = answer_with_validation(
            "What were the measurement values of patient 6 over time?",
            [plan],
            catalog=catalog,
            db=db,
        )
        assert out.decision == "abstain" and out.reason == "not_stored"


def test_coverage_holds_the_plan_to_the_reading_it_is_handed(eunomia):
    """The validator reads nothing itself: the second reading comes in from the caller."""
    from clinbridge.engine.understand._reading import Grounding, Reading

    db, catalog = eunomia
    question = "How many women had a gastrointestinal hemorrhage?"
    women = Reading(
        question=question, groundings=(Grounding(phrase="women", kind="sex", target="female"),)
    )
    plan = QueryPlan(filters=(GI,))
    alone = answer_with_validation(question, [plan], catalog=catalog, db=db, coverage=True)
    assert alone.decision == "accept"  # no reading handed in: only the verbatim checks
    held = answer_with_validation(
        question, [plan], catalog=catalog, db=db, coverage=True, reading=women
    )
    assert held.decision == "abstain" and held.reason == "question_not_covered"
    assert "women" in held.detail


def test_the_validator_does_not_import_the_parser_or_the_llm_layer():
    from tests.test_import_graph import import_graph

    graph = import_graph()
    for module in ("clinbridge.engine._coverage", "clinbridge.engine.validate"):
        assert not {
            m
            for m in graph[module]
            if m.startswith(("clinbridge.engine.understand", "clinbridge.engine.llm"))
        }, module
