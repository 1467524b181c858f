"""Compute devset_dm's gold twice and write ``dev.jsonl`` (devset2's row format).

    python tests/data/devset_dm/build.py            # write dev.jsonl
    python tests/data/devset_dm/build.py --check    # recompute both ways, compare with the file

Each group of ``spec_dm.py`` (first part) and ``spec_dm2.py`` (second part): ``sql`` (hand-written) runs on the devset2 database that
``tests/data/devset2/databases.py`` builds; ``check`` recomputes it with pandas over the raw
source files (OMOP CSV; FHIR JSON, plus the raw resources for fields devset2's frames do not
keep). They must agree or the build stops. One phrasing per group, in the data-manager voice;
the whole set is open (``split`` = ``dev``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

HERE = Path(__file__).resolve().parent
DEVSET2 = HERE.parent / "devset2"
sys.path.insert(0, str(DEVSET2))
sys.path.insert(0, str(HERE))
sys.modules.pop("build", None)

from _fhir_raw import resources  # noqa: E402
from holdout_build import devset2_build as _b2  # noqa: E402

list_key, plain, raw_frames, same, sql_value = (
    _b2.list_key,
    _b2.plain,
    _b2.raw_frames,
    _b2.same,
    _b2.sql_value,
)
from databases import SOURCES, database_path  # noqa: E402
from spec_dm import GROUPS as FIRST  # noqa: E402
from spec_dm import NOW  # noqa: E402
from spec_dm2 import LATER  # noqa: E402

GROUPS = {db: FIRST[db] + LATER.get(db, []) for db in FIRST}

OUT = HERE / "dev.jsonl"


def frames(db: str) -> dict[str, pd.DataFrame]:
    """devset2's raw frames, plus (FHIR) every raw resource as one column ``r``."""
    t = raw_frames(db)
    if db == "fhir":
        t["raw"] = pd.DataFrame({"r": list(resources(SOURCES["fhir"]))})
    return t


def rows_for(db: str) -> list[dict[str, Any]]:
    """The rows of one database's groups, gold computed and checked."""
    con = duckdb.connect(str(database_path(db)), read_only=True)
    t = frames(db)
    out: list[dict[str, Any]] = []
    for g in GROUPS[db]:
        answerable = g.answer_type not in ("abstain", "ambiguous")
        gold: Any = None
        if answerable:
            assert g.sql is not None and g.check is not None, g.group
            gold = sql_value(con, g)
            other = plain(g.check(t))
            if g.answer_type == "list":
                other = sorted(other, key=list_key)
            if gold is None or gold == []:
                raise SystemExit(f"{g.group}: gold SQL returned nothing")
            if not same(gold, other, g.tol):
                raise SystemExit(f"{g.group}: SQL gold {gold!r} != pandas {other!r}")
        elif not g.missing:
            raise SystemExit(f"{g.group}: abstentions must name what is missing")
        for k, (voice, text) in enumerate(g.phrasings, 1):
            row: dict[str, Any] = {
                "id": f"{g.group}.{k}",
                "group": g.group,
                "db": db,
                "voice": voice,
                "question": text,
                "patient_id": None,
                "now": NOW[db],
                "category": g.category,
                "answer_type": g.answer_type,
                "answerable": answerable,
                "gold": gold,
                "unit": g.unit,
                "tol": g.tol,
                "split": "dev",
                "gold_sql": g.sql,
            }
            if not answerable:
                row["missing"] = g.missing
            out.append(row)
    con.close()
    return out


def main() -> None:
    """Build or check ``dev.jsonl``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    rows = [r for db in GROUPS for r in rows_for(db)]
    if args.check:
        stored = {
            r["id"]: r for r in (json.loads(x) for x in OUT.read_text().splitlines() if x.strip())
        }
        bad = [
            r["id"]
            for r in rows
            if r["id"] not in stored or not same(r["gold"], stored[r["id"]]["gold"], r["tol"])
        ]
        if bad:
            raise SystemExit(f"stored gold differs for {bad}")
        print(f"{len(rows)} questions: gold agrees (SQL, pandas, stored file)")
        return
    OUT.write_text("".join(json.dumps(r) + "\n" for r in rows))
    n_abs = sum(not r["answerable"] for r in rows)
    print(f"wrote {len(rows)} questions ({n_abs} abstain) to {OUT.name}")


if __name__ == "__main__":
    main()
