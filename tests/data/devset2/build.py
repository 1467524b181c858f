"""Compute devset2's gold twice and write the question files.

    python tests/data/devset2/build.py            # write dev.jsonl and sealed.jsonl.gz
    python tests/data/devset2/build.py --check    # recompute both ways, compare with the files

For every group of ``spec_*.py``: ``sql`` (hand-written) runs on the database that
``databases.py`` builds with clinbridge's own loaders; ``check`` recomputes the value a second way
with pandas over the raw sources (the OMOP CSV files; the FHIR JSON parsed by ``_fhir_raw.py``),
never through clinbridge. They must agree (within the group's tolerance) or the build stops.

The sealed third is chosen by a hash of the group id (every phrasing of a group lands in the same
split). Sealed questions are stored gzip-compressed in ``sealed.jsonl.gz`` and their groups in
``spec_<db>_sealed.py.gz``: parser engineers must not open those files; they are reported
separately, at the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import decimal
import gzip
import hashlib
import importlib
import json
import math
import sys
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE))

from _common import ANSWER_TYPES, VOICES, Group  # noqa: E402
from databases import SOURCES, database_path  # noqa: E402

SPECS = {"gibleed": "spec_gibleed", "synthea27nj": "spec_synthea27nj", "fhir": "spec_fhir"}
DEV_FILE = HERE / "dev.jsonl"
SEALED_FILE = HERE / "sealed.jsonl.gz"


def split_of(group: str) -> str:
    """``sealed`` for a third of the groups, by a hash of the group id; else ``dev``."""
    return "sealed" if int(hashlib.sha256(group.encode()).hexdigest(), 16) % 3 == 0 else "dev"


def load_groups(db: str) -> tuple[list[Group], Any]:
    """The groups of ``spec_<db>.py`` plus its sealed ones (``spec_<db>_sealed.py.gz``).

    The sealed source is kept compressed so that the sealed questions are not in plain text in
    the repository; it runs in the open module's namespace (helpers and constants in scope).
    """
    mod = importlib.import_module(SPECS[db])
    if not getattr(mod, "_SEALED_LOADED", False):
        sealed = HERE / f"{SPECS[db]}_sealed.py.gz"
        with gzip.open(sealed, "rt", encoding="utf-8") as fh:
            code = compile(fh.read(), str(sealed), "exec")
        exec(code, mod.__dict__)
        mod._SEALED_LOADED = True
    return list(mod.GROUPS), mod


def raw_frames(db: str) -> dict[str, pd.DataFrame]:
    """The second method's input: the raw source files, read with pandas."""
    if db == "fhir":
        from _fhir_raw import fhir_frames

        return fhir_frames(SOURCES["fhir"])
    frames: dict[str, pd.DataFrame] = {}
    for f in sorted(SOURCES[db][0].glob("*.csv*")):
        df = pd.read_csv(f, low_memory=False)
        df.columns = [col.lower() for col in df.columns]
        frames[f.name.split(".")[0].lower()] = df
    return frames


def plain(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, dt.datetime):
        return v.date().isoformat()
    if isinstance(v, dt.date):
        return v.isoformat()
    if isinstance(v, pd.Timestamp):
        return v.date().isoformat()
    if isinstance(v, decimal.Decimal):
        return float(v)
    if hasattr(v, "item") and not isinstance(v, list | dict | str):
        return plain(v.item())
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [plain(x) for x in v]
    return v


def sql_value(con: duckdb.DuckDBPyConnection, g: Group) -> Any:
    assert g.sql is not None
    rows = con.execute(g.sql).fetchall()
    if g.answer_type == "table":
        return {str(plain(r[0])): plain(r[1]) for r in rows}
    if len(rows) != 1 or len(rows[0]) != 1:
        raise SystemExit(f"{g.group}: gold SQL must return one value, got {rows[:3]}")
    v = plain(rows[0][0])
    if g.answer_type == "list":
        v = sorted(v or [], key=list_key)
    if g.answer_type == "count" and isinstance(v, float) and v.is_integer():
        v = int(v)
    return v


def list_key(x: Any) -> tuple[int, float, str]:
    """Numbers first in numeric order, then strings."""
    if isinstance(x, int | float) and not isinstance(x, bool):
        return (0, float(x), "")
    return (1, 0.0, str(x))


