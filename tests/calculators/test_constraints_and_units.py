"""Cross-input constraints and analyte-specific international units (spec features)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clinbridge import calculators
from clinbridge.calculators.compile import compile_spec
from clinbridge.calculators.spec import parse_spec
from clinbridge.calculators.units import convert
from clinbridge.errors import CalculatorInputError, CalculatorSpecError

SPEC = """
id: 9001
slug: pressure_gap
name: Pressure gap
citation: test
inputs:
  - {name: sbp, label: Systolic, type: number, unit: mmHg}
  - {name: dbp, label: Diastolic, type: number, unit: mmHg}
  - {name: floor, label: Floor, type: number, missing: optional}
constraints:
  - {expr: sbp > dbp, message: systolic must exceed diastolic}
  - {expr: dbp >= floor, message: diastolic below the floor}
result: sbp - dbp
output: {name: gap, label: Gap, type: decimal, decimals: 1}
"""


def test_constraint_refuses_and_names_the_inputs() -> None:
    calc = compile_spec(parse_spec(SPEC))
    assert calc.compute({"sbp": 120, "dbp": 80}).value == 40.0
    with pytest.raises(CalculatorInputError) as info:
        calc.compute({"sbp": 80, "dbp": 120})
    assert "systolic must exceed diastolic" in str(info.value)
    assert info.value.details["field"] == "dbp,sbp"
    assert info.value.details["values"] == {"dbp": "120 mmHg", "sbp": "80 mmHg"}


def test_constraint_on_an_optional_input_not_given_does_not_apply() -> None:
    calc = compile_spec(parse_spec(SPEC))
    assert calc.compute({"sbp": 120, "dbp": 80}).value == 40.0  # floor not given
    with pytest.raises(CalculatorInputError, match="below the floor"):
        calc.compute({"sbp": 120, "dbp": 80, "floor": 90})


def test_constraint_with_an_unknown_name_or_forbidden_syntax_is_a_spec_error() -> None:
    with pytest.raises(CalculatorSpecError):
        compile_spec(parse_spec(SPEC.replace("dbp >= floor", "dbp >= ceiling")))
    with pytest.raises(CalculatorSpecError):
        compile_spec(parse_spec(SPEC.replace("dbp >= floor", "dbp.real >= floor")))


@settings(deadline=None)
@given(st.floats(min_value=0.1, max_value=1000, allow_nan=False))
def test_insulin_units_round_trip(uiu_per_ml: float) -> None:
    pmol = convert(uiu_per_ml, "µIU/mL", "pmol/L", iu_amount="6.0 nmol")
    assert pmol == pytest.approx(6.0 * uiu_per_ml, rel=1e-9)
    assert convert(pmol, "pmol/L", "µIU/mL", iu_amount="6.0 nmol") == pytest.approx(uiu_per_ml)
    assert convert(uiu_per_ml, "mU/L", "µIU/mL", iu_amount="6.0 nmol") == pytest.approx(uiu_per_ml)


def test_international_units_need_a_declared_amount() -> None:
    # without iu_amount an IU is not convertible to moles (it is analyte-specific)
    with pytest.raises(CalculatorInputError):
        convert(10, "pmol/L", "µIU/mL")
    # enzyme activities (U/L) are unaffected
    assert convert(40, "IU/L", "U/L") == 40


def test_homa_ir_insulin_in_pmol_per_litre() -> None:
    r = calculators.compute("homa-ir", {"insulin": [60, "pmol/L"], "glucose": [81, "mg/dL"]})
    assert r.value == 2.0
    assert "60 pmol/L" in r.explanation()
