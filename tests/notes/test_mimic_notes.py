"""Synthetic MIMIC discharge notes: consistent with the tables, and read by ``ask``."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from clinbridge.api import connect
from clinbridge.settings import Settings
from clinbridge.synthetic.mimic import build_frames, generate_mimic


def test_discharge_notes_match_the_tables_and_answer(tmp_path: Path) -> None:
    path = tmp_path / "m.duckdb"
    counts = generate_mimic(f"duckdb:///{path}", patients=3, seed=4, notes=True)
    plain = build_frames(3, 4)
    assert counts["discharge"] == len(plain["admissions"])  # one note per admission
    con = duckdb.connect(str(path), read_only=True)

    def one(sql: str) -> tuple:  # type: ignore[type-arg]
        rows = con.execute(sql).fetchall()
        return rows[0] if rows else ()

    # the tables are the same with or without notes
    assert one("select count(*) from labevents") == (len(plain["labevents"]),)
    sid, hadm, text = one(
        "select subject_id, hadm_id, text from discharge order by note_id limit 1"
    )
    lab = re.search(r"# Laboratory results\n(.+?): (\S+) (.+)\n", text)
    if lab:  # the first lab line is that admission's first labevents row
        first = one(
            "select l.label, e.valuenum from labevents e join d_labitems l using (itemid) "
            f"where e.hadm_id = {hadm} order by e.charttime, e.row_id limit 1"
        )
        assert first and first[0] == lab[1] and abs(first[1] - float(lab[2])) < 1e-6
    admitted = one(f"select admittime from admissions where hadm_id = {hadm}")[0]
    con.close()
    verb, symptom = re.search(r"^(Reports|Denies) (.+)\.$", text, re.M).groups()  # type: ignore[union-attr]
    with connect(f"duckdb:///{path}", settings=Settings(cache_dir=str(tmp_path / "c"))) as conn:
        assert any(s.name == "discharge" for s in conn.catalog.streams_of("note"))
        a = conn.ask(
            f"Did the patient report {symptom} on {str(admitted)[:10]}?", patient_id=str(sid)
        )
    assert a.accepted and a.value is (verb == "Reports")
    assert a.details["citations"][0]["encounter_id"] == str(hadm)
