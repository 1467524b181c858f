"""The CLI convention (README "Exit codes"): 0 answered, 2 refused/abstained, 1 error; one
``error: ...`` line; no Python argument names or pydantic links; no debris after a failure."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from clinbridge.cli import main


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args))


def test_ask_exits_2_when_it_cannot_answer(eunomia_duckdb_url):
    r = _run("ask", "How many patients had a zorblaxian flux?", "--db", eunomia_duckdb_url)
    assert r.exit_code == 2, r.output
    assert "cannot answer" in r.output


def test_ask_exits_0_when_it_answers(eunomia_duckdb_url):
    r = _run("ask", "How many patients are there?", "--db", eunomia_duckdb_url)
    assert r.exit_code == 0, r.output


def test_invalid_plan_message_has_no_pydantic_link(tmp_path, eunomia_duckdb_url):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"aggregate": {"op": "count"}, "group_by": ["sex"]}))
    r = _run("ask", "--plan", str(plan), "--db", eunomia_duckdb_url)
    assert r.exit_code == 1
    assert r.stderr.startswith("error: invalid plan")
    assert "group_by.0" in r.stderr and "pydantic.dev" not in r.stderr


def test_load_omop_without_csv_leaves_no_database(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    target = tmp_path / "x.duckdb"
    r = _run("load", "omop", "--csv", str(empty), "--db", f"duckdb:///{target}")
    assert r.exit_code == 1
    assert r.stderr.startswith("error: no CSV files")
    assert not target.exists()


def test_load_omop_with_every_row_rejected_exits_1(tmp_path):
    csv = tmp_path / "csv"
    csv.mkdir()
    (csv / "person.csv").write_text(
        "person_id,gender_concept_id,year_of_birth,race_concept_id,ethnicity_concept_id\n"
        "x,y,z,w,v\nq,r,s,t,u\n"
    )
    target = tmp_path / "x.duckdb"
    r = _run("load", "omop", "--csv", str(csv), "--db", f"duckdb:///{target}")
    assert r.exit_code == 1, r.output
    assert "error: all 2 row(s) were rejected" in r.stderr


def test_bad_medcalc_input_leaves_no_output_file(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    out = tmp_path / "out.jsonl"
    r = _run("calc", "--medcalc", str(bad), "--mode", "gold", "--out", str(out))
    assert r.exit_code == 1
    assert r.stderr.startswith("error: not a MedCalc-Bench file")
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]


def test_usage_errors_use_the_same_prefix():
    r = _run("load", "omop", "--bogus")
    assert r.exit_code == 2 and "error: No such option" in r.stderr
    assert "Error:" not in r.output


def test_readme_documents_the_convention():
    text = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "## Exit codes" in text
