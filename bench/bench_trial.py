"""Trial-table benchmark: load + catalog + one grouped aggregate, and the dev-set accuracy.

For a generated HIE workbook of 532 infants x 1,300 variables (``clinbridge synth trial``):

* ``load``: read the .xlsx (python-calamine), check every cell against the dictionary, write the
  wide table, the long view and the dictionary into a fresh DuckDB file;
* ``catalog``: open it read-only and describe it (1,300 variables);
* ``aggregate``: mean core temperature at 24 h by arm, through compile → guard → execute →
  validate;
* the sum of the three against the 2 s goal, best and median of ``--repeat`` runs, with the
  machine's load average (the development machine is shared);
* the dev set (bench/trial_devset.py): correct / abstained / wrong, open and sealed, numeric
  answers within 5 %, on each ``--seeds`` workbook (gold recomputed by pandas for each), and the
  mean time per question.

Usage::

    python bench/bench_trial.py [--seeds 42,7] [--repeat 3] [--variables 1300]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))


def bench_load(xlsx: Path, work: Path, repeat: int) -> None:
    import clinbridge.api as cb
    from clinbridge.adapters import describe
    from clinbridge.adapters.trial import load_trial
    from clinbridge.db import Database
    from clinbridge.engine.plan import QueryPlan

    plan = QueryPlan.model_validate(
        {
            "measure": {"of": "variable", "variable": "TEMP_24H"},
            "aggregate": {"op": "mean"},
            "group_by": [{"key": "variable", "variable": "Rand_Arm"}],
        }
    )
    totals = []
    cpus = []
    for i in range(repeat):
        url = f"duckdb:///{work / f'load{i}.duckdb'}"
        t0, c0 = time.perf_counter(), time.process_time()
        report = load_trial(xlsx, url)
        t1, c1 = time.perf_counter(), time.process_time()
        db = Database.open(url)
        catalog = describe(db)
        t2, c2 = time.perf_counter(), time.process_time()
        answer = cb.Connection(db, catalog).ask_plan(plan)
        t3, c3 = time.perf_counter(), time.process_time()
        db.close()
        assert answer.accepted and report.reconciled
        totals.append(t3 - t0)
        cpus.append(c3 - c0)
        print(
            f"run {i + 1}: wall load {t1 - t0:.2f} s + catalog {t2 - t1:.2f} s + grouped aggregate "
            f"{t3 - t2:.3f} s = {t3 - t0:.2f} s; CPU {c1 - c0:.2f} + {c2 - c1:.2f} + "
            f"{c3 - c2:.3f} = {c3 - c0:.2f} s  ({report.rows_loaded} x {report.columns_loaded}, "
            f"{len(catalog.variables)} variables, {report.long_rows} long rows)"
        )
    print(f"CPU time (all threads): best {min(cpus):.2f} s, median {statistics.median(cpus):.2f} s")
    load1, _, _ = os.getloadavg()
    print(
        f"load+catalog+aggregate: best {min(totals):.2f} s, median {statistics.median(totals):.2f} s "
        f"(goal <= 2 s; ratio best/goal {min(totals) / 2:.2f}); load average {load1:.1f} "
        f"on {os.cpu_count()} CPUs"
    )
    print(f"answer: {answer.value}")


def bench_devset(xlsx: Path, url: str, label: str) -> None:
    from bench.trial_devset import QUESTIONS, load_gold_frame, score

    import clinbridge.api as cb

    gold = load_gold_frame(xlsx)
    results: dict[bool, list[str]] = {False: [], True: []}
    wrong = []
    times = []
    with cb.connect(url) as conn:
        conn.ask("warm up: how many infants?")
        for q in QUESTIONS:
            t = time.perf_counter()
            answer = conn.ask(q.text)
            times.append(time.perf_counter() - t)
            verdict, why = score(q, answer, gold)
            results[q.sealed].append(verdict)
            if verdict == "wrong":
                wrong.append(f"  q{q.id}{' (sealed)' if q.sealed else ''}: {q.text} — {why}")
    for sealed in (False, True):
        v = results[sealed]
        print(
            f"{label} {'sealed' if sealed else 'open  '}: {v.count('correct')}/{len(v)} correct "
            f"({100 * v.count('correct') / len(v):.1f} %), {v.count('abstained')} abstained, "
            f"{v.count('wrong')} wrong"
        )
    print(f"{label} mean time per question: {1000 * statistics.mean(times):.1f} ms")
    for line in wrong:
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default="42,7")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--variables", type=int, default=1300)
    args = parser.parse_args()
    from clinbridge.adapters.trial import load_trial
    from clinbridge.synthetic.trial import generate_trial

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for k, seed in enumerate(int(s) for s in args.seeds.split(",")):
            xlsx = work / f"hie_{seed}.xlsx"
            t = time.perf_counter()
            generate_trial(seed, variables=args.variables).write_xlsx(xlsx)
            print(f"seed {seed}: generated {xlsx.name} in {time.perf_counter() - t:.1f} s")
            if k == 0:
                bench_load(xlsx, work, args.repeat)
            url = f"duckdb:///{work / f'dev_{seed}.duckdb'}"
            load_trial(xlsx, url)
            bench_devset(xlsx, url, f"seed {seed}")


if __name__ == "__main__":
    main()
