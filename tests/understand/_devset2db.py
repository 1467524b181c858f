"""devset2's databases for unit tests: the path of one (skipping when it is not built) and a
connection to it with no embeddings and no example bank, so that a bank in the home folder
cannot change what the parser answers."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

_ROOT = Path(__file__).resolve().parents[2]


def devset2_db(name: str) -> Path:
    """The DuckDB file ``tests/data/devset2/databases.py`` builds for ``name``; skip if absent."""
    sys.path.insert(0, str(_ROOT / "tests" / "data" / "devset2"))
    try:
        from databases import database_path
    finally:
        sys.path.pop(0)
    path = database_path(name)
    if not path.exists():
        pytest.skip(f"devset2 database {name} not built")
    return path


def open_devset2(name: str, cache: Path) -> Any:
    """A clinbridge connection to one devset2 database (embeddings off, no example bank)."""
    import clinbridge
    from clinbridge.settings import Settings

    settings = Settings(embeddings="off", examples=str(cache / "no-examples.jsonl"))
    return clinbridge.connect(f"duckdb:///{devset2_db(name)}", settings=settings, cache_dir=cache)


def devset2_gold(name: str, sql: str) -> Any:
    """The first value ``sql`` returns on devset2's ``name`` database, read-only: a test's gold,
    computed without clinbridge."""
    import duckdb

    with duckdb.connect(str(devset2_db(name)), read_only=True) as con:
        return con.sql(sql).fetchall()[0][0]
