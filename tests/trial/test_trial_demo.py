"""``clinbridge demo --only trial``: the trial section runs end to end."""

from __future__ import annotations

from click.testing import CliRunner

from clinbridge.cli import main


def test_demo_trial_section(tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = CliRunner().invoke(main, ["demo", "--dir", str(tmp_path / "demo"), "--only", "trial"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "dictionary: sheet 'Data dictionary'" in out and "counts reconcile" in out
    assert "{'numerator': 42, 'denominator': 269}" in out
    assert "collected only in NEOCOOL" in out
    assert (
        "cannot answer: the trial table has no variable, code or time point for 'cortisol'" in out
    )
