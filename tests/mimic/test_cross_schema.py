"""The same question on MIMIC-native and OMOP-shaped data gives the same answer (EHRNavigator's claim).

The MIMIC-IV demo in OMOP (8-person subset) is loaded as OMOP; the same people, visits and deaths are
written back in MIMIC-IV's native layout (patients, admissions) and loaded with the MIMIC loader.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import clinbridge.api as cb
from clinbridge.adapters.mimic import load_mimic
from clinbridge.adapters.omop import classify_visit, load_omop_csv

OMOP = Path(__file__).resolve().parent.parent / "data" / "omop-mimic-iv-demo-subset"
QUESTIONS = (
    "How many patients are there?",
    "How many female patients are there?",
    "How many male patients are there?",
    "How many patients had an emergency visit?",
    "How many patients had an inpatient visit?",
)


def _read(name: str) -> list[dict[str, str]]:
    with open(OMOP / f"{name}.csv", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _write(path: Path, rows: list[dict[str, object]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def _as_mimic(folder: Path) -> None:
    """The OMOP rows in MIMIC-IV's own tables: person → patients, inpatient/ER visits → admissions."""
    folder.mkdir()
    persons = {p["person_id"]: p for p in _read("person")}
    deaths = {d["person_id"]: d["death_date"] for d in _read("death")}
    _write(
        folder / "patients.csv",
        [
            {
                "subject_id": p["person_source_value"],
                "gender": p["gender_source_value"],
                "anchor_age": 50,
                "anchor_year": int(p["year_of_birth"]) + 50,
                "anchor_year_group": "2017 - 2019",
                "dod": deaths.get(pid, ""),
            }
            for pid, p in persons.items()
        ],
    )
    admissions = []
    for i, v in enumerate(_read("visit_occurrence")):
        kind = classify_visit(int(v["visit_concept_id"]))
        if kind not in {"inpatient", "emergency"}:
            continue
        admissions.append(
            {
                "subject_id": persons[v["person_id"]]["person_source_value"],
                "hadm_id": 20000000 + i,
                "admittime": v["visit_start_datetime"],
                "dischtime": v["visit_end_datetime"],
                "admission_type": "EW EMER." if kind == "emergency" else "ELECTIVE",
                "race": persons[v["person_id"]]["race_source_value"] or "UNKNOWN",
            }
        )
    _write(folder / "admissions.csv", admissions)


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    base = tmp_path_factory.mktemp("cross")
    omop_url = f"duckdb:///{base / 'omop.duckdb'}"
    load_omop_csv(
        OMOP, omop_url, only=["person", "death", "visit_occurrence", "observation_period"]
    )
    _as_mimic(base / "mimic")
    mimic_url = f"duckdb:///{base / 'mimic.duckdb'}"
    report = load_mimic(base / "mimic", mimic_url, on_error="raise")
    assert report.version == "MIMIC-IV v2.x"
    return omop_url, mimic_url


@pytest.mark.parametrize("question", QUESTIONS)
def test_same_answer_on_both_schemas(both: tuple[str, str], question: str) -> None:
    omop_url, mimic_url = both
    with cb.connect(omop_url) as omop, cb.connect(mimic_url) as mimic:
        a = omop.ask(question, now="2200-01-01")
        b = mimic.ask(question, now="2200-01-01")
    assert a.decision == b.decision == "accept", (a.reason, b.reason)
    assert a.value == b.value, (question, a.value, b.value)
    assert a.to_dict()["provenance"]["adapter"] == "omop"
    assert b.to_dict()["provenance"]["adapter"] == "mimic"
