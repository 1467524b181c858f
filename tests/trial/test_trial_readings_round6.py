"""Readings of the forms that failed first runs of blind sets 5 and 6 as classes, not phrases:
a distribution (each category with n and %), a spread beside its summary ('mean (SD)',
'median (IQR)'), a bare number after a serial measurement ('apgar 10' at 10 minutes), a
grouping said after a time range ('between 0 h and 72 h by arm'), and a fall said as a
positive amount. Gold from pandas on the generated workbook."""

from __future__ import annotations

import pandas as pd
import pytest

import clinbridge.api as cb


@pytest.fixture(scope="module")
def conn(trial_db):  # type: ignore[no-untyped-def]
    c = cb.connect(trial_db)
    yield c
    c.close()


def clean(df: pd.DataFrame, col: str) -> pd.Series:
    s = pd.to_numeric(df[col], errors="coerce")
    return s.where(~s.isin([-99, -88, -77]))


@pytest.mark.parametrize(
    "question",
    [
        "distribution of HIE grade",
        "HIE grade, n (%)",
        "number and percentage of infants in each HIE grade",
        "percentage of infants by HIE grade",
    ],
)
def test_a_distribution_gives_each_category_n_and_percent(conn, trial_wb, question) -> None:  # type: ignore[no-untyped-def]
    grade = clean(trial_wb.data, "HIE_GRADE").dropna()
    a = conn.ask(question)
    assert a.decision == "accept", a.reason
    got = {r["hie_grade"]: (r["numerator"], r["denominator"]) for r in a.value}
    labels = {1: "Mild", 2: "Moderate", 3: "Severe"}
    want = {labels[int(k)]: (int(n), len(grade)) for k, n in grade.value_counts().items()}
    assert got == want
    assert all(abs(r["value"] - r["numerator"] / r["denominator"]) < 1e-9 for r in a.value)


def test_a_distribution_within_groups(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    a = conn.ask("HIE grade by arm, n (%)")
    assert a.decision == "accept", a.reason
    cooled = df["Rand_Arm"] == 1
    grade = clean(df, "HIE_GRADE")
    row = next(r for r in a.value if r["hie_grade"] == "Severe" and "Hypo" in r["rand_arm"])
    assert (row["numerator"], row["denominator"]) == (
        int((grade[cooled] == 3).sum()),
        int(grade[cooled].notna().sum()),
    )


def test_a_distribution_never_guesses_which_variable(conn) -> None:  # type: ignore[no-untyped-def]
    # two groupings and nothing distributed by name: whose share? (asked back)
    assert conn.ask("percentage of infants by HIE grade and arm").decision != "accept"
    # a cohort condition and no distribution word: the share of what?
    assert conn.ask("percentage of cooled infants by site").decision != "accept"
    assert conn.ask("distribution of birth weight").decision != "accept"


def test_mean_sd_and_median_iqr_answer_both(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    bw = clean(trial_wb.data, "BWT_g")
    a = conn.ask("mean (SD) birth weight")
    assert a.value == pytest.approx(bw.mean()) and a.details["sd"] == pytest.approx(bw.std())
    a = conn.ask("median (IQR) birth weight")
    assert a.value == pytest.approx(bw.median())
    assert (a.details["q1"], a.details["q3"]) == pytest.approx(
        (bw.quantile(0.25), bw.quantile(0.75))
    )
    a = conn.ask("birth weight, mean ± SD, by arm")
    cooled = trial_wb.data["Rand_Arm"] == 1
    row = next(r for r in a.value if "Hypo" in r["rand_arm"])
    assert row["sd"] == pytest.approx(bw[cooled].std())


def test_a_bare_number_after_a_serial_measurement_is_its_time(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    a = conn.ask("mean apgar 10")
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx(clean(trial_wb.data, "apgar10").mean())
    assert "apgar10" in str(a.plan)
    # a code stays a code
    a = conn.ask("how many infants had HIE grade 3")
    assert a.value == int((trial_wb.data["HIE_GRADE"] == 3).sum())


def test_a_grouping_after_a_time_range_and_a_fall(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    change = clean(df, "LACT_72H") - clean(df, "LACT_0H")
    cooled = df["Rand_Arm"] == 1
    a = conn.ask("change in lactate between 0 h and 72 h by arm")
    assert a.decision == "accept", a.reason
    row = next(r for r in a.value if "Hypo" in r["rand_arm"])
    assert row["value"] == pytest.approx(change[cooled].mean())
    a = conn.ask("fall in lactate from 0 to 72 h by arm")
    row = next(r for r in a.value if "Hypo" in r["rand_arm"])
    assert row["value"] == pytest.approx(-change[cooled].mean())


def test_typing_slips_are_mended_but_never_a_changed_letter() -> None:
    from clinbridge.engine.understand._trial_typos import TypoMender

    mender = TypoMender({"randomised", "percentage", "infants", "between", "weight", "cases"})
    text, slips = mender.mend("percetnage of infnats by randoimsed arm betewen trials")
    assert text == "percentage of infants by randomised arm between trials"
    assert len(slips) == 4
    # a changed letter makes real words of real words; a short word's added letter too
    assert mender.mend("mean height")[0] == "mean height"
    assert mender.mend("causes of death")[0] == "causes of death"
    assert mender.mend("whose NEOCOOL")[0] == "whose NEOCOOL"


def test_a_grouping_said_but_not_read_abstains(conn) -> None:  # type: ignore[no-untyped-def]
    # 'by <unknown word> arm' answered one pooled mean before: now the slip is mended, and an
    # unreadable word before a design word abstains rather than dropping the breakdown
    a = conn.ask("Mean (SD) birth weight by randoimsed arm.")
    assert a.decision == "accept" and isinstance(a.value, list)
    a = conn.ask("mean birth weight by zqxwv arm")
    assert a.decision != "accept" and "zqxwv" in str(a.reason)


def test_request_frames_arrows_units_and_id_case(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    a = conn.ask("Could you tell me the mean birth weight by arm?")
    assert a.decision == "accept" and isinstance(a.value, list), a.reason
    change = clean(df, "LACT_24H") - clean(df, "LACT_0H")
    a = conn.ask("change in lactate 0h -> 24h, mean")
    assert a.value == pytest.approx(change.mean())
    a = conn.ask("mean change in lactate between 0 and 24 hrs")
    assert a.value == pytest.approx(change.mean())
    sid = str(df["SUBJ_ID"].iloc[3])
    a = conn.ask(f"birth weight for baby {sid.lower()}")
    assert a.decision == "accept" and a.value == pytest.approx(float(df["BWT_g"].iloc[3]))
