"""Runaway statements end on every backend: cancelled at the timeout, refused as too complex,
or stopped by a size limit — never left running. The ratios (actual / timeout) are measured by
``bench/guard_bench.py``; the bound here only detects a hang."""

from __future__ import annotations

import pytest
from runaway import RUNAWAYS, run_runaway  # type: ignore[import-not-found]

from clinbridge.db import Database

pytest_plugins = ["guard_dbs"]

TIMEOUT_MS = 1_000


@pytest.mark.parametrize("case", RUNAWAYS, ids=[r.name for r in RUNAWAYS])
def test_runaway_ends(guard_db_url, case):
    backend = guard_db_url.split(":", 1)[0].replace("postgresql", "postgres")
    if backend not in case.backends:
        pytest.skip(f"{case.name} is not a {backend} statement")
    with Database.open(guard_db_url) as db:
        outcome, elapsed_ms = run_runaway(db, case, TIMEOUT_MS)
        assert outcome != "FINISHED", f"{case.name} ran to completion on {backend}"
        assert elapsed_ms < 3 * TIMEOUT_MS + 2_000, f"{case.name}: {elapsed_ms:.0f} ms (hang?)"
        # the connection is still usable afterwards
        assert db.execute("SELECT count(*) FROM person").rows[0][0] == 20
