"""The README's demo runs end to end on the embedded default (DuckDB, no server, no LLM)."""

from click.testing import CliRunner

from clinbridge.cli import main


def test_demo_runs_and_shows_answers_with_provenance(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--dir", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "answer: 113" in out  # GI bleed within 30 days after first celecoxib (hand SQL: 113)
    assert "cannot answer: concept 'Dragon pox' was not found" in out
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
