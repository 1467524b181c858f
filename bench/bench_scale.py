"""Scale curve on PostgreSQL: load time and per-question p50/p95 at 1k, 10k and 100k patients.

    nice -n 10 python bench/bench_scale.py [--sizes 1000,10000,100000] [--repeats 3]
        [--budget 1500] [--json figures.json] [--keep]

For each size, a fresh database ``cb_scale_<n>`` on 127.0.0.1:5432 receives the synthetic OMOP
CDM (``generate_omop``: COPY, then the OHDSI indexes, then ANALYZE). The bench then connects
read-only, as a user would, and times

* the first question, which builds the understanding lexicon (once per database, then cached),
* a FIXED question set (12 plain-language dev questions of tests/data/devset/synth.jsonl,
  population and patient level) asked ``--repeats`` times each: p50/p95 per size,
* the golden synthetic plans (tests/engine/plans_synth) through ``ask_plan``: p50/p95,
* sequential scans of fact tables per question (pg_stat_user_tables, read before and after the
  question loop; lexicon building is outside the window),

and prints the ratios to the smallest size (goal: 100x the data costs <= 10x the latency).
A size whose load is predicted to exceed ``--budget`` seconds is skipped and said so.
Each database is dropped at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from clinbridge.api import connect
from clinbridge.engine.plan import QueryPlan
from clinbridge.settings import Settings
from clinbridge.synthetic.omop import generate_omop

ROOT = Path(__file__).resolve().parent.parent
SERVER = "postgresql://postgres@127.0.0.1:5432"
# A fixed set: dev-split questions (the sealed 'blind' split is not used), every category the
# parser answers today. Patient 72 exists at every size (ids are 1..N).
QUESTION_IDS = (
    "sy-001", "sy-002", "sy-004", "sy-007", "sy-008", "sy-010",
    "sy-013", "sy-016", "sy-019", "sy-020", "sy-031", "sy-038",
)  # fmt: skip
FACT_TABLES = (
    "person", "observation_period", "visit_occurrence", "condition_occurrence", "drug_exposure",
    "measurement", "observation", "procedure_occurrence", "death",
)  # fmt: skip


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def questions() -> list[dict[str, Any]]:
    rows = [
        json.loads(line)
        for line in (ROOT / "tests/data/devset/synth.jsonl").read_text().splitlines()
        if line.strip()
    ]
    by_id = {r["id"]: r for r in rows}
    return [by_id[i] for i in QUESTION_IDS]


def plans() -> dict[str, QueryPlan]:
    return {
        p.stem: QueryPlan.from_json(p.read_bytes())
        for p in sorted((ROOT / "tests/engine/plans_synth").glob("*.json"))
    }


def admin_exec(sql: str) -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/test", autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql)


def seq_scans(url: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT relname, seq_scan FROM pg_stat_user_tables WHERE schemaname = 'public'"
        ).fetchall()
    return {str(r[0]): int(r[1]) for r in rows}


def run_size(n: int, repeats: int, cache: str) -> dict[str, Any]:
    name = f"cb_scale_{n}"
    url = f"{SERVER}/{name}"
    admin_exec(f'DROP DATABASE IF EXISTS "{name}"')
    admin_exec(f'CREATE DATABASE "{name}"')
    t0 = time.perf_counter()
    step = max(1, n // 10)

    def progress(done: int, total: int) -> None:
        if done % step < 1000 or done == total:  # about every 10 % (blocks are 1,000 patients)
            print(
                f"[{n:>7} patients] written {done:,}/{total:,} patients "
                f"after {time.perf_counter() - t0:.0f} s",
                flush=True,
            )

    report = generate_omop(url, patients=n, seed=1, progress=progress)
    load_s = time.perf_counter() - t0
    print(
        f"[{n:>7} patients] loaded {report.total_rows:,} rows in {load_s:.1f} s "
        f"(generate {report.seconds_generate:.1f} s, write+index {report.seconds_write:.1f} s)",
        flush=True,
    )
    settings = Settings(now="2025-01-01")
    out: dict[str, Any] = {"patients": n, "rows": report.total_rows, "load_s": load_s}
    with connect(url, settings=settings, cache_dir=cache) as conn:
        qs = questions()
        t0 = time.perf_counter()
        first = conn.ask(qs[0]["question"], patient_id=qs[0]["patient_id"], now=qs[0]["now"])
        out["first_question_s"] = time.perf_counter() - t0  # includes building the lexicon
        before = seq_scans(url)
        per_q: dict[str, list[float]] = {}
        decisions: dict[str, str] = {}
        for _ in range(repeats):
            for q in qs:
                t0 = time.perf_counter()
                a = conn.ask(q["question"], patient_id=q["patient_id"], now=q["now"])
                per_q.setdefault(q["id"], []).append((time.perf_counter() - t0) * 1000)
                decisions[q["id"]] = a.decision
        after = seq_scans(url)
        asked = repeats * len(qs)
        out["seq_scans_per_question"] = {
            t: round((after.get(t, 0) - before.get(t, 0)) / asked, 2)
            for t in after
            if after.get(t, 0) - before.get(t, 0)
        }
        times = [t for v in per_q.values() for t in v]
        out["question_p50_ms"] = statistics.median(times)
        out["question_p95_ms"] = pct(times, 0.95)
        out["per_question_p50_ms"] = {k: statistics.median(v) for k, v in per_q.items()}
        # population questions read every matching fact row (linear in the data by nature);
        # patient questions go through the person_id indexes and should stay flat
        for level in ("population", "patient"):
            level_times = [
                t
                for q in qs
                if (q["patient_id"] is None) == (level == "population")
                for t in per_q[q["id"]]
            ]
            if level_times:
                out[f"{level}_p50_ms"] = statistics.median(level_times)
        out["accepted"] = sum(d == "accept" for d in decisions.values())
        out["first_decision"] = first.decision
        plan_times: list[float] = []
        for plan in plans().values():
            conn.ask_plan(plan)  # warm
            for _ in range(repeats):
                t0 = time.perf_counter()
                conn.ask_plan(plan)
                plan_times.append((time.perf_counter() - t0) * 1000)
        out["plan_p50_ms"] = statistics.median(plan_times)
        out["plan_p95_ms"] = pct(plan_times, 0.95)
    print(
        f"[{n:>7} patients] first question (builds lexicon) {out['first_question_s']:.2f} s; "
        f"questions={len(qs)}x{repeats} accepted={out['accepted']}/{len(qs)} "
        f"p50={out['question_p50_ms']:.1f} ms p95={out['question_p95_ms']:.1f} ms; "
        f"plans p50={out['plan_p50_ms']:.1f} ms p95={out['plan_p95_ms']:.1f} ms",
        flush=True,
    )
    print(
        f"[{n:>7} patients] p50 by level: "
        + ", ".join(
            f"{level}={out[f'{level}_p50_ms']:.1f} ms"
            for level in ("population", "patient")
            if f"{level}_p50_ms" in out
        ),
        flush=True,
    )
    slowest = sorted(out["per_question_p50_ms"].items(), key=lambda kv: -kv[1])[:3]
    print(
        f"[{n:>7} patients] slowest questions (p50 ms): "
        + ", ".join(f"{k}={v:.0f}" for k, v in slowest),
        flush=True,
    )
    print(
        f"[{n:>7} patients] sequential scans per question: {out['seq_scans_per_question'] or 'none'}",
        flush=True,
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--budget", type=float, default=1500.0, help="skip a size predicted longer (s)")
    ap.add_argument("--json", help="write the figures as JSON to this file")
    ap.add_argument("--keep", action="store_true", help="keep the cb_scale_* databases")
    args = ap.parse_args()
    # a bounded run (`timeout ...`) still reports what it measured and drops its database
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    sizes = [int(s) for s in args.sizes.split(",") if s]
    results: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as cache:
            for n in sizes:
                if results:
                    last = results[-1]
                    predicted = last["load_s"] * n / last["patients"]
                    if predicted > args.budget:
                        print(
                            f"[{n:>7} patients] skipped: load predicted {predicted:.0f} s > "
                            f"budget {args.budget:.0f} s"
                        )
                        continue
                try:
                    results.append(run_size(n, args.repeats, cache))
                finally:
                    if not args.keep:
                        admin_exec(f'DROP DATABASE IF EXISTS "cb_scale_{n}" WITH (FORCE)')
    except Exception as exc:  # report what was measured, then fail
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        raise
    finally:
        if results:
            base = results[0]
            print(f"\n{'patients':>9} {'rows':>12} {'load s':>8} {'q p50':>8} {'q p95':>8} "
                  f"{'plan p50':>9} {'plan p95':>9} {'data x':>7} {'q p50 x':>8} {'q p95 x':>8}")  # fmt: skip
            for r in results:
                print(
                    f"{r['patients']:>9} {r['rows']:>12,} {r['load_s']:>8.1f} "
                    f"{r['question_p50_ms']:>8.1f} {r['question_p95_ms']:>8.1f} "
                    f"{r['plan_p50_ms']:>9.1f} {r['plan_p95_ms']:>9.1f} "
                    f"{r['patients'] / base['patients']:>7.0f} "
                    f"{r['question_p50_ms'] / base['question_p50_ms']:>8.2f} "
                    f"{r['question_p95_ms'] / base['question_p95_ms']:>8.2f}"
                )
            last = results[-1]
            if last is not base:
                data_x = last["patients"] / base["patients"]
                lat_x = last["question_p50_ms"] / base["question_p50_ms"]
                print(
                    f"ratio: {data_x:.0f}x the data costs {lat_x:.2f}x the p50 question latency "
                    f"(goal: <= {data_x**0.5:.1f}x for {data_x:.0f}x the data, i.e. 10x for 100x: "
                    f"{'met' if lat_x <= data_x**0.5 else 'NOT met'})"
                )
                for level in ("population", "patient"):
                    key = f"{level}_p50_ms"
                    if key in last and key in base:
                        print(
                            f"ratio ({level} questions): {data_x:.0f}x the data costs "
                            f"{last[key] / base[key]:.2f}x the p50 latency"
                        )
        if args.json:
            figures = []
            for r in results:
                n = r["patients"]
                figures += [
                    {"name": f"scale load {n} patients", "value": round(r["load_s"], 1), "unit": "s"},
                    {"name": f"scale question p50 {n}", "value": round(r["question_p50_ms"], 1), "unit": "ms"},
                    {"name": f"scale question p95 {n}", "value": round(r["question_p95_ms"], 1), "unit": "ms"},
                    {"name": f"scale plan p50 {n}", "value": round(r["plan_p50_ms"], 1), "unit": "ms"},
                    {"name": f"scale plan p95 {n}", "value": round(r["plan_p95_ms"], 1), "unit": "ms"},
                    {"name": f"scale first question (lexicon build) {n}", "value": round(r["first_question_s"], 2), "unit": "s"},
                ]  # fmt: skip
                figures += [
                    {"name": f"scale {level} question p50 {n}", "value": round(r[f"{level}_p50_ms"], 1), "unit": "ms"}
                    for level in ("population", "patient")
                    if f"{level}_p50_ms" in r
                ]  # fmt: skip
            Path(args.json).write_text(json.dumps({"figures": figures, "raw": results}, indent=2))


if __name__ == "__main__":
    main()
