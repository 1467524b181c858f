"""Notes as evidence for ``ask``: real FHIR files loaded into DuckDB, real MiniLM, real negspacy."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
from pathlib import Path

import duckdb
import pytest

from clinbridge.adapters.fhir.loader import load_fhir
from clinbridge.api import connect
from clinbridge.catalog import Catalog, ColumnInfo, EventStream, PatientTable, TableInfo
from clinbridge.db import Database
from clinbridge.engine.notes import Note, chunk_note, read_notes
from clinbridge.engine.notes._chunk import token_counter
from clinbridge.engine.notes.evaluate import case_notes_bundle, citations_hold, score
from clinbridge.settings import Settings
from clinbridge.synthetic.fhir import generate_fhir

DATA = Path(__file__).parents[1] / "data" / "note_qa"


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, dict[str, object]]:
    """The dev set's generated patients, loaded into DuckDB."""
    spec = json.loads((DATA / "synthetic_fhir_questions.json").read_text())
    tmp = tmp_path_factory.mktemp("synth")
    generate_fhir(tmp / "fhir", patients=spec["patients"], seed=spec["seed"])
    url = f"duckdb:///{tmp / 'f.duckdb'}"
    load_fhir([tmp / "fhir"], url)
    return url, tmp, spec


def _settings(tmp: Path) -> Settings:
    return Settings(cache_dir=str(tmp / "cache"))


def test_chunks_are_sentence_aware_with_overlap() -> None:
    sentence = "The patient reports intermittent chest pain radiating to the left arm at night. "
    long_run = "word " * 400  # one 'sentence' longer than a chunk
    text = sentence * 40 + "\n" + long_run
    note = Note("n:1", "p", None, None, "test", "", text)
    chunks = chunk_note(note)
    count = token_counter()
    assert len(chunks) > 3
    assert all(count(c.text) <= 256 for c in chunks)
    assert chunks[0].start == 0 and chunks[-1].end == len(text.rstrip())
    for a, b in itertools.pairwise(chunks):
        assert not text[a.end : b.start].strip()  # nothing between two chunks is lost
        if b.start < a.end:  # the overlap is whole sentences of at most 32 tokens
            assert count(text[b.start : a.end]) <= 32
    assert all(c.text.strip().endswith(".") for c in chunks[:-3])  # cut at sentence ends


def test_value_from_the_visit_the_tables_pick(synth: tuple[str, Path, dict[str, object]]) -> None:
    url, tmp, spec = synth
    q = next(
        x for x in spec["questions"] if x["kind"] == "value" and "first outpatient" in x["question"]
    )  # type: ignore[index, union-attr]
    with connect(url, settings=_settings(tmp)) as conn:
        a = conn.ask(q["question"], patient_id=q["patient"])
        texts = dict(
            duckdb.connect(url.removeprefix("duckdb:///"), read_only=True)
            .sql("select 'note:' || id || '.' || seq, text from fhir_note")
            .fetchall()
        )
    assert a.accepted and a.value == q["gold"]
    cite = a.details["citations"][0]
    assert cite["encounter_id"] == q["encounter"]
    assert cite["chunk_id"].startswith(cite["note_id"] + "#")
    assert citations_hold(a, texts) is True
    assert "encounter table" in a.details["note_answer"]["scope"]
    # the vectors persist in the cache folder, not in the (read-only) database
    assert list((tmp / "cache" / "notes").rglob("*.emb.npy"))


def test_denied_symptom_is_no_and_unmentioned_abstains(
    synth: tuple[str, Path, dict[str, object]],
) -> None:
    url, tmp, spec = synth
    q = next(x for x in spec["questions"] if x["kind"] == "yesno" and x["gold"] is False)  # type: ignore[index, union-attr]
    with connect(url, settings=_settings(tmp)) as conn:
        no = conn.ask(q["question"], patient_id=q["patient"])
        unmentioned = conn.ask("Did the patient report hiccups?", patient_id=q["patient"])
        no_visit = conn.ask(
            "Did the patient report cough at the first icu visit?", patient_id=q["patient"]
        )
    assert no.accepted and no.value is False
    assert no.details["citations"][0]["assertion"].startswith("negated")
    assert not unmentioned.accepted and "hiccups" in (unmentioned.reason or "")
    assert not no_visit.accepted and "icu" in (no_visit.reason or "")


CASES = [
    {
        "patient": "case-1",
        "note": "A 61-year-old man with a history of hypertension presented "
        "with dyspnea. Heart rate was 112 beats per minute. Serum creatinine was 2.4 mg/dL. "
        "He denies hemoptysis. There is no history of deep vein thrombosis.",
    },
    {
        "patient": "case-2",
        "note": "A 45-year-old woman. Creatinine was 0.8 mg/dL on admission "
        "and 1.9 mg/dL on day three.",
    },
]


