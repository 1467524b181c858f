"""Answer shapes (issue 8, u28t): a count of records for each patient (``GroupBy(key="patient")``)
and the calendar year of a date asked for by its year (``Measure.part``)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.understand._devset2db import devset2_db

from clinbridge.engine.plan import Aggregate, GroupBy, Measure, QueryPlan
from clinbridge.engine.understand._per_patient import per_patient_group
from clinbridge.engine.understand._reading import Reading
from clinbridge.engine.understand._year_asked import year_asked

NOW = "2023-03-22"
PATIENT = "129c6ac7-8d06-89de-ad63-0204a93e76c3"


def _rows(name: str, sql: str) -> list[tuple[Any, ...]]:
    import duckdb

    with duckdb.connect(str(devset2_db(name)), read_only=True) as con:
        return con.sql(sql).fetchall()


def test_only_a_count_of_records_is_split_by_patient() -> None:
    events = Measure(of="events", stream="drug")
    assert per_patient_group("count", events, None, (), True) == (GroupBy(key="patient"),)
    # not said; a count of patients ('each patient counted once'); a mean per patient; one
    # patient; already grouped
    assert per_patient_group("count", events, None, (), False) == ()
    assert per_patient_group("count", Measure(of="patients"), None, (), True) == ()
    assert per_patient_group("mean", events, None, (), True) == ()
    assert per_patient_group("count", events, "p1", (), True) == ()
    assert per_patient_group("count", events, None, (GroupBy(key="sex"),), True) == ()


def test_records_per_patient_end_to_end(fhir2: Any) -> None:
    want = dict(
        _rows(
            "fhir",
            "SELECT patient_id, count(*) FROM fhir_medication_request WHERE code = '314076' "
            "GROUP BY patient_id",
        )
    )
    q = "For each patient who was prescribed lisinopril 10 mg tablets, how many prescriptions are recorded?"
    a = fhir2.ask(q, now=NOW)
    assert a.decision == "accept", a.reason
    assert {r["patient"]: r["value"] for r in a.value} == want


def test_the_year_is_the_year_of_one_date_only() -> None:
    date = QueryPlan(
        patient_id="p",
        measure=Measure(of="date", stream="procedure"),
        aggregate=Aggregate(op="first"),
    )
    r = year_asked(
        "In which calendar year did she have her first X?", Reading(question="q", plan=date)
    )
    assert r.plan is not None and r.plan.measure.part == "year"
    for q in ("When did she have her first X?", "which yr had the most visits", "how many years"):
        same = year_asked(q, Reading(question="q", plan=date))
        assert same.plan is not None and same.plan.measure.part is None
    count = QueryPlan(measure=Measure(of="events", stream="procedure"))
    assert year_asked("In which year did ...", Reading(question="q", plan=count)).plan == count
    with pytest.raises(ValueError):
        QueryPlan(measure=Measure(of="events", stream="procedure", part="year"))


def test_the_year_of_a_first_procedure_end_to_end(fhir2: Any) -> None:
    (when,) = _rows(
        "fhir",
        f"SELECT min(start_time) FROM fhir_procedure WHERE code = '398171003' AND patient_id = '{PATIENT}'",
    )[0]
    q = f"In which calendar year did patient {PATIENT} undergo her first hearing examination?"
    a = fhir2.ask(q, now=NOW)
    assert a.decision == "accept", a.reason
    assert a.value == when.year


def test_a_mean_value_per_patient_is_each_patients_mean(fhir2: Any) -> None:
    want = dict(
        _rows(
            "fhir",
            "SELECT patient_id, avg(value_num) FROM fhir_measurement WHERE code = '2069-3' "
            "GROUP BY patient_id",
        )
    )
    a = fhir2.ask("mean chloride per pt", now=NOW)
    assert a.decision == "accept", a.reason
    got = {r["patient"]: r["value"] for r in a.value}
    assert got.keys() == want.keys()
    assert all(abs(got[k] - want[k]) < 1e-6 for k in want)
    # a number of records per patient said: one mean of the per-patient numbers, not a table
    b = fhir2.ask("mean # of chloride results per pt", now=NOW)
    assert not isinstance(b.value, list), b.value
