"""Bench the current understanding on devset2: other people's questions over three databases.

Runs every question through the public API (``clinbridge.api.connect(url).ask(question,
patient_id=..., now=...)``) over Eunomia GiBleed (OMOP 5.3), Eunomia Synthea27Nj (OMOP 5.4) and a
FHIR R4 load (Synthea), and prints accuracy, coverage and wrong answers accepted per split, per
database, per category, per voice and per answer type, paraphrase consistency (groups whose
phrasings all got the same outcome) and p50/p95 latency for answered and for abstained questions.

    python bench/bench_understand_open.py                    # open split only (default)
    python bench/bench_understand_open.py --sealed           # open and sealed, reported separately
    python bench/bench_understand_open.py --split sealed     # the sealed split alone
    python bench/bench_understand_open.py --json OUT.json --show-failures

The sealed split's question texts are never printed (only its figures); ``--show-failures`` lists
open-split failures only. Databases are built once under ``$CLINBRIDGE_DEVSET2_DIR`` (default
``~/.cache/clinbridge/devset2``); the lexicon cache goes to ``--workdir`` (a temp dir by default).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "understand"))
sys.path.insert(0, str(ROOT / "tests" / "data" / "devset2"))

from databases import DB_NAMES, database_url  # noqa: E402
from devset2_eval import Outcome, Run, ask_all, format_breakdown, load_devset2  # noqa: E402


def _print_split(name: str, outcomes: list[Outcome]) -> dict[str, Any]:
    rep = Run(outcomes).report()
    o = rep["overall"]
    print()
    print(f"=============== split: {name} ({o['n']} questions)")
    print(
        f"accuracy {o['accuracy']:.1%}  (answerable: {o['answerable_accuracy']:.1%} of "
        f"{o['answerable']}; unanswerable/ambiguous abstained: {o['unanswerable_abstained']:.1%} of "
        f"{o['unanswerable']})  coverage {o['coverage']:.1%}  wrong accepted "
        f"{o['wrong_accepted']} (of which on unanswerable/ambiguous: {o['unanswerable_accepted']})  "
        f"correct answers {o['correct_answers']}  correct abstentions {o['correct_abstentions']} "
        f"(naming the missing thing: {o['abstentions_naming_missing']})  missed {o['missed']}"
    )
    for key, title in (
        ("by_db", "by database"),
        ("by_category", "by category"),
        ("by_voice", "by voice"),
        ("by_answer_type", "by answer type"),
        ("by_db_category", "by database and category"),
    ):
        print()
        print(format_breakdown(rep[key], f"== {name}: {title}"))
    p = rep["paraphrase"]
    print()
    print(
        f"paraphrase consistency: {p['consistent']}/{p['groups']} groups ({p['consistent_rate']:.1%}) "
        f"had the same outcome for every phrasing; {p['all_correct']}/{p['groups']} "
        f"({p['all_correct_rate']:.1%}) right in every phrasing"
    )
    for k, v in rep["latency"].items():
        print(
            f"latency {k:9s} n={v['n']:4d}  p50 {v['p50_ms']:8.1f} ms  p95 {v['p95_ms']:8.1f} ms  "
            f"max {v['max_ms']:8.1f} ms"
        )
    return rep


def ask_rows(
    rows: list[dict[str, Any]], embeddings: str, work: Path
) -> tuple[list[Outcome], dict[str, float]]:
    """Ask every row through the public API, one connection per database; outcomes and warm-up s."""
    import clinbridge.api as cb
    from clinbridge.settings import Settings

    outcomes: list[Outcome] = []
    cold: dict[str, float] = {}
    for db in DB_NAMES:
        mine = [r for r in rows if r["db"] == db]
        if not mine:
            continue
        t = time.perf_counter()
        url = database_url(db)
        build_s = time.perf_counter() - t
        settings = Settings.from_env(embeddings=embeddings)
        t = time.perf_counter()
        with cb.connect(url, settings=settings, cache_dir=work / "cache") as conn:
            conn.ask("How many patients are there?")  # warm: describe, lexicon, imports
            cold[db] = time.perf_counter() - t
            outcomes += ask_all(conn, mine)
        print(
            f"{db}: {len(mine)} questions (database ready in {build_s:.1f} s, connect + first ask {cold[db]:.1f} s)"
        )
    return outcomes, cold


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sealed", action="store_true", help="include the sealed split (reported separately)"
    )
    parser.add_argument("--split", choices=["dev", "sealed", "all"], default=None)
    parser.add_argument(
        "--db", action="append", choices=list(DB_NAMES), help="only these databases"
    )
    parser.add_argument("--embeddings", choices=["on", "off"], default="on")
    parser.add_argument("--workdir", type=Path, default=None, help="lexicon cache folder")
    parser.add_argument(
        "--json", type=Path, default=None, help="write the figures (and per-question outcomes) here"
    )
    parser.add_argument("--show-failures", action="store_true", help="list open-split failures")
    args = parser.parse_args()
    split = args.split or ("all" if args.sealed else "dev")

    work = args.workdir or Path(tempfile.mkdtemp(prefix="cb-bench-open-"))
    rows = [r for r in load_devset2(split) if not args.db or r["db"] in args.db]
    outcomes, cold = ask_rows(rows, args.embeddings, work)

    report: dict[str, Any] = {"split": split, "embeddings": args.embeddings, "warmup_s": cold}
    splits = ["dev", "sealed"] if split == "all" else [split]
    for s in splits:
        sel = [o for o in outcomes if o.split == s]
        if sel:
            report[s] = _print_split("open" if s == "dev" else "sealed", sel)
    if args.show_failures:
        print()
        print("== open-split failures (wrong accepted first)")
        by_id = {r["id"]: r for r in rows}
        for o in sorted(outcomes, key=lambda o: (o.outcome != "wrong", o.id)):
            if o.split != "dev" or o.outcome in ("correct", "abstained_ok"):
                continue
            q = by_id[o.id]["question"]
            print(
                f"{o.outcome:9s} {o.id:34s} {q!r} -> {str(o.value)[:60]!r} gold {str(o.gold)[:40]!r} | {str(o.reason)[:90]}"
            )
    if args.json:
        report["outcomes"] = [
            {
                "id": o.id,
                "group": o.group,
                "db": o.db,
                "split": o.split,
                "category": o.category,
                "voice": o.voice,
                "outcome": o.outcome,
                "decision": o.decision,
                "seconds": round(o.seconds, 4),
            }
            for o in outcomes
        ]
        args.json.write_text(json.dumps(report, indent=1, default=str))
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
