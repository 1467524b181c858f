"""Gold-parameter accuracy of every calculator spec on MedCalc-Bench (one-shot + train subset).

Prints, per calculator: rows, answers within the label's limits, abstentions, and every
disagreement with its explanation (the documented label error from tests/calculators/<id>.yaml
when there is one). Then overall figures and throughput for the whole train file.

    python bench/bench_calculators.py [--verbose]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from clinbridge.calculators import list_calculators  # noqa: E402
from clinbridge.calculators.medcalc import read_medcalc_csv, run_row, run_rows  # noqa: E402

DATA = ROOT / "tests" / "data" / "medcalc"
GOLDEN = ROOT / "tests" / "calculators"
FILES = (("one_shot", "one_shot_data_verified.csv"), ("train", "train_subset_v1.0.csv"))


def _documented() -> dict[str, dict[str, Any]]:
    known: dict[str, dict[str, Any]] = {}
    for p in GOLDEN.glob("*.yaml"):
        doc = yaml.safe_load(p.read_text()) or {}
        for e in doc.get("label_errors", []) or []:
            known[f"{doc['calculator']}:{e['row']}"] = e
    return known


def _same(answer: Any, correct: Any) -> bool:
    if correct == "abstain":
        return answer is None
    try:
        return abs(float(answer) - float(correct)) <= 1e-3 * max(1.0, abs(float(correct)))
    except (TypeError, ValueError):
        return str(answer) == str(correct) or list(answer or []) == correct


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--verbose", action="store_true", help="print the tool's explanation too")
    args = ap.parse_args()

    t0 = time.perf_counter()
    calcs = {c.id: c for c in list_calculators()}
    load_s = time.perf_counter() - t0
    known = _documented()
    stats: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    lines: list[str] = []
    adjusted: list[str] = []
    for tag, name in FILES:
        for row in read_medcalc_csv(DATA / name):
            if row.calculator_id not in calcs:
                stats[row.calculator_id]["no_spec"] += 1
                continue
            s = stats[row.calculator_id]
            s[f"{tag}_rows"] += 1
            out = run_row(row)
            key = f"{row.calculator_id}:{tag}:{row.row}"
            for i in out.ignored:
                adjusted.append(
                    f"  [{row.calculator_id:>2}] {tag}:{row.row}: ignored foreign entity {i['key'][:60]!r}"
                )
            for r in out.reinterpreted:
                adjusted.append(
                    f"  [{row.calculator_id:>2}] {tag}:{row.row}: {r['input']} unit {r['given']!r} "
                    f"read as {r['read_as']!r}"
                )
            if out.match:
                s[f"{tag}_agree"] += 1
                continue
            doc = known.get(key)
            if doc is not None and _same(out.answer, doc["correct"]):
                s[f"{tag}_label_error"] += 1
                verdict = f"LABEL ERROR (documented): {doc['why']}"
            else:
                s[f"{tag}_unexplained"] += 1
                verdict = "UNEXPLAINED: " + (out.reason or "answer differs from the label")
            lines.append(
                f"  [{row.calculator_id:>2}] {tag}:{row.row}: tool={out.answer} label={row.answer} "
                f"({out.decision}) -> {verdict}"
            )
            if args.verbose and out.explanation:
                lines.extend("        " + ln for ln in out.explanation.splitlines())

    print(f"{len(calcs)} specs compiled in {load_s:.2f} s\n")
    hdr = f"{'id':>3}  {'calculator':<52} {'1-shot':>7} {'train':>11} {'label err':>9} {'unexpl':>6} {'acc*':>6}"
    print(hdr)
    print("-" * len(hdr))
    tot: dict[str, int] = defaultdict(int)
    for cid in sorted(calcs):
        s = stats[cid]
        for k, v in s.items():
            tot[k] += v
        n = s["one_shot_rows"] + s["train_rows"]
        good = s["one_shot_agree"] + s["train_agree"]
        err = s["one_shot_label_error"] + s["train_label_error"]
        unexpl = s["one_shot_unexplained"] + s["train_unexplained"]
        right = n - err  # rows whose label is right
        acc = f"{100 * good / right:.1f}%" if right else "-"
        print(
            f"{cid:>3}  {calcs[cid].name[:52]:<52} {s['one_shot_agree']:>3}/{s['one_shot_rows']:<3} "
            f"{s['train_agree']:>5}/{s['train_rows']:<5} {err:>9} {unexpl:>6} {acc:>6}"
        )
    n = tot["one_shot_rows"] + tot["train_rows"]
    good = tot["one_shot_agree"] + tot["train_agree"]
    err = tot["one_shot_label_error"] + tot["train_label_error"]
    print("-" * len(hdr))
    print(f"one-shot: {tot['one_shot_agree']}/{tot['one_shot_rows']} agree with the label")
    print(f"train subset: {tot['train_agree']}/{tot['train_rows']} agree with the label")
    print(f"overall raw agreement: {good}/{n} = {100 * good / max(n, 1):.2f}%")
    print(
        f"documented label errors (tool gives the documented correct value): {err}; "
        f"accuracy where the label is right (acc*): {good}/{n - err} = {100 * good / max(n - err, 1):.2f}%"
    )
    print(f"unexplained disagreements: {tot['one_shot_unexplained'] + tot['train_unexplained']}")
    no_spec = sum(v["no_spec"] for v in stats.values())
    if no_spec:
        missing = sorted(cid for cid, v in stats.items() if v["no_spec"])
        print(f"rows of calculators without a spec: {no_spec} (ids {missing})")
    print("\nDisagreements:")
    print("\n".join(lines) if lines else "  none")
    print(
        f"\nGold-parameter adjustments declared in the specs (medcalc_foreign, medcalc_units), "
        f"each reported in the row's output: {len(adjusted)}"
    )
    print("\n".join(adjusted) if adjusted else "  none")

    rows = list(read_medcalc_csv(DATA / "train_subset_v1.0.csv"))
    best = 0.0
    for _ in range(3):
        t = time.perf_counter()
        for _out in run_rows(rows):
            pass
        best = max(best, len(rows) / (time.perf_counter() - t))
    t = time.perf_counter()
    count = sum(1 for _ in read_medcalc_csv(DATA / "train_subset_v1.0.csv"))
    read_s = time.perf_counter() - t
    print(
        f"\nthroughput (gold mode, whole train file, {len(rows)} rows, best of 3): {best:.0f} rows/s"
        f" ({1000 / best:.2f} ms/row); reading the CSV: {count / read_s:.0f} rows/s"
    )


if __name__ == "__main__":
    main()
