"""The plan corpus: golden SQL per dialect, the same answers on DuckDB, SQLite and PostgreSQL,
gold values from hand-written SQL, and transpilation to other dialects."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from clinbridge.adapters import describe
from clinbridge.db import Database
from clinbridge.engine.compile import compile_plan
from clinbridge.engine.plan import ConceptRef, ConceptSet, EventFilter, QueryPlan
from clinbridge.engine.resolve import Resolver
from clinbridge.engine.run import plan_now, run_plan
from clinbridge.errors import ConceptNotFoundError
from clinbridge.settings import Settings

HERE = Path(__file__).parent
PLANS = {
    p.stem: QueryPlan.from_json(p.read_bytes()) for p in sorted((HERE / "plans").glob("*.json"))
}
GOLDEN = HERE / "golden"
UPDATE = os.environ.get("CLINBRIDGE_UPDATE_GOLDEN") == "1"
TRANSPILE_TO = ("spark", "bigquery", "snowflake", "trino", "redshift")

# Gold values computed by hand-written SQL (a second method, independent of the compiler).
HAND_SQL = {
    "count_gi_bleed": "SELECT COUNT(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN "
    "(SELECT descendant_concept_id FROM concept_ancestor WHERE ancestor_concept_id = 192671)",
    "count_women_gi": "SELECT COUNT(DISTINCT c.person_id) FROM condition_occurrence c JOIN person p "
    "ON p.person_id = c.person_id WHERE p.gender_concept_id = 8532 AND c.condition_concept_id IN "
    "(SELECT descendant_concept_id FROM concept_ancestor WHERE ancestor_concept_id = 192671)",
    "count_gi_events": "SELECT COUNT(*) FROM condition_occurrence WHERE condition_concept_id IN "
    "(SELECT descendant_concept_id FROM concept_ancestor WHERE ancestor_concept_id = 192671)",
    "count_inpatient_patients": "SELECT COUNT(DISTINCT person_id) FROM visit_occurrence WHERE visit_concept_id IN (9201, 262)",
    "patient_visit_count": "SELECT COUNT(*) FROM visit_occurrence WHERE person_id = 6",
    "distinct_drugs_count": "SELECT COUNT(DISTINCT drug_concept_id) FROM drug_exposure",
    "mean_age_at_first_gi_bleed": "WITH f AS (SELECT person_id, MIN(condition_start_date) d FROM condition_occurrence "
    "WHERE condition_concept_id = 192671 GROUP BY 1) SELECT AVG(YEAR(f.d) - YEAR(p.birth_datetime) - CASE WHEN "
    "MONTH(f.d) * 100 + DAY(f.d) < MONTH(p.birth_datetime) * 100 + DAY(p.birth_datetime) THEN 1 ELSE 0 END) "
    "FROM f JOIN person p ON p.person_id = f.person_id",
    "count_first_gi_bleed_from_2011": "SELECT COUNT(*) FROM (SELECT person_id, MIN(condition_start_date) d FROM "
    "condition_occurrence WHERE condition_concept_id = 192671 GROUP BY 1) x WHERE d >= '2011-01-01'",
    "count_two_plus_gi": "SELECT COUNT(*) FROM (SELECT person_id FROM condition_occurrence WHERE condition_concept_id = 192671 "
    "GROUP BY person_id HAVING COUNT(*) >= 2) x",
}


@pytest.fixture(scope="module")
def duck(eunomia_duckdb):
    with Database.open(f"duckdb:///{eunomia_duckdb}") as db:
        yield db, describe(db)


@pytest.fixture(scope="module")
def lite(eunomia_sqlite):
    with Database.open(f"sqlite:///{eunomia_sqlite}") as db:
        yield db, describe(db)


def _answer_key(answer):
    value = answer.value
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, list):
        return [
            tuple(sorted((k, round(v, 6) if isinstance(v, float) else v) for k, v in x.items()))
            if isinstance(x, dict)
            else x
            for x in value
        ]
    return value


def _golden(name: str, dialect: str, sql: str) -> None:
    path = GOLDEN / name / f"{dialect}.sql"
    regen = "CLINBRIDGE_UPDATE_GOLDEN=1 python -m pytest tests/engine/test_plans.py"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(sql + "\n")
    if not path.exists():
        pytest.fail(f"golden SQL {path} is missing; write it (and review the diff) with: {regen}")
    assert sql + "\n" == path.read_text(), (
        f"golden SQL changed for {name}/{dialect}; if intended, regenerate with: {regen}"
    )


def test_plan_corpus_size():
    assert len(PLANS) >= 20


@pytest.mark.parametrize("name", sorted(PLANS))
def test_plan_json_round_trip(name):
    plan = PLANS[name]
    assert QueryPlan.from_json(plan.to_json()) == plan
    assert hash(plan) == hash(QueryPlan.from_json(plan.to_json()))


@pytest.mark.parametrize("name", sorted(PLANS))
def test_duckdb_and_sqlite_agree_and_golden_sql(name, duck, lite):
    plan = PLANS[name]
    answers = {}
    for db, catalog in (duck, lite):
        answer = run_plan(db, catalog, plan, settings=Settings(now="2019-07-01"))
        assert answer.decision == "accept", (db.dialect, answer.reason)
        compiled = compile_plan(
            plan,
            catalog,
            Resolver(db, catalog).resolve,
            now=plan_now(plan, catalog, Settings(now="2019-07-01")),
        )
        _golden(name, db.dialect, compiled.pretty())
        answers[db.dialect] = _answer_key(answer)
    assert answers["duckdb"] == answers["sqlite"]


@pytest.mark.parametrize("name", sorted(HAND_SQL))
def test_gold_values_from_hand_sql(name, duck):
    db, catalog = duck
    gold = db.execute(HAND_SQL[name]).rows[0][0]
    answer = run_plan(db, catalog, PLANS[name], settings=Settings(now="2019-07-01"))
    assert answer.value == gold


@pytest.mark.parametrize("dialect", TRANSPILE_TO)
def test_plans_transpile_and_parse_back(dialect, duck):
    db, catalog = duck
    resolver = Resolver(db, catalog)
    for name, plan in PLANS.items():
        compiled = compile_plan(
            plan,
            catalog,
            resolver.resolve,
            dialect=dialect,
            now=plan_now(plan, catalog, Settings()),
        )
        sql = compiled.sql
        parsed = sqlglot.parse(sql, read=dialect)
        assert len(parsed) == 1, name
        assert isinstance(parsed[0], exp.Query), (name, sql)


def test_unknown_concept_is_rejected_not_run_as_empty_filter(duck):
    db, catalog = duck
    plan = QueryPlan(
        filters=(
            EventFilter(
                stream="condition", concepts=ConceptSet(concepts=(ConceptRef(name="Dragon pox"),))
            ),
        )
    )
    with pytest.raises(ConceptNotFoundError):
        compile_plan(plan, catalog, Resolver(db, catalog).resolve)
    answer = run_plan(db, catalog, plan)
    assert answer.decision == "abstain"
    assert answer.reason_code == "concept_not_found"
    assert "Dragon pox" in (answer.reason or "")
    plan_id = QueryPlan(
        filters=(
            EventFilter(
                stream="condition",
                concepts=ConceptSet(concepts=(ConceptRef(concept_id=999999999),)),
            ),
        )
    )
    assert run_plan(db, catalog, plan_id).decision == "abstain"


def test_stream_the_source_lacks_abstains(duck):
    db, catalog = duck
    plan = QueryPlan(filters=(EventFilter(stream="genomics"),))
    answer = run_plan(db, catalog, plan)
    assert answer.decision == "abstain" and answer.reason_code == "schema_mismatch"


def test_answer_carries_provenance(duck):
    db, catalog = duck
    answer = run_plan(
        db, catalog, PLANS["count_gi_30d_after_celecoxib"], settings=Settings(now="2019-07-01")
    )
    data = answer.to_dict()
    assert data["sql"].upper().startswith("WITH")
    assert data["dialect"] == "duckdb"
    assert data["plan"]["filters"][0]["kind"] == "event"
    assert {cs["label"] for cs in data["concept_sets"]} >= {"celecoxib"}
    assert data["provenance"]["adapter"] == "omop"
    assert data["timings"]["total_ms"] > 0
    assert all(c["passed"] for c in data["checks"])


@pytest.fixture(scope="module")
def pg(eunomia_pg_url):
    with Database.open(eunomia_pg_url) as db:
        yield db, describe(db)


@pytest.mark.postgres
@pytest.mark.parametrize("name", sorted(PLANS))
def test_postgres_agrees_with_duckdb_and_golden_sql(name, pg, duck):
    settings = Settings(now="2019-07-01")
    db, catalog = pg
    a = run_plan(db, catalog, PLANS[name], settings=settings)
    b = run_plan(*duck, PLANS[name], settings=settings)
    assert a.decision == "accept", a.reason
    assert _answer_key(a) == _answer_key(b)
    compiled = compile_plan(
        PLANS[name],
        catalog,
        Resolver(db, catalog).resolve,
        now=plan_now(PLANS[name], catalog, settings),
    )
    _golden(name, "postgres", compiled.pretty())


def test_scope_without_encounters_abstains(duck):
    db, catalog = duck
    # patient 6 has no emergency visit: an empty list would be a made-up answer
    plan = QueryPlan.model_validate(
        {
            "patient_id": "6",
            "measure": {"of": "concept", "stream": "condition"},
            "aggregate": {"op": "list"},
            "scope": {"which": "last", "type": "emergency"},
        }
    )
    answer = run_plan(db, catalog, plan)
    assert answer.decision == "abstain" and answer.reason_code == "scope_empty"


def test_ties_on_the_last_day_are_reported(duck):
    db, catalog = duck
    answer = run_plan(db, catalog, PLANS["patient_last_drug"], settings=Settings(now="2019-07-01"))
    gold = db.execute(
        "SELECT COUNT(DISTINCT drug_concept_id) FROM drug_exposure WHERE person_id = 6 AND "
        "drug_exposure_start_date = (SELECT MAX(drug_exposure_start_date) FROM drug_exposure WHERE person_id = 6)"
    ).rows[0][0]
    assert (len(answer.value) if isinstance(answer.value, list) else 1) == gold


def test_a_missing_golden_file_fails_with_the_regeneration_command(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "GOLDEN", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "UPDATE", False)
    with pytest.raises(pytest.fail.Exception, match="CLINBRIDGE_UPDATE_GOLDEN=1 python -m pytest"):
        _golden("deleted", "duckdb", "SELECT 1")
    assert not (tmp_path / "deleted").exists()
