"""Bench the built-in reader on the parser dev questions (issue 8) over three databases.

Eunomia GiBleed, Eunomia Synthea27Nj (OMOP 5.4) and the FHIR sample loaded with
``clinbridge load fhir``; questions and hand-SQL gold in ``tests/data/devset_parser/``. Prints
accuracy, coverage and wrong-accepted per database, category and split (dev / sealed), and
p50/p95 latency for answered and abstained questions.

    python bench/bench_understand_parser.py [--workdir DIR] [--embeddings on|off] [--show]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "understand"))

from devset_eval import Score, evaluate, format_table  # noqa: E402

DEVSET = ROOT / "tests" / "data" / "devset_parser" / "devset_parser.jsonl"


def build(folder: Path) -> dict[str, str]:
    from clinbridge.adapters.omop import load_omop_csv

    urls = {}
    for name, src in (
        ("eunomia", ROOT / "synthetic_data" / "eunomia-gibleed-5.3"),
        ("s27", ROOT / "tests" / "data" / "eunomia-synthea27nj-5.4"),
    ):
        path = folder / f"{name}.duckdb"
        if not path.exists():
            load_omop_csv(src, f"duckdb:///{path}", if_exists="replace")
        urls[name] = f"duckdb:///{path}"
    fhir = folder / "fhir.duckdb"
    if not fhir.exists():
        from clinbridge.adapters.fhir.loader import load_fhir

        load_fhir(
            [
                ROOT / "tests" / "data" / "fhir" / "bundles",
                ROOT / "tests" / "data" / "fhir" / "ndjson",
            ],
            f"duckdb:///{fhir}",
        )
    urls["fhir"] = f"duckdb:///{fhir}"
    return urls


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--embeddings", default="on", choices=["on", "off"])
    ap.add_argument("--show", action="store_true", help="print each dev-split miss")
    args = ap.parse_args()

    import clinbridge
    from clinbridge.settings import Settings

    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="cb-bench-parser-"))
    work.mkdir(parents=True, exist_ok=True)
    urls = build(work)
    rows = [json.loads(line) for line in DEVSET.read_text().splitlines() if line.strip()]
    total = Score()
    by_db = Score()
    ambiguous_named = 0
    for name, url in urls.items():
        mine = [r for r in rows if r["db"] == name]
        with clinbridge.connect(
            url, settings=Settings.from_env(embeddings=args.embeddings), cache_dir=work / "cache"
        ) as conn:
            conn.ask("How many patients are there?")
            t = time.perf_counter()
            score = evaluate(conn, mine)
            del t
            for r, o in zip(mine, score.outcomes, strict=True):
                if r.get("expect_reason") and o.decision == "abstain":
                    a = conn.ask(r["question"], patient_id=r.get("patient_id"), now=r.get("now"))
                    ambiguous_named += a.reason_code == r["expect_reason"]
                if args.show and (not o.correct) and o.split == "dev":
                    print(
                        f"MISS {o.id} [{o.decision}] {r['question']!r} → {o.value!r} (gold {o.gold!r}) {o.reason or ''}"
                    )
        for o in score.outcomes:
            total.outcomes.append(o)
            by_db.outcomes.append(o.__class__(**{**o.__dict__, "category": name}))
    print(format_table(by_db.table(), "== by database"))
    print(format_table(total.table(), "== by category"))
    print(format_table(total.table("split"), "== by split (sealed: reported, never tuned on)"))
    want = sum(1 for r in rows if r.get("expect_reason"))
    print(f"ambiguous questions abstained with reason 'ambiguous': {ambiguous_named}/{want}")
    acc = [o.seconds for o in total.outcomes if o.decision == "accept"]
    abst = [o.seconds for o in total.outcomes if o.decision != "accept"]
    for label, xs in (("answered", acc), ("abstained", abst)):
        if xs:
            print(
                f"latency {label} (n={len(xs)}): p50 {statistics.median(xs) * 1000:.0f} ms, "
                f"p95 {_pct(xs, 0.95) * 1000:.0f} ms, max {max(xs) * 1000:.0f} ms"
            )


if __name__ == "__main__":
    main()
