"""Scores of ids 28-69 from patient records: a real DuckDB OMOP CDM built from the Eunomia
GiBleed CSVs (conditions, persons), plus a few laboratory rows with values for one patient
(Eunomia's measurements carry none)."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from clinbridge import calculators
from clinbridge.calculators.records import compute_from_records

# Eunomia person 5035: male, born 1930-06-02; peptic ulcer 1961-05-25, cerebrovascular accident
# 1995-06-19, Alzheimer's disease 2009-08-03, atrial fibrillation 2011-08-15, pneumonia 2014-10-06.
PATIENT = "5035"
# Eunomia person 334: female, born 1935-06-05; closed fracture of hip 2006-08-29.
HIP_FRACTURE_PATIENT = "334"
MEASUREMENTS = [  # (id, concept, date, value, unit) for PATIENT; Eunomia's own carry no values
    (910000001, 3019550, "2014-10-06", 130.0, "mmol/L"),  # sodium
    (910000002, 3014576, "2014-10-06", 95.0, "meq/L"),  # chloride (UCUM-style spelling)
    (910000003, 3015632, "2014-10-06", 15.0, "mmol/L"),  # carbon dioxide (bicarbonate)
    (910000004, 3004501, "2014-10-06", 250.0, "mg/dL"),  # glucose
    (910000005, 3013682, "2014-10-06", 40.0, "mg/dL"),  # urea nitrogen
    (910000006, 3024561, "2014-10-06", 2.0, "g/dL"),  # albumin
    (910000007, 3019550, "2014-10-20", 140.0, "mmol/L"),  # a later sodium, after the reference date
]
INSERT = (
    "INSERT INTO measurement (measurement_id, person_id, measurement_concept_id, measurement_date, "
    "measurement_type_concept_id, value_as_number, unit_source_value) "
    "VALUES (?, ?, ?, ?, 44818702, ?, ?)"
)


def _rows() -> list[list[Any]]:
    return [[mid, int(PATIENT), c, day, v, u] for mid, c, day, v, u in MEASUREMENTS]


@pytest.fixture(scope="module", params=["duckdb", "sqlite"])
def cdm(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A copy of the shared Eunomia build plus a few laboratory values for one patient."""
    shared: Path = request.getfixturevalue(f"eunomia_{request.param}")
    path = tmp_path_factory.mktemp("calc_scores_cdm") / shared.name
    shutil.copy(shared, path)
    if request.param == "duckdb":
        con = duckdb.connect(str(path))
        for row in _rows():
            con.execute(INSERT, row)
        con.close()
    else:
        with contextlib.closing(sqlite3.connect(path)) as lite:
            lite.executemany(INSERT, _rows())
            lite.commit()
    yield f"{request.param}:///{path}"


def test_anion_gap_family_from_labs(cdm: str) -> None:
    gap = compute_from_records(calculators.get(39), cdm, PATIENT, at="2014-10-07")
    assert gap.decision == "accept", gap.report()
    assert gap.answer == pytest.approx(130 - 95 - 15)
    sodium = next(e for e in gap.evidence if e.input == "sodium")
    assert "2014-10-06" in sodium.source and sodium.value == 130.0
    corrected = compute_from_records(calculators.get(65), cdm, PATIENT, at="2014-10-07")
    assert corrected.answer == pytest.approx(20 + 2.5 * (4 - 2.0))


def test_serum_osmolality_uses_the_latest_value_before_the_date(cdm: str) -> None:
    early = compute_from_records(calculators.get(30), cdm, PATIENT, at="2014-10-07")
    late = compute_from_records(calculators.get(30), cdm, PATIENT, at="2014-10-31")
    assert early.answer == pytest.approx(2 * 130 + 40 / 2.8 + 250 / 18, abs=1e-3)
    assert late.answer == pytest.approx(2 * 140 + 40 / 2.8 + 250 / 18, abs=1e-3)


def test_charlson_counts_recorded_comorbidities(cdm: str) -> None:
    """Charlson's comorbidities are absent when not documented (its own definition), so the spec's
    policy accepts without the caller's lenience: age 84 (4) + ulcer + stroke + dementia."""
    out = compute_from_records(calculators.get(32), cdm, PATIENT, at="2014-12-31")
    assert out.decision == "accept", out.report()
    assert out.answer == 7
    dementia = next(e for e in out.evidence if e.input == "dementia")
    assert dementia.found and "Alzheimer" in dementia.source
    assert "absent by definition" in out.explanation


def test_psi_from_records_adds_recorded_abnormal_labs(cdm: str) -> None:
    """PSI scores unmeasured values as normal (Fine 1997): age 84 + cerebrovascular disease 10
    + BUN 40 (20) + glucose 250 (10); sodium 130 is not < 130."""
    out = compute_from_records(calculators.get(29), cdm, PATIENT, at="2014-10-07")
    assert out.decision == "accept", out.report()
    assert out.answer == 84 + 10 + 20 + 10


def test_caprini_recent_fracture_uses_the_one_month_window(cdm: str) -> None:
    recent = compute_from_records(calculators.get(36), cdm, HIP_FRACTURE_PATIENT, at="2006-09-15")
    assert recent.decision == "accept", recent.report()
    assert recent.answer == 2 + 5  # age 71, hip fracture 17 days before
    later = compute_from_records(calculators.get(36), cdm, HIP_FRACTURE_PATIENT, at="2006-12-31")
    assert later.answer == 2  # the fracture is now older than a month


def test_sirs_abstains_and_names_the_missing_vitals(cdm: str) -> None:
    out = compute_from_records(calculators.get(51), cdm, PATIENT, at="2014-10-07")
    assert out.decision == "abstain"
    assert set(out.missing) >= {"temperature", "heart_rate", "respiratory_rate", "wbc"}
