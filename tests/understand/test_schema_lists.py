"""The schema reader's lists of codes, asides and label fields (the data-manager voice).

Gold comes from SQL written here over the loaded tables, independently of the plan: a list of
codes joined by commas, slashes or 'or' counts any of them; a name in parentheses after a code
must be that code's; a unit after a threshold is the threshold's; 'display contains X' is every
concept of the table whose label contains X; a FHIR table named by its snake-case name is its
resource; 'by <date field>' after 'latest' orders, it is not what is asked."""

from __future__ import annotations

from typing import Any

import pytest

EDDIE = "f71747e7-e5dd-4e04-8d0a-0c6bc545c2a4"


def _one(conn: Any, sql: str) -> Any:
    return conn.db.execute(sql, max_rows=None).rows[0][0]


def test_or_list_of_concept_ids(eunomia_conn: Any) -> None:
    gold = _one(
        eunomia_conn,
        "SELECT count(DISTINCT person_id) FROM condition_occurrence "
        "WHERE condition_concept_id IN (4112343, 260139)",
    )
    for q in (
        "count distinct person_id in condition_occurrence with condition_concept_id 4112343 or 260139",
        "count distinct person_id in condition_occurrence with condition_concept_id 4112343, 260139",
        "count distinct person_id in condition_occurrence with condition_concept_id 4112343/260139",
    ):
        a = eunomia_conn.ask(q)
        assert (a.decision, a.value) == ("accept", gold), q


def test_code_name_in_parentheses(fhir_conn: Any) -> None:
    gold = _one(
        fhir_conn,
        "SELECT count(DISTINCT patient_id) FROM fhir_observation "
        "WHERE code = '8462-4' AND value_num >= 90",
    )
    a = fhir_conn.ask(
        "count distinct patient_id in fhir_measurement with LOINC 8462-4 (diastolic BP) "
        "and value_num >= 90"
    )
    assert (a.decision, a.value) == ("accept", gold)
    wrong = fhir_conn.ask(
        "count distinct patient_id in fhir_measurement with LOINC 8462-4 (body weight) "
        "and value_num >= 90"
    )
    assert wrong.decision == "abstain" and "body weight" in str(wrong.reason)


def test_unit_after_threshold(s27_conn: Any) -> None:
    name = "Glucose [Mass/volume] in Blood"
    gold = _one(
        s27_conn,
        "SELECT count(DISTINCT m.person_id) FROM measurement m JOIN concept c "
        f"ON c.concept_id = m.measurement_concept_id WHERE c.concept_name = '{name}' "
        "AND m.value_as_number >= 110",
    )
    a = s27_conn.ask(f"number of persons with '{name}' value_as_number >= 110 (mg/dL)")
    assert (a.decision, a.value) == ("accept", gold)


def test_display_contains_and_snake_resource(fhir_conn: Any) -> None:
    gold = _one(
        fhir_conn,
        "SELECT count(DISTINCT patient_id) FROM fhir_medication_request "
        "WHERE lower(display) LIKE '%lisinopril%'",
    )
    a = fhir_conn.ask(
        "count distinct patient_id in fhir_medication_request where the display contains lisinopril"
    )
    assert (a.decision, a.value) == ("accept", gold)
    none = fhir_conn.ask(
        "count distinct patient_id in fhir_medication_request where the display contains zzqx"
    )
    assert none.decision == "abstain" and "zzqx" in str(none.reason)


def test_latest_value_ordered_by_date(fhir_conn: Any) -> None:
    rows = fhir_conn.db.execute(
        "SELECT value_num FROM fhir_observation WHERE code = '8480-6' AND patient_id = "
        f"'{EDDIE}' AND value_num IS NOT NULL ORDER BY effective_time DESC",
        max_rows=None,
    ).rows
    a = fhir_conn.ask(
        f"latest value_num of LOINC 8480-6 in fhir_measurement for patient_id {EDDIE} "
        "(by effective_time)"
    )
    if rows:
        assert a.decision == "accept" and a.value == pytest.approx(rows[0][0])
    else:
        assert a.decision == "abstain"


# -- schema words in a question the schema reader hands on (``_schema_plain``) ---------------


def test_grouped_by_sex_column(eunomia_conn: Any) -> None:
    rows = eunomia_conn.db.execute(
        "SELECT p.gender_concept_id, count(*) FROM visit_occurrence v JOIN person p "
        "USING (person_id) WHERE v.visit_concept_id = 9201 GROUP BY 1",
        max_rows=None,
    ).rows
    sexes = {8507: "male", 8532: "female"}
    gold = {sexes[int(g)]: n for g, n in rows if int(g) in sexes}
    a = eunomia_conn.ask(
        "count inpatient visit_occurrence rows grouped by the person's gender_concept_id"
    )
    assert a.decision == "accept"
    assert {r["sex"]: r["value"] for r in a.value} == gold


def test_sex_code_and_unit(s27_conn: Any) -> None:
    name = "Triglyceride [Mass/volume] in Serum or Plasma"
    gold = _one(
        s27_conn,
        "SELECT count(DISTINCT m.person_id) FROM measurement m JOIN person p USING (person_id) "
        "JOIN concept c ON c.concept_id = m.measurement_concept_id "
        f"WHERE c.concept_name = '{name}' AND m.value_as_number >= 150 "
        "AND p.gender_concept_id = 8532",
    )
    a = s27_conn.ask(
        "count female persons (gender_concept_id 8532) with a Triglyceride measurement "
        "value >= 150 mg/dL"
    )
    assert (a.decision, a.value) == ("accept", gold)


