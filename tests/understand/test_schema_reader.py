"""The schema reader: questions that name tables, fields, codes and ids (the data-manager voice).

Gold comes from SQL written here over the loaded tables, independently of the plan; the
abstentions check that a code with no rows, a field the catalog lacks or the plan cannot use, and
an encounter code that shares its canonical type with another stored code are named, never
answered."""

from __future__ import annotations

from typing import Any

import pytest

from clinbridge.engine.understand._schema_words import looks_schema, tokenize

EDDIE = "f71747e7-e5dd-4e04-8d0a-0c6bc545c2a4"


def _one(conn: Any, sql: str) -> Any:
    return conn.db.execute(sql, max_rows=None).rows[0][0]


def test_distinct_persons_with_concept_id(eunomia_conn: Any) -> None:
    a = eunomia_conn.ask(
        "how many distinct person_id in condition_occurrence with condition_concept_id 4112343"
    )
    gold = _one(
        eunomia_conn,
        "SELECT count(DISTINCT person_id) FROM condition_occurrence "
        "WHERE condition_concept_id = 4112343",
    )
    assert a.decision == "accept" and a.value == gold
    [f] = a.plan["filters"]
    assert f["concepts"]["include_descendants"] is False


def test_rows_by_vocabulary_code(eunomia_conn: Any) -> None:
    a = eunomia_conn.ask("number of rows in drug_exposure for RxNorm code 1118084")
    assert a.decision == "abstain"  # 1118084 is a concept id, not an RxNorm code
    a = eunomia_conn.ask("number of rows in drug_exposure for RxNorm code 140587")
    gold = _one(
        eunomia_conn,
        "SELECT count(*) FROM drug_exposure d JOIN concept c ON c.concept_id = d.drug_concept_id "
        "WHERE c.vocabulary_id = 'RxNorm' AND c.concept_code = '140587'",
    )
    assert a.decision == "accept" and a.value == gold


def test_value_threshold_and_list(s27_conn: Any) -> None:
    a = s27_conn.ask("measurement rows where value_as_number > 7 for LOINC 4548-4")
    gold = _one(
        s27_conn,
        "SELECT count(*) FROM measurement m JOIN concept c ON c.concept_id = m.measurement_concept_id "
        "WHERE c.vocabulary_id = 'LOINC' AND c.concept_code = '4548-4' AND m.value_as_number > 7",
    )
    assert a.decision == "accept" and a.value == gold
    a = s27_conn.ask("list the person_ids in condition_occurrence with condition_concept_id 439777")
    rows = s27_conn.db.execute(
        "SELECT DISTINCT person_id FROM condition_occurrence WHERE condition_concept_id = 439777 "
        "ORDER BY 1",
        max_rows=None,
    ).rows
    assert a.decision == "accept" and sorted(int(v) for v in a.value) == [r[0] for r in rows]


def test_patient_yes_no(s27_conn: Any) -> None:
    yes = s27_conn.ask("does person_id 7 have a condition_occurrence row for SNOMED 271737000")
    no = s27_conn.ask(
        "does person 8 have a row in condition_occurrence with condition_concept_id 439777"
    )
    assert (yes.decision, yes.value) == ("accept", True)
    assert (no.decision, no.value) == ("accept", False)


def test_fhir_resources_fields_and_codes(fhir_conn: Any) -> None:
    a = fhir_conn.ask("patients with Encounter.class = EMER")
    gold = _one(
        fhir_conn, "SELECT count(DISTINCT patient_id) FROM fhir_encounter WHERE class_code = 'EMER'"
    )
    assert a.decision == "accept" and a.value == gold
    a = fhir_conn.ask("how many Observation resources with code http://loinc.org|8480-6")
    gold = _one(
        fhir_conn,
        "SELECT count(*) FROM fhir_observation WHERE code = '8480-6' AND value_num IS NOT NULL",
    )
    assert a.decision == "accept" and a.value == gold
    a = fhir_conn.ask(f"does patient {EDDIE} have an Observation with code 4548-4")
    assert (a.decision, a.value) == ("accept", True)


def test_a_stored_value_of_another_field(eunomia_conn: Any) -> None:
    # "<field> = 'value'" on a column of the table read: the rows holding that value
    a = eunomia_conn.ask(
        "count condition_occurrence records where condition_source_value = '444814009'"
    )
    gold = _one(
        eunomia_conn,
        "SELECT count(*) FROM condition_occurrence WHERE condition_source_value = '444814009'",
    )
    assert a.decision == "accept" and a.value == gold
    b = eunomia_conn.ask(
        "count condition_occurrence records where condition_source_value = 'no-such-code'"
    )
    assert b.decision == "abstain"


@pytest.mark.parametrize(
    "question",
    [
        "how many distinct person_id in condition_occurrence with condition_concept_id 99999999",
        "count rows in the lab_results table where result_flag = 'H'",
        "how many person_id in drug_exposure with adherence_score > 0.8",
        "count of condition_occurrence rows per gender_concept_id",
        "count distinct person_id in condition_occurrence with condition_concept_id 4112343 and 260139",
    ],
)
def test_omop_abstentions(eunomia_conn: Any, question: str) -> None:
    a = eunomia_conn.ask(question)
    assert a.decision == "abstain"


