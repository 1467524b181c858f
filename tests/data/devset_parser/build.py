"""Compute the gold of the parser dev questions by their hand SQL and write the JSONL.

    python tests/data/devset_parser/build.py --eunomia E.duckdb --s27 S.duckdb --fhir F.duckdb

The databases are Eunomia GiBleed (``synthetic_data/eunomia-gibleed-5.3``) and Eunomia
Synthea27Nj (``tests/data/eunomia-synthea27nj-5.4``) loaded with ``load_omop_csv``, and the FHIR
sample ``tests/data/fhir/{bundles,ndjson}`` loaded with ``clinbridge load fhir``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from questions import EUNOMIA, FHIR, S27  # noqa: E402


def main() -> None:
    import duckdb

    ap = argparse.ArgumentParser()
    ap.add_argument("--eunomia", required=True)
    ap.add_argument("--s27", required=True)
    ap.add_argument("--fhir", required=True)
    args = ap.parse_args()
    out = []
    for name, path, rows in (
        ("eunomia", args.eunomia, EUNOMIA),
        ("s27", args.s27, S27),
        ("fhir", args.fhir, FHIR),
    ):
        con = duckdb.connect(path, read_only=True)
        for k, r in enumerate(rows, start=1):
            rec = {
                "id": f"{name}-{k:03d}",
                "db": name,
                "question": r["q"],
                "patient_id": None,
                "now": r.get("now"),
                "category": r["cat"],
                "voice": r["voice"],
                "split": "sealed" if k % 3 == 0 else "dev",
            }
            if r.get("gold") == "ABSTAIN":
                rec.update(answerable=False, gold=None, reason=r.get("note", ""))
                if r.get("expect_reason"):
                    rec["expect_reason"] = r["expect_reason"]
            else:
                res = con.execute(r["sql"]).fetchall()
                if r.get("list"):
                    gold = sorted(str(x[0]) for x in res)
                else:
                    gold = res[0][0] if res else None
                if isinstance(gold, dt.date):
                    gold = gold.isoformat()
                rec.update(answerable=True, gold=gold, gold_sql=r["sql"])
            out.append(rec)
        con.close()
    (HERE / "devset_parser.jsonl").write_text("".join(json.dumps(o) + "\n" for o in out))
    print(f"{len(out)} questions written")


if __name__ == "__main__":
    main()