def same(a: Any, b: Any, tol: float | None = None) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, bool) and isinstance(b, bool) and a == b)
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=max(1e-9, (tol or 0) / 10))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], tol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, tol) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def rows_for(
    db: str, groups: list[Group], now_default: str | None, folder: Path | None = None
) -> list[dict[str, Any]]:
    con = duckdb.connect(str(database_path(db, folder)), read_only=True)
    frames = raw_frames(db)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for g in groups:
        if g.group in seen:
            raise SystemExit(f"duplicate group {g.group}")
        seen.add(g.group)
        if g.answer_type not in ANSWER_TYPES:
            raise SystemExit(f"{g.group}: unknown answer type {g.answer_type}")
        if len(g.phrasings) < 3 or len({v for v, _ in g.phrasings}) < 3:
            raise SystemExit(f"{g.group}: needs ≥ 3 phrasings in 3 voices")
        answerable = g.answer_type not in ("abstain", "ambiguous")
        gold: Any = None
        if answerable:
            if g.sql is None or g.check is None:
                raise SystemExit(f"{g.group}: answerable groups need sql and check")
            gold = sql_value(con, g)
            other = plain(g.check(frames))
            if g.answer_type == "list":
                other = sorted(other, key=list_key)
            if gold is None or gold == [] or gold == {}:
                raise SystemExit(f"{g.group}: gold SQL returned nothing")
            if not same(gold, other, g.tol):
                raise SystemExit(f"{g.group}: SQL gold {gold!r} != second method {other!r}")
        elif not g.missing:
            raise SystemExit(f"{g.group}: abstain/ambiguous groups must name what is missing")
        for k, (voice, text) in enumerate(g.phrasings, 1):
            if voice not in VOICES:
                raise SystemExit(f"{g.group}: unknown voice {voice}")
            row: dict[str, Any] = {
                "id": f"{g.group}.{k}",
                "group": g.group,
                "db": db,
                "voice": voice,
                "question": text,
                "patient_id": g.patient_id,
                "now": g.now or now_default,
                "category": g.category,
                "answer_type": g.answer_type,
                "answerable": answerable,
                "gold": gold,
                "unit": g.unit,
                "tol": g.tol,
                "split": split_of(g.group),
                "gold_sql": g.sql,
            }
            if g.answer_type == "table":
                row["rows"] = [[k2, v2] for k2, v2 in gold.items()]
            if not answerable:
                row["missing"] = g.missing
                if g.alternatives:
                    row["alternatives"] = g.alternatives
            if g.note:
                row["note"] = g.note
            out.append(row)
    con.close()
    return out


def build_all(only: list[str] | None = None, folder: Path | None = None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for db in only or list(SPECS):
        groups, mod = load_groups(db)
        rows += rows_for(db, groups, getattr(mod, "NOW", None), folder)
    return rows


def read_stored() -> list[dict[str, Any]]:
    dev = [json.loads(x) for x in DEV_FILE.read_text().splitlines() if x.strip()]
    with gzip.open(SEALED_FILE, "rt", encoding="utf-8") as fh:
        sealed = [json.loads(x) for x in fh.read().splitlines() if x.strip()]
    return dev + sealed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="recompute and compare with the files")
    parser.add_argument("--only", action="append", choices=sorted(SPECS))
    args = parser.parse_args()
    rows = build_all(args.only)
    if args.check:
        stored = {r["id"]: r for r in read_stored()}
        bad = [
            r["id"]
            for r in rows
            if r["id"] not in stored or not same(r["gold"], stored[r["id"]]["gold"], r["tol"])
        ]
        if bad:
            raise SystemExit(f"stored gold differs for {bad[:10]}")
        print(f"{len(rows)} questions: gold agrees (SQL, second method, stored files)")
        return
    if args.only:
        for r in rows:
            print(r["id"], r["split"], json.dumps(r["gold"])[:100])
        return
    dev = [r for r in rows if r["split"] == "dev"]
    sealed = [r for r in rows if r["split"] == "sealed"]
    DEV_FILE.write_text("".join(json.dumps(r) + "\n" for r in dev))
    with gzip.GzipFile(SEALED_FILE, "wb", mtime=0) as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in sealed).encode())
    print(
        f"wrote {len(dev)} dev questions to {DEV_FILE.name}, {len(sealed)} sealed to {SEALED_FILE.name}"
    )


if __name__ == "__main__":
    main()
