"""Bench the time to an abstention ("cannot answer") and to an answer, cold and warm.

Cold: a fresh Python process connects to the Eunomia DuckDB and asks one question; printed are
the whole process time and the ask() call alone, with the lexicon (and its persisted vectors)
already on disk and with an empty cache. Warm: one process asks each question repeatedly; p50
and p95 per kind. Questions that abstain are ones whose words reach the embedding fallback.

    python bench/bench_abstain_latency.py [--workdir DIR] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

ABSTAIN = [
    "How many patients had a frobnicated widget syndrome?",
    "What is the average zorblax level in women?",
    "How many patients had their quantum flux measured after a transfer?",
    "Which patients had a purple elbow rash last spring?",
]
ANSWER = [
    "How many women had a GI bleed in 2015?",
    "How many patients are there?",
    "How many patients were exposed to celecoxib?",
    "What is the average age of patients with gastrointestinal hemorrhage?",
]

_CHILD = """
import json, sys, time
t0 = time.perf_counter()
import clinbridge
conn = clinbridge.connect({url!r})
conn.understander
t1 = time.perf_counter()
a = conn.ask({question!r})
t2 = time.perf_counter()
print(json.dumps({{"decision": a.decision, "reason": a.reason_code, "setup": t1 - t0, "ask": t2 - t1}}))
"""


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


def cold(url: str, question: str, cache: Path) -> dict[str, float | str]:
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT / "src"),
        CLINBRIDGE_CACHE_DIR=str(cache),
        HF_HUB_OFFLINE="1",
    )
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD.format(url=url, question=question)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    total = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"child failed: {proc.stderr[-2000:]}")
    out: dict[str, float | str] = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process"] = total
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workdir", default=None, help="where the database is built")
    parser.add_argument("--runs", type=int, default=5, help="warm repetitions per question")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    import clinbridge
    from clinbridge.adapters.omop import load_omop_csv
    from clinbridge.settings import Settings

    work = Path(args.workdir or tempfile.mkdtemp(prefix="cb-bench-abstain-"))
    work.mkdir(parents=True, exist_ok=True)
    db = work / "eunomia.duckdb"
    if not db.exists():
        load_omop_csv(
            ROOT / "synthetic_data" / "eunomia-gibleed-5.3", f"duckdb:///{db}", if_exists="replace"
        )
    url = f"duckdb:///{db}"

    print("== cold process (one question each; 'ask' = the ask() call, 'process' = everything)")
    cache = work / "persisted"
    cold(url, ABSTAIN[0], cache)  # builds the lexicon and its vectors once
    for kind, questions in (("abstain", ABSTAIN[:2]), ("answer", ANSWER[:2])):
        for q in questions:
            for label, folder in (
                ("persisted lexicon", cache),
                ("empty cache", Path(tempfile.mkdtemp(dir=work))),
            ):
                r = cold(url, q, folder)
                print(
                    f"{kind:8} {label:18} decision={r['decision']:8} ask {float(r['ask']):6.2f} s"
                    f"  connect+lexicon {float(r['setup']):6.2f} s  process {float(r['process']):6.2f} s"
                    f"  | {q}"
                )

    print()
    print(f"== warm process (persisted lexicon, {args.runs} runs per question)")
    settings = Settings.from_env(cache_dir=str(cache))
    with clinbridge.connect(url, settings=settings) as conn:
        conn.ask(ANSWER[1])
        for kind, questions in (("abstain", ABSTAIN), ("answer", ANSWER)):
            times: list[float] = []
            decisions: set[str] = set()
            for q in questions:
                for _ in range(args.runs):
                    t = time.perf_counter()
                    a = conn.ask(q)
                    times.append(time.perf_counter() - t)
                    decisions.add(a.decision)
            print(
                f"{kind:8} n={len(times):3}  p50 {statistics.median(times) * 1000:7.1f} ms  "
                f"p95 {_pct(times, 0.95) * 1000:7.1f} ms  decisions {sorted(decisions)}"
            )
    print("goal: a 'cannot answer' in <= 1 s once the lexicon exists, in a new process too")


if __name__ == "__main__":
    main()
