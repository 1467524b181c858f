"""Bench the built-in understanding end to end on the dev set (DuckDB, no LLM).

Prints accuracy, coverage and wrong answers per category and split (dev / blind), p50/p95
per-question latency (question → checked answer, and understanding alone), and the cold start
of ``clinbridge ask`` to its first answer (a fresh process; first with an empty lexicon cache,
then with the cache warm).

    python bench/bench_understand.py [--set eunomia|synth|all] [--embeddings on|off]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "understand"))

from devset_eval import Score, evaluate, format_table, load_devset  # noqa: E402


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return values[k]


def build_databases(folder: Path) -> dict[str, str]:
    from clinbridge.adapters.omop import load_omop_csv

    urls: dict[str, str] = {}
    eu = folder / "eunomia.duckdb"
    if not eu.exists():
        t = time.perf_counter()
        load_omop_csv(
            ROOT / "synthetic_data" / "eunomia-gibleed-5.3", f"duckdb:///{eu}", if_exists="replace"
        )
        print(f"built Eunomia DuckDB in {time.perf_counter() - t:.1f} s")
    urls["eunomia"] = f"duckdb:///{eu}"
    try:
        from clinbridge.synthetic.omop import generate_omop
    except ImportError:
        print("synthetic OMOP generator not available: synth dev set skipped")
        return urls
    sy = folder / "synth.duckdb"
    if not sy.exists():
        t = time.perf_counter()
        generate_omop(f"duckdb:///{sy}", patients=300, seed=1)
        print(f"built synthetic OMOP DuckDB in {time.perf_counter() - t:.1f} s")
    urls["synth"] = f"duckdb:///{sy}"
    return urls


def cold_start(url: str, cache: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), CLINBRIDGE_CACHE_DIR=str(cache))
    start = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "clinbridge",
            "ask",
            "How many women had a GI bleed in 2015?",
            "--db",
            url,
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0 or "answer:" not in proc.stdout:
        print(proc.stdout, proc.stderr)
        raise SystemExit("clinbridge ask failed")
    return elapsed


_BREAKDOWN = """
import time, json
t0 = time.perf_counter()
import clinbridge.api, clinbridge.adapters, clinbridge.engine.run
t1 = time.perf_counter()
conn = clinbridge.api.connect({url!r})
t2 = time.perf_counter()
conn.understander
t3 = time.perf_counter()
a = conn.ask("How many women had a GI bleed in 2015?")
t4 = time.perf_counter()
assert a.decision == "accept"
print(json.dumps({{"imports": t1 - t0, "connect+describe": t2 - t1, "lexicon": t3 - t2, "first ask": t4 - t3}}))
"""


def _cold_breakdown(url: str, cache: Path) -> dict[str, float]:
    import json

    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), CLINBRIDGE_CACHE_DIR=str(cache))
    out: dict[str, float] = {}
    for attempt in ("empty cache", "warm cache"):
        proc = subprocess.run(
            [sys.executable, "-c", _BREAKDOWN.format(url=url)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        for k, v in json.loads(proc.stdout.strip().splitlines()[-1]).items():
            out[f"{k} ({attempt})"] = v
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", default="all", choices=["all", "eunomia", "synth"])
    parser.add_argument("--embeddings", default="on", choices=["on", "off"])
    parser.add_argument(
        "--workdir", default=None, help="where the databases are built (default: a temp dir)"
    )
    args = parser.parse_args()

    import clinbridge
    from clinbridge.settings import Settings

    work = (
        Path(args.workdir)
        if args.workdir
        else Path(tempfile.mkdtemp(prefix="cb-bench-understand-"))
    )
    work.mkdir(parents=True, exist_ok=True)
    urls = build_databases(work)
    names = list(urls) if args.set == "all" else [args.set]
    total = Score()
    understand_s: list[float] = []
    for name in names:
        if name not in urls:
            continue
        rows = load_devset(name)
        settings = Settings.from_env(embeddings=args.embeddings)
        with clinbridge.connect(urls[name], settings=settings, cache_dir=work / "cache") as conn:
            conn.ask("How many patients are there?")  # warm: lexicon, imports, first plan
            score = evaluate(conn, rows)
            for r in rows:
                t = time.perf_counter()
                conn.readings(r["question"], patient_id=r.get("patient_id"), now=r.get("now"))
                understand_s.append(time.perf_counter() - t)
        total.outcomes.extend(score.outcomes)
        print()
        print(format_table(score.table("split"), f"== {name}: by split"))
        print(format_table(score.table(), f"== {name}: by category"))
    print()
    print(format_table(total.table("split"), "== all dev sets: by split"))
    print(format_table(total.table(), "== all dev sets: by category"))
    seconds = [o.seconds for o in total.outcomes]
    print()
    print(
        f"latency question → checked answer (n={len(seconds)}, embeddings {args.embeddings}): "
        f"p50 {statistics.median(seconds) * 1000:.0f} ms, p95 {_pct(seconds, 0.95) * 1000:.0f} ms, "
        f"max {max(seconds) * 1000:.0f} ms  (goal p50 ≤ 200 ms, p95 ≤ 1000 ms)"
    )
    print(
        f"latency understanding only: p50 {statistics.median(understand_s) * 1000:.1f} ms, "
        f"p95 {_pct(understand_s, 0.95) * 1000:.1f} ms"
    )
    breakdown = _cold_breakdown(urls["eunomia"], work / "cold-cache-2")
    print(
        "cold start breakdown (fresh process): "
        + ", ".join(f"{k} {v:.2f} s" for k, v in breakdown.items())
    )
    cache = work / "cold-cache"
    first = cold_start(urls["eunomia"], cache)
    warm = cold_start(urls["eunomia"], cache)
    print(
        f"cold start `clinbridge ask` to first answer: {first:.2f} s with an empty lexicon cache, "
        f"{warm:.2f} s with the cache built (goal ≤ 3 s)"
    )


if __name__ == "__main__":
    main()
