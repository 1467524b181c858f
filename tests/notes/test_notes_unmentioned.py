"""Unmentioned findings ('not documented' only in a complete note) and the note reading that
lets the extractor's terms match ion symbols, '-emia' words and adjectival quantities.
Real FHIR files in DuckDB, real MiniLM, real negspacy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinbridge.adapters.fhir.loader import load_fhir
from clinbridge.api import connect
from clinbridge.engine.answer import Answer
from clinbridge.engine.notes.evaluate import case_notes_bundle, citations_hold
from clinbridge.errors import ConfigError
from clinbridge.settings import Settings

CASES = [
    {
        "patient": "full",
        "note": "A 70-year-old woman presented with chest pain of two hours. Her past medical "
        "history was significant for diabetes mellitus. Physical examination revealed a "
        "regular pulse and clear lungs.",
    },
    {"patient": "short", "note": "A 30-year-old man with chest pain. Troponin was normal."},
    {
        "patient": "labs",
        "note": "A 58-year-old man had a myocardial infarction at 40 years of age.\n"
        "Laboratory studies showed Na+ 131 mEq/L and Ca2+ 10.2 mg/dL. He was 175-cm tall.",
    },
    {"patient": "dip", "note": "A 41-year-old woman. Urinalysis showed albumin 1+ and no blood."},
    {"patient": "emia", "note": "A 66-year-old man. Tests showed hyponatremia of 127 mEq/L."},
]
TEXTS = {f"note:{c['patient']}-note.0": c["note"] for c in CASES}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    tmp = tmp_path_factory.mktemp("unmentioned")
    bundle = tmp / "cases.json"
    bundle.write_text(json.dumps(case_notes_bundle(CASES)))
    db = f"duckdb:///{tmp / 'c.duckdb'}"
    load_fhir([bundle], db)
    return db, tmp


def _ask(url: tuple[str, Path], mode: str, question: str, patient: str) -> Answer:
    settings = Settings(cache_dir=str(url[1] / "cache"), notes_unmentioned=mode)  # type: ignore[arg-type]
    with connect(url[0], settings=settings) as conn:
        return conn.ask(question, patient_id=patient)


def test_not_documented_only_in_a_complete_note(url: tuple[str, Path]) -> None:
    q = "Did the patient have hemoptysis?"
    full = _ask(url, "complete", q, "full")
    assert full.accepted and full.value is False
    absent = full.details["note_answer"]["not_documented"]
    assert absent["answer"] == "not documented in the notes"
    assert [s["section"] for s in absent["sections"]] == ["history", "presentation"]
    for s in absent["sections"]:  # each section quotes its note at its span
        a, b = s["span"]
        assert TEXTS[s["note_id"]][a:b] == s["text"]
    assert "not documented" in full.checks[-1].detail and "past medical history" in str(absent)
    short = _ask(url, "complete", q, "short")
    assert not short.accepted and "not a complete note" in (short.reason or "")
    assert not _ask(url, "abstain", q, "full").accepted  # the default abstains
    assert _ask(url, "always", q, "short").value is False  # the chart-review convention
    # a phrase no calculator input curates is never 'not documented'
    assert not _ask(url, "complete", "Did the patient report hiccups?", "full").accepted


def test_mentioned_findings_do_not_depend_on_the_mode(url: tuple[str, Path]) -> None:
    for mode in ("abstain", "complete"):
        dm = _ask(url, mode, "Does the patient have diabetes mellitus?", "full")
        assert (
            dm.accepted and dm.value is True and "not_documented" not in dm.details["note_answer"]
        )


def test_values_behind_ion_symbols_emia_words_and_hyphens(url: tuple[str, Path]) -> None:
    calcium = _ask(url, "abstain", "What was the patient's calcium?", "labs")
    assert calcium.accepted and calcium.value == pytest.approx(10.2)
    assert calcium.details["citations"][0]["text"].startswith("Ca2+ 10.2")  # quoted as written
    assert citations_hold(calcium, TEXTS) is True
    assert _ask(url, "abstain", "What was the patient's sodium?", "labs").value == 131
    height = _ask(url, "abstain", "What was the patient's height?", "labs")
    assert height.accepted and height.value == pytest.approx(175)
    assert _ask(url, "abstain", "What was the patient's sodium?", "emia").value == 127


def test_event_ages_and_grades_are_not_values(url: tuple[str, Path]) -> None:
    age = _ask(url, "abstain", "What was the patient's age?", "labs")
    assert age.accepted and age.value == 58  # not the age at the infarction
    assert not _ask(url, "abstain", "What was the patient's albumin?", "dip").accepted


def test_the_mode_is_a_setting() -> None:
    assert Settings().notes_unmentioned == "abstain"
    env = {"CLINBRIDGE_NOTES_UNMENTIONED": "complete"}
    assert Settings.from_env(env).notes_unmentioned == "complete"
    with pytest.raises(ConfigError):
        Settings(notes_unmentioned="sometimes")  # type: ignore[arg-type]
