"""The build of a sealed holdout set in devset2's format (devset3, devset4, ...), written once.

A holdout folder holds ``spec_<db>.py.gz`` group sources and the ``holdout.jsonl.gz`` they build.
:class:`Holdout` runs the specs with devset2's machinery — the same databases, the same group
helpers (``_common.py``) and the same agreement test (``build.rows_for``: hand SQL gold and pandas
gold must agree within the group's tolerance or the build stops) — and gives every id its set's
prefix (``d3.``, ``d4.``). Each set's ``build.py`` is a thin command over one :class:`Holdout`.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import sys
import types
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEVSET2 = Path(__file__).resolve().parent
if str(DEVSET2) not in sys.path:
    sys.path.insert(0, str(DEVSET2))

DBS = ("gibleed", "synthea27nj", "fhir")
SPLIT = "holdout"


def _devset2_build() -> types.ModuleType:
    """devset2's ``build.py`` under its own module name (``rows_for``, ``same``)."""
    if "devset2_build" in sys.modules:
        return sys.modules["devset2_build"]
    spec = importlib.util.spec_from_file_location("devset2_build", DEVSET2 / "build.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["devset2_build"] = mod
    spec.loader.exec_module(mod)
    return mod


devset2_build = _devset2_build()


def summary(rows: list[dict[str, Any]]) -> str:
    """Counts only (never a question text)."""
    out = [f"{len(rows)} questions in {len({r['group'] for r in rows})} groups"]
    unans = sum(not r["answerable"] for r in rows)
    out.append(f"unanswerable/ambiguous: {unans} ({unans / len(rows):.1%})")
    for key in ("db", "category", "voice", "answer_type"):
        cnt = Counter(r[key] for r in rows)
        out.append(f"by {key}: " + ", ".join(f"{k} {v}" for k, v in sorted(cnt.items())))
    return "\n".join(out)


@dataclass(frozen=True)
class Holdout:
    """One sealed set: its folder and its id prefix (``name`` is ``devset3``, ``devset4``...)."""

    folder: Path
    prefix: str

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def file(self) -> Path:
        return self.folder / "holdout.jsonl.gz"

    def load_spec(self, db: str) -> types.ModuleType:
        """Run ``spec_<db>.py.gz`` as a module (devset2's ``_common`` helpers importable)."""
        path = self.folder / f"spec_{db}.py.gz"
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            code = compile(fh.read(), str(path), "exec")
        mod = types.ModuleType(f"{self.name}_spec_{db}")
        mod.__file__ = str(path)
        sys.modules[mod.__name__] = mod
        exec(code, mod.__dict__)
        return mod

    def build_all(
        self, only: list[str] | None = None, folder: Path | None = None
    ) -> list[dict[str, Any]]:
        """Every row, gold computed by SQL and checked by pandas (stops on disagreement);
        ``folder``: where the databases are (default: devset2's cache)."""
        rows: list[dict[str, Any]] = []
        for db in only or list(DBS):
            mod = self.load_spec(db)
            now = getattr(mod, "NOW", None)
            for r in devset2_build.rows_for(db, list(mod.GROUPS), now, folder):
                r["split"] = SPLIT
                r["id"] = f"{self.prefix}{r['id']}"
                r["group"] = f"{self.prefix}{r['group']}"
                rows.append(r)
        return rows

    def read_stored(self) -> list[dict[str, Any]]:
        with gzip.open(self.file, "rt", encoding="utf-8") as fh:
            return [json.loads(x) for x in fh.read().splitlines() if x.strip()]

    def main(self, description: str | None = None) -> None:
        """``build.py``: write the file; ``--check`` recompute and compare; ``--summary`` counts."""
        parser = argparse.ArgumentParser(description=description)
        parser.add_argument("--check", action="store_true", help="recompute and compare")
        parser.add_argument("--summary", action="store_true", help="counts of the stored file")
        parser.add_argument("--only", action="append", choices=list(DBS))
        args = parser.parse_args()
        if args.summary:
            print(summary(self.read_stored()))
            return
        rows = self.build_all(args.only)
        if args.check:
            stored = {r["id"]: r for r in self.read_stored()}
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
        with gzip.GzipFile(self.file, "wb", mtime=0) as fh:
            fh.write("".join(json.dumps(r) + "\n" for r in rows).encode())
        print(f"wrote {len(rows)} sealed holdout questions to {self.file.name}")
        print(summary(rows))
