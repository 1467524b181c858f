"""Write the synthetic note-QA dev set: questions over generated FHIR patients, gold from the
generated resources themselves (never from clinbridge's answers).

Generates ``--patients 12 --seed 11`` FHIR NDJSON in a temporary folder, reads the Encounters and
DocumentReferences as JSON, and writes ``tests/data/note_qa/synthetic_fhir_questions.json``:

* the oxygen saturation at the first/last visit of a type (needs the encounter table to pick the
  visit, and the note for the value: only notes record it);
* a reported or denied symptom at the first/last visit of a type, and on a visit's day;
* the most recent oxygen saturation.

Only questions whose answer a note holds are written. Run: ``python scripts/build_note_qa_synthetic.py``.
"""

from __future__ import annotations

import base64
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
OUT = ROOT / "tests" / "data" / "note_qa" / "synthetic_fhir_questions.json"
PATIENTS, SEED = 12, 11


def _read(folder: Path, kind: str) -> list[dict[str, Any]]:
    return [
        json.loads(x)
        for f in sorted(folder.glob(f"{kind}.*.ndjson"))
        for x in f.read_text().splitlines()
    ]


def main() -> None:
    from clinbridge.adapters.fhir import ENCOUNTER_CLASS_MAP
    from clinbridge.synthetic.fhir import generate_fhir

    with tempfile.TemporaryDirectory() as tmp:
        generate_fhir(Path(tmp), patients=PATIENTS, seed=SEED)
        encs = _read(Path(tmp), "Encounter")
        docs = _read(Path(tmp), "DocumentReference")
    note_of = {
        d["context"]["encounter"][0]["reference"].split("/")[1]: base64.b64decode(
            d["content"][0]["attachment"]["data"]
        ).decode()
        for d in docs
    }
    by_patient: dict[str, list[dict[str, Any]]] = {}
    for e in sorted(encs, key=lambda e: e["period"]["start"]):
        by_patient.setdefault(e["subject"]["reference"].split("/")[1], []).append(e)
    questions: list[dict[str, Any]] = []

    def add(pid: str, q: str, kind: str, gold: Any, enc: str) -> None:
        questions.append(
            {
                "id": f"syn{len(questions):03d}",
                "patient": pid,
                "question": q,
                "kind": kind,
                "gold": gold,
                "encounter": enc,
            }
        )

    for pid, elist in by_patient.items():
        for etype, which in (("outpatient", "first"), ("emergency", "last"), ("inpatient", "last")):
            typed = [e for e in elist if ENCOUNTER_CLASS_MAP.get(e["class"]["code"]) == etype]
            if not typed:
                continue
            e = typed[0] if which == "first" else typed[-1]
            text = note_of.get(e["id"], "")
            spo2 = re.search(r"Oxygen saturation (\d+)%", text)
            visit = f"the {which} {etype} visit"
            if spo2:
                add(
                    pid,
                    f"What was the oxygen saturation at {visit}?",
                    "value",
                    int(spo2[1]),
                    e["id"],
                )
            ros = re.findall(r"^(Reports|Denies|No) (.+)\.$", text, re.M)
            if ros:
                verb, symptom = ros[0]
                add(
                    pid,
                    f"Did the patient report {symptom} at {visit}?",
                    "yesno",
                    verb == "Reports",
                    e["id"],
                )
            if len(ros) > 1 and etype == "outpatient":
                verb, symptom = ros[1]
                day = e["period"]["start"][:10]
                if sum(x["period"]["start"][:10] == day for x in elist) == 1:
                    add(
                        pid,
                        f"Did the patient have {symptom} on {day}?",
                        "yesno",
                        verb == "Reports",
                        e["id"],
                    )
        noted = [e for e in elist if re.search(r"Oxygen saturation \d+%", note_of.get(e["id"], ""))]
        if noted:
            last = max(noted, key=lambda e: (e["period"]["end"], e["period"]["start"]))
            value = int(re.search(r"Oxygen saturation (\d+)%", note_of[last["id"]])[1])  # type: ignore[index]
            add(
                pid,
                "What was the most recent oxygen saturation in the notes?",
                "value",
                value,
                last["id"],
            )
    OUT.write_text(
        json.dumps({"patients": PATIENTS, "seed": SEED, "questions": questions}, indent=1) + "\n"
    )


if __name__ == "__main__":
    main()
