"""Status of conditions and drugs at 'now' ('currently on X', 'an active X', 'X that resolved'),
read through the plan's ``status`` on the real devset2 loads: FHIR by the recorded status
(Condition.clinicalStatus, MedicationRequest.status), OMOP by the end dates. Gold is SQL over the
loaded tables, written here independently of the plan."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clinbridge.engine.plan import ConceptRef, ConceptSet, EventFilter, QueryPlan

from ._devset2db import devset2_db


def _one(conn: Any, sql: str) -> Any:
    return conn.db.execute(sql, max_rows=None).rows[0][0]


def _statuses(a: Any) -> list[str | None]:
    return [f.get("status") for f in (a.plan or {}).get("filters", [])]


# -- FHIR: the recorded status ------------------------------------------------------------------


def test_fhir_currently_has_a_condition(fhir2: Any) -> None:
    a = fhir2.ask("how many patients currently have sepsis")
    now = a.provenance.now
    gold = _one(
        fhir2,
        "SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE display LIKE 'Sepsis%' "
        f"AND clinical_status = 'active' AND CAST(onset_time AS DATE) <= DATE '{now}'",
    )
    assert gold > 0 and a.decision == "accept" and a.value == gold
    assert _statuses(a) == ["active"]
    assert any("clinical_status" in r for r in a.details["status_rule"])
    same = fhir2.ask("how many patients have an active sepsis")
    assert same.decision == "accept" and same.value == gold


def test_fhir_currently_on_a_drug(fhir2: Any) -> None:
    a = fhir2.ask("how many patients are currently on naproxen")
    gold = _one(
        fhir2,
        "SELECT count(DISTINCT patient_id) FROM fhir_medication_request "
        "WHERE lower(display) LIKE '%naproxen%' AND status = 'active'",
    )
    ever = _one(
        fhir2,
        "SELECT count(DISTINCT patient_id) FROM fhir_medication_request "
        "WHERE lower(display) LIKE '%naproxen%'",
    )
    assert 0 < gold < ever and a.decision == "accept" and a.value == gold
    assert "status" in a.details["status_rule"][0]


def test_fhir_active_conditions_of_a_patient(fhir2: Any) -> None:
    pid = _one(
        fhir2,
        "SELECT patient_id FROM fhir_condition WHERE clinical_status = 'active' "
        "GROUP BY patient_id ORDER BY count(*) DESC, patient_id LIMIT 1",
    )
    a = fhir2.ask(f"which conditions of patient {pid} are still active")
    rows = fhir2.db.execute(
        "SELECT DISTINCT display FROM fhir_condition "
        f"WHERE patient_id = '{pid}' AND clinical_status = 'active'",
        max_rows=None,
    ).rows
    assert a.decision == "accept" and sorted(a.value) == sorted(r[0] for r in rows)
    ever = _one(
        fhir2, f"SELECT count(DISTINCT display) FROM fhir_condition WHERE patient_id = '{pid}'"
    )
    assert len(a.value) < ever


def test_fhir_resolved_for_a_patient(fhir2: Any) -> None:
    # a patient whose only sinusitis episodes are resolved, and one with an active one
    resolved = _one(
        fhir2,
        "SELECT patient_id FROM fhir_condition WHERE display LIKE 'Viral sinusitis%' "
        "GROUP BY patient_id HAVING bool_and(clinical_status = 'resolved') "
        "ORDER BY patient_id LIMIT 1",
    )
    a = fhir2.ask(f"is viral sinusitis resolved for patient {resolved}")
    assert a.decision == "accept" and a.value is True
    active = _one(
        fhir2,
        "SELECT patient_id FROM fhir_condition WHERE display LIKE 'Sepsis%' "
        "AND clinical_status = 'active' ORDER BY patient_id LIMIT 1",
    )
    a = fhir2.ask(f"is sepsis resolved for patient {active}")
    assert a.decision == "accept" and a.value is False
    a = fhir2.ask(f"does patient {active} have an active sepsis")
    assert a.decision == "accept" and a.value is True


def test_ever_questions_are_unchanged(fhir2: Any) -> None:
    a = fhir2.ask("how many patients have sepsis")
    gold = _one(
        fhir2, "SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE display LIKE 'Sepsis%'"
    )
    assert a.decision == "accept" and a.value == gold and _statuses(a) == [None]


def test_a_stream_without_status_or_end_is_named(fhir2: Any) -> None:
    flu = ConceptSet(
        concepts=(ConceptRef(name="Influenza, seasonal, injectable, preservative free"),)
    )
    plan = QueryPlan(filters=(EventFilter(stream="immunization", concepts=flu, status="active"),))
    a = fhir2.ask_plan(plan)
    assert a.decision == "abstain" and "neither a status nor an end date" in (a.reason or "")


# -- OMOP: the end dates --------------------------------------------------------------------------


def test_omop_currently_has_a_condition(s27: Any) -> None:
    a = s27.ask("how many patients currently have anemia")
    now = a.provenance.now
    gold = _one(
        s27,
        "SELECT count(DISTINCT person_id) FROM condition_occurrence o "
        "JOIN concept c ON c.concept_id = o.condition_concept_id WHERE c.concept_name = 'Anemia' "
        f"AND condition_start_date <= DATE '{now}' "
        f"AND (condition_end_date IS NULL OR condition_end_date > DATE '{now}')",
    )
    ever = _one(
        s27,
        "SELECT count(DISTINCT person_id) FROM condition_occurrence o "
        "JOIN concept c ON c.concept_id = o.condition_concept_id WHERE c.concept_name = 'Anemia'",
    )
    assert 0 < gold < ever and a.decision == "accept" and a.value == gold
    assert "by the dates" in a.details["status_rule"][0]


def test_omop_resolved_condition(s27: Any) -> None:
    a = s27.ask("how many patients had acute viral pharyngitis that resolved")
    now = a.provenance.now
    name = "c.concept_name = 'Acute viral pharyngitis'"
    base = (
        "FROM condition_occurrence o JOIN concept c ON c.concept_id = o.condition_concept_id "
        f"WHERE {name} AND condition_start_date <= DATE '{now}'"
    )
    gold = _one(
        s27,
        f"SELECT count(DISTINCT person_id) {base} AND condition_end_date <= DATE '{now}' "
        f"AND person_id NOT IN (SELECT person_id {base} AND (condition_end_date IS NULL "
        f"OR condition_end_date > DATE '{now}'))",
    )
    assert gold > 0 and a.decision == "accept" and a.value == gold


def test_omop_currently_on_a_drug_at_a_given_now(s27: Any) -> None:
    now = "2019-06-01"
    a = s27.ask("how many patients are currently on lisinopril", now=now)
    gold = _one(
        s27,
        "SELECT count(DISTINCT person_id) FROM drug_exposure o "
        "JOIN concept c ON c.concept_id = o.drug_concept_id "
        "WHERE lower(c.concept_name) LIKE '%lisinopril%' "
        f"AND drug_exposure_start_date <= DATE '{now}' AND drug_exposure_end_date > DATE '{now}'",
    )
    assert gold > 0 and a.decision == "accept" and a.value == gold


def test_omop_gibleed_currently(gibleed: Any) -> None:
    a = gibleed.ask("how many patients currently have osteoarthritis")
    now = a.provenance.now
    gold = _one(
        gibleed,
        "SELECT count(DISTINCT person_id) FROM condition_occurrence o "
        "JOIN concept_ancestor ca ON ca.descendant_concept_id = o.condition_concept_id "
        "WHERE ca.ancestor_concept_id = 80180 "
        f"AND condition_start_date <= DATE '{now}' "
        f"AND (condition_end_date IS NULL OR condition_end_date > DATE '{now}')",
    )
    assert gold > 0 and a.decision == "accept" and a.value == gold


def test_an_end_column_left_empty_is_named(tmp_path: Path) -> None:
    import shutil

    import duckdb

    path = tmp_path / "no-ends.duckdb"
    shutil.copy(devset2_db("synthea27nj"), path)
    con = duckdb.connect(str(path))
    con.execute("UPDATE condition_occurrence SET condition_end_date = NULL")
    con.close()
    import clinbridge
    from clinbridge.settings import Settings

    settings = Settings(embeddings="off", examples=str(tmp_path / "no-examples.jsonl"))
    conn = clinbridge.connect(f"duckdb:///{path}", settings=settings, cache_dir=tmp_path)
    try:
        a = conn.ask("how many patients currently have anemia")
        assert a.decision == "abstain" and "condition_end_date" in (a.reason or "")
        assert conn.ask("how many patients have anemia").decision == "accept"
    finally:
        conn.close()


def test_the_status_goes_with_the_concept_it_names(fhir2: Any) -> None:
    a = fhir2.ask("how many patients with hypertension are currently on naproxen")
    assert _statuses(a) == [None, "active"]
    a = fhir2.ask("how many patients with sepsis that is still active are on naproxen")
    assert _statuses(a) == ["active", None]
    gold = _one(
        fhir2,
        "SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE display LIKE 'Sepsis%' "
        "AND clinical_status = 'active' AND patient_id IN (SELECT patient_id FROM "
        "fhir_medication_request WHERE lower(display) LIKE '%naproxen%')",
    )
    assert gold > 0 and a.decision == "accept" and a.value == gold


def test_a_count_of_active_conditions(fhir2: Any) -> None:
    pid = _one(
        fhir2,
        "SELECT patient_id FROM fhir_condition WHERE clinical_status = 'active' "
        "GROUP BY patient_id ORDER BY count(*) DESC, patient_id LIMIT 1",
    )
    a = fhir2.ask(f"how many active conditions does patient {pid} have")
    gold = _one(
        fhir2,
        "SELECT count(DISTINCT code) FROM fhir_condition "
        f"WHERE patient_id = '{pid}' AND clinical_status = 'active'",
    )
    assert a.decision == "accept" and a.value == gold
    a = fhir2.ask("how many patients have a resolved viral sinusitis")
    gold = _one(
        fhir2,
        "SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE display LIKE 'Viral sinusitis%' "
        "AND clinical_status = 'resolved' AND patient_id NOT IN (SELECT patient_id FROM "
        "fhir_condition WHERE display LIKE 'Viral sinusitis%' AND clinical_status = 'active')",
    )
    assert gold > 0 and a.decision == "accept" and a.value == gold
