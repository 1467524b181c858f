"""``clinbridge synth trial`` → ``clinbridge load trial`` → ``clinbridge ask``."""

from __future__ import annotations

from click.testing import CliRunner

from clinbridge.cli import main


def test_synth_load_ask(tmp_path) -> None:  # type: ignore[no-untyped-def]
    runner = CliRunner()
    out = tmp_path / "t.xlsx"
    r = runner.invoke(
        main,
        [
            "synth",
            "trial",
            "--out",
            str(out),
            "--subjects",
            "80",
            "--variables",
            "250",
            "--seed",
            "5",
        ],
    )
    assert r.exit_code == 0, r.output
    url = f"duckdb:///{tmp_path / 't.duckdb'}"
    r = runner.invoke(main, ["load", "trial", str(out), "--db", url])
    assert r.exit_code == 0, r.output
    assert "dictionary: sheet 'Data dictionary'" in r.output and "counts reconcile" in r.output
    r = runner.invoke(main, ["ask", "--db", url, "What percentage of cooled infants died?"])
    assert r.exit_code == 0, r.output
    assert "numerator=" in r.output and "denominator=" in r.output and "sql (duckdb)" in r.output
    bad = tmp_path / "bad.csv"
    bad.write_text("SUBJ_ID,A,A\n1,2,3\n")
    r = runner.invoke(main, ["load", "trial", str(bad), "--db", url])
    assert r.exit_code != 0 and "duplicate column name 'A'" in r.output
