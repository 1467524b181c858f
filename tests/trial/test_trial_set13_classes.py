"""Classes that set 13's independent workbook showed besides its prose missing codes, on a small
workbook of our own: sites numbered from 1 in each trial and named on a list sheet by trial and
number (a column of the names is derived and is the site; the bare numbers leave the catalog),
gestations in completed weeks and days ('38+4') read as weeks, 'what did X die of' as the cause
of death, and '37 completed weeks' as 37 weeks. Gold is computed in pandas."""

from __future__ import annotations

import numpy as np
import openpyxl
import pandas as pd
import pytest

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial, read_trial

N = 180
CENTRES = {
    "ORCA": ("Bergen", "Tromso", "Aarhus"),
    "PUFFIN": ("Leeds", "Cork", "Derby", "Hull"),
}


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(1313)
    study = rng.choice([1, 2], N)
    centre = [int(rng.integers(1, 4 if s == 1 else 5)) for s in study]
    died = (rng.random(N) < 0.3).astype(int)
    cause = [int(rng.integers(1, 4)) if d else 888 for d in died]
    weeks = rng.integers(35, 42, N)
    days = rng.integers(0, 7, N)
    ga = [f"{w}+{d}" for w, d in zip(weeks, days, strict=True)]
    ga[3] = "UK"
    return pd.DataFrame(
        {
            "BABY": [f"B{i:04d}" for i in range(N)],
            "STUDY": study,
            "CENTRE_NUM": centre,
            "GROUP": rng.choice([1, 2], N),
            "DIED_NNU": died,
            "DEATH_CAUSE": cause,
            "GEST": ga,
        }
    )


DICT = (
    ("BABY", "Baby identifier", None, None),
    ("STUDY", "Study", "1=ORCA; 2=PUFFIN", None),
    ("CENTRE_NUM", "Centre number (restarts in each study)", None, "Centre names: see Centres"),
    ("GROUP", "Allocated group", "1=Cooling; 2=Control", None),
    ("DIED_NNU", "Death in the neonatal unit", "0=No; 1=Yes", None),
    (
        "DEATH_CAUSE",
        "Cause of death",
        "1=Sepsis; 2=Withdrawal of care; 3=Other",
        "888 when not applicable (alive)",
    ),
    ("GEST", "Gestation at birth (completed weeks+days)", None, "UK = unknown"),
)


def _book(tmp_path) -> tuple[str, pd.DataFrame]:
    df = _frame()
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(list(df.columns))
    for row in df.itertuples(index=False):
        ws.append(list(row))
    cs = wb.create_sheet("Centres")
    cs.append(["Study", "Number", "Centre", "Region"])
    for study, names in CENTRES.items():
        for k, name in enumerate(names, start=1):
            cs.append([study, k, name, "North"])
    ds = wb.create_sheet("Codebook")
    ds.append(["Variable", "Label", "Codes", "Comment"])
    for row in DICT:
        ds.append(list(row))
    path = tmp_path / "set13_like.xlsx"
    wb.save(path)
    return str(path), df


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("s13")
    path, df = _book(tmp)
    url = f"duckdb:///{tmp / 'b.duckdb'}"
    report = load_trial(path, url)
    with cb.connect(url) as conn:
        yield conn, df, report


def _names(df: pd.DataFrame) -> pd.Series:
    study = df["STUDY"].map({1: "ORCA", 2: "PUFFIN"})
    return pd.Series(
        [CENTRES[s][k - 1] for s, k in zip(study, df["CENTRE_NUM"], strict=True)], index=df.index
    )


def test_sites_numbered_within_each_trial_are_named_by_trial_and_number(loaded):
    conn, df, report = loaded
    assert report.reconciled
    assert any("Centre" in d and "'Centres'" in d for d in report.derived_columns)
    site = next(v for v in conn.catalog.variables if v.role == "site")
    assert site.name == "Centre" and set(site.codes) == {n for v in CENTRES.values() for n in v}
    assert "CENTRE_NUM" not in {v.name for v in conn.catalog.variables}
    a = conn.ask("number of babies by centre")
    got = {r["centre"]: r["value"] for r in a.value}
    assert got == _names(df).value_counts().to_dict()
    a = conn.ask("which centres had more than 20 babies?")
    counts = _names(df).value_counts()
    assert sorted(a.value) == sorted(counts[counts > 20].index)
    assert conn.ask("how many babies at centre 2?").decision == "abstain"  # whose centre 2?


def test_the_numbers_alone_name_their_sites_when_they_do_not_restart(tmp_path):
    path, _ = _book(tmp_path)
    wb = openpyxl.load_workbook(path)
    ws = wb["Data"]
    for row in ws.iter_rows(min_row=2):
        if row[1].value == 2:
            row[2].value = row[2].value + 3  # PUFFIN's centres numbered 4 to 7
    wb.save(path)
    table = read_trial(path)
    assert table.report.derived_columns == []


def test_weeks_and_days_are_read_as_weeks(loaded):
    conn, df, report = loaded
    assert report.weeks_and_days == ["GEST"]
    gest = next(v for v in conn.catalog.variables if v.name == "GEST")
    assert gest.type == "float" and gest.unit == "weeks"
    weeks = df["GEST"].map(
        lambda s: int(s.split("+")[0]) + int(s.split("+")[1]) / 7 if "+" in s else np.nan
    )
    a = conn.ask("mean gestation at birth")
    assert a.value == pytest.approx(weeks.mean())
    a = conn.ask("how many babies had a gestation below 37 completed weeks?")
    assert a.value == int((weeks < 37).sum())


def test_what_they_died_of_is_the_cause_of_death(loaded):
    conn, df, _ = loaded
    a = conn.ask("what did the babies who died in the neonatal unit die of?")
    dead = df[df["DIED_NNU"] == 1]
    want = dead["DEATH_CAUSE"].map({1: "Sepsis", 2: "Withdrawal of care", 3: "Other"})
    got = {r["death_cause"]: r["numerator"] for r in a.value}
    assert got == want.value_counts().to_dict()
