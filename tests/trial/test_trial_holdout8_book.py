"""Holdout 8's independent workbook builder (a sealed module, bench/data/trial8_book.py.gz).

The builder is not clinbridge's generator: these tests check what it writes (sheets, shape, a
codebook entry per column, trial scopes honoured, missing codes declared) and, on the full-size
workbook, that every gold of the sealed set agrees with its second way (``verify``). Nothing here
runs the reader, and no question or variable name appears in this file.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench import trial_holdout  # noqa: E402


@pytest.fixture(scope="module")
def small_book(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, Path]:
    book = trial_holdout._sealed_module(trial_holdout.BOOKS[8])
    path = tmp_path_factory.mktemp("book8") / "small.xlsx"
    book.build(8088, 80, 400, path)
    return book, path


def test_sheets_and_shape(small_book: tuple[object, Path]) -> None:
    book, path = small_book
    sheets = pd.ExcelFile(path, engine="calamine").sheet_names
    assert sheets[0] not in (book.DATA_SHEET, book.DICT_SHEET)  # a cover sheet comes first
    data = pd.read_excel(path, sheet_name=book.DATA_SHEET, engine="calamine")
    assert data.shape == (80, 400)
    codebook = pd.read_excel(path, sheet_name=book.DICT_SHEET, engine="calamine").fillna("")
    undocumented = set(data.columns) - set(codebook["Field"])
    assert len(undocumented) == 2 and all(c.startswith("_") for c in undocumented)
    assert set(codebook["Field"]) <= set(data.columns)


def test_trial_scopes_and_missing_codes(small_book: tuple[object, Path]) -> None:
    book, path = small_book
    gold = book.load_gold(path)
    trial_col = gold.book.loc[gold.book["Label"] == "Trial", "Field"].iloc[0]
    trials = {v: k for k, v in gold.labels[trial_col].items()}
    scoped = gold.book[gold.book["Study"].str.endswith(" only")]
    assert len(scoped) > 10
    for field, study in zip(scoped["Field"], scoped["Study"], strict=True):
        other = [code for name, code in trials.items() if not study.startswith(name)]
        assert gold.df.loc[gold.df[trial_col].isin(other), field].isna().all(), field
    for field, miss in zip(gold.book["Field"], gold.book["Missing"], strict=True):
        declared = {float(x) for x in re.findall(r"(-?\d+)\s*=", miss)}
        values = pd.to_numeric(gold.df[field], errors="coerce")
        codes_like = set(values[values <= -50].dropna())  # base excess is negative, not a code
        assert codes_like <= declared, field


@pytest.mark.slow
def test_full_size_golds_agree_with_the_long_view(tmp_path: Path) -> None:
    _, seed, subjects, variables = trial_holdout.HOLDOUTS[8]
    xlsx = tmp_path / "holdout8.xlsx"
    gold = trial_holdout.write_workbook(8, xlsx, seed, subjects, variables)
    assert gold.df.shape == (subjects, variables)
    module = trial_holdout._sealed_module(trial_holdout.HOLDOUTS[8][0])
    assert module.verify(xlsx, gold) == []
