"""Calculators from patient records: a real DuckDB OMOP CDM built from the Eunomia GiBleed CSVs,
plus a few measurement rows with values (Eunomia's measurements carry none)."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import psycopg
import pytest
from click.testing import CliRunner

from clinbridge import calculators
from clinbridge.adapters.omop.loader import load_omop_csv
from clinbridge.calculators.records import compute_from_records
from clinbridge.cli import main

EUNOMIA = Path(__file__).parents[2] / "synthetic_data" / "eunomia-gibleed-5.3"
PG_TABLES = [
    "person",
    "condition_occurrence",
    "concept",
    "concept_ancestor",
    "observation_period",
    "visit_occurrence",
    "cdm_source",
    "measurement",
    "death",
]
STROKE_PATIENT = "563"  # male, born 1964-04-12, cerebrovascular accident 2005-03-13
MEASUREMENTS = [  # (id, person, concept, date, value, unit); Eunomia's own measurements have no values
    (900000001, 563, 3025315, "2018-01-10", 80.0, "kg"),  # body weight
    (900000002, 563, 3025315, "2019-05-01", 90.0, "kg"),  # later weight
    (900000003, 563, 3036277, "2018-03-01", 70.0, "[in_i]"),  # body height in inches (UCUM)
    (900000006, 563, 3036277, "2019-06-01", 70.0, "[in_i]"),  # measured again
    (900000004, 563, 3016723, "2019-05-01", 1.2, "mg/dL"),  # serum creatinine
    (900000005, 209, 3025315, "2019-05-01", 60.0, "kg"),  # weight only: height missing
    (900000007, 6, 3025315, "2019-01-10", 60.0, "kg"),  # patient 6 (died 2019-03-01)
    (900000008, 6, 3036277, "2019-01-10", 160.0, "cm"),
]
DECEASED_PATIENT, DEATH_DATE = "6", "2019-03-01"
INSERT_DEATH = "INSERT INTO death (person_id, death_date, death_type_concept_id) VALUES ({})"
INSERT = (
    "INSERT INTO measurement (measurement_id, person_id, measurement_concept_id, measurement_date, "
    "measurement_type_concept_id, value_as_number, unit_source_value) VALUES ({})"
)


def _insert(execute: Any, placeholder: str) -> None:
    for mid, pid, concept, day, value, unit in MEASUREMENTS:
        execute(
            INSERT.format(", ".join([placeholder] * 4 + ["44818702"] + [placeholder] * 2)),
            [mid, pid, concept, dt.date.fromisoformat(day), value, unit],
        )
    execute(
        INSERT_DEATH.format(", ".join([placeholder] * 2 + ["32817"])),
        [int(DECEASED_PATIENT), dt.date.fromisoformat(DEATH_DATE)],
    )


@pytest.fixture(
    scope="module",
    params=[
        "duckdb",
        "sqlite",
        pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.slow]),
    ],
)
def cdm(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A copy of Eunomia (the shared session build) plus a few measurements with values."""
    if request.param == "postgres":
        base = request.getfixturevalue("pg_server")
        schema = f"cb_calc_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        url = f"{base}?schema={schema}"
        try:
            assert load_omop_csv(EUNOMIA, url, only=PG_TABLES).reconciles
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f'SET search_path TO "{schema}"')
                _insert(conn.execute, "%s")
            yield url
        finally:
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        return
    shared: Path = request.getfixturevalue(f"eunomia_{request.param}")
    path = tmp_path_factory.mktemp("calc_cdm") / shared.name
    shutil.copy(shared, path)
    if request.param == "duckdb":
        duck = duckdb.connect(str(path))
        _insert(duck.execute, "?")
        duck.close()
    else:
        with contextlib.closing(sqlite3.connect(path)) as con:
            _insert(
                lambda sql, args: con.execute(
                    sql, [a.isoformat() if isinstance(a, dt.date) else a for a in args]
                ),
                "?",
            )
            con.commit()
    yield f"{request.param}:///{path}"


def test_bmi_takes_latest_values_before_the_date(cdm: str) -> None:
    out = compute_from_records(calculators.get("bmi"), cdm, STROKE_PATIENT, at="2019-12-31")
    assert out.decision == "accept", out.report()
    assert out.answer == pytest.approx(90 / (70 * 0.0254) ** 2, abs=1e-3)
    weight = next(e for e in out.evidence if e.input == "weight")
    assert "2019-05-01" in weight.source and weight.value == 90.0
    assert "[in_i]" in out.explanation or "in_i" in next(
        e.source for e in out.evidence if e.input == "height"
    )


def test_reference_date_excludes_later_values(cdm: str) -> None:
    out = compute_from_records(calculators.get("bmi"), cdm, STROKE_PATIENT, at="2018-12-31")
    assert out.answer == pytest.approx(80 / (70 * 0.0254) ** 2, abs=1e-3)


