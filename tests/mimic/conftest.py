"""MIMIC fixtures: the MIMIC-III demo subset loaded once, and a generated EHRSQL-shaped database."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent.parent / "data"
MIMIC3 = DATA / "mimic-iii-demo-subset"


@pytest.fixture(scope="session")
def mimic3_dir() -> Path:
    return MIMIC3


@pytest.fixture(scope="session")
def mimic3_duckdb(tmp_path_factory: pytest.TempPathFactory) -> str:
    from clinbridge.adapters.mimic import load_mimic

    url = f"duckdb:///{tmp_path_factory.mktemp('mimic3') / 'm3.duckdb'}"
    report = load_mimic(MIMIC3, url, on_error="raise")
    assert report.reconciles and report.rejected == 0
    return url
