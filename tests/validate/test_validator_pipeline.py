"""accept / one repair / abstain, with the parser's readings or a re-askable proposer."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from clinbridge.engine.plan import (
    Aggregate,
    ConceptRef,
    ConceptSet,
    EventFilter,
    Measure,
    QueryPlan,
    SexFilter,
)
from clinbridge.engine.validate import Feedback, SqlProposal, answer_with_validation
from clinbridge.errors import ConceptNotFoundError, UnderstandingError


def cs(name: str) -> ConceptSet:
    return ConceptSet(concepts=(ConceptRef(name=name),))


MI = QueryPlan(filters=(EventFilter(stream="condition", concepts=cs("Myocardial infarction")),))
T2DM = QueryPlan(
    filters=(EventFilter(stream="condition", concepts=cs("Type 2 diabetes mellitus")),)
)
HR = QueryPlan(
    measure=Measure(of="value", stream="measurement", concepts=cs("Heart rate")),
    aggregate=Aggregate(op="mean"),
)

# The SQL the engine would compile for each plan (hand-written; the engine's compiler is tested elsewhere).
SQL = {
    MI: "SELECT COUNT(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id = 4329847",
    T2DM: "SELECT COUNT(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id = 201826",
    HR: "SELECT AVG(value_as_number) FROM measurement WHERE measurement_concept_id = 3027018",
}


def runner(tiny: Any):
    calls: list[QueryPlan] = []

    def run_plan(plan: QueryPlan) -> SimpleNamespace:
        calls.append(plan)
        res = tiny.db.execute(SQL[plan])
        return SimpleNamespace(
            value=res.rows[0][0],
            rows=res.rows,
            columns=res.columns,
            plan=plan,
            sql=SQL[plan],
            concept_sets={},
        )

    run_plan.calls = calls  # type: ignore[attr-defined]
    return run_plan


def test_first_reading_accepted(tiny):
    out = answer_with_validation(
        "How many patients have type 2 diabetes?",
        [T2DM, MI],
        catalog=tiny.catalog,
        db=tiny.db,
        run_plan=runner(tiny),
    )
    assert out.decision == "accept" and out.value == 3 and not out.repaired
    assert out.plan == T2DM and out.sql == SQL[T2DM]
    assert len(out.attempts) == 1
    assert out.to_dict()["decision"] == "accept"


def test_next_reading_is_the_repair(tiny):
    run = runner(tiny)
    out = answer_with_validation(
        "How many patients had a heart attack?",
        [MI, T2DM],
        catalog=tiny.catalog,
        db=tiny.db,
        run_plan=run,
    )
    assert out.decision == "accept" and out.repaired and out.value == 3
    assert [a.passed for a in out.attempts] == [False, True]
    assert run.calls == [MI, T2DM]


def test_abstains_after_one_repair_and_never_emits_the_value(tiny):
    run = runner(tiny)
    out = answer_with_validation(
        "Mean heart rate?", [HR, MI, T2DM], catalog=tiny.catalog, db=tiny.db, run_plan=run
    )
    assert out.decision == "abstain"
    assert out.answer is None and out.value is None
    assert out.reason == "concept_not_in_data"  # the repair's failure is the one reported
    assert len(out.attempts) == 2 and run.calls == [HR, MI]  # one repair only: T2DM is never tried
    assert out.to_dict()["value"] is None


def test_no_repair_when_disabled(tiny):
    out = answer_with_validation(
        None, [HR, T2DM], catalog=tiny.catalog, db=tiny.db, run_plan=runner(tiny), max_repairs=0
    )
    assert out.decision == "abstain" and out.reason == "not_stored"


def test_callable_proposer_gets_the_structured_feedback(tiny):
    seen: list[Feedback | None] = []

    def proposer(feedback: Feedback | None) -> QueryPlan:
        seen.append(feedback)
        return MI if feedback is None else T2DM

    out = answer_with_validation(
        "q", proposer, catalog=tiny.catalog, db=tiny.db, run_plan=runner(tiny)
    )
    assert out.decision == "accept" and out.repaired
    assert seen[0] is None
    fb = seen[1]
    assert fb is not None and fb.proposal == MI
    assert [c.code for c in fb.failed] == ["concept_not_in_data"]
    assert "concept_not_in_data" in fb.to_prompt() and "Myocardial infarction" in fb.to_prompt()
    assert fb.to_dict()["proposal"]["plan"]["filters"][0]["stream"] == "condition"


def test_execution_errors_become_failed_checks(tiny):
    def run_plan(plan: QueryPlan) -> Any:
        raise ConceptNotFoundError("no concept named 'heart attack'", phrase="heart attack")

    out = answer_with_validation("q", [MI], catalog=tiny.catalog, db=tiny.db, run_plan=run_plan)
    assert out.decision == "abstain" and out.reason == "concept_not_found"
    assert "heart attack" in out.detail


def test_proposer_that_cannot_understand(tiny):
    def proposer(feedback: Feedback | None) -> QueryPlan:
        raise UnderstandingError("could not ground 'frobnication'", phrase="frobnication")

    out = answer_with_validation(
        "How many frobnications?", proposer, catalog=tiny.catalog, db=tiny.db, run_plan=runner(tiny)
    )
    assert out.decision == "abstain" and out.reason == "understanding"
    assert "frobnication" in out.detail
    empty = answer_with_validation("q", [], catalog=tiny.catalog, db=tiny.db, run_plan=runner(tiny))
    assert empty.decision == "abstain" and empty.reason == "no_proposal"


def test_free_sql_goes_through_the_guard(tiny):
    pytest.importorskip("clinbridge.engine.guard", reason="the guard lands from branch 'guard'")
    ok = answer_with_validation(
        "How many patients have type 2 diabetes?",
        [SqlProposal(sql=SQL[T2DM], shape="number")],  # type: ignore[list-item]
        catalog=tiny.catalog,
        db=tiny.db,
    )
    assert ok.decision == "accept" and ok.value == 3
    bad = answer_with_validation(
        "q", [SqlProposal(sql="DROP TABLE person")], catalog=tiny.catalog, db=tiny.db
    )  # type: ignore[list-item]
    assert bad.decision == "abstain" and bad.reason == "sql_unsafe"


# -- with the engine's own run_plan (compile → guard → execute) on the same database ----------------


def test_engine_run_plan_accepts_and_abstains(tiny):
    out = answer_with_validation(
        "How many patients have type 2 diabetes?", [T2DM], catalog=tiny.catalog, db=tiny.db
    )
    assert out.decision == "accept", out.to_dict()
    assert out.value == 3
    answer = out.to_answer()
    assert answer.decision == "accept" and answer.sql and "condition_occurrence" in answer.sql
    assert any(c.name == "concepts_in_data[filters[0]]" and c.passed for c in answer.checks)
    assert answer.provenance.question == "How many patients have type 2 diabetes?"

    hr = answer_with_validation(
        "What is the mean heart rate?", [HR], catalog=tiny.catalog, db=tiny.db
    )
    assert hr.decision == "abstain" and hr.value is None
    assert hr.reason in {"not_stored", "no_data"}
    abst = hr.to_answer()
    assert abst.decision == "abstain" and abst.value is None and abst.rows == []
    assert abst.reason_code == hr.reason

    unknown = QueryPlan(
        filters=(EventFilter(stream="condition", concepts=cs("Unobtainium syndrome")),)
    )
    out = answer_with_validation(
        "How many patients have unobtainium syndrome?",
        [unknown, T2DM],
        catalog=tiny.catalog,
        db=tiny.db,
    )
    assert out.decision == "accept" and out.repaired  # the repair (next reading) was accepted
    assert out.attempts[0].checks[0].code == "concept_not_found"
    validation = out.to_answer().details["validation"]
    assert validation["attempts"] == 2 and validation["repaired"]
    assert validation["rejected"][0]["reason"] == "concept_not_found"


def test_engine_proportion_is_checked_against_its_denominator(tiny):
    plan = QueryPlan(
        filters=(EventFilter(stream="drug", concepts=cs("celecoxib")),),
        aggregate=Aggregate(op="proportion", numerator=(SexFilter(sex="female"),)),
    )
    out = answer_with_validation(
        "What proportion of celecoxib users are female?", [plan], catalog=tiny.catalog, db=tiny.db
    )
    assert out.decision == "accept" and out.value == pytest.approx(0.5), out.to_dict()
    check = next(c for c in out.checks if c.name == "numerator_le_denominator")
    assert check.passed and check.detail == "1 ≤ 2"
    bad = SimpleNamespace(
        value=1.5,
        rows=[],
        columns=[],
        sql="",
        concept_sets=[],
        details={"numerator": 3, "denominator": 2},
    )
    from clinbridge.engine.validate import validate

    checks = validate(bad, plan=plan, catalog=tiny.catalog, db=tiny.db)
    assert any(c.code == "numerator_gt_denominator" and not c.passed for c in checks)


def test_abstention_keeps_the_audit_trail_but_no_value(tiny):
    out = answer_with_validation(
        "What is the mean heart rate?", [HR], catalog=tiny.catalog, db=tiny.db
    )
    answer = out.to_answer()
    assert answer.decision == "abstain" and answer.value is None and answer.rows == []
    assert answer.sql and "measurement" in answer.sql  # the SQL that ran, for the audit
    assert answer.provenance.source == "tiny" and answer.provenance.dialect == "duckdb"
    assert answer.provenance.understanding == "parser"
    assert "validate" in answer.timings.steps_ms
    assert out.to_dict()["attempts"][0]["sql"] == answer.sql
