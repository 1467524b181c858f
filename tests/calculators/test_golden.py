"""Golden cases of every calculator spec (tests/calculators/<id>.yaml), run by one test, and
every spec checked against the MedCalc-Bench rows of its calculator (one-shot + train subset)."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml

from clinbridge import calculators
from clinbridge.calculators.medcalc import (
    MedCalcRow,
    gold_parameters,
    parse_entities,
    read_medcalc_csv,
    run_row,
)
from clinbridge.errors import ClinbridgeError

HERE = Path(__file__).parent
DATA = HERE.parent / "data" / "medcalc"
GOLDEN = {int(p.stem): yaml.safe_load(p.read_text()) for p in sorted(HERE.glob("*.yaml"))}


def _cases() -> list[Any]:
    out = []
    for cid, doc in sorted(GOLDEN.items()):
        for case in doc.get("cases", []):
            out.append(pytest.param(cid, case, id=f"{cid}-{case['name']}"))
    return out


def _check_value(got: Any, expect: Any, tolerance: float | None) -> None:
    if isinstance(expect, list):
        assert list(got) == expect
    elif isinstance(expect, str):
        assert got == expect
    elif tolerance is not None:
        assert math.isclose(got, expect, abs_tol=tolerance), (got, expect)
    else:
        assert got == expect


@pytest.mark.parametrize(("cid", "case"), _cases())
def test_golden_case(cid: int, case: dict[str, Any]) -> None:
    calc = calculators.get(cid)
    missing = case.get("missing", "spec")
    if "entities" in case:
        params = gold_parameters(calc, parse_entities(case["entities"]))
        missing = case.get("missing", "absent")
    else:
        params = case["params"]
    if "error" in case:
        with pytest.raises(ClinbridgeError) as info:
            calc.compute(params, missing=missing)
        assert info.value.code == case["error"], str(info.value)
        return
    result = calc.compute(params, missing=missing)
    _check_value(result.value, case["expect"], case.get("tolerance"))
    text = result.explanation()
    assert calc.name in text and result.answer in text


def test_every_spec_has_golden_cases() -> None:
    ids = {c.id for c in calculators.list_calculators()}
    assert ids <= set(GOLDEN), (
        f"specs without tests/calculators/<id>.yaml: {sorted(ids - set(GOLDEN))}"
    )


def _rows() -> dict[int, list[tuple[str, MedCalcRow]]]:
    by_id: dict[int, list[tuple[str, MedCalcRow]]] = defaultdict(list)
    for tag, name in (
        ("one_shot", "one_shot_data_verified.csv"),
        ("train", "train_subset_v1.0.csv"),
    ):
        for row in read_medcalc_csv(DATA / name):
            by_id[row.calculator_id].append((f"{tag}:{row.row}", row))
    return by_id


ROWS = _rows()
SPEC_IDS = sorted(c.id for c in calculators.list_calculators())


@pytest.mark.parametrize("cid", SPEC_IDS)
def test_spec_agrees_with_medcalc_rows(cid: int) -> None:
    """Every row agrees with its label, except documented label errors, where the spec gives
    the documented correct value."""
    known = {e["row"]: e for e in GOLDEN.get(cid, {}).get("label_errors", [])}
    rows = ROWS.get(cid, [])
    assert rows, f"no MedCalc-Bench rows for calculator {cid}"
    failures = []
    for key, row in rows:
        out = run_row(row, mode="gold")
        if key in known:
            want = known[key]["correct"]
            if want == "abstain":
                ok = out.decision == "abstain"
            else:
                ok = out.decision == "accept" and _close(out.answer, want)
            if not ok:
                failures.append(f"{key}: documented label error but got {out.answer} (want {want})")
        elif out.match is not True:
            failures.append(f"{key}: got {out.answer} expected {row.answer} ({out.reason})")
    assert not failures, "\n".join(failures)
    assert set(known) <= {k for k, _ in rows}, "label_errors name rows that do not exist"


def _close(got: Any, want: Any) -> bool:
    if isinstance(want, int | float) and isinstance(got, int | float):
        return math.isclose(got, want, rel_tol=1e-3, abs_tol=1e-3)
    if isinstance(want, list):
        return list(got) == want
    return str(got) == str(want)


@pytest.mark.parametrize("cid", sorted(GOLDEN))
def test_label_errors_are_documented_in_the_spec(cid: int) -> None:
    """Each label error in the golden file is also in the spec's notes, and vice versa."""
    in_golden = {e["row"] for e in GOLDEN[cid].get("label_errors", []) or []}
    in_spec = {r for n in calculators.get(cid).spec.notes for r in n.rows}
    assert in_golden == in_spec
