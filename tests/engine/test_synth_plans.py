"""Plans over generated OMOP data (measurement values with units, ICU/ER/inpatient visits, drug
days' supply): the same answers on DuckDB, SQLite and PostgreSQL, and gold from hand SQL."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from clinbridge.adapters import describe
from clinbridge.db import Database
from clinbridge.engine.plan import QueryPlan
from clinbridge.engine.run import run_plan
from clinbridge.settings import Settings
from clinbridge.synthetic.omop import generate_omop

HERE = Path(__file__).parent
PLANS = {
    p.stem: QueryPlan.from_json(p.read_bytes())
    for p in sorted((HERE / "plans_synth").glob("*.json"))
}
SETTINGS = Settings(now="2025-01-01")
PG = "postgresql://postgres@127.0.0.1:5432/test"

CONCEPT = "(SELECT descendant_concept_id FROM concept_ancestor WHERE ancestor_concept_id = {})"
HAND_SQL = {
    "mean_hemoglobin": "SELECT AVG(value_as_number) FROM measurement WHERE measurement_concept_id = 3000963",
    "count_a1c_over_8": "SELECT COUNT(DISTINCT person_id) FROM measurement WHERE measurement_concept_id = 3004410 AND value_as_number > 8",
    "max_creatinine_patient_151": "SELECT MAX(value_as_number) FROM measurement m JOIN concept c ON c.concept_id = m.measurement_concept_id "
    "WHERE person_id = 151 AND c.concept_name = 'Creatinine [Mass/volume] in Serum or Plasma'",
    "last_icu_admission_patient_72": "SELECT MAX(visit_start_date) FROM visit_occurrence WHERE person_id = 72 "
    "AND visit_concept_id IN (32037, 581379)",
    "count_hemoglobin_in_er": "SELECT COUNT(DISTINCT m.person_id) FROM measurement m JOIN visit_occurrence v "
    "ON v.visit_occurrence_id = m.visit_occurrence_id WHERE m.measurement_concept_id = 3000963 "
    "AND v.visit_concept_id IN (9203, 8870)",
    "count_pneumonia_30d_after_first_admission": "WITH a AS (SELECT person_id, MIN(visit_start_date) d FROM "
    "visit_occurrence WHERE visit_concept_id IN (9201, 262, 8717, 8920, 8971) GROUP BY 1) SELECT COUNT(DISTINCT "
    "co.person_id) FROM condition_occurrence co JOIN a ON a.person_id = co.person_id JOIN concept c ON "
    "c.concept_id = co.condition_concept_id WHERE c.concept_name = 'Pneumonia' AND co.condition_start_date "
    "BETWEEN a.d AND a.d + 30",
    "count_icu_stays": "SELECT COUNT(*) FROM visit_occurrence WHERE visit_concept_id IN (32037, 581379)",
    "count_heart_failure_descendants": "SELECT COUNT(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN "
    + CONCEPT.format(316139),
    "count_hyperkalemia": "SELECT COUNT(DISTINCT person_id) FROM measurement WHERE measurement_concept_id = 3023103 "
    "AND value_as_number BETWEEN 5.5 AND 10",
    "er_patients_2020": "SELECT COUNT(DISTINCT person_id) FROM visit_occurrence WHERE visit_concept_id IN (9203, 8870) "
    "AND visit_start_date BETWEEN '2020-01-01' AND '2020-12-31'",
    "mean_days_supply_lisinopril": "SELECT AVG(days_supply) FROM drug_exposure WHERE drug_concept_id IN "
    + CONCEPT.format(1308216),
}


@pytest.fixture(scope="module")
def sources(synth_duckdb, tmp_path_factory):
    """The same generated CDM (seed 1, 300 patients) on the three backends."""
    lite = tmp_path_factory.mktemp("synth") / "synth.db"
    generate_omop(f"sqlite:///{lite}", patients=300, seed=1)
    urls = {"duckdb": f"duckdb:///{synth_duckdb}", "sqlite": f"sqlite:///{lite}"}
    schema = None
    try:
        admin = Database.open(PG, read_only=False)
    except Exception:
        admin = None
    if admin is not None:
        schema = f"cb_synth_{uuid.uuid4().hex[:8]}"
        urls["postgres"] = f"{PG}?schema={schema}"
        generate_omop(urls["postgres"], patients=300, seed=1)
    opened = {}
    for name, url in urls.items():
        db = Database.open(url)
        opened[name] = (db, describe(db))
    yield opened
    for db, _ in opened.values():
        db.close()
    if admin is not None:
        admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE', max_rows=None)
        admin.close()


def _key(answer):
    v = answer.value
    if isinstance(v, float):
        return round(v, 6)
    if isinstance(v, list):
        return [
            tuple(sorted((k, round(x, 6) if isinstance(x, float) else x) for k, x in item.items()))
            if isinstance(item, dict)
            else item
            for item in v
        ]
    return v


def test_corpus_size():
    assert len(PLANS) >= 20


@pytest.mark.parametrize("name", sorted(PLANS))
def test_same_answer_on_every_backend(name, sources):
    answers = {}
    for backend, (db, catalog) in sources.items():
        answer = run_plan(db, catalog, PLANS[name], settings=SETTINGS)
        assert answer.decision == "accept", (backend, answer.reason)
        answers[backend] = _key(answer)
    first = next(iter(answers.values()))
    assert all(a == first for a in answers.values()), answers


@pytest.mark.parametrize("name", sorted(HAND_SQL))
def test_gold_from_hand_sql(name, sources):
    db, catalog = sources["duckdb"]
    gold = db.execute(HAND_SQL[name]).rows[0][0]
    answer = run_plan(db, catalog, PLANS[name], settings=SETTINGS)
    if hasattr(gold, "isoformat"):
        gold = gold.isoformat()
    assert answer.value == (gold if isinstance(gold, str) else pytest.approx(gold))
