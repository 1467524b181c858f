"""The synthetic OMOP records body height with weight, so BMI from records can be computed."""

from __future__ import annotations

import duckdb
import pytest
from click.testing import CliRunner

from clinbridge.calculators import get as get_calculator
from clinbridge.calculators.records import compute_from_records
from clinbridge.cli import main
from clinbridge.synthetic.omop import generate_omop


@pytest.fixture(scope="module")
def synth_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("synth-height") / "s.duckdb"
    generate_omop(f"duckdb:///{path}", patients=40, seed=3)
    return f"duckdb:///{path}"


def _patient_with_height(url: str) -> int:
    with duckdb.connect(url.removeprefix("duckdb:///"), read_only=True) as con:
        row = con.execute(
            "SELECT person_id, min(value_as_number), max(value_as_number), any_value(unit_source_value) "
            "FROM measurement WHERE measurement_concept_id = 3036277 GROUP BY 1 ORDER BY 1 LIMIT 1"
        ).fetchone()
    assert row is not None, "no body height recorded"
    assert 120 <= row[1] <= row[2] <= 220 and row[3] == "cm"
    return int(row[0])


def test_bmi_from_records_is_computed(synth_url: str) -> None:
    pid = _patient_with_height(synth_url)
    outcome = compute_from_records(get_calculator("bmi"), synth_url, str(pid))
    assert outcome.decision == "accept", outcome.reason
    assert 12 < float(outcome.answer) < 70 and outcome.unit


def test_abstaining_score_from_records_mentions_missing_absent(synth_url: str) -> None:
    pid = _patient_with_height(synth_url)
    r = CliRunner().invoke(main, ["calc", "CHA2DS2-VASc", "--db", synth_url, "--patient", str(pid)])
    if r.exit_code == 2:
        assert "--missing absent" in r.stderr
    else:
        assert r.exit_code == 0, r.output
