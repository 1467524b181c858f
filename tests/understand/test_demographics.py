"""Patients qualified or grouped by race, ethnicity, city or state, on devset2's three loads."""

from __future__ import annotations

from typing import Any

from clinbridge.engine.plan import GroupBy, PatientFilter, QueryPlan
from clinbridge.engine.understand._demographics import _matching


def _one(conn: Any, sql: str) -> Any:
    return conn.db.execute(sql, max_rows=None).rows[0][0]


def _filters(a: Any) -> list[dict[str, Any]]:
    return [f for f in a.to_dict()["plan"]["filters"] if f["kind"] == "patient"]


def test_values_match_by_words_and_negation() -> None:
    stored = ("Hispanic or Latino", "Not Hispanic or Latino")
    assert _matching(False, "Hispanics", stored) == ("Hispanic or Latino",)
    assert _matching(True, "hispanic", stored) == ("Not Hispanic or Latino",)
    assert _matching(False, "latina", stored) == ("Hispanic or Latino",)
    races = ("Asian", "Black or African American", "White", "other")
    assert _matching(False, "white", races) == ("White",)
    assert _matching(False, "African-American", races) == ("Black or African American",)
    assert _matching(False, "caucasian", races) == ("White",)
    assert _matching(False, "pacific islander", races) == ()


def test_catalog_lists_the_attributes_each_source_records(gibleed: Any, fhir2: Any) -> None:
    omop = gibleed.catalog.patients
    assert omop.attribute("race") is not None and "Asian" in omop.attribute("race").values
    assert omop.attribute("city") is None  # no location rows
    fhir = fhir2.catalog.patients
    assert {a.name for a in fhir.attributes} == {"race", "ethnicity", "city", "state"}


def test_a_race_and_a_sex_qualify_the_cohort(s27: Any) -> None:
    a = s27.ask("how many white women are there", now="2022-10-10")
    assert a.decision == "accept"
    assert _filters(a) == [
        {"kind": "patient", "attribute": "race", "values": ["White"], "negate": False}
    ]
    want = _one(
        s27, "SELECT count(*) FROM person WHERE race_concept_id = 8527 AND gender_concept_id = 8532"
    )
    assert a.value == want


def test_an_ethnicity_never_matches_its_negation(gibleed: Any, fhir2: Any) -> None:
    a = fhir2.ask("number of non-hispanic men", now="2023-03-22")
    assert [f["values"] for f in _filters(a)] == [["Not Hispanic or Latino"]]
    want = _one(
        fhir2,
        "SELECT count(*) FROM fhir_patient WHERE ethnicity = 'Not Hispanic or Latino' "
        "AND gender = 'male'",
    )
    assert a.value == want
    b = gibleed.ask("how many Latino people", now="2019-07-03")
    assert b.value == _one(
        gibleed, "SELECT count(*) FROM person WHERE ethnicity_concept_id = 38003563"
    )


def test_grouped_by_a_recorded_attribute(fhir2: Any, s27: Any) -> None:
    a = fhir2.ask("number of patients in each state", now="2023-03-22")
    assert a.to_dict()["plan"]["group_by"][0]["key"] == "state"
    want = dict(fhir2.db.execute("SELECT state, count(*) FROM fhir_patient GROUP BY 1").rows)
    assert {r["state"]: r["value"] for r in a.value} == want
    b = s27.ask("count of people grouped by race", now="2022-10-10")
    assert sum(r["value"] for r in b.value) == _one(s27, "SELECT count(*) FROM person")
    # some races are coded, others only in race_source_value: one naming system, the source's
    assert any(r["race"] == "black" for r in b.value)
    assert not any(r["race"] == "Black or African American" for r in b.value)


def test_a_missing_attribute_or_value_abstains_naming_it(s27: Any, fhir2: Any) -> None:
    a = s27.ask("number of patients per city", now="2022-10-10")
    assert a.decision == "abstain" and "city" in (a.reason or "")
    b = fhir2.ask("how many black women", now="2023-03-22")
    assert b.decision == "abstain" and "black" in (b.reason or "")


def test_white_blood_cells_are_not_a_race(s27: Any) -> None:
    a = s27.ask("how many patients had a white blood cell count measured", now="2022-10-10")
    assert a.to_dict().get("plan") is None or not _filters(a)


def test_the_plan_validates_and_compiles(gibleed: Any) -> None:
    plan = QueryPlan(
        filters=(PatientFilter(attribute="race", values=("Asian",), negate=True),),
        group_by=(GroupBy(key="ethnicity"),),
    )
    rows = gibleed.ask_plan(plan).value
    want = _one(gibleed, "SELECT count(*) FROM person WHERE race_concept_id <> 8515")
    assert sum(r["value"] for r in rows) == want
    assert QueryPlan.from_json(plan.to_json()) == plan


def test_stated_forms_and_restating_asides(fhir2: Any, s27: Any) -> None:
    a = s27.ask(
        "how many people are recorded as Black or African American (race)?", now="2022-10-10"
    )
    assert a.value == _one(s27, "SELECT count(*) FROM person WHERE race_concept_id = 8516")
    b = s27.ask("number of men of Hispanic or Latino ethnicity", now="2022-10-10")
    assert [f["values"] for f in _filters(b)] == [["Hispanic or Latino"]]
    c = fhir2.ask("how many patients reside in each state (by home address)?", now="2023-03-22")
    assert a.decision == "accept" and {r["state"] for r in c.value} == {"KS", "Massachusetts"}
    d = fhir2.ask("patients by race (klingon vs vulcan)", now="2023-03-22")
    assert d.decision == "abstain"


def test_a_concept_column_with_its_id(gibleed: Any) -> None:
    a = gibleed.ask("number of rows in person with race_concept_id 8515 (Asian)", now="2019-07-03")
    assert a.value == _one(gibleed, "SELECT count(*) FROM person WHERE race_concept_id = 8515")
    b = gibleed.ask("count of persons with race_concept_id = 8516 (Asian)", now="2019-07-03")
    assert b.decision == "abstain" and "Black" in (b.reason or "")
