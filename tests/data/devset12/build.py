"""Compute devset12's gold twice and write the sealed holdout file.

    python tests/data/devset12/build.py             # write holdout.jsonl.gz
    python tests/data/devset12/build.py --check     # recompute both ways, compare with the file
    python tests/data/devset12/build.py --summary   # counts per database/category/voice (no text)

devset12 is a sealed holdout: every question is in ``holdout.jsonl.gz`` and every group source in
``spec_<db>.py.gz`` (gzip, never in plain text in the repository). Parser engineers must not open,
decompress or grep them; ``bench/bench_understand_holdout.py --set devset12`` scores the set and
prints figures only.

The machinery is devset2's (``tests/data/devset2``, through ``holdout_build.Holdout``): the same
databases (``databases.py``, built with clinbridge's loaders), the same group record and helpers (``_common.py``), the same second
method (pandas over the raw OMOP CSV files; ``_fhir_raw.py`` for the FHIR JSON) and the same
agreement test (``build.rows_for``): the hand-written SQL gold and the pandas gold must agree within
the group's tolerance or the build stops.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "devset2"))

from holdout_build import DBS, SPLIT, Holdout, devset2_build, summary  # noqa: E402

HOLDOUT = Holdout(HERE, "d12.")
HOLDOUT_FILE = HOLDOUT.file
load_spec = HOLDOUT.load_spec
build_all = HOLDOUT.build_all
read_stored = HOLDOUT.read_stored

__all__ = [
    "DBS",
    "HOLDOUT_FILE",
    "SPLIT",
    "build_all",
    "devset2_build",
    "load_spec",
    "read_stored",
    "summary",
]

if __name__ == "__main__":
    HOLDOUT.main(__doc__)