def test_encounter_type_code_with_table(s27_conn: Any) -> None:
    gold = _one(
        s27_conn,
        "SELECT count(*) FROM visit_occurrence WHERE visit_concept_id = 9202 "
        "AND visit_start_date BETWEEN DATE '2021-01-01' AND DATE '2021-12-31'",
    )
    a = s27_conn.ask(
        "count of visit_occurrence rows with visit_concept_id 9202 (outpatient) starting in 2021"
    )
    assert (a.decision, a.value) == ("accept", gold)


def test_resource_table_in_plain_reading(fhir_conn: Any) -> None:
    rows = fhir_conn.db.execute(
        "SELECT DISTINCT patient_id FROM fhir_medication_request "
        "WHERE lower(display) LIKE '%cisplatin%'",
        max_rows=None,
    ).rows
    a = fhir_conn.ask(
        "list distinct patient_id from fhir_medication_request with a cisplatin product"
    )
    if rows:
        assert a.decision == "accept" and sorted(a.value) == sorted(r[0] for r in rows)
    else:
        assert a.decision == "abstain"


def test_rows_named_must_be_counted(fhir_conn: Any) -> None:
    """'count fhir_immunization rows with CVX 140 by sex': a reading that counts patients, or
    every immunization of the patients, is not the rows named — it abstains."""
    a = fhir_conn.ask("count fhir_immunization rows with CVX 140 grouped by fhir_patient.gender")
    if a.decision == "accept":
        rows = fhir_conn.db.execute(
            "SELECT p.gender, count(*) FROM fhir_immunization i JOIN fhir_patient p "
            "ON p.id = i.patient_id WHERE i.code = '140' GROUP BY 1",
            max_rows=None,
        ).rows
        assert {r["sex"]: r["value"] for r in a.value} == dict(rows)


def test_answer_unit_in_parentheses(s27_conn: Any) -> None:
    """'max … measurement (pg/mL)': the unit the answer is asked in, checked against the stored
    one — the stored unit answers, another unit is not silently dropped."""
    rows = s27_conn.db.execute(
        "SELECT max(m.value_as_number), any_value(u.concept_code) FROM measurement m "
        "JOIN concept c ON c.concept_id = m.measurement_concept_id "
        "LEFT JOIN concept u ON u.concept_id = m.unit_concept_id "
        "WHERE c.concept_name = 'Heart rate' AND m.person_id = 5",
        max_rows=None,
    ).rows
    gold, stored = rows[0]
    a = s27_conn.ask(f"max 'Heart rate' value ({stored}) for person_id 5")
    assert (a.decision, a.value) == ("accept", pytest.approx(gold))
    other = s27_conn.ask("max 'Heart rate' value (mg/dL) for person_id 5")
    assert other.decision == "abstain"


def test_person_id_values_list(s27_conn: Any) -> None:
    rows = s27_conn.db.execute(
        "SELECT DISTINCT o.person_id FROM condition_occurrence o JOIN concept c "
        "ON c.concept_id = o.condition_concept_id WHERE c.concept_name = 'Chronic neck pain'",
        max_rows=None,
    ).rows
    a = s27_conn.ask("person_id values with a 'Chronic neck pain' condition_occurrence")
    assert a.decision == "accept" and sorted(int(v) for v in a.value) == sorted(r[0] for r in rows)


def test_encounter_start_column_window(eunomia_conn: Any) -> None:
    gold = _one(
        eunomia_conn,
        "SELECT count(*) FROM visit_occurrence WHERE visit_concept_id = 9201 "
        "AND visit_start_date BETWEEN DATE '2010-01-01' AND DATE '2010-12-31'",
    )
    a = eunomia_conn.ask(
        "count of visit_occurrence rows with visit_concept_id 9201 (inpatient) and "
        "visit_start_date in 2010"
    )
    assert (a.decision, a.value) == ("accept", gold)
    wrong = eunomia_conn.ask(
        "count of visit_occurrence rows with visit_concept_id 9201 (emergency) and "
        "visit_start_date in 2010"
    )
    assert wrong.decision == "abstain"


def test_operator_after_code_binds_to_value(fhir_conn: Any) -> None:
    gold = _one(
        fhir_conn,
        "SELECT count(DISTINCT patient_id) FROM fhir_observation WHERE code = '8480-6' "
        "AND value_num > 120",
    )
    a = fhir_conn.ask("number of patients with an Observation (LOINC 8480-6) > 120")
    assert (a.decision, a.value) == ("accept", gold)


def test_system_repeated_in_list_and_table_words(fhir_conn: Any) -> None:
    gold = _one(
        fhir_conn,
        "SELECT count(DISTINCT patient_id) FROM fhir_immunization WHERE code IN ('33', '133')",
    )
    a = fhir_conn.ask("count of patients with an immunization of CVX 33 or CVX 133")
    assert (a.decision, a.value) == ("accept", gold)
    gold = _one(
        fhir_conn,
        "SELECT count(DISTINCT patient_id) FROM fhir_medication_request "
        "WHERE lower(display) LIKE '%naproxen%'",
    )
    a = fhir_conn.ask(
        "count of distinct patients with a MedicationRequest whose medication display "
        "contains naproxen"
    )
    if gold:
        assert (a.decision, a.value) == ("accept", gold)


def test_name_contains_yes_no_suffix(s27_conn: Any) -> None:
    for pid in (22, 23):
        n = _one(
            s27_conn,
            "SELECT count(*) FROM drug_exposure d JOIN concept c ON c.concept_id = "
            f"d.drug_concept_id WHERE d.person_id = {pid} AND lower(c.concept_name) "
            "LIKE '%losartan%'",
        )
        a = s27_conn.ask(
            f"any drug_exposure whose drug name contains losartan for person_id {pid} (yes/no)"
        )
        assert (a.decision, a.value) == ("accept", n > 0)
