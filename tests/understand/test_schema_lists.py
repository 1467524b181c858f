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
