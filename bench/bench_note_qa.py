"""Notes as evidence for ``ask``: accuracy, wrong answers, abstentions and citation correctness.

python bench/bench_note_qa.py [--part medcalc|synthetic|both] [--limit N] [--json OUT]
    [--unmentioned abstain|complete|always] [--show]

* ``medcalc``: real published case notes (MedCalc-Bench TRAIN subset, held-out side) loaded as
  FHIR DocumentReferences for otherwise-empty patients; questions and gold from the rows'
  Relevant Entities (``tests/data/note_qa/medcalc_train_notes.jsonl``). The bar: ≥ 80 % correct,
  at most 1 wrong accepted.
* ``synthetic``: the note-QA dev set over generated FHIR patients
  (``tests/data/note_qa/synthetic_fhir_questions.jsonl``), some questions needing the encounter
  table and a note.

Citations hold when every cited span quotes its note at that span inside its chunk (and, for
the synthetic set, the first one comes from the visit the gold names). Run under
``nice -n 10``; seconds are wall-clock on this shared machine.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from clinbridge.adapters.fhir.loader import load_fhir  # noqa: E402
from clinbridge.api import connect  # noqa: E402
from clinbridge.engine.notes.evaluate import case_notes_bundle, citations_hold, score  # noqa: E402
from clinbridge.settings import Settings  # noqa: E402

DATA = ROOT / "tests" / "data" / "note_qa"


UNMENTIONED = "abstain"


def _run(url: str, items: list[dict[str, Any]], texts: dict[str, str]) -> dict[str, Any]:
    """Ask every item ({id, question, patient, kind, gold, unit}); tally the outcomes."""
    tally: collections.Counter[str] = collections.Counter()
    by_kind: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    cites: collections.Counter[str] = collections.Counter()
    rows = []
    with connect(url, settings=Settings.from_env(notes_unmentioned=UNMENTIONED)) as conn:
        t0 = time.perf_counter()
        for it in items:
            a = conn.ask(it["question"], patient_id=it["patient"])
            out = score(a, it["kind"], it["gold"], it.get("unit"))
            tally[out] += 1
            kind = it["kind"] + ("" if it["kind"] == "value" else f"={bool(it['gold'])}")
            by_kind[kind][out] += 1
            held = citations_hold(a, texts)
            first = (a.details.get("citations") or [{}])[0]
            if held and it.get("encounter") and first.get("encounter_id") != it["encounter"]:
                held = False  # quoted right, but from another visit than the question's
            cites["none" if held is None else ("hold" if held else "broken")] += 1
            rows.append(
                {
                    "id": it["id"],
                    "question": it["question"],
                    "gold": it["gold"],
                    "outcome": out,
                    "value": a.value,
                    "reason": a.reason,
                    "citations": a.details.get("citations", [])[:1],
                }
            )
        secs = time.perf_counter() - t0
    n = len(items)
    return {
        "questions": n,
        "correct": tally["correct"],
        "wrong": tally["wrong"],
        "abstained": tally["abstain"],
        "accuracy": round(tally["correct"] / n, 4) if n else None,
        "by_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
        "citations": dict(cites),
        "seconds_per_question": round(secs / n, 3) if n else None,
        "rows": rows,
    }


def medcalc(limit: int | None, workdir: Path) -> dict[str, Any]:
    cases = [json.loads(x) for x in (DATA / "medcalc_train_notes.jsonl").read_text().splitlines()]
    bundle = workdir / "medcalc_notes.json"
    bundle.write_text(json.dumps(case_notes_bundle(cases)))
    url = f"duckdb:///{workdir / 'medcalc.duckdb'}"
    load_fhir([bundle], url)
    items = [{**q, "patient": c["patient"]} for c in cases for q in c["questions"]]
    texts = {f"note:{c['patient']}-note.0": c["note"] for c in cases}
    return _run(url, items[:limit] if limit else items, texts)


def synthetic(limit: int | None, workdir: Path) -> dict[str, Any]:
    from clinbridge.synthetic.fhir import generate_fhir

    spec = json.loads((DATA / "synthetic_fhir_questions.json").read_text())
    folder = workdir / "synth"
    generate_fhir(folder, patients=spec["patients"], seed=spec["seed"])
    url = f"duckdb:///{workdir / 'synth.duckdb'}"
    load_fhir([folder], url)
    import duckdb

    con = duckdb.connect(str(workdir / "synth.duckdb"), read_only=True)
    texts = {
        f"note:{i}.{s}": t for i, s, t in con.sql("select id, seq, text from fhir_note").fetchall()
    }
    con.close()
    items = spec["questions"]
    return _run(url, items[:limit] if limit else items, texts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["medcalc", "synthetic", "both"], default="both")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--show", action="store_true", help="print every wrong or abstained row")
    ap.add_argument(
        "--unmentioned",
        choices=["abstain", "complete", "always"],
        default="abstain",
        help="a finding no note mentions (the notes_unmentioned setting; default: abstain)",
    )
    ap.add_argument(
        "--absent-unmentioned",
        action="store_true",
        help="same as --unmentioned always",
    )
    args = ap.parse_args()
    global UNMENTIONED
    UNMENTIONED = "always" if args.absent_unmentioned else args.unmentioned
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.part in ("medcalc", "both"):
            out["medcalc"] = medcalc(args.limit, Path(tmp))
        if args.part in ("synthetic", "both"):
            out["synthetic"] = synthetic(args.limit, Path(tmp))
    for name, r in out.items():
        print(
            f"{name}: {r['questions']} questions, {r['correct']} correct "
            f"({100 * (r['accuracy'] or 0):.1f} %), {r['wrong']} wrong, {r['abstained']} "
            f"abstained; by kind {r['by_kind']}; citations {r['citations']}; "
            f"{r['seconds_per_question']} s/question"
        )
        if args.show:
            for row in r["rows"]:
                if row["outcome"] != "correct":
                    print(
                        "  ",
                        row["outcome"],
                        row["id"],
                        row["question"],
                        "gold",
                        row["gold"],
                        "got",
                        row["value"],
                        row["reason"] or "",
                        (row["citations"] or [{}])[0].get("text", "")[:120],
                    )
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=str))


if __name__ == "__main__":
    main()
