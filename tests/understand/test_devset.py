"""The dev set end to end on DuckDB (no LLM, no embeddings): accuracy floor, no wrong answers
to unanswerable questions. The full report with latencies is ``bench/bench_understand.py``."""

from __future__ import annotations

from typing import Any

import pytest

from .devset_eval import evaluate, format_table, load_devset

# Floors sit a little under the measured accuracy so that regressions fail loudly.
FLOORS = {"eunomia": 0.95, "synth": 0.90}


def _check(conn: Any, name: str) -> None:
    rows = load_devset(name)
    score = evaluate(conn, rows)
    table = score.table()
    report = format_table(table, f"{name} dev set")
    wrong_unanswerable = [
        o.id for o in score.outcomes if not o.answerable and o.decision == "accept"
    ]
    assert not wrong_unanswerable, f"answered unanswerable questions {wrong_unanswerable}\n{report}"
    assert table["ALL"]["accuracy"] >= FLOORS[name], report
    assert len([r for r in rows if not r["answerable"]]) >= 4


def test_eunomia_devset(eunomia_conn: Any) -> None:
    _check(eunomia_conn, "eunomia")


def test_synth_devset(synth_conn: Any) -> None:
    _check(synth_conn, "synth")


def test_devset_files_are_well_formed() -> None:
    rows = load_devset("eunomia") + load_devset("synth")
    assert len(rows) >= 60
    assert len({r["id"] for r in rows}) == len(rows)
    assert sum(not r["answerable"] for r in rows) >= 8
    for r in rows:
        assert r["split"] in {"dev", "blind"}
        assert (r["gold"] is None) == (not r["answerable"]), r["id"]
        assert (r["gold_sql"] is None) == (not r["answerable"]), r["id"]
    blind = sum(r["split"] == "blind" for r in rows)
    assert blind >= len(rows) // 3 - 1


@pytest.mark.parametrize(
    "question",
    [
        "What is the average hemoglobin value?",
        "How many patients carry a BRCA1 mutation?",
        "Which patients are doing well?",
        "How many patients died within 90 days after a gastrointestinal hemorrhage?",
        "What is this patient's blood type?",
        "How many ICU stays were there in 2018?",
    ],
)
def test_unanswerable_reason_names_the_phrase(eunomia_conn: Any, question: str) -> None:
    readings = eunomia_conn.readings(question, patient_id="3048")
    assert readings[0].plan is None
    assert readings[0].abstain_reason
    answer = eunomia_conn.ask(question, patient_id="3048")
    assert answer.decision == "abstain" and answer.value is None and answer.reason
