"""EHRSQL-2024 as a dev set: reliability score RS(0/5/10), accuracy, coverage, families, latency.

1. Generates the EHRSQL-2024-shaped MIMIC-IV database (``clinbridge synth mimic``, SQLite).
2. Executes each answerable question's gold SQL on it (``current_time`` = 2100-12-31 23:59:00) to
   get the gold rows; unanswerable questions have no SQL.
3. Runs every question through ``clinbridge ask --batch --now "2100-12-31 23:59:00"``.
4. Scores by execution, as the shared task does: +1 for a correct answer or for abstaining on an
   unanswerable question, 0 for abstaining on an answerable one, -N for a wrong answer or for any
   answer to an unanswerable question; RS(N) = 100 x mean. Rows are compared as sets of rows,
   values normalised (numbers rounded to 3 decimals, booleans as 0/1, text lower-case).

    python bench/bench_ehrsql.py                    # train (development)
    python bench/bench_ehrsql.py --split valid      # valid (reporting)
    python bench/bench_ehrsql.py --limit 300 --seed 0 --patients 100

Questions: bench/data/ehrsql-2024 (CC BY 4.0, see SOURCE.md). The test split is never used.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import gzip
import json
import math
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "ehrsql-2024"
NOW = "2100-12-31 23:59:00"
_TABLE_ORDER = (
    "chartevents",
    "inputevents",
    "outputevents",
    "labevents",
    "microbiologyevents",
    "prescriptions",
    "procedures_icd",
    "diagnoses_icd",
    "cost",
    "transfers",
    "icustays",
    "admissions",
    "patients",
)


def load_split(split: str) -> list[dict[str, Any]]:
    with gzip.open(DATA / f"{split}.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def gold_sql(sql: str) -> str:
    return re.sub(r"\bcurrent_time\b", f"'{NOW}'", sql)


def family(sql: str | None) -> str:
    """A coarse template family from the gold SQL: scope / main table / operation."""
    if not sql:
        return "unanswerable"
    low = sql.lower()
    scope = "patient" if re.search(r"subject_id\s*=\s*\d+", low) else "cohort"
    table = next((t for t in _TABLE_ORDER if t in low), "other")
    if "percent_rank" in low:
        op = "percentile"
    elif "dense_rank" in low:
        op = "top-n"
    elif "'%j'" in low:
        op = "time-difference"
    elif re.search(r"count\([^)]*\)\s*>\s*0", low):
        op = "exists"
    elif "count(" in low:
        op = "count"
    elif "avg(" in low:
        op = "average"
    elif "sum(" in low:
        op = "sum"
    elif "max(" in low or "min(" in low:
        op = "min-max"
    elif " - (" in low or ") - (" in low:
        op = "difference"
    else:
        op = "lookup"
    return f"{scope}/{table}/{op}"


def _norm(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int | float):
        f = float(v)
        if math.isnan(f):
            return "none"
        return str(round(f)) if abs(f - round(f)) < 1e-9 else f"{f:.3f}".rstrip("0").rstrip(".")
    if isinstance(v, dt.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(v, dt.date):
        return v.isoformat()
    text = str(v).strip().lower()
    try:
        return _norm(float(text))
    except ValueError:
        pass
    if re.fullmatch(r"\d{4}-\d\d-\d\d[t ]\d\d:\d\d(:\d\d)?", text):
        text = text.replace("t", " ")
        text = text if len(text) == 19 else text + ":00"
    if text.endswith(" 00:00:00") and len(text) == 19:  # a midnight timestamp is its day
        text = text[:10]
    return text


def rowset(rows: Any) -> frozenset[tuple[str, ...]]:
    out = set()
    for r in rows or []:
        r = r if isinstance(r, list | tuple) else [r]
        out.add(tuple(_norm(v) for v in r))
    return frozenset(out)


def correct(pred: dict[str, Any], gold: frozenset[tuple[str, ...]]) -> bool:
    rows = pred.get("rows")
    if isinstance(rows, dict):  # {"columns": [...], "rows": [...]} shape
        rows = rows.get("rows")
    if rows is not None and rowset(rows) == gold:
        return True
    value = pred.get("value")
    if value is None:
        return False
    cand = rowset(value if isinstance(value, list) else [value])
    if cand == gold:
        return True
    # a one-column gold answer matched by one column of the answer rows
    if rows and gold and all(len(g) == 1 for g in gold):
        width = max(len(r) if isinstance(r, list | tuple) else 1 for r in rows)
        for i in range(width):
            col = rowset([[r[i] if isinstance(r, list | tuple) else r] for r in rows])
            if col == gold:
                return True
    return False


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--split", choices=["train", "valid"], default="train")
    ap.add_argument("--patients", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=0, help="a random sample of this many questions")
    ap.add_argument("--db", default=None, help="an existing EHRSQL-shaped SQLite file")
    ap.add_argument("--out", default=None, help="write per-question results (JSONL) here")
    args = ap.parse_args()

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "HF_HUB_OFFLINE": "1"}
    work = Path(tempfile.mkdtemp(prefix="bench_ehrsql_"))
    db_path = Path(args.db) if args.db else work / "mimic_iv.sqlite"
    if not args.db:
        t = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "clinbridge",
                "synth",
                "mimic",
                "--patients",
                str(args.patients),
                "--seed",
                str(args.seed),
                "--db",
                f"sqlite:///{db_path}",
            ],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        print(
            f"generated {db_path} ({args.patients} patients, seed {args.seed}) in {time.perf_counter() - t:.1f} s"
        )

    questions = load_split(args.split)
    if args.limit:
        random.Random(args.seed).shuffle(questions)
        questions = questions[: args.limit]
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    gold: dict[str, frozenset[tuple[str, ...]] | None] = {}
    nonempty = answerable = 0
    for q in questions:
        if q["sql"] is None:
            gold[q["id"]] = None
            continue
        answerable += 1
        try:
            rows = con.execute(gold_sql(q["sql"])).fetchall()
        except sqlite3.Error:
            rows = []
        gold[q["id"]] = rowset(rows)
        nonempty += bool(rows) and not all(v is None for r in rows for v in r)
    con.close()

    batch = work / "batch.jsonl"
    batch.write_text(
        "".join(json.dumps({"id": q["id"], "question": q["question"]}) + "\n" for q in questions)
    )
    out = work / "answers.jsonl"
    t = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "clinbridge",
            "ask",
            "--batch",
            str(batch),
            "--db",
            f"sqlite:///{db_path}",
            "--now",
            NOW,
            "--out",
            str(out),
        ],
        check=True,
        env=env,
    )
    wall = time.perf_counter() - t
    preds = {p["id"]: p for p in map(json.loads, out.read_text().splitlines())}

    per: list[dict[str, Any]] = []
    for q in questions:
        p = preds[q["id"]]
        g = gold[q["id"]]
        answered = p["decision"] == "accept"
        ok = answered and g is not None and correct(p, g)
        per.append(
            {
                "id": q["id"],
                "family": family(q["sql"]),
                "template": q.get("template"),
                "answerable": g is not None,
                "answered": answered,
                "correct": ok,
                "ms": p.get("ms") or 0.0,
                "question": q["question"],
                "reason": p.get("reason"),
                "value": p.get("value") if answered else None,
                "gold": sorted(g)[:5] if answered and g is not None else None,
            }
        )
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in per))

    def score(rows: list[dict[str, Any]], c: int) -> float:
        s = 0.0
        for r in rows:
            if r["answerable"]:
                s += 1 if r["correct"] else (-c if r["answered"] else 0)
            else:
                s += -c if r["answered"] else 1
        return 100 * s / max(1, len(rows))

    n = len(per)
    answered = [r for r in per if r["answered"]]
    ms = [r["ms"] for r in per]
    print(
        f"EHRSQL-2024 {args.split}: {n} questions ({answerable} answerable, {n - answerable} unanswerable)"
    )
    print(
        f"gold SQL non-empty on the generated DB: {nonempty}/{answerable} = {100 * nonempty / max(1, answerable):.1f} %"
    )
    print(f"RS(0) {score(per, 0):.2f}  RS(5) {score(per, 5):.2f}  RS(10) {score(per, 10):.2f}")
    acc = sum(r["correct"] for r in answered) / max(1, len(answered))
    print(
        f"answered {len(answered)}/{n} (coverage {100 * len(answered) / max(1, n):.1f} %), "
        f"accuracy on answered {100 * acc:.1f} %, wrong answers {len(answered) - sum(r['correct'] for r in answered)}"
    )
    unans = [r for r in per if not r["answerable"]]
    print(f"unanswerable abstained: {sum(not r['answered'] for r in unans)}/{len(unans)}")
    print(
        f"latency per question: p50 {pct(ms, 0.5):.0f} ms, p95 {pct(ms, 0.95):.0f} ms (batch wall {wall:.0f} s)"
    )
    fams: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for r in per:
        fams[r["family"]].append(r)
    print(f"\n{'family':<44} {'n':>4} {'answered':>8} {'correct':>7} {'wrong':>5} {'RS(10)':>7}")
    for f, rows in sorted(fams.items(), key=lambda kv: -len(kv[1])):
        a = sum(r["answered"] for r in rows)
        c = sum(r["correct"] for r in rows)
        print(
            f"{f:<44} {len(rows):>4} {a:>8} {c:>7} {a - c if rows[0]['answerable'] else a:>5} {score(rows, 10):>7.1f}"
        )


if __name__ == "__main__":
    main()
