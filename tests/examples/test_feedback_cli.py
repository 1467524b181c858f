"""`clinbridge feedback approve|edit` on Eunomia GiBleed (real DuckDB, real engine)."""

from __future__ import annotations

from pathlib import Path

import orjson
from click.testing import CliRunner

from clinbridge.cli import main
from clinbridge.engine.examples import ExampleBank

DATA = Path(__file__).parent / "data"


def test_approve_checks_on_the_database_and_augments(eunomia_duckdb, tmp_path):
    bank = tmp_path / "bank.jsonl"
    url = f"duckdb:///{eunomia_duckdb}"
    runner = CliRunner()
    res = runner.invoke(
        main,
        [
            "feedback",
            "approve",
            "-q",
            "How many women had a GI bleed?",
            "--plan",
            str(DATA / "women_gi.json"),
            "--db",
            url,
            "--bank",
            str(bank),
            "--augment",
            "3",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    lines = [orjson.loads(x) for x in res.stdout.splitlines()]
    assert (
        lines[0]["origin"] == "approved"
        and lines[0]["question"] == "How many women had a GI bleed?"
    )
    assert "checked on" in res.stderr
    mutants = lines[1:]
    assert 1 <= len(mutants) <= 3
    assert all(
        m["origin"] == "mutation" and m["parent"] == lines[0]["id"] and m["sql"] for m in mutants
    )
    assert any(m["change"] == "sex female → male" for m in mutants)
    assert len(ExampleBank(bank)) == 1 + len(mutants)


def test_approve_refuses_a_pair_that_abstains_unless_forced(eunomia_duckdb, tmp_path):
    bank = tmp_path / "bank.jsonl"
    url = f"duckdb:///{eunomia_duckdb}"
    args = [
        "feedback",
        "approve",
        "-q",
        "How many patients have unobtainium syndrome?",
        "--plan",
        str(DATA / "unknown_concept.json"),
        "--db",
        url,
        "--bank",
        str(bank),
    ]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 1
    assert "not stored" in res.stderr and "concept_not_found" in res.stderr
    assert not bank.exists()
    res = CliRunner().invoke(main, [*args, "--force"])
    assert res.exit_code == 0 and "warning" in res.stderr
    assert len(ExampleBank(bank)) == 1


def test_edit_replaces_without_a_database(tmp_path):
    bank = tmp_path / "bank.jsonl"
    runner = CliRunner()
    q = "How many women had a GI bleed?"
    first = runner.invoke(
        main, ["feedback", "approve", "-q", q, "--sql", "SELECT 1", "--bank", str(bank)]
    )
    assert first.exit_code == 0, first.output
    old_id = first.stdout.split()[0]
    res = runner.invoke(
        main,
        [
            "feedback",
            "edit",
            "-q",
            q,
            "--plan",
            str(DATA / "women_gi.json"),
            "--bank",
            str(bank),
            "--id",
            old_id,
        ],
    )
    assert res.exit_code == 0, res.output
    stored = list(ExampleBank(bank))
    assert len(stored) == 1 and stored[0].origin == "edited" and stored[0].replaces == old_id
    bad = runner.invoke(
        main,
        ["feedback", "edit", "-q", q, "--sql", "SELECT 2", "--bank", str(bank), "--id", "nope"],
    )
    assert bad.exit_code == 1 and "nope" in bad.stderr
    usage = runner.invoke(main, ["feedback", "approve", "-q", q, "--bank", str(bank)])
    assert usage.exit_code == 2
