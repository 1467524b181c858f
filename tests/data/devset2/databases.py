"""Build the devset2 databases deterministically (the way the repo's fixtures and demo build them).

* ``gibleed``: Eunomia GiBleed (OMOP CDM 5.3) from ``synthetic_data/eunomia-gibleed-5.3`` with
  ``clinbridge.adapters.omop.load_omop_csv`` (as ``tests/conftest.py`` does).
* ``synthea27nj``: Eunomia Synthea27Nj (OMOP CDM 5.4, 28 persons) from
  ``tests/data/eunomia-synthea27nj-5.4``, same loader.
* ``fhir``: the Synthea R4 test data in ``tests/data/fhir`` (5 transaction bundles + the 10-patient
  bulk NDJSON export, 18 Patient resources) loaded with ``clinbridge.adapters.fhir.load_fhir``
  (what ``clinbridge load fhir`` runs).

The files go under a cache folder (``CLINBRIDGE_DEVSET2_DIR``, default
``~/.cache/clinbridge/devset2``), never into the repository; a database is rebuilt when its
sources are newer than it.

    python tests/data/devset2/databases.py [--dir DIR]   # build and print the URLs
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SOURCES: dict[str, list[Path]] = {
    "gibleed": [ROOT / "synthetic_data" / "eunomia-gibleed-5.3"],
    "synthea27nj": [ROOT / "tests" / "data" / "eunomia-synthea27nj-5.4"],
    "fhir": [
        ROOT / "tests" / "data" / "fhir" / "bundles",
        ROOT / "tests" / "data" / "fhir" / "ndjson",
    ],
}
DB_NAMES = tuple(SOURCES)


def default_dir() -> Path:
    env = os.environ.get("CLINBRIDGE_DEVSET2_DIR")
    return Path(env) if env else Path.home() / ".cache" / "clinbridge" / "devset2"


def _newest(paths: list[Path]) -> float:
    return max(f.stat().st_mtime for p in paths for f in p.rglob("*") if f.is_file())


@functools.cache
def _digest(paths: tuple[Path, ...]) -> str:
    """A hash of the source files' names and contents (once per process): a fresh checkout (new
    mtimes, same files) is not stale, so parallel worktrees do not rebuild a shared database."""
    h = hashlib.sha256()
    for p in paths:
        for f in sorted(x for x in p.rglob("*") if x.is_file()):
            h.update(str(f.relative_to(p)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def _build_omop(src: list[Path], target: Path) -> None:
    from clinbridge.adapters.omop import load_omop_csv

    load_omop_csv(src[0], f"duckdb:///{target}", if_exists="replace")


def _build_fhir(src: list[Path], target: Path) -> None:
    from clinbridge.adapters.fhir import load_fhir

    report = load_fhir([str(p) for p in src], f"duckdb:///{target}")
    if report.quarantined:
        raise RuntimeError(f"{target}: {report.quarantined} FHIR records quarantined")


_BUILDERS: dict[str, Callable[[list[Path], Path], None]] = {
    "gibleed": _build_omop,
    "synthea27nj": _build_omop,
    "fhir": _build_fhir,
}


def database_path(name: str, folder: Path | None = None) -> Path:
    """The DuckDB file of devset2 database ``name``, built first when missing or stale."""
    if name not in SOURCES:
        raise KeyError(f"unknown devset2 database {name!r}; known: {', '.join(DB_NAMES)}")
    folder = folder or default_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{name}.duckdb"
    src = SOURCES[name]
    stamp = target.with_suffix(".sources")
    digest = _digest(tuple(src))
    if target.exists():
        if stamp.exists() and stamp.read_text() == digest:
            return target
        if not stamp.exists() and target.stat().st_mtime >= _newest(src):
            stamp.write_text(digest)  # built before stamps existed, from these files
            return target
    tmp = target.with_suffix(f".building-{os.getpid()}.duckdb")  # one per builder
    tmp.unlink(missing_ok=True)
    _BUILDERS[name](src, tmp)
    tmp.replace(target)
    stamp.write_text(digest)
    return target


def database_url(name: str, folder: Path | None = None) -> str:
    return f"duckdb:///{database_path(name, folder)}"


def build_all(folder: Path | None = None, only: list[str] | None = None) -> dict[str, str]:
    return {n: database_url(n, folder) for n in (only or DB_NAMES)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    for name, url in build_all(args.dir).items():
        print(f"{name}: {url}")


if __name__ == "__main__":
    main()
