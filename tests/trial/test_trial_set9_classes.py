"""Classes of question that set 9's independent workbook found unread, on a small workbook of
that builder's habits written here (Field / Description / Allowed values / Visit headers, a site
column whose codes cell says 'see Centres sheet', CamelCase column names, an aside naming the
arm, Apgar columns told apart only by their labels' time). Gold is computed in pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial

N = 200
SITES = ["Leeds", "Oxford", "Glasgow", "Perth"]
DICT = [
    ("SubjectID", "Infant study number", "", "", "", "Both"),
    ("STUDY", "Trial", "", "ALPHA; BETA", "", "Both"),
    ("Centre", "Recruiting centre", "", "see Centres sheet", "", "Both"),
    (
        "RandArm",
        "Randomised allocation",
        "",
        "1 - Hypothermia / 2 - Normothermia",
        "Baseline",
        "Both",
    ),
    (
        "SarnatGrade",
        "Encephalopathy grade at entry",
        "",
        "1=Mild; 2=Moderate; 3=Severe",
        "Baseline",
        "Both",
    ),
    (
        "GMFCS_18",
        "Gross motor level",
        "",
        "0=No CP; 1=Level I; 2=Level II; 3=Level III",
        "18mo",
        "Both",
    ),
    ("WaterT_6h", "Cooling device water temperature (cooled arm)", "deg C", "", "6h", "Both"),
    ("apgar1", "Apgar score at 1 minute", "", "", "", "Both"),
    ("Apgar_5min", "Apgar score at 5 minutes", "", "", "", "Both"),
    ("APG10", "Apgar score at 10 minutes", "", "", "", "Both"),
    ("died_hosp", "Death before discharge", "", "0=No; 1=Yes", "Discharge", "Both"),
]


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pd.DataFrame]:
    rng = np.random.default_rng(99)
    arm = rng.integers(1, 3, N)
    df = pd.DataFrame(
        {
            "SubjectID": [f"S{i:04d}" for i in range(N)],
            "STUDY": rng.choice(["ALPHA", "BETA"], N),
            "Centre": rng.choice(SITES, N),
            "RandArm": arm,
            "SarnatGrade": rng.integers(1, 4, N),
            "GMFCS_18": rng.integers(0, 4, N),
            "WaterT_6h": np.where(arm == 1, rng.normal(32, 1, N).round(1), np.nan),
            "apgar1": rng.integers(0, 6, N),
            "Apgar_5min": rng.integers(2, 8, N),
            "APG10": rng.integers(4, 10, N),
            "died_hosp": rng.integers(0, 2, N),
        }
    )
    path = tmp_path_factory.mktemp("set9") / "book.xlsx"
    header = ["Field", "Description", "Units", "Allowed values", "Visit", "Study"]
    with pd.ExcelWriter(path) as xl:
        pd.DataFrame(DICT, columns=header).to_excel(xl, sheet_name="Variable list", index=False)
        pd.DataFrame({"Centre": SITES}).to_excel(xl, sheet_name="Centres", index=False)
        df.to_excel(xl, sheet_name="MERGED_DATA", index=False)
    url = f"duckdb:///{path.with_suffix('.duckdb')}"
    load_trial(path, url)
    return url, df


def _ask(url: str, question: str) -> cb.Answer:  # type: ignore[name-defined]
    with cb.connect(url) as conn:
        return conn.ask(question)


def test_column_names_as_written(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    a = _ask(url, "Count rows with STUDY = ALPHA and RandArm = 2.")
    assert a.decision == "accept", a.reason
    assert a.value == int(((df.STUDY == "ALPHA") & (df.RandArm == 2)).sum())
    a = _ask(url, "mean(APG10) by SarnatGrade")
    assert a.decision == "accept", a.reason
    want = df.groupby("SarnatGrade").APG10.mean()
    assert [round(r["value"], 6) for r in a.value] == [round(x, 6) for x in want]


def test_site_listed_elsewhere_is_categories(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    a = _ask(url, "how many died before discharge at Glasgow?")
    assert a.decision == "accept", a.reason
    assert a.value == int(((df.Centre == "Glasgow") & (df.died_hosp == 1)).sum())
    a = _ask(url, "number of infants at each centre")
    assert a.decision == "accept", a.reason
    assert {r["centre"]: r["value"] for r in a.value} == df.Centre.value_counts().to_dict()


def test_arm_word_is_not_the_asides(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    a = _ask(url, "What percentage of cooled babies died before discharge?")
    assert a.decision == "accept", a.reason
    cooled = df[df.RandArm == 1]
    assert a.details["numerator"] == int(cooled.died_hosp.sum())
    assert a.details["denominator"] == len(cooled)


def test_ordinal_bound_and_label_times(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    a = _ask(url, "How many rows have GMFCS_18 >= 2?")
    assert a.decision == "accept", a.reason
    assert a.value == int((df.GMFCS_18 >= 2).sum())
    a = _ask(url, "mean 10-minute apgar")
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx(df.APG10.mean())
    assert _ask(url, "mean apgar").decision == "abstain"


def test_known_and_unread_minus(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    a = _ask(
        url, "Share of died_hosp = 1 among non-missing died_hosp values in the RandArm = 2 group."
    )
    assert a.decision == "accept", a.reason
    assert a.details["numerator"] == int(df[df.RandArm == 2].died_hosp.sum())
    # a restriction on another variable's being known is no default: abstain
    assert _ask(url, "mean APG10 among infants with a known GMFCS_18").decision == "abstain"
    # columns told apart by their labels' time: a change between those times
    a = _ask(url, "mean(APG10 - apgar1)")
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx((df.APG10 - df.apgar1).mean())
