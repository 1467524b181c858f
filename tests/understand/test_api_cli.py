"""The Python API and ``clinbridge ask`` (question and batch modes) on Eunomia DuckDB."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from clinbridge.cli.ask import ask_cmd


def test_connect_ask_accepts_with_provenance(eunomia_conn: Any) -> None:
    answer = eunomia_conn.ask(
        "How many patients have been diagnosed with gastrointestinal hemorrhage?"
    )
    assert answer.decision == "accept" and answer.value == 479
    assert answer.sql and answer.plan and answer.provenance.understanding == "parser"
    assert "understand" in answer.timings.steps_ms


def test_ask_plan(eunomia_conn: Any) -> None:
    plan = eunomia_conn.readings("How many male patients received diclofenac?")[0].plan
    assert eunomia_conn.ask_plan(plan).value == 407


def test_cli_question(eunomia_duckdb_url: str, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("CLINBRIDGE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CLINBRIDGE_EMBEDDINGS", "off")
    result = CliRunner().invoke(
        ask_cmd, ["How many women had a GI bleed?", "--db", eunomia_duckdb_url, "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["decision"] == "accept" and data["value"] == 242


def test_cli_batch(eunomia_duckdb_url: str, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("CLINBRIDGE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CLINBRIDGE_EMBEDDINGS", "off")
    src = tmp_path / "in.jsonl"
    src.write_text(
        '{"id": "q1", "question": "How many women had a GI bleed?", "patient_id": null}\n'
        '{"id": "q2", "question": "Has this patient ever had a GI hemorrhage?", "patient_id": "3048"}\n'
        '{"id": "q3", "question": "How many patients carry a BRCA1 mutation?"}\n'
    )
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(
        ask_cmd, ["--batch", str(src), "--db", eunomia_duckdb_url, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == ["q1", "q2", "q3"]
    assert [x["decision"] for x in lines] == ["accept", "accept", "abstain"]
    assert lines[0]["value"] == 242 and lines[1]["value"] is True and lines[2]["value"] is None
    assert set(lines[0]) == {
        "id",
        "decision",
        "value",
        "rows",
        "sql",
        "plan",
        "reason",
        "reason_code",
        "alternatives",
        "checks",
        "ms",
    }
    assert "brca1" in lines[2]["reason"].lower()


def test_cli_batch_bad_line_names_file_line_and_field(
    eunomia_duckdb_url: str, tmp_path: Path
) -> None:
    src = tmp_path / "bad.jsonl"
    src.write_text('{"id": "q1", "question": "How many patients?"}\n{"id": "q2"}\n')
    result = CliRunner().invoke(ask_cmd, ["--batch", str(src), "--db", eunomia_duckdb_url])
    assert result.exit_code == 1
    assert (
        "bad.jsonl" in result.output and "line 2" in result.output and "question" in result.output
    )
