"""Build the MedCalc-Bench note-QA sample: train notes (held-out by note) with questions and gold.

Reads only the repository's copy of the MedCalc-Bench v1.0 TRAIN subset
(``tests/data/medcalc/train_subset_v1.0.csv``, CC-BY-SA 4.0; never the test split) and writes
``tests/data/note_qa/medcalc_train_notes.jsonl``: one line per note with its questions, the
gold taken from the row's Relevant Entities alone (written before any system runs):

* notes whose row has boolean entities: a yes/no question per boolean entity, False ones
  included ("Did the patient have <name>?"), at most three;
* the other notes: a value question per numeric entity ``[value, unit]`` ("What was the
  patient's <name>?"), at most three, doses left out (they need the drug the question names).

22 notes of each kind.

Rows are taken round-robin over the calculators. Notes are those of the extractor's held-out side (sha256 of the note text, first byte mod 5 = 0),
which the shipped judge was never trained on. Run: ``python scripts/build_note_qa_medcalc.py``.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "data" / "medcalc" / "train_subset_v1.0.csv"
OUT = ROOT / "tests" / "data" / "note_qa" / "medcalc_train_notes.jsonl"
BOOLEAN_NOTES = 22
VALUE_NOTES = 22
PER_NOTE = 3


def held_out(note: str) -> bool:
    return hashlib.sha256(note.encode()).digest()[0] % 5 == 0


def questions(entities: dict[str, object]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    bools = [(k, v) for k, v in entities.items() if isinstance(v, bool)]
    nums = [
        (k, v)
        for k, v in entities.items()
        if isinstance(v, list)
        and len(v) == 2
        and isinstance(v[0], int | float)
        and not isinstance(v[0], bool)
        and isinstance(v[1], str)
    ]
    nums = [(k, v) for k, v in nums if "dose" not in k.lower()]  # doses need the drug asked
    for k, v in bools[:PER_NOTE]:
        out.append(
            {"question": f"Did the patient have {k}?", "kind": "yesno", "gold": v, "entity": k}
        )
    if bools:
        return out
    for k, v in nums[:PER_NOTE]:
        out.append(
            {
                "question": f"What was the patient's {k}?",
                "kind": "value",
                "gold": v[0],
                "unit": v[1],
                "entity": k,
            }
        )
    return out[:PER_NOTE]


def main() -> None:
    seen: set[str] = set()
    counts = {"yesno": 0, "value": 0}
    lines = []
    with SOURCE.open(newline="", encoding="utf-8") as fh:
        rows = sorted(csv.DictReader(fh), key=lambda r: int(r["Row Number"]))
    by_calc: dict[str, list[dict[str, str]]] = {}
    for r in rows:  # round-robin over calculators: every kind of note and question
        by_calc.setdefault(r["Calculator ID"], []).append(r)
    queues = [by_calc[k] for k in sorted(by_calc, key=int)]
    ordered = [q[i] for i in range(max(map(len, queues))) for q in queues if i < len(q)]
    for r in ordered:
        note = r["Patient Note"]
        if not held_out(note) or note in seen:
            continue
        qs = questions(ast.literal_eval(r["Relevant Entities"]))
        kind = str(qs[0]["kind"]) if qs else ""
        if not qs or counts[kind] >= (BOOLEAN_NOTES if kind == "yesno" else VALUE_NOTES):
            continue
        counts[kind] += 1
        seen.add(note)
        n = len(lines)
        for j, q in enumerate(qs):
            q["id"] = f"mc{n:02d}-{j}"
        lines.append(
            {
                "patient": f"mc-{n:02d}",
                "row_number": int(r["Row Number"]),
                "calculator": r["Calculator Name"],
                "note_id": r["Note ID"],
                "note": note,
                "questions": qs,
            }
        )
    OUT.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")


if __name__ == "__main__":
    main()
