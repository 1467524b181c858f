"""Compute the dev set's gold answers twice (hand SQL on DuckDB, pandas) and write the JSONL.

Run from the repository root::

    python tests/data/devset/build_devset.py            # writes tests/data/devset/eunomia.jsonl
    python tests/data/devset/build_devset.py --check    # recompute and compare with the files

Gold is computed from the raw CSV files, never through clinbridge. Every third question (ids
divisible by 3) is in the ``blind`` split: written before any parser output was looked at, and
only ever reported in aggregate.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import json
import math
import sys
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def _load_spec(name: str) -> list[dict[str, Any]]:
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return list(mod.QUESTIONS)


def _csv_tables(folder: Path) -> tuple[duckdb.DuckDBPyConnection, dict[str, pd.DataFrame]]:
    con = duckdb.connect()
    frames: dict[str, pd.DataFrame] = {}
    for f in sorted(folder.glob("*.csv*")):
        name = f.name.split(".")[0].lower()
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_csv_auto('{f}', header = true)")
        df = pd.read_csv(f, low_memory=False)
        df.columns = [c.lower() for c in df.columns]
        frames[name] = df
    return con, frames


def _frame_tables(
    frames: dict[str, pd.DataFrame],
) -> tuple[duckdb.DuckDBPyConnection, dict[str, pd.DataFrame]]:
    con = duckdb.connect()
    out: dict[str, pd.DataFrame] = {}
    for name, df in frames.items():
        df = df.copy()
        df.columns = [c.lower() for c in df.columns]
        con.register(f"_{name}", df)
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM _{name}")
        out[name] = df
    return con, out


def synth_frames() -> dict[str, pd.DataFrame]:
    """The synthetic CDM the dev set uses (the tests' ``synth_duckdb`` fixture: 300 patients, seed 1)."""
    from clinbridge.synthetic.omop import build_omop_frames

    return build_omop_frames(SYNTH_PATIENTS, seed=SYNTH_SEED)


def _plain(v: Any) -> Any:
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return v
    if hasattr(v, "item"):
        return _plain(v.item())
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in sorted(v.items(), key=lambda kv: str(kv[0]))}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    return v


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a) == bool(b)
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def build(db: str, spec_name: str, csv_dir: Path | None) -> list[dict[str, Any]]:
    con, frames = _csv_tables(csv_dir) if csv_dir is not None else _frame_tables(synth_frames())
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for q in _load_spec(spec_name):
        if q["id"] in seen:
            raise SystemExit(f"duplicate id {q['id']}")
        seen.add(q["id"])
        row: dict[str, Any] = {
            "id": q["id"],
            "db": db,
            "question": q["question"],
            "patient_id": q.get("patient_id"),
            "now": q.get("now"),
            "category": q["category"],
            "answerable": q.get("answerable", True),
            "split": "blind" if int(q["id"].split("-")[1]) % 3 == 0 else "dev",
        }
        if row["answerable"]:
            sql_value = _plain(con.execute(q["sql"]).fetchone()[0])
            if sql_value is None:
                raise SystemExit(f"{q['id']}: gold SQL returned NULL")
            pandas_value = _plain(q["pandas"](frames))
            if not _same(sql_value, pandas_value):
                raise SystemExit(f"{q['id']}: SQL gold {sql_value!r} != pandas {pandas_value!r}")
            row["gold"] = sql_value
            row["gold_sql"] = q["sql"]
        else:
            row["gold"] = None
            row["gold_sql"] = None
            row["reason"] = q.get("reason")
        out.append(row)
    return out


SYNTH_PATIENTS = 300
SYNTH_SEED = 1
SETS: dict[str, tuple[str, Path | None]] = {
    "eunomia": ("spec_eunomia", ROOT / "synthetic_data" / "eunomia-gibleed-5.3"),
    "synth": ("spec_synth", None),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare with the stored files")
    parser.add_argument("--only", choices=sorted(SETS), default=None)
    args = parser.parse_args()
    for db, (spec, folder) in SETS.items():
        if args.only and db != args.only:
            continue
        if folder is not None and not folder.exists():
            print(f"skip {db}: {folder} missing", file=sys.stderr)
            continue
        rows = build(db, spec, folder)
        target = HERE / f"{db}.jsonl"
        if args.check:
            stored = [json.loads(line) for line in target.read_text().splitlines() if line.strip()]
            for a, b in zip(rows, stored, strict=True):
                if not _same(a["gold"], b["gold"]):
                    raise SystemExit(
                        f"{a['id']}: stored gold {b['gold']!r} != recomputed {a['gold']!r}"
                    )
            print(f"{db}: {len(rows)} questions, gold agrees")
        else:
            target.write_text("".join(json.dumps(r) + "\n" for r in rows))
            print(f"{db}: wrote {len(rows)} questions to {target.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
