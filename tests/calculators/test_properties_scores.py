"""Property tests for calculators 28-69: unit invariance, bounds, monotonicity and date arithmetic."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinbridge import calculators

FAST = settings(max_examples=60, deadline=None)

sodium = st.floats(min_value=110, max_value=170)
chloride = st.floats(min_value=70, max_value=130)
bicarb = st.floats(min_value=2, max_value=45)


@FAST
@given(na=sodium, cl=chloride, hco3=bicarb)
def test_anion_gap_is_the_same_in_meq_and_mmol(na: float, cl: float, hco3: float) -> None:
    calc = calculators.get(39)
    a = calc.compute(
        {"sodium": [na, "mEq/L"], "chloride": [cl, "mEq/L"], "bicarbonate": [hco3, "mEq/L"]}
    )
    b = calc.compute(
        {"sodium": [na, "mmol/L"], "chloride": [cl, "mmol/L"], "bicarbonate": [hco3, "mmol/L"]}
    )
    assert a.value == b.value == pytest.approx(na - cl - hco3, abs=5e-4)


@FAST
@given(na=sodium, cl=chloride, hco3=bicarb, alb=st.floats(min_value=1, max_value=6))
def test_gap_family_is_consistent(na: float, cl: float, hco3: float, alb: float) -> None:
    p = {"sodium": na, "chloride": cl, "bicarbonate": hco3}
    ag = calculators.get(39).compute(p).raw_value
    assert calculators.get(63).compute(p).raw_value == pytest.approx(ag - 12)
    acag = calculators.get(65).compute({**p, "albumin": alb}).raw_value
    assert acag == pytest.approx(ag + 2.5 * (4 - alb))
    assert calculators.get(66).compute({**p, "albumin": alb}).raw_value == pytest.approx(acag - 12)
    if abs(24 - hco3) > 1e-6:
        ratio = calculators.get(64).compute(p).raw_value
        assert ratio == pytest.approx((ag - 12) / (24 - hco3))


@FAST
@given(weight=st.floats(min_value=2, max_value=250), height=st.floats(min_value=45, max_value=220))
def test_bsa_is_unit_invariant(weight: float, height: float) -> None:
    calc = calculators.get(60)
    metric = calc.compute({"weight": [weight, "kg"], "height": [height, "cm"]}).raw_value
    imperial = calc.compute(
        {"weight": [weight / 0.45359237, "lb"], "height": [height / 2.54, "in"]}
    ).raw_value
    assert metric == pytest.approx(imperial, rel=1e-9)


@FAST
@given(qt=st.floats(min_value=200, max_value=700))
def test_every_qtc_formula_is_the_identity_at_60_per_minute(qt: float) -> None:
    for cid in (56, 57, 58, 59):
        assert calculators.get(cid).compute({"heart_rate": 60, "qt_interval": qt}).raw_value == (
            pytest.approx(qt)
        )


@FAST
@given(
    lmp=st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2030, 1, 1)),
    days=st.integers(min_value=0, max_value=300),
)
def test_gestational_age_and_conception_dates(lmp: dt.date, days: int) -> None:
    today = lmp + dt.timedelta(days=days)
    weeks, rest = (
        calculators.get(69)
        .compute({"lmp": lmp.strftime("%m/%d/%Y"), "current_date": today.isoformat()})
        .value
    )
    assert weeks * 7 + rest == days and 0 <= rest < 7
    conception = calculators.get(68).compute({"lmp": lmp.isoformat()}).value
    assert conception == (lmp + dt.timedelta(days=14)).strftime("%m/%d/%Y")


CCI_FLAGS = [
    "mi", "chf", "pvd", "cva", "tia", "dementia", "chronic_pulmonary_disease",
    "connective_tissue_disease", "peptic_ulcer_disease", "hemiplegia", "moderate_severe_ckd",
    "leukemia", "lymphoma", "aids",
]  # fmt: skip


@FAST
@given(
    age=st.integers(min_value=18, max_value=100),
    flags=st.sets(st.sampled_from(CCI_FLAGS)),
    extra=st.sampled_from(CCI_FLAGS),
)
def test_charlson_never_decreases_when_a_comorbidity_is_added(
    age: int, flags: set[str], extra: str
) -> None:
    calc = calculators.get(32)
    base = calc.compute({"age": age, **dict.fromkeys(flags, True)}).value
    more = calc.compute({"age": age, **dict.fromkeys(flags | {extra}, True)}).value
    assert 0 <= base <= more <= 37


@FAST
@given(
    temp=st.floats(min_value=30, max_value=43),
    hr=st.floats(min_value=30, max_value=200),
    rr=st.floats(min_value=4, max_value=60),
    wbc=st.floats(min_value=100, max_value=100_000),
)
def test_sirs_counts_between_0_and_4(temp: float, hr: float, rr: float, wbc: float) -> None:
    value = (
        calculators.get(51)
        .compute({"temperature": temp, "heart_rate": hr, "respiratory_rate": rr, "wbc": wbc})
        .value
    )
    expected = (temp > 38 or temp < 36) + (hr > 90) + (rr > 20) + (wbc > 12000 or wbc < 4000)
    assert value == expected


@FAST
@given(dose=st.floats(min_value=0, max_value=500), per_day=st.integers(min_value=0, max_value=8))
def test_mme_is_linear_in_dose_and_frequency(dose: float, per_day: int) -> None:
    calc = calculators.get(49)
    value = calc.compute({"oxycodone_dose": [dose, "mg"], "oxycodone_per_day": per_day}).raw_value
    assert value == pytest.approx(dose * per_day * 1.5)
