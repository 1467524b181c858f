"""Readings added after holdout 3: shorthand read with the dictionary, restatements in
parentheses, a column name with a bare code, a variable named beside its own code, time points
given to the variables recorded at them, and mentions that never span the subjects."""

from __future__ import annotations

import pandas as pd
import pytest

import clinbridge.api as cb
from clinbridge.engine.understand._trial_vocab import expand_shorthand, neighbour_pairs


@pytest.fixture(scope="module")
def conn(trial_db):  # type: ignore[no-untyped-def]
    c = cb.connect(trial_db)
    yield c
    c.close()


def clean(df: pd.DataFrame, col: str) -> pd.Series:
    s = df[col]
    return s.where(~s.isin([-99, -88, -77]))


def test_shorthand_is_expanded_only_where_the_dictionary_says_so() -> None:
    pairs = neighbour_pairs(["Standard care (normothermia)", "Moderate disability"])
    assert expand_shorthand("mean x in std care", pairs) == "mean x in standard care"
    assert expand_shorthand("std temp at 24h", pairs) == "std temp at 24h"  # no such pair
    assert expand_shorthand("mod/sev disability", pairs) == "mod/sev disability"
    pairs = neighbour_pairs(["death or moderate or severe disability"])
    assert expand_shorthand("mod/sev disability", pairs) == "moderate/severe disability"
    assert expand_shorthand("babies w seizures") == "babies with seizures"
    assert expand_shorthand("born at 36 w") == "born at 36 w"  # weeks, after a number


