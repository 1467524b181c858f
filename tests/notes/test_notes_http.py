"""The HTTP API and the CLI carry the notes' citations (real FHIR case notes in DuckDB)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from clinbridge.adapters.fhir.loader import load_fhir
from clinbridge.cli import main
from clinbridge.engine.notes.evaluate import case_notes_bundle
from clinbridge.settings import Settings

CASE = {
    "patient": "case-9",
    "note": "A 70-year-old woman. Serum sodium was 128 mEq/L. She denies chest pain.",
}
QUESTION = "What was the patient's sodium?"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("http")
    (tmp / "c.json").write_text(json.dumps(case_notes_bundle([CASE])))
    load_fhir([tmp / "c.json"], f"duckdb:///{tmp / 'c.duckdb'}")
    return tmp / "c.duckdb"


def test_http_ask_returns_citations(db: Path, tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the server extra (fastapi) is not installed")
    from fastapi.testclient import TestClient

    from clinbridge.server import ServerConfig, create_app

    app = create_app(
        ServerConfig(
            sources=[f"cases=duckdb:///{db}"],
            audit_path=tmp_path / "audit.sqlite",
            bank_path=tmp_path / "examples.jsonl",
            settings=Settings(embeddings="off"),
            cache_dir=tmp_path / "cache",
        )
    )
    try:
        with TestClient(app) as client:
            r = client.post(
                "/api/ask", json={"question": QUESTION, "source": "cases", "patient_id": "case-9"}
            ).json()
    finally:
        app.state.cb.close()
    assert r["answer"]["decision"] == "accept" and r["answer"]["value"] == 128
    assert r["citations"] and "128" in r["citations"][0]["text"]
    assert r["citations"][0]["chunk_id"] == "note:case-9-note.0#0"


def test_cli_ask_json_has_citations(db: Path, tmp_path: Path) -> None:
    out = CliRunner().invoke(
        main,
        ["ask", QUESTION, "--db", f"duckdb:///{db}", "--patient", "case-9", "--json"],
        env={"CLINBRIDGE_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert out.exit_code == 0, out.output
    answer = json.loads(out.output)
    assert answer["decision"] == "accept"
    assert answer["details"]["citations"][0]["span"]
    assert answer["provenance"]["understanding"] == "parser+notes"
