"""Shapes that used to give one wrong number, on our generated workbook and on another builder's
(tests/trial/foreign_book.py): values of one variable joined by 'and' are answered per value
(never pooled), a counted noun named only in a label's aside abstains, and a negated or excluded
category is a filter on one side (or an abstention), never both sides. Gold from pandas."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from tests.trial import foreign_book as fb

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial


@pytest.fixture(scope="module")
def conn(trial_db):  # type: ignore[no-untyped-def]
    c = cb.connect(trial_db)
    yield c
    c.close()


def clean(df: pd.DataFrame, col: str) -> pd.Series:
    s = pd.to_numeric(df[col], errors="coerce")
    return s.where(~s.isin([-99, -88, -77]))


@pytest.mark.parametrize(
    ("question", "var", "col", "codes"),
    [
        ("how many boys and girls", "sex", "sex", (1, 2)),
        ("number of infants at site 4 and site 5", "site", "SITE", (4, 5)),
        ("how many infants at sites 4 and 5", "site", "SITE", (4, 5)),
        ("number of infants with mild and moderate HIE", "hie_grade", "HIE_GRADE", (1, 2)),
    ],
)
def test_values_joined_by_and_are_counted_each(conn, trial_wb, question, var, col, codes) -> None:  # type: ignore[no-untyped-def]
    a = conn.ask(question)
    assert a.decision == "accept", a.reason
    assert isinstance(a.value, list) and len(a.value) == len(codes)
    want = sorted(int((clean(trial_wb.data, col) == c).sum()) for c in codes)
    assert sorted(r["value"] for r in a.value) == want


def test_a_mean_in_two_arms_joined_by_and_is_per_arm(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    a = conn.ask("mean birth weight in cooled and standard care infants")
    assert a.decision == "accept", a.reason
    bw = clean(df, "BWT_g")
    got = sorted(r["value"] for r in a.value)
    want = sorted(bw[df["Rand_Arm"] == k].mean() for k in (1, 2))
    assert got == pytest.approx(want)


def test_or_still_pools(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    a = conn.ask("how many infants at site 4 or site 5")
    assert a.decision == "accept" and a.value == int(trial_wb.data["SITE"].isin([4, 5]).sum())


@pytest.mark.parametrize(
    "question",
    [
        "percentage of infants who were boys and girls",
        "how many causes of death",
        "number of causes of death by arm",
        "how many infants, excluding deaths, were girls",
        "how many non-survivors were girls",
        "disability level in survivors by outcome",
    ],
)
def test_shapes_that_must_not_be_answered(conn, question) -> None:  # type: ignore[no-untyped-def]
    a = conn.ask(question)
    assert a.decision != "accept", a.value


def test_a_negated_outcome_is_a_one_sided_filter(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    bw = clean(df, "BWT_g")
    for question in (
        "mean birth weight in infants who did not die",
        "mean birth weight in survivors",
    ):
        a = conn.ask(question)
        assert a.decision == "accept", a.reason
        assert a.value == pytest.approx(bw[df["DEATH"] == 0].mean())


@pytest.fixture(scope="module")
def foreign(tmp_path_factory) -> tuple[str, pd.DataFrame]:  # type: ignore[no-untyped-def]
    data = fb.frame()
    rows = [
        (n, "Death before discharge (any cause)" if n == "died" else d, u, v, vis, st)
        for n, d, u, v, vis, st in fb.CODEBOOK
    ]
    tmp: Path = tmp_path_factory.mktemp("foreign_risks")
    book = fb.write(tmp / "book.xlsx", data, fb.HEADER, rows)
    url = f"duckdb:///{tmp / 'book.duckdb'}"
    assert load_trial(book, url).reconciled
    return url, data


def test_foreign_book_shapes(foreign) -> None:  # type: ignore[no-untyped-def]
    url, data = foreign
    with cb.connect(url) as conn:
        a = conn.ask("how many boys and girls")
        assert a.decision == "accept", a.reason
        sex = fb.clean(data, "sex")
        assert sorted(r["value"] for r in a.value) == sorted(int((sex == k).sum()) for k in (1, 2))
        a = conn.ask("mean birth weight in centre 2 and centre 3")
        assert a.decision == "accept", a.reason
        bw = fb.clean(data, "bw_g")
        assert sorted(r["value"] for r in a.value) == pytest.approx(
            sorted(bw[data["centre"] == k].mean() for k in (2, 3))
        )
        a = conn.ask("how many infants in centre 2 or centre 3")
        assert a.value == int(data["centre"].isin([2, 3]).sum())
        for question in ("how many causes of death", "percentage who were boys and girls"):
            assert conn.ask(question).decision != "accept", question
        a = conn.ask("mean birth weight in infants who did not die")
        assert a.decision == "accept", a.reason
        assert a.value == pytest.approx(bw[data["died"] == 0].mean())


@pytest.mark.parametrize(
    "question",
    [
        "how many infants were not delivered by emergency caesarean",
        "how many infants were not born by emergency caesarean section",
    ],
)
def test_a_negation_not_tied_to_a_condition_abstains(conn, question) -> None:  # type: ignore[no-untyped-def]
    a = conn.ask(question)
    assert a.decision != "accept", a.value
    assert "negation" in str(a.reason)


def test_outborn_said_before_the_subjects_is_still_counted(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    a = conn.ask("how many outborn infants died")
    df = trial_wb.data
    assert a.decision == "accept", a.reason
    assert a.value == int(((df["OUTBORN"] == 1) & (df["DEATH"] == 1)).sum())


def test_foreign_book_negation_placed(foreign) -> None:  # type: ignore[no-untyped-def]
    url, data = foreign
    with cb.connect(url) as conn:
        a = conn.ask("how many infants were not randomised to cooling")
        assert a.decision != "accept" or a.value == int((data["alloc"] == 2).sum())
        a = conn.ask("how many infants did not die")
        assert a.decision == "accept", a.reason
        assert a.value == int((data["died"] == 0).sum())


def test_one_trials_item_asked_of_all_infants_abstains(conn, trial_wb, foreign) -> None:  # type: ignore[no-untyped-def]
    a = conn.ask("mean MRI injury score in all infants")
    assert a.decision != "accept" and "only in NEOCOOL" in str(a.reason)
    a = conn.ask("mean MRI injury score")  # said plainly: answered, with the trial noted
    assert a.decision == "accept" and a.value == pytest.approx(
        clean(trial_wb.data, "MRI_SCORE").mean()
    )
    with cb.connect(foreign[0]) as fconn:
        a = fconn.ask("mean bayley cognitive score in all infants")
        assert a.decision != "accept" and "only in COOLKIDS" in str(a.reason)
