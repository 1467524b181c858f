"""Compute devset4's gold twice and write the sealed holdout file.

    python tests/data/devset4/build.py             # write holdout.jsonl.gz
    python tests/data/devset4/build.py --check     # recompute both ways, compare with the file
    python tests/data/devset4/build.py --summary   # counts per database/category/voice (no text)

devset4 is a sealed holdout: every question is in ``holdout.jsonl.gz`` and every group source in
``spec_<db>.py.gz`` (gzip, never in plain text in the repository). Parser engineers must not open,
decompress or grep them; ``bench/bench_understand_holdout.py --set devset4`` scores the set and
prints figures only.

The machinery is devset2's (``tests/data/devset2``): the same databases (``databases.py``, built
with clinbridge's loaders), the same group record and helpers (``_common.py``), the same second
method (pandas over the raw OMOP CSV files; ``_fhir_raw.py`` for the FHIR JSON) and the same
agreement test (``build.rows_for``): the hand-written SQL gold and the pandas gold must agree within
the group's tolerance or the build stops.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import types
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEVSET2 = HERE.parent / "devset2"
sys.path.insert(0, str(DEVSET2))


def _devset2_build() -> types.ModuleType:
    """devset2's ``build.py`` under its own module name (``rows_for``, ``same``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("devset2_build", DEVSET2 / "build.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["devset2_build"] = mod
    spec.loader.exec_module(mod)
    return mod


devset2_build = _devset2_build()

DBS = ("gibleed", "synthea27nj", "fhir")
HOLDOUT_FILE = HERE / "holdout.jsonl.gz"
SPLIT = "holdout"


def load_spec(db: str, folder: Path = HERE) -> types.ModuleType:
    """Run ``spec_<db>.py.gz`` as a module (devset2's ``_common`` helpers importable)."""
    path = folder / f"spec_{db}.py.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        code = compile(fh.read(), str(path), "exec")
    mod = types.ModuleType(f"devset4_spec_{db}")
    mod.__file__ = str(path)
    sys.modules[mod.__name__] = mod
    exec(code, mod.__dict__)
    return mod


def build_all(only: list[str] | None = None, folder: Path | None = None) -> list[dict[str, Any]]:
    """Every devset4 row, gold computed by SQL and checked by pandas (stops on disagreement)."""
    rows: list[dict[str, Any]] = []
    for db in only or list(DBS):
        mod = load_spec(db)
        for r in devset2_build.rows_for(db, list(mod.GROUPS), getattr(mod, "NOW", None), folder):
            r["split"] = SPLIT
            r["id"] = f"d4.{r['id']}"
            r["group"] = f"d4.{r['group']}"
            rows.append(r)
    return rows


def read_stored() -> list[dict[str, Any]]:
    with gzip.open(HOLDOUT_FILE, "rt", encoding="utf-8") as fh:
        return [json.loads(x) for x in fh.read().splitlines() if x.strip()]


def summary(rows: list[dict[str, Any]]) -> str:
    """Counts only (never a question text)."""
    out = [f"{len(rows)} questions in {len({r['group'] for r in rows})} groups"]
    unans = sum(not r["answerable"] for r in rows)
    out.append(f"unanswerable/ambiguous: {unans} ({unans / len(rows):.1%})")
    for key in ("db", "category", "voice", "answer_type"):
        cnt = Counter(r[key] for r in rows)
        out.append(f"by {key}: " + ", ".join(f"{k} {v}" for k, v in sorted(cnt.items())))
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="recompute and compare with the file")
    parser.add_argument("--summary", action="store_true", help="print counts of the stored file")
    parser.add_argument("--only", action="append", choices=list(DBS))
    args = parser.parse_args()
    if args.summary:
        print(summary(read_stored()))
        return
    rows = build_all(args.only)
    if args.check:
        stored = {r["id"]: r for r in read_stored()}
        bad = [
            r["id"]
            for r in rows
            if r["id"] not in stored
            or not devset2_build.same(r["gold"], stored[r["id"]]["gold"], r["tol"])
        ]
        if bad or (not args.only and len(stored) != len(rows)):
            raise SystemExit(
                f"stored gold differs for {bad[:10]} ({len(stored)} stored, {len(rows)} built)"
            )
        print(f"{len(rows)} questions: gold agrees (SQL, second method, stored file)")
        return
    if args.only:
        print(summary(rows))
        return
    with gzip.GzipFile(HOLDOUT_FILE, "wb", mtime=0) as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in rows).encode())
    print(f"wrote {len(rows)} sealed holdout questions to {HOLDOUT_FILE.name}")
    print(summary(rows))


if __name__ == "__main__":
    main()
