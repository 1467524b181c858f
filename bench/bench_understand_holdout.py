"""Bench the understanding on a holdout, devset3 to devset12 (figures only for a sealed set).

Scores ``tests/data/devset3/holdout.jsonl.gz`` (``--set devset4``/``devset5``: theirs) exactly as
``bench_understand_open.py`` scores devset2 — same databases, same public API call, same scorer
(``tests/understand/devset2_eval.py``) and the same report: accuracy, coverage and wrong answers
accepted overall, per database, per category, per voice and per answer type, paraphrase
consistency, and p50/p95 latency for answered and abstained questions. It prints figures only: no question text, no answer, no gold, no
per-question id (the ids name the groups), and ``--json`` writes the same figures.

    python bench/bench_understand_holdout.py                     # the whole holdout (at the end)
    python bench/bench_understand_holdout.py --db fhir --json holdout.json
    python bench/bench_understand_holdout.py --set devset4       # the second holdout (at the end)
    python bench/bench_understand_holdout.py --set devset5       # the third holdout (at the end)
    python bench/bench_understand_holdout.py --set devset5 --show-failures
                                                                 # an OPENED set's failures, with text
    python bench/bench_understand_holdout.py --questions tests/data/devset2/dev.jsonl --limit 3
                                                                 # plumbing check on open questions

Run it once, at the end of the work, and report its figures separately from devset2's. The
questions file may be any devset-style JSONL (plain or ``.gz``); ``--limit N`` keeps the first N
questions of each database.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_understand_open import _print_split, ask_rows  # noqa: E402
from databases import DB_NAMES  # noqa: E402  (devset2's, on the path bench_understand_open sets)

HOLDOUTS = {
    name: ROOT / "tests" / "data" / name / "holdout.jsonl.gz"
    for name in (
        "devset3",
        "devset4",
        "devset5",
        "devset6",
        "devset7",
        "devset8",
        "devset9",
        "devset10",
        "devset11",
        "devset12",
    )
}
HOLDOUT = HOLDOUTS["devset3"]
OPENED = frozenset(
    {
        "devset3",
        "devset4",
        "devset5",
        "devset6",
        "devset7",
        "devset8",
        "devset9",
        "devset10",
        "devset11",
    }
)
"""Holdouts scored blind in earlier stops and since opened as development material: only these
may list their failures (``--show-failures``); a set still sealed prints figures only."""


def load_questions(path: Path) -> list[dict[str, Any]]:
    """Rows of a devset-style JSONL file, gzip-compressed when its name ends in ``.gz``."""
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            text = fh.read()
    else:
        text = path.read_text(encoding="utf-8")
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{path}: line {n} is not JSON ({exc.msg})") from None
    return rows


def select(
    rows: list[dict[str, Any]], dbs: list[str] | None, limit: int | None
) -> list[dict[str, Any]]:
    """The rows of the databases asked for, at most ``limit`` per database (file order)."""
    out: list[dict[str, Any]] = []
    for db in DB_NAMES:
        mine = [r for r in rows if r["db"] == db and (not dbs or db in dbs)]
        out += mine[:limit] if limit is not None else mine
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--set", choices=sorted(HOLDOUTS), default="devset3", help="which sealed holdout"
    )
    parser.add_argument(
        "--questions", type=Path, default=None, help="devset-style JSONL(.gz); overrides --set"
    )
    parser.add_argument(
        "--db", action="append", choices=list(DB_NAMES), help="only these databases"
    )
    parser.add_argument("--limit", type=int, default=None, help="first N questions per database")
    parser.add_argument("--embeddings", choices=["on", "off"], default="on")
    parser.add_argument("--workdir", type=Path, default=None, help="lexicon cache folder")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument(
        "--show-failures", action="store_true", help="list the failures (opened sets only)"
    )
    args = parser.parse_args()
    if args.show_failures and (args.questions is not None or args.set not in OPENED):
        parser.error(f"--show-failures lists only an opened set ({', '.join(sorted(OPENED))})")

    path = (args.questions or HOLDOUTS[args.set]).resolve()
    rows = select(load_questions(path), args.db, args.limit)
    if not rows:
        raise SystemExit(f"{path}: no questions selected")
    work = args.workdir or Path(tempfile.mkdtemp(prefix="cb-bench-holdout-"))
    outcomes, cold = ask_rows(rows, args.embeddings, work)
    sealed = {p.resolve(): n for n, p in HOLDOUTS.items()}
    name = "holdout" if path == HOLDOUT else sealed.get(path, path.name)
    report: dict[str, Any] = {
        "questions": str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path),
        "limit": args.limit,
        "embeddings": args.embeddings,
        "warmup_s": cold,
        "figures": _print_split(name, outcomes),
    }
    if args.show_failures:
        _print_failures(rows, outcomes)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
        print(f"wrote {args.json}")


def _print_failures(rows: list[dict[str, Any]], outcomes: list[Any]) -> None:
    """Every question not scored correct on an opened set, wrong answers first."""
    print("\n== failures (wrong accepted first)")
    by_id = {r["id"]: r for r in rows}
    for o in sorted(outcomes, key=lambda o: (o.outcome != "wrong", o.db, o.id)):
        if o.outcome in ("correct", "abstained_ok"):
            continue
        q, category = by_id[o.id]["question"], by_id[o.id]["category"]
        print(
            f"{o.outcome:9s} {o.db:11s} {category:16s} {o.id:28s} {q!r} -> {str(o.value)[:70]!r} "
            f"gold {str(o.gold)[:50]!r} | {str(o.reason)[:110]}"
        )


if __name__ == "__main__":
    main()
