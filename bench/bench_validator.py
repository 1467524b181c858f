"""Validator overhead and mutation-augmentation yield on Eunomia GiBleed (DuckDB, no LLM).

    python bench/bench_validator.py [--repeats 3]

For every plan in tests/engine/plans/: the engine's run_plan time vs the validator's checks time
(p50/p95 and the ratio), the decision; then augmentation: one-change variants generated, kept
(compiled, executed, validated, non-empty) and the time per kept variant.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from clinbridge.adapters import describe
from clinbridge.adapters.omop.loader import load_omop_csv
from clinbridge.db import Database
from clinbridge.engine.examples import Example, augment, mutations
from clinbridge.engine.plan import QueryPlan
from clinbridge.engine.resolve import Resolver
from clinbridge.engine.run import run_plan
from clinbridge.engine.validate import decide, validate
from clinbridge.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
PLANS = {
    p.stem: QueryPlan.from_json(p.read_bytes())
    for p in sorted((ROOT / "tests/engine/plans").glob("*.json"))
}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    settings = Settings(now="2019-07-01")
    with tempfile.TemporaryDirectory() as tmp:
        url = f"duckdb:///{tmp}/eunomia.duckdb"
        load_omop_csv(ROOT / "synthetic_data" / "eunomia-gibleed-5.3", url, if_exists="replace")
        with Database.open(url) as db:
            catalog = describe(db)
            resolver = Resolver(db, catalog)
            run_ms: list[float] = []
            check_ms: list[float] = []
            decisions: Counter[str] = Counter()
            for name, plan in PLANS.items():
                for i in range(args.repeats):
                    t0 = time.perf_counter()
                    answer = run_plan(db, catalog, plan, settings=settings, resolver=resolver)
                    t1 = time.perf_counter()
                    checks = validate(
                        answer, plan=plan, catalog=catalog, db=db, question=plan.question
                    )
                    t2 = time.perf_counter()
                    if i:  # the first run warms caches
                        run_ms.append((t1 - t0) * 1000)
                        check_ms.append((t2 - t1) * 1000)
                decision, reason, detail = decide(list(answer.checks) + checks)
                decisions[decision if decision == "accept" else f"abstain:{reason}"] += 1
                if decision != "accept":
                    print(f"  {name}: {reason}: {detail}")
            print(f"{len(PLANS)} plans × {args.repeats - 1} timed runs on Eunomia/DuckDB")
            print(f"run_plan  p50 {pct(run_ms, 0.5):7.1f} ms  p95 {pct(run_ms, 0.95):7.1f} ms")
            print(
                f"validate  p50 {pct(check_ms, 0.5):7.1f} ms  p95 {pct(check_ms, 0.95):7.1f} ms  "
                f"(ratio to run_plan p50: {pct(check_ms, 0.5) / pct(run_ms, 0.5):.2f})"
            )
            print("decisions:", dict(decisions))
            generated = kept = 0
            kinds: Counter[str] = Counter()
            t0 = time.perf_counter()
            for name, plan in PLANS.items():
                generated += len(mutations(plan, catalog=catalog, db=db))
                out = augment(
                    Example(id=name, question=plan.question or name, plan=plan),
                    catalog=catalog,
                    db=db,
                    settings=settings,
                    limit=100,
                )
                kept += len(out)
                kinds.update((k.change or "").split(" ")[0] for k in out)
            secs = time.perf_counter() - t0
            print(
                f"augmentation: {generated} one-change variants, {kept} kept ({kept / max(generated, 1):.0%}) "
                f"in {secs:.1f} s ({secs / max(kept, 1) * 1000:.0f} ms per kept variant); kept by kind {dict(kinds)}"
            )
            print(
                "median validate share of run_plan+validate:",
                f"{statistics.median(c / (r + c) for r, c in zip(run_ms, check_ms, strict=True)):.0%}",
            )


if __name__ == "__main__":
    main()