def test_shorthand_in_questions(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    a = conn.ask("median skin temp at 6h in std care")
    assert a.accepted, a.reason
    assert a.value == pytest.approx(clean(df, "SKINTEMP_6H")[df["Rand_Arm"] == 2].median())
    a = conn.ask("number of infants w seizures before randomisation")
    assert a.accepted, a.reason
    assert a.value == (df["SEIZ_BL"] == 1).sum()
    a = conn.ask("how many babies with mod disability at 18 months")
    assert a.accepted, a.reason
    assert a.value == (df["DISAB_LEVEL"] == 2).sum()
    for q in ("mean std temp at 24h", "std of heart rate at 24 h"):  # 'std' is not read as arm
        assert conn.ask(q).decision == "abstain", q


def test_a_restatement_in_parentheses_is_not_read(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    a = conn.ask("Mean change in MAP from 12 h to 72 h (i.e. during rewarming)")
    assert a.accepted, a.reason
    assert a.value == pytest.approx((clean(df, "map_h72") - clean(df, "map_h12")).mean())
    assert "clarification" in str(a.details["groundings"])
    # one that names a grouping, a negation or a word of the dictionary is read
    a = conn.ask("Mean heart rate at 24 h (i.e. by arm)")
    assert a.accepted and len(a.value) == 2
    assert (
        conn.ask("Mean heart rate at 24 h (i.e. not the survivors)").decision == "abstain"
    )  # 2 nots


def test_a_column_name_with_its_code(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    a = conn.ask("how many infants at site 3 were in Rand_Arm 2?")
    assert a.accepted, a.reason
    assert a.value == ((df["SITE"] == 3) & (df["Rand_Arm"] == 2)).sum()
    a = conn.ask("mean PLT_48H where HIE_GRADE = 2")  # the label read beside its own code
    assert a.accepted, a.reason
    assert a.value == pytest.approx(clean(df, "PLT_48H")[df["HIE_GRADE"] == 2].mean())
    assert conn.ask("how many infants with HIE_GRADE 8").decision == "abstain"  # no such code


def test_a_time_point_goes_to_the_variable_recorded_at_it(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    a = conn.ask("mean length of hospital stay in infants with moderate disability at 18 months")
    assert a.accepted, a.reason
    assert a.value == pytest.approx(clean(df, "LOS_DAYS")[df["DISAB_LEVEL"] == 2].mean())
    # nothing asked is recorded at 18 months but the stay: it abstains
    assert conn.ask("mean length of hospital stay at 18 months").decision == "abstain"


def test_a_mention_does_not_span_the_subjects(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    # 'survivors with a severe disability' is two conditions, not the composite outcome
    df = trial_wb.data
    a = conn.ask("how many survivors with severe disability at 18 months were cooled?")
    assert a.accepted, a.reason
    want = (df["DEATH"] == 0) & (df["DISAB_LEVEL"] == 3) & (df["Rand_Arm"] == 1)
    assert a.value == want.sum()
    a = conn.ask("percentage of cooled infants with moderate disability among survivors")
    assert a.accepted, a.reason
    cohort = (df["DEATH"] == 0) & (df["Rand_Arm"] == 1)
    assert a.details["numerator"] == (cohort & (df["DISAB_LEVEL"] == 2)).sum()
    a = conn.ask("what percentage of cooled infants met the primary outcome?")
    assert a.accepted, a.reason
    cooled = df["Rand_Arm"] == 1
    assert a.details["numerator"] == (cooled & (df["PRIM_OUT"] == 1)).sum()


def test_several_codes_after_a_column_name_and_linking_verbs(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    a = conn.ask("how many infants with HIE_GRADE 1 or 2")
    assert a.accepted, a.reason
    assert a.value == df["HIE_GRADE"].isin([1, 2]).sum()
    a = conn.ask("count of infants where DISAB_LEVEL is 0 in TRIAL 1")
    assert a.accepted, a.reason
    assert a.value == ((df["DISAB_LEVEL"] == 0) & (df["TRIAL"] == 1)).sum()
    assert conn.ask("how many infants with HIE_GRADE 2 or 9").decision == "abstain"  # 9: no code
    # 'reached' links the infants to the outcome; it is not 'Day full enteral feeds reached'
    a = conn.ask("what proportion of standard care infants reached the primary endpoint?")
    assert a.accepted, a.reason
    std = df["Rand_Arm"] == 2
    assert a.details["numerator"] == (std & (df["PRIM_OUT"] == 1)).sum()


def test_mortality_days_equality_and_lab_shorthand(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    # 'mortality' with no aggregate is the share who died; the rest is the cohort
    a = conn.ask("What was the mortality among infants with moderate HIE who were cooled?")
    assert a.accepted, a.reason
    cohort = (df["HIE_GRADE"] == 2) & (df["Rand_Arm"] == 1)
    assert a.details["numerator"] == (cohort & (df["DEATH"] == 1)).sum()
    assert a.details["denominator"] == (cohort & df["DEATH"].isin([0, 1])).sum()
    a = conn.ask("incidence of hearing impairment at 18 months in the standard care arm")
    assert a.accepted, a.reason
    assert a.details["numerator"] == ((df["Rand_Arm"] == 2) & (df["HEARING_18M"] == 1)).sum()
    a = conn.ask("median urea d2")  # a day said as the columns say it
    assert a.accepted, a.reason
    assert a.value == pytest.approx(clean(df, "UREA_48H").median())
    a = conn.ask("how many infants had an Apgar score equal to 2 at 1 minute")
    assert a.accepted, a.reason
    assert a.value == (clean(df, "APGAR_1") == 2).sum()
    a = conn.ask("mean K at 24 h in infants w sz before randomisation")
    assert a.accepted, a.reason
    assert a.value == pytest.approx(clean(df, "K_24H")[df["SEIZ_BL"] == 1].mean())


def test_the_or_of_a_bound_joins_no_variables(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    a = conn.ask("percentage of infants with an Apgar at 5 min of 3 or less who died")
    assert a.accepted, a.reason
    low = clean(df, "APGAR_5") <= 3
    assert a.details["numerator"] == (low & (df["DEATH"] == 1)).sum()
    assert conn.ask("how many infants died or had severe disability").decision == "abstain"


def test_a_coded_variables_name_then_its_code(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    a = conn.ask("median heart rate at 12 h in HIE grade 1")
    assert a.accepted, a.reason
    assert a.value == pytest.approx(clean(df, "hr_12h")[df["HIE_GRADE"] == 1].median())
    assert conn.ask("how many infants with HIE grade 6").decision == "abstain"  # no such code


def test_the_subject_id_column_names_the_subjects(conn, trial_wb) -> None:  # type: ignore[no-untyped-def]
    df = trial_wb.data
    a = conn.ask("count SUBJ_ID where TRIAL = 1 and OUTBORN = 1")
    assert a.accepted, a.reason
    assert a.value == ((df["TRIAL"] == 1) & (df["OUTBORN"] == 1)).sum()
