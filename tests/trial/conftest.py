"""Trial-table fixtures: one generated HIE workbook (and its loaded DuckDB) per test run."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinbridge.synthetic.trial import TrialWorkbook, generate_trial

SEED = 42
SUBJECTS = 532
VARIABLES = 600
"""Narrower than the 1,300 of the benchmark (writing the .xlsx dominates test time); every
clinical variable is there, only data-management padding is fewer."""


@pytest.fixture(scope="session")
def trial_wb() -> TrialWorkbook:
    return generate_trial(SEED, subjects=SUBJECTS, variables=VARIABLES)


@pytest.fixture(scope="session")
def trial_xlsx(trial_wb: TrialWorkbook, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return trial_wb.write_xlsx(tmp_path_factory.mktemp("trial") / "hie.xlsx")


@pytest.fixture(scope="session")
def trial_db(trial_xlsx: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    from clinbridge.adapters.trial import load_trial

    url = f"duckdb:///{tmp_path_factory.mktemp('trialdb') / 'hie.duckdb'}"
    report = load_trial(trial_xlsx, url)
    assert report.reconciled
    return url
