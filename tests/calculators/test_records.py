"""Calculators from patient records: a real DuckDB OMOP CDM built from the Eunomia GiBleed CSVs,
plus a few measurement rows with values (Eunomia's measurements carry none)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from clinbridge import calculators
from clinbridge.adapters.omop.loader import load_omop_csv
from clinbridge.calculators.records import compute_from_records
from clinbridge.cli import main

EUNOMIA = Path(__file__).parents[2] / "synthetic_data" / "eunomia-gibleed-5.3"
TABLES = [
    "person",
    "condition_occurrence",
    "concept",
    "concept_ancestor",
    "observation_period",
    "visit_occurrence",
    "cdm_source",
]
STROKE_PATIENT = "563"  # male, born 1964-04-12, cerebrovascular accident 2005-03-13


@pytest.fixture(scope="module")
def cdm(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("cdm") / "eunomia.duckdb"
    url = f"duckdb:///{path}"
    report = load_omop_csv(EUNOMIA, url, only=TABLES)
    assert report.reconciles
    con = duckdb.connect(str(path))
    rows = [  # (id, person, concept, date, value, unit)
        (1, 563, 3025315, "2018-01-10", 80.0, "kg"),  # body weight
        (2, 563, 3025315, "2019-05-01", 90.0, "kg"),  # later weight
        (3, 563, 3036277, "2017-06-01", 70.0, "[in_i]"),  # body height in inches (UCUM)
        (4, 563, 3016723, "2019-05-01", 1.2, "mg/dL"),  # serum creatinine
        (5, 209, 3025315, "2019-05-01", 60.0, "kg"),  # weight only: height missing
    ]
    for mid, pid, concept, day, value, unit in rows:
        con.execute(
            "INSERT INTO measurement (measurement_id, person_id, measurement_concept_id, "
            "measurement_date, measurement_type_concept_id, value_as_number, unit_source_value) "
            "VALUES (?, ?, ?, ?, 44818702, ?, ?)",
            [mid, pid, concept, day, value, unit],
        )
    con.close()
    return url


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