@pytest.mark.parametrize(
    "question, named",
    [
        ("number of Encounter resources with class AMB", "AMB"),  # AMB and VR are both outpatient
        ("patients with Encounter.class = ICU", "ICU"),
        ("count of Condition resources with clinicalStatus = active", "clinicalStatus"),
        ("how many Observation resources with code 99999-9", "99999-9"),
    ],
)
def test_fhir_abstentions_name_what_is_missing(fhir_conn: Any, question: str, named: str) -> None:
    a = fhir_conn.ask(question)
    assert a.decision == "abstain" and named in (a.reason or "")


def test_plain_questions_are_not_schema_questions(eunomia_conn: Any) -> None:
    for q in (
        "How many patients were exposed to any anticoagulant (e.g., warfarin)?",
        "how many women had a GI bleed in 2015",
    ):
        assert not looks_schema(tokenize(q), eunomia_conn.catalog)


def test_a_name_beside_a_code_confirms_or_abstains(s27_conn: Any) -> None:
    ok = s27_conn.ask(
        "number of persons with at least one BMI (LOINC 39156-5) value_as_number >= 30"
    )
    gold = _one(
        s27_conn,
        "SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id = 3038553 "
        "AND value_as_number >= 30",
    )
    assert ok.decision == "accept" and ok.value == gold
    clash = s27_conn.ask(
        "number of persons with at least one BMI (LOINC 8480-6) value_as_number >= 30"
    )
    assert clash.decision == "abstain"


def test_fhir_search_syntax(fhir_conn: Any) -> None:
    a = fhir_conn.ask("Immunization?vaccine-code=140 -- how many resources")
    gold = _one(fhir_conn, "SELECT count(*) FROM fhir_immunization WHERE code = '140'")
    assert a.decision == "accept" and a.value == gold


def test_date_comparisons_bind_to_the_stream_read(eunomia_conn: Any) -> None:
    said = (
        "distinct person_id in condition_occurrence with condition_concept_id 4112343 and "
        "condition_start_date between 2015-01-01 and 2015-12-31"
    )
    # with no word for a count or a list, askers mean either: it asks which
    bare = eunomia_conn.ask(said)
    assert bare.decision == "abstain" and "ambiguous" in (bare.reason or "")
    a = eunomia_conn.ask("count " + said)
    gold = _one(
        eunomia_conn,
        "SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id = "
        "4112343 AND condition_start_date BETWEEN DATE '2015-01-01' AND DATE '2015-12-31'",
    )
    assert a.decision == "accept" and a.value == gold
    wrong_table = eunomia_conn.ask(
        "how many persons have drug_exposure rows with drug_concept_id 1118084 and "
        "condition_start_date > 2015-01-01"
    )
    assert wrong_table.decision == "abstain" and "condition_start_date" in (
        wrong_table.reason or ""
    )


def test_rows_per_patient(s27_conn: Any) -> None:
    a = s27_conn.ask(
        "list person_id with at least 20 measurement rows for measurement_concept_id 3038553"
    )
    rows = s27_conn.db.execute(
        "SELECT person_id FROM measurement WHERE measurement_concept_id = 3038553 "
        "GROUP BY person_id HAVING count(*) >= 20 ORDER BY 1",
        max_rows=None,
    ).rows
    assert a.decision == "accept" and sorted(int(v) for v in a.value) == [r[0] for r in rows]


def test_death_table(s27_conn: Any, eunomia_conn: Any) -> None:
    yes = s27_conn.ask("does person_id 7 appear in the death table")
    gold = _one(s27_conn, "SELECT count(*) > 0 FROM death WHERE person_id = 7")
    assert yes.decision == "accept" and yes.value == gold
    a = s27_conn.ask("list person_id in death")
    rows = s27_conn.db.execute(
        "SELECT DISTINCT person_id FROM death ORDER BY 1", max_rows=None
    ).rows
    assert a.decision == "accept" and sorted(int(v) for v in a.value) == [r[0] for r in rows]
    assert eunomia_conn.ask("list person_id in death").decision == "abstain"  # no rows there


SCHEMA_CASES = [
    ("count of persons with SNOMED 65363002 in condition_occurrence", 2025),
    ("patients with visit_occurrence rows with visit_concept_id 9201", 890),
    ("number of rows in drug_exposure where drug_concept_id = 1118084", 1844),
]


def _check_backend(url: str, cache: Any) -> None:
    import clinbridge
    from clinbridge.settings import Settings

    with clinbridge.connect(url, settings=Settings(embeddings="off"), cache_dir=cache) as conn:
        for question, gold in SCHEMA_CASES:
            a = conn.ask(question)
            assert (a.decision, a.value) == ("accept", gold), (question, a.reason)


def test_schema_questions_on_sqlite(eunomia_sqlite_url: str, tmp_path: Any) -> None:
    _check_backend(eunomia_sqlite_url, tmp_path)


@pytest.mark.postgres
def test_schema_questions_on_postgres(eunomia_pg_url: str, tmp_path: Any) -> None:
    _check_backend(eunomia_pg_url, tmp_path)


def test_a_value_condition_needs_stored_values(eunomia_conn: Any) -> None:
    # GiBleed stores no numeric measurement values: counting rows above 38 is not an answer
    a = eunomia_conn.ask(
        "how many measurement rows for measurement_concept_id 3006322 with value_as_number > 38"
    )
    assert a.decision == "abstain" and "no numeric values" in (a.reason or "")