def test_case_notes_as_document_references(tmp_path: Path) -> None:
    bundle = tmp_path / "cases.json"
    bundle.write_text(json.dumps(case_notes_bundle(CASES)))
    url = f"duckdb:///{tmp_path / 'c.duckdb'}"
    load_fhir([bundle], url)
    with connect(url, settings=_settings(tmp_path)) as conn:
        ask = lambda q, p="case-1": conn.ask(q, patient_id=p)  # noqa: E731
        hr = ask("What was the patient's heart rate?")
        cr = ask("What was the patient's creatinine?")
        htn = ask("Does the patient have a history of hypertension?")
        hemo = ask("Did the patient have hemoptysis?")
        dvt = ask("Did the patient have a previous deep vein thrombosis?")
        two = ask("What was the patient's creatinine?", "case-2")
        first = ask("What was the patient's creatinine on admission?", "case-2")
    assert score(hr, "value", 112, "beats per minute") == "correct"
    assert score(cr, "value", 2.4, "mg/dL") == "correct"
    assert htn.accepted and htn.value is True
    assert hemo.accepted and hemo.value is False and dvt.accepted and dvt.value is False
    assert not two.accepted  # two values in one sentence: which one is meant is not known
    assert first.accepted is False or first.value == 0.8  # never the day-three value
    texts = {f"note:{c['patient']}-note.0": str(c["note"]) for c in CASES}
    assert citations_hold(cr, texts) is True


def test_any_note_stream_reads_the_same(tmp_path: Path) -> None:
    """A MIMIC-NOTEEVENTS-shaped table through the catalog's generic note stream."""
    path = tmp_path / "m.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create table patients (subject_id integer)")
    con.execute("insert into patients values (7)")
    con.execute(
        "create table noteevents (row_id integer, subject_id integer, hadm_id integer, "
        "charttime timestamp, category varchar, text varchar)"
    )
    con.execute(
        "insert into noteevents values (11, 7, 100, '2150-01-02 10:00', 'Nursing', "
        "'Pt denies chest pain.'), (12, 8, 101, '2150-01-03', 'Nursing', 'Other patient.')"
    )
    con.close()
    catalog = Catalog(
        source="m",
        adapter="mimic",
        dialect="duckdb",
        patients=PatientTable(table="patients", id_column="subject_id"),
        streams=(
            EventStream(
                name="noteevents",
                kind="note",
                table="noteevents",
                patient_column="subject_id",
                time_column="charttime",
                encounter_column="hadm_id",
                text_column="text",
                title_column="category",
            ),
        ),
        tables=(TableInfo(name="noteevents", columns=(ColumnInfo(name="row_id"),)),),
    )
    with Database.open(f"duckdb:///{path}") as db:
        notes = read_notes(db, catalog, "7")
    assert [(n.note_id, n.encounter_id, n.title) for n in notes] == [
        ("noteevents:11", "100", "Nursing")
    ]
    assert notes[0].time == dt.datetime(2150, 1, 2, 10, 0)


def test_omop_note_table_answers_inside_the_visit(tmp_path: Path) -> None:
    from clinbridge.synthetic.omop import generate_omop

    path = tmp_path / "o.duckdb"
    generate_omop(f"duckdb:///{path}", patients=5, seed=0)
    con = duckdb.connect(str(path), read_only=True)
    person, visit, text = con.execute(
        "select n.person_id, n.visit_occurrence_id, n.note_text from note n join visit_occurrence v "
        "using (visit_occurrence_id) where v.visit_concept_id in (9201, 262) and n.note_text like "
        "'%creatinine%' order by n.person_id, v.visit_start_date limit 1"
    ).fetchall()[0]
    first_inpatient = con.execute(
        f"select visit_occurrence_id from visit_occurrence where person_id = {person} and "
        "visit_concept_id in (9201, 262) order by visit_start_date limit 1"  # 262: ER + inpatient
    ).fetchall()[0][0]
    con.close()
    if first_inpatient != visit:
        pytest.skip("the generated first inpatient visit has no creatinine in its note")
    gold = float(re.search(r"creatinine (\d+(?:\.\d+)?) mg/dL", text)[1])  # type: ignore[index]
    with connect(f"duckdb:///{path}", settings=_settings(tmp_path)) as conn:
        a = conn.ask(
            "What was the creatinine in the notes at the first inpatient visit?",
            patient_id=str(person),
        )
    assert a.accepted and a.value == gold
    assert a.details["citations"][0]["encounter_id"] == str(visit)
