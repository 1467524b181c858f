"""Negations that do not name the finding (global history / mental-status statements), a
negation written after the finding, values whose unit is a metric-prefix slip, and the explicit
'not documented' abstention. Real FHIR files in DuckDB, real MiniLM, real negspacy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinbridge.adapters.fhir.loader import load_fhir
from clinbridge.api import connect
from clinbridge.engine.answer import Answer
from clinbridge.engine.notes._absence import negated_after
from clinbridge.engine.notes.evaluate import case_notes_bundle, citations_hold
from clinbridge.settings import Settings

CASES = [
    {
        "patient": "healthy",
        "note": "A 30-year-old man with no significant past medical history except asthma "
        "presented with chest pain. He was alert and oriented to time, place and person.",
    },
    {
        "patient": "family",
        "note": "A 40-year-old woman presented with dyspnea. Her family history was "
        "unremarkable. There was no history of bleeding. She was oriented to person and "
        "place only.",
    },
    {
        "patient": "labs",
        "note": "A 61-year-old man (170 cm, 82 kgm). Laboratory tests showed S.albumin 3.2 "
        "mg/dl and glucose 95 mg/dL. Jugular venous distention is not detected.",
    },
    {
        "patient": "exam",
        "note": "A 57-year-old man with palpitations. Physical examination showed no "
        "abnormalities other than an irregular heart rhythm. Potassium: K+ 4.1 mEq/L.",
    },
    {
        "patient": "edema",
        "note": "A 62-year-old man. He does not smoke. Examination shows 2+ pretibial edema "
        "bilaterally. The remainder of the examination shows no abnormalities.",
    },
    {
        "patient": "region",
        "note": "A 70-year-old woman. Cardiac examination was normal. Her personal history was "
        "unremarkable. A thrombus was suspected since it was not reported on the earlier scan.",
    },
    {
        "patient": "renal",
        "note": "A 63-year-old man without known significant past medical history. He has "
        "Alzheimer's dementia. The panel showed an elevated creatinine of 2.79 mg/dL from a "
        "baseline of 2.15 mg/dL; CBC was remarkable for anemia with hemoglobin at 9.5 g/dL.",
    },
    {
        "patient": "odd",
        "note": "A 50-year-old woman. Laboratory tests showed albumin 900 g/dL. Urinalysis: "
        "urine albumin 3.1 mg/dL.",
    },
]
TEXTS = {f"note:{c['patient']}-note.0": c["note"] for c in CASES}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    tmp = tmp_path_factory.mktemp("absence")
    bundle = tmp / "cases.json"
    bundle.write_text(json.dumps(case_notes_bundle(CASES)))
    db = f"duckdb:///{tmp / 'c.duckdb'}"
    load_fhir([bundle], db)
    return db, tmp


def _ask(url: tuple[str, Path], question: str, patient: str) -> Answer:
    with connect(url[0], settings=Settings(cache_dir=str(url[1] / "cache"))) as conn:
        return conn.ask(question, patient_id=patient)


def test_a_global_history_statement_answers_only_past_history(url: tuple[str, Path]) -> None:
    a = _ask(url, "Did the patient have a previously documented pulmonary embolism?", "healthy")
    assert a.accepted and a.value is False
    cite = a.details["citations"][0]
    assert cite["text"] == "no significant past medical history"
    assert "global-negation" in cite["method"] and citations_hold(a, TEXTS)
    # a finding not asked about as history: 'no past medical history' says nothing of it
    assert not _ask(url, "Did the patient have hemoptysis?", "healthy").accepted
    # the exception the statement names is still read as affirmed
    asthma = _ask(url, "Did the patient have a history of asthma?", "healthy")
    assert asthma.accepted and asthma.value is True
    # another person's history, or a 'no history of X' about something else, is not global
    assert not _ask(url, "Did the patient have a history of stroke?", "family").accepted


def test_mental_status_must_be_whole(url: tuple[str, Path]) -> None:
    a = _ask(url, "Did the patient have confusion?", "healthy")
    assert a.accepted and a.value is False
    assert a.details["citations"][0]["text"] == "alert and oriented to time, place and person"
    assert not _ask(url, "Did the patient have confusion?", "family").accepted


def test_a_negation_after_the_finding(url: tuple[str, Path]) -> None:
    a = _ask(url, "Did the patient have jugular venous distention?", "labs")
    assert a.accepted and a.value is False
    assert "is not detected" in a.details["citations"][0]["method"]


def test_a_unit_slip_is_read_in_the_inputs_unit_and_said(url: tuple[str, Path]) -> None:
    a = _ask(url, "What was the patient's albumin?", "labs")
    assert a.accepted and a.value == pytest.approx(3.2) and a.details["unit"] == "g/dL"
    slip = [c for c in a.checks if c.name == "unit_as_written"]
    assert slip and "mg/dl" in slip[0].detail and citations_hold(a, TEXTS)
    glucose = _ask(url, "What was the patient's glucose?", "labs")  # a right unit: no check
    assert glucose.value == pytest.approx(95) and not any(
        c.name == "unit_as_written" for c in glucose.checks
    )
    # implausible in the written unit and in the input's own: nothing is guessed
    assert not _ask(url, "What was the patient's albumin?", "odd").accepted


def test_kilograms_as_case_notes_spell_them(url: tuple[str, Path]) -> None:
    a = _ask(url, "What was the patient's weight?", "labs")
    assert a.accepted and a.value == pytest.approx(82)


def test_an_unmentioned_finding_is_an_explicit_not_documented(url: tuple[str, Path]) -> None:
    a = _ask(url, "Did the patient have hemoptysis?", "labs")
    assert not a.accepted and (a.reason or "").startswith("not documented")
    absent = a.details["note_answer"]["not_documented"]
    assert absent["chunks_read"] == 1 and "not read as 'no'" in absent["summary"]
    assert "haemoptysis" in [t.lower() for t in absent["terms"]]


def test_a_whole_normal_examination_answers_only_signs(url: tuple[str, Path]) -> None:
    a = _ask(url, "Did the patient have unilateral leg swelling?", "exam")
    assert a.accepted and a.value is False and citations_hold(a, TEXTS)
    assert a.details["citations"][0]["text"] == "Physical examination showed no abnormalities"
    assert not _ask(url, "Did the patient have hemoptysis?", "exam").accepted  # not a sign
    # 'the remainder is normal' after a sign was found: which signs it leaves out is unknown
    assert not _ask(url, "Did the patient have lymphadenopathy?", "edema").accepted


def test_an_ion_symbol_that_is_itself_the_term(url: tuple[str, Path]) -> None:
    a = _ask(url, "What was the patient's potassium?", "exam")
    assert a.accepted and a.value == pytest.approx(4.1)


def test_a_gerund_names_its_verb(url: tuple[str, Path]) -> None:
    a = _ask(url, "Is the patient a smoker?", "edema")
    assert a.accepted and a.value is False
    assert a.details["citations"][0]["text"] == "smoke"


def test_what_is_not_whole_or_not_a_negation(url: tuple[str, Path]) -> None:
    # one region's examination is not the whole; a personal (social) history is not medical
    assert not _ask(url, "Did the patient have leg swelling?", "region").accepted
    assert not _ask(url, "Did the patient have a history of diabetes?", "region").accepted
    # 'not reported' after a conjunction belongs to another clause
    text = next(c["note"] for c in CASES if c["patient"] == "region")
    assert negated_after(text, text.index("thrombus") + len("thrombus")) is None
    jvd = "Jugular venous distention is not detected."
    assert negated_after(jvd, len("Jugular venous distention")) == "is not detected"


def test_a_reading_beside_its_baseline_and_another_analyte(url: tuple[str, Path]) -> None:
    a = _ask(url, "What was the patient's creatinine?", "renal")
    assert a.accepted and a.value == pytest.approx(2.79)
    # the finding's own name beside a related term; several modifiers before the history
    dementia = _ask(url, "Does the patient have dementia?", "renal")
    assert dementia.accepted and dementia.value is True
    assert dementia.details["citations"][0]["text"].lower() == "dementia"
    htn = _ask(url, "Did the patient have a history of hypertension?", "renal")
    assert htn.accepted and htn.value is False
