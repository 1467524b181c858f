"""The validator's deterministic checks on a real (tiny, hand-built) OMOP DuckDB database."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace
from typing import Any

import pytest

from clinbridge.engine._shapes import question_breakdown
from clinbridge.engine.plan import (
    Aggregate,
    CalendarWindow,
    ConceptRef,
    ConceptSet,
    EventFilter,
    Measure,
    QueryPlan,
    RelativeWindow,
)
from clinbridge.engine.validate import (
    Check,
    concept_sets_of,
    decide,
    expected_shape,
    plausible_range,
    question_shape,
    resolve_concept_ids,
    validate,
)


def cs(name: str) -> ConceptSet:
    return ConceptSet(concepts=(ConceptRef(name=name),))


def run(tiny: Any, sql: str, plan: QueryPlan | None, *, scalar: bool = True) -> SimpleNamespace:
    """Execute hand-written SQL into a draft answer (what the engine would hand the validator)."""
    res = tiny.db.execute(sql)
    value: Any = res.rows[0][0] if scalar else [r[0] for r in res.rows]
    return SimpleNamespace(
        value=value, rows=res.rows, columns=res.columns, plan=plan, sql=sql, concept_sets={}
    )


def failed(checks: list[Check]) -> set[str]:
    return {c.code for c in checks if not c.passed and c.code}


def mean_of(name: str, **kw: Any) -> QueryPlan:
    return QueryPlan(
        measure=Measure(
            of="value", stream="measurement", concepts=cs(name), unit=kw.pop("unit", None)
        ),
        aggregate=Aggregate(op=kw.pop("op", "mean")),
        **kw,
    )


HBA1C = "Hemoglobin A1c/Hemoglobin.total in Blood"


def test_accepts_a_correct_mean(tiny):
    plan = mean_of(HBA1C)
    draft = run(
        tiny,
        "SELECT AVG(value_as_number) FROM measurement WHERE measurement_concept_id = 3004410",
        plan,
    )
    checks = validate(
        draft, plan=plan, catalog=tiny.catalog, db=tiny.db, question="What is the mean HbA1c?"
    )
    assert draft.value == pytest.approx(7.5)
    assert failed(checks) == set(), checks
    names = {c.name for c in checks}
    assert {
        "concepts_resolved[measure]",
        "concepts_in_data[measure]",
        "units_consistent",
        "values_plausible",
        "data_stored",
        "result_shape",
        "shape_matches_question",
    } <= names
    assert decide(checks) == ("accept", None, "")


def test_concept_resolution_by_name_synonym_code_and_descendants(tiny):
    stream = tiny.catalog.stream("condition")
    assert resolve_concept_ids(
        tiny.catalog, tiny.db, stream, cs("Gastrointestinal hemorrhage")
    ) == [192671, 4338225]
    assert resolve_concept_ids(tiny.catalog, tiny.db, stream, cs("gi bleed")) == [192671, 4338225]
    by_code = ConceptSet(concepts=(ConceptRef(code="44054006", system="SNOMED"),))
    assert resolve_concept_ids(tiny.catalog, tiny.db, stream, by_code) == [201826]
    no_desc = ConceptSet(concepts=(ConceptRef(concept_id=192671),), include_descendants=False)
    assert resolve_concept_ids(tiny.catalog, tiny.db, stream, no_desc) == [192671]
    excl = ConceptSet(
        concepts=(ConceptRef(concept_id=192671),), exclude=(ConceptRef(concept_id=4338225),)
    )
    assert resolve_concept_ids(tiny.catalog, tiny.db, stream, excl) == [192671]
    assert (
        resolve_concept_ids(
            tiny.catalog, tiny.db, stream, ConceptSet(concepts=(ConceptRef(concept_id=42),))
        )
        == []
    )


def count_with(name: str, stream: str = "condition") -> QueryPlan:
    return QueryPlan(
        filters=(EventFilter(stream=stream, concepts=cs(name)),), aggregate=Aggregate(op="count")
    )


def test_concept_known_but_absent_from_data_abstains(tiny):
    plan = count_with("Myocardial infarction")
    draft = run(
        tiny,
        "SELECT COUNT(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id = 4329847",
        plan,
    )
    assert draft.value == 0
    checks = validate(draft, plan=plan, catalog=tiny.catalog, db=tiny.db)
    assert failed(checks) == {"concept_not_in_data"}
    decision, reason, detail = decide(checks)
    assert (decision, reason) == ("abstain", "concept_not_in_data")
    assert "Myocardial infarction" in detail


def test_unknown_concept_abstains(tiny):
    plan = count_with("Unobtainium syndrome")
    draft = SimpleNamespace(value=0, rows=[(0,)], columns=["n"], plan=plan, sql="", concept_sets={})
    assert failed(validate(draft, plan=plan, catalog=tiny.catalog, db=tiny.db)) == {
        "concept_not_found"
    }


def test_concept_sets_from_the_draft_are_used(tiny):
    plan = count_with("Unobtainium syndrome")
    draft = SimpleNamespace(
        value=1,
        rows=[(1,)],
        columns=["n"],
        plan=plan,
        sql="",
        concept_sets={"Unobtainium syndrome": [201826]},
    )
    assert failed(validate(draft, plan=plan, catalog=tiny.catalog, db=tiny.db)) == set()


def test_concept_sets_of_walks_filters_anchors_and_measure():
    anchor = {"kind": "event", "stream": "drug", "concepts": cs("celecoxib").model_dump()}
    plan = QueryPlan.model_validate(
        {
            "filters": [
                {
                    "kind": "event",
                    "stream": "condition",
                    "concepts": cs("GI bleed").model_dump(),
                    "window": {
                        "kind": "relative",
                        "anchor": anchor,
                        "start_days": 0,
                        "end_days": 30,
                    },
                }
            ],
            "measure": {
                "of": "value",
                "stream": "measurement",
                "concepts": cs("Hemoglobin").model_dump(),
            },
            "aggregate": {"op": "mean"},
        }
    )
    assert [(p.path, p.stream) for p in concept_sets_of(plan)] == [
        ("filters[0]", "condition"),
        ("filters[0].window.anchor", "drug"),
        ("measure", "measurement"),
    ]


def test_mixed_units_abstain_unless_converted(tiny):
    sql = "SELECT AVG(value_as_number) FROM measurement WHERE measurement_concept_id = 3025315"
    plan = mean_of("Body weight")
    checks = validate(run(tiny, sql, plan), plan=plan, catalog=tiny.catalog, db=tiny.db)
    assert failed(checks) == {"unit_mixed"}
    unit_check = next(c for c in checks if c.name == "units_consistent")
    assert "kg" in unit_check.detail and "[lb_av]" in unit_check.detail
    # With a target unit the compiler converts (lb → kg); the answer the engine gives is in kg.
    plan_kg = mean_of("Body weight", unit="kg")
    converted = "SELECT AVG(CASE WHEN unit_concept_id = 8739 THEN value_as_number * 0.45359237 ELSE value_as_number END) FROM measurement WHERE measurement_concept_id = 3025315"
    assert (
        failed(
            validate(run(tiny, converted, plan_kg), plan=plan_kg, catalog=tiny.catalog, db=tiny.db)
        )
        == set()
    )
    plan_bad = mean_of("Body weight", unit="g/dL")
    assert "unit_mixed" in failed(
        validate(run(tiny, converted, plan_bad), plan=plan_bad, catalog=tiny.catalog, db=tiny.db)
    )


def test_implausible_value_abstains(tiny):
    plan = mean_of(HBA1C)
    # A mix-up: the sum of the values where the mean was asked for (7.5+6.1+8.9 = 22.5 %, then ×... ).
    draft = run(
        tiny,
        "SELECT SUM(value_as_number) * 10 FROM measurement WHERE measurement_concept_id = 3004410",
        plan,
    )
    checks = validate(draft, plan=plan, catalog=tiny.catalog, db=tiny.db)
    assert failed(checks) == {"value_implausible"}
    assert "outside the possible range" in next(c.detail for c in checks if not c.passed)


def test_all_null_values_abstain_not_zero(tiny):
    plan = mean_of("Heart rate")
    for sql in (
        "SELECT AVG(value_as_number) FROM measurement WHERE measurement_concept_id = 3027018",
        "SELECT COALESCE(AVG(value_as_number), 0) FROM measurement WHERE measurement_concept_id = 3027018",
    ):
        checks = validate(run(tiny, sql, plan), plan=plan, catalog=tiny.catalog, db=tiny.db)
        assert "not_stored" in failed(checks)
        assert decide(checks)[1] == "not_stored"


def test_patient_level(tiny):
    last_hb = mean_of("Hemoglobin [Mass/volume] in Blood", op="last", patient_id="4")
    # Patient 4 has no hemoglobin: the engine's 'last value' returns no row.
    draft = run(
        tiny,
        "SELECT value_as_number FROM measurement WHERE person_id = 4 AND measurement_concept_id = 3000963 "
        "ORDER BY measurement_date DESC LIMIT 1",
        last_hb,
        scalar=False,
    )
    assert draft.value == []
    draft.value = None
    checks = validate(draft, plan=last_hb, catalog=tiny.catalog, db=tiny.db)
    assert decide(checks)[1] == "no_data"
    assert "no such data for this patient" in decide(checks)[2]
    ghost = last_hb.model_copy(update={"patient_id": "999"})
    checks = validate(draft, plan=ghost, catalog=tiny.catalog, db=tiny.db)
    assert [c.code for c in checks if not c.passed] == ["patient_not_found"]
    ok = last_hb.model_copy(update={"patient_id": "2"})
    draft = run(
        tiny,
        "SELECT value_as_number FROM measurement WHERE person_id = 2 AND measurement_concept_id = 3000963 "
        "ORDER BY measurement_date DESC LIMIT 1",
        ok,
    )
    assert draft.value == 13.4
    assert failed(validate(draft, plan=ok, catalog=tiny.catalog, db=tiny.db)) == set()


def test_empty_list_for_a_patient_abstains(tiny):
    plan = QueryPlan(
        patient_id="5", measure=Measure(of="concept", stream="drug"), aggregate=Aggregate(op="list")
    )
    draft = SimpleNamespace(value=[], rows=[], columns=["drug"], plan=plan, sql="", concept_sets={})
    assert decide(validate(draft, plan=plan, catalog=tiny.catalog, db=tiny.db))[1] == "no_data"


def test_windows(tiny):
    def with_window(w: Any, **kw: Any) -> QueryPlan:
        return QueryPlan(
            filters=(
                EventFilter(stream="condition", concepts=cs("Type 2 diabetes mellitus"), window=w),
            ),
            aggregate=Aggregate(op="count"),
            **kw,
        )

    draft = SimpleNamespace(value=0, rows=[(0,)], columns=["n"], plan=None, sql="", concept_sets={})
    outside = with_window(CalendarWindow(start=dt.date(2030, 1, 1), end=dt.date(2030, 12, 31)))
    assert failed(validate(draft, plan=outside, catalog=tiny.catalog, db=tiny.db)) == {
        "window_outside_data"
    }
    backwards = with_window(CalendarWindow(start=dt.date(2015, 1, 1), end=dt.date(2014, 1, 1)))
    assert failed(validate(draft, plan=backwards, catalog=tiny.catalog, db=tiny.db)) == {
        "window_empty"
    }
    anchor = {"kind": "fixed", "date": "2010-01-01"}
    rel = with_window(
        RelativeWindow.model_validate({"anchor": anchor, "start_days": 30, "end_days": 0})
    )
    assert failed(validate(draft, plan=rel, catalog=tiny.catalog, db=tiny.db)) == {"window_empty"}
    inside = with_window(CalendarWindow(start=dt.date(2015, 1, 1), end=dt.date(2015, 12, 31)))
    draft1 = SimpleNamespace(
        value=1, rows=[(1,)], columns=["n"], plan=None, sql="", concept_sets={}
    )
    assert failed(validate(draft1, plan=inside, catalog=tiny.catalog, db=tiny.db)) == set()
    # Patient 6 is observed 2015-2016 only.
    exists = with_window(
        CalendarWindow(start=dt.date(2019, 1, 1), end=dt.date(2019, 12, 31)), patient_id="6"
    )
    exists = exists.model_copy(update={"aggregate": Aggregate(op="exists")})
    no = SimpleNamespace(
        value=False, rows=[(False,)], columns=["x"], plan=None, sql="", concept_sets={}
    )
    assert failed(validate(no, plan=exists, catalog=tiny.catalog, db=tiny.db)) == {
        "window_outside_observation"
    }
    now_plan = with_window(
        RelativeWindow.model_validate(
            {"anchor": {"kind": "fixed"}, "start_days": -365, "end_days": 0}
        ),
        now=dt.datetime(2026, 11, 29),
    )
    assert failed(validate(draft, plan=now_plan, catalog=tiny.catalog, db=tiny.db)) == {
        "window_outside_data"
    }


def test_proportion_numerator_le_denominator(tiny):
    plan = QueryPlan(
        aggregate=Aggregate(
            op="proportion", numerator=(EventFilter(stream="drug", concepts=cs("celecoxib")),)
        )
    )
    good = run(
        tiny,
        "SELECT COUNT(DISTINCT d.person_id) * 1.0 / (SELECT COUNT(*) FROM person), COUNT(DISTINCT d.person_id) AS numerator, "
        "(SELECT COUNT(*) FROM person) AS denominator FROM drug_exposure d WHERE drug_concept_id = 1118084",
        plan,
    )
    assert good.value == pytest.approx(2 / 6)
    assert failed(validate(good, plan=plan, catalog=tiny.catalog, db=tiny.db)) == set()
    bad = SimpleNamespace(
        value=1.5,
        rows=[(1.5, 9, 6)],
        columns=["p", "numerator", "denominator"],
        plan=plan,
        sql="",
        concept_sets={},
    )
    assert failed(validate(bad, plan=plan, catalog=tiny.catalog, db=tiny.db)) == {
        "numerator_gt_denominator"
    }


def test_result_shape(tiny):
    plan = count_with("Type 2 diabetes mellitus")
    draft = run(
        tiny,
        "SELECT COUNT(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id = 201826",
        plan,
    )
    assert draft.value == 3
    assert (
        failed(
            validate(
                draft,
                plan=plan,
                catalog=tiny.catalog,
                db=tiny.db,
                question="How many patients have T2DM?",
            )
        )
        == set()
    )
    # The question asks for a date; a count plan cannot answer it.
    assert failed(
        validate(
            draft,
            plan=plan,
            catalog=tiny.catalog,
            db=tiny.db,
            question="When was the first diagnosis of T2DM?",
        )
    ) == {"shape_mismatch"}
    # The question asks for a count per drug; one number is not that.
    assert failed(
        validate(
            draft,
            plan=plan,
            catalog=tiny.catalog,
            db=tiny.db,
            question="How many patients with T2DM per drug?",
        )
    ) == {"shape_mismatch"}
    listy = SimpleNamespace(
        value=[1, 3, 4], rows=[(1,), (3,), (4,)], columns=["p"], plan=plan, sql="", concept_sets={}
    )
    assert failed(validate(listy, plan=plan, catalog=tiny.catalog, db=tiny.db)) == {
        "shape_mismatch"
    }


@pytest.mark.parametrize(
    ("question", "shape"),
    [
        ("How many patients had a GI bleed?", "number"),
        ("What was the mean HbA1c in 2015?", "number"),
        ("What percentage of women took aspirin?", "number"),
        ("When was patient 3 first diagnosed with diabetes?", "date"),
        ("What was the date of the last visit?", "date"),
        ("Which drugs did patient 1 take?", "list"),
        ("What medications was patient 2 on?", "list"),
        ("Did patient 1 ever take celecoxib?", "boolean"),
        ("Has patient 4 had an emergency visit?", "boolean"),
        ("Tell me about diabetes", None),
    ],
)
def test_question_shape(question, shape):
    assert question_shape(question) == shape


@pytest.mark.parametrize(
    ("question", "by"),
    [
        ("how many patients per vaccine", "vaccine"),
        ("number of visits for each site", "site"),
        ("counts broken down by ward", "ward"),
        ("how many patients by gender?", "gender"),
        ("what was each drug's count", "drug"),
        ("mean visits per patient", None),
        ("median heart rate in beats per minute", None),
        ("how many were seen by a doctor", None),
        ("how many doses were given by mouth", None),
        ("rate per 1000", None),
    ],
)
def test_question_breakdown(question, by):
    assert question_breakdown(question) == by


def test_expected_shape_and_ranges():
    assert expected_shape(QueryPlan(aggregate=Aggregate(op="exists"))) == "boolean"
    assert (
        expected_shape(
            QueryPlan(measure=Measure(of="date", stream="drug"), aggregate=Aggregate(op="first"))
        )
        == "date"
    )
    assert plausible_range("Hemoglobin A1c/Hemoglobin.total in Blood", "%") == (2, 25)
    assert plausible_range("Hemoglobin [Mass/volume] in Blood", "g/L") == (10, 260)
    assert plausible_range("Body temperature", "[degF]") == (68, 115)
    assert plausible_range("Some unknown assay", "mg/dL") is None


def test_generic_ranges_judge_computed_values_not_stored_extremes(tiny):
    def plan(op: str) -> QueryPlan:
        return QueryPlan(
            measure=Measure(of="days_supply", stream="drug", concepts=cs("celecoxib")),
            aggregate=Aggregate(op=op),
        )

    def draft(value: float) -> SimpleNamespace:
        return SimpleNamespace(value=value, rows=[(value,)], columns=["v"], sql="", concept_sets={})

    # Eunomia really records a 7,917-day supply: the longest one is that stored value.
    assert (
        failed(validate(draft(7917), plan=plan("max"), catalog=tiny.catalog, db=tiny.db)) == set()
    )
    assert (
        failed(validate(draft(250_000), plan=plan("sum"), catalog=tiny.catalog, db=tiny.db))
        == set()
    )
    # A mean of supplies cannot exceed the possible range of one supply.
    assert failed(validate(draft(7917), plan=plan("mean"), catalog=tiny.catalog, db=tiny.db)) == {
        "value_implausible"
    }
    assert failed(validate(draft(-3), plan=plan("sum"), catalog=tiny.catalog, db=tiny.db)) == {
        "value_implausible"
    }
