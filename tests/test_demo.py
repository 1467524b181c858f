"""The README's demo runs end to end on the embedded default (DuckDB, no server, no LLM)."""

from click.testing import CliRunner

from clinbridge.cli import main


def test_demo_runs_and_shows_answers_with_provenance(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--dir", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "answer: 113" in out  # GI bleed within 30 days after first celecoxib (hand SQL: 113)
    assert "cannot answer: concept 'Dragon pox' was not found" in out
    assert " on None" not in out and "TimeSpec(" not in out
    assert "reconciled" in out or "loaded" in out
    assert "sql: WITH cohort AS" in out
    # a second run reuses the databases
    again = CliRunner().invoke(main, ["demo", "--dir", str(tmp_path / "demo"), "--only", "omop"])
    assert again.exit_code == 0 and "using" in again.output


def test_demo_questions_section(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--dir", str(tmp_path / "demo"), "--only", "ask"])
    assert result.exit_code == 0, result.output
    assert "answer: 479" in result.output  # GI bleed patients (hand SQL in tests/engine)
    assert "cannot answer: could not ground 'copay'" in result.output


def test_demo_output_is_readable(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--dir", str(tmp_path / "demo"), "--only", "ask"])
    out = result.output
    assert " on None" not in out and "omop  on" not in out
    assert "TimeSpec(" not in out and "start 2020-01-01, end 2020-12-31" in out
    assert "answer: 13.09 g/dL" in out  # mean hemoglobin, with its unit
    assert "…" not in out  # SQL is wrapped, not cut
    assert all(len(line) <= 110 for line in out.splitlines() if line.lstrip().startswith("sql:"))


def test_demo_only_rejects_unknown_sections_and_lists_them():
    bad = CliRunner().invoke(main, ["demo", "--only", "bogus"])
    assert bad.exit_code == 2
    assert "omop, ask, fhir, calc" in bad.output
    helptext = CliRunner().invoke(main, ["demo", "--help"]).output
    for name in ("omop", "ask", "fhir", "calc"):
        assert name in helptext