def test_stale_values_count_as_not_recorded(cdm: str) -> None:
    calc = calculators.get("bmi")
    stale = compute_from_records(calc, cdm, STROKE_PATIENT, at="2021-06-01")
    assert stale.decision == "abstain" and set(stale.missing) == {"weight", "height"}
    assert "within 365 days" in next(e.source for e in stale.evidence if e.input == "weight")
    anyage = compute_from_records(
        calc, cdm, STROKE_PATIENT, at="2021-06-01", max_value_age_days=None
    )
    assert anyage.decision == "accept"


def test_a_date_after_death_abstains_and_the_default_date_is_the_date_of_death(
    cdm: str,
) -> None:
    calc = calculators.get("bmi")
    after = compute_from_records(calc, cdm, DECEASED_PATIENT, at="2019-12-31")
    assert after.decision == "abstain" and after.death_date == DEATH_DATE
    assert (after.reason or "").startswith("deceased") and DEATH_DATE in (after.reason or "")
    default = compute_from_records(calc, cdm, DECEASED_PATIENT)
    assert default.decision == "accept", default.report()
    assert default.at == DEATH_DATE and default.answer == pytest.approx(60 / 1.6**2, abs=1e-3)
    assert any("died on 2019-03-01" in n for n in default.notes)
    assert "died on 2019-03-01" in default.explanation and "died on" in default.report()
    before = compute_from_records(calc, cdm, DECEASED_PATIENT, at="2019-02-01")
    assert before.decision == "accept" and not before.notes
    assert before.death_date == DEATH_DATE


def test_missing_measurement_abstains_and_is_reported(cdm: str) -> None:
    out = compute_from_records(calculators.get("bmi"), cdm, "209", at="2019-12-31")
    assert out.decision == "abstain"
    assert out.missing == ("height",)
    assert "height" in (out.reason or "")


def test_conditions_not_recorded_are_missing_not_absent(cdm: str) -> None:
    calc = calculators.get("CHA2DS2-VASc")
    strict = compute_from_records(calc, cdm, STROKE_PATIENT, at="2019-07-01")
    assert strict.decision == "abstain"
    assert "stroke" not in strict.missing and "chf" in strict.missing
    stroke = next(e for e in strict.evidence if e.input == "stroke")
    assert (
        stroke.found
        and "Cerebrovascular accident" in stroke.source
        and "2005-03-13" in stroke.source
    )
    lenient = compute_from_records(calc, cdm, STROKE_PATIENT, at="2019-07-01", missing="absent")
    assert lenient.decision == "accept" and lenient.answer == 2  # age 55, male, stroke
    assert "absent by caller convention" in lenient.explanation


def test_condition_after_the_date_is_not_used(cdm: str) -> None:
    out = compute_from_records(
        calculators.get(4), cdm, STROKE_PATIENT, at="2004-01-01", missing="absent"
    )
    assert out.answer == 0
    assert not next(e for e in out.evidence if e.input == "stroke").found


def test_cli_from_records(cdm: str) -> None:
    res = CliRunner().invoke(
        main,
        [
            "calc",
            "creatinine clearance",
            "--db",
            cdm,
            "--patient",
            STROKE_PATIENT,
            "--at",
            "2019-12-31",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["decision"] == "accept"
    # age 55, weight 90 kg, height 177.8 cm (BMI 28.5: adjusted weight), creatinine 1.2
    ibw = 50 + 2.3 * (70 - 60)
    abw = ibw + 0.4 * (90 - ibw)
    assert data["answer"] == pytest.approx((140 - 55) * abw / (72 * 1.2), abs=1e-3)


# -- a FHIR (Synthea) source: codes are LOINC/SNOMED strings, not OMOP concept ids ----------
FHIR_BUNDLES = Path(__file__).parents[1] / "data" / "fhir" / "bundles"


@pytest.fixture(scope="module")
def fhir_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    from clinbridge.adapters.fhir.loader import load_fhir

    url = f"duckdb:///{tmp_path_factory.mktemp('fhir') / 'fhir.duckdb'}"
    load_fhir([FHIR_BUNDLES], url)
    return url


def _fhir_patient_with(url: str, loinc: str) -> tuple[str, str]:
    from clinbridge.db import Database

    with Database.open(url) as db:
        row = db.execute(
            "SELECT patient_id, CAST(MAX(CAST(effective_time AS DATE)) AS VARCHAR) "
            f"FROM fhir_measurement WHERE code = '{loinc}' GROUP BY patient_id ORDER BY 1 LIMIT 1"
        ).rows[0]
    return str(row[0]), str(row[1])


def test_fhir_source_labs_by_loinc_and_conditions_by_snomed(fhir_db: str) -> None:
    patient, day = _fhir_patient_with(fhir_db, "38483-4")  # creatinine
    out = compute_from_records(calculators.get(2), fhir_db, patient, at=day)
    assert out.decision == "accept", out.report()
    creat = next(e for e in out.evidence if e.input == "creatinine")
    assert "[38483-4]" in creat.source and creat.unit == "mg/dL"
    cha = compute_from_records(calculators.get(4), fhir_db, patient, at=day, missing="absent")
    assert cha.decision == "accept"
    for e in cha.evidence:
        if e.found and e.input not in ("age", "sex"):
            assert "condition:" in e.source
