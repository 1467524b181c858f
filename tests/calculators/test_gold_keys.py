"""MedCalc-Bench gold-entity names map onto spec inputs, whatever the release's wording.

The calculators' own criteria texts (the numbered list in every one-shot example's
explanation, MedCalc-Bench-Verified) are walked criterion by criterion: each must name an input,
a combined criterion, a categorical value, or a group whose options each name an input. The few
criteria that are not an entity of any release are listed in EXEMPT with the reason.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from clinbridge.calculators import get, list_calculators
from clinbridge.calculators.goldkeys import canonical, resolve_gold_key
from clinbridge.calculators.medcalc import MedCalcRow, read_gold_parameters, run_row
from clinbridge.errors import CalculatorError, ClinbridgeError

DATA = Path(__file__).parents[1] / "data" / "medcalc"

EXEMPT = {
    (18, "Risk factors"): "a count of risk factors scored from its parts (hypertension, ...)",
    (43, "PaO₂/FiO₂ ratio"): "a ratio computed from PaO2 and FiO2 (both inputs)",
    (
        43,
        "Mean arterial pressure or administration of vasopressors",
    ): "computed from systolic and diastolic pressure",
    (43, "Creatinine or urine output"): "two numeric inputs, each its own entity",
}


def _criteria(explanation: str) -> list[tuple[str, str]]:
    out = []
    for line in explanation.splitlines():
        m = re.match(r"^\s*\d+\.\s+(.+?):\s+(.*)$", line.strip())
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def _options(text: str) -> list[str]:
    out = []
    for part in re.split(r"(?<=points),\s*|(?<=point),\s*", text):
        m = re.match(r"^\s*(.+?)\s*=\s*[+-]?\d+(?:\.\d+)?\s*points?\b", part)
        if m:
            o = m.group(1).strip()
            if not re.match(r"^(no|yes|none)$", o, re.I) and not re.match(r"^[<>=≤≥\d]", o):
                out.append(o)
    return out


def _resolve(calc, key):  # type: ignore[no-untyped-def]
    name = calc.resolve_name(key)
    if name:
        return (name,)
    target, _ = resolve_gold_key(calc, key)
    return target.inputs if target else None


def _is_value(calc, text: str) -> bool:  # type: ignore[no-untyped-def]
    for i in calc.spec.inputs:
        if i.type != "categorical":
            continue
        try:
            calc._coerce(i, text)
            return True
        except ClinbridgeError:
            continue
    return False


def _exempt(cid: int, name: str) -> bool:
    stripped, prev = name, ""
    while prev != stripped:
        prev, stripped = stripped, re.sub(r"\s*\([^()]*\)", "", stripped).strip()
    return (cid, stripped) in EXEMPT or (cid, name) in EXEMPT


def _one_shot() -> list[dict[str, str]]:
    with (DATA / "one_shot_data_verified.csv").open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("row", _one_shot(), ids=lambda r: r["Calculator ID"])
def test_every_criterion_of_the_criteria_text_names_inputs(row: dict[str, str]) -> None:
    calc = get(int(row["Calculator ID"]))
    failures = []
    for name, opts in _criteria(row["Ground Truth Explanation"]):
        if _exempt(calc.id, name):
            continue
        if "MME conversion factor" in opts:  # the opioid table: '<drug> Dose' (+ 'Per Day')
            for key in (f"{name} Dose", f"{name} Dose Per Day"):
                if _resolve(calc, key) is None:
                    failures.append(key)
            continue
        if "Equivalent Dose" in opts:  # the steroid table: the drug is a value of the input
            drug = canonical(re.sub(r"\(.*?\)", "", name))
            values = [canonical(v.value) for i in calc.spec.inputs for v in i.values]
            if not any(v.startswith(drug) for v in values):
                failures.append(name)
            continue
        got = _resolve(calc, name)
        options = _options(opts)
        if got is None:
            if _is_value(calc, name):
                continue
            if not options:
                failures.append(name)
            for o in options:
                if _resolve(calc, o) is None and not _is_value(calc, o):
                    failures.append(f"{name} -> {o}")
            continue
        if len(got) == 1 and calc.spec.input(got[0]).type == "categorical":
            failures += [f"{name} = {o}" for o in options if not _is_value(calc, o)]
    assert not failures, f"{calc.id} {calc.name}: criteria naming no input: {failures}"


def test_unicode_subscripts_and_rule_suffixes_resolve_for_every_input() -> None:
    failures = []
    for calc in list_calculators():
        for i in calc.spec.inputs:
            for a in (i.label, *i.aliases):
                variants = [
                    a.replace("2", "₂").replace("3", "³"),
                    f"{a} criteria for the {calc.name} rule",
                    f"{a} for the {calc.spec.slug.replace('_', ' ')} score",
                    a.upper(),
                ]
                for v in variants:
                    target, _ = resolve_gold_key(calc, v)
                    if calc.resolve_name(v) is None and (
                        target is None or target.inputs != (i.name,)
                    ):
                        failures.append((calc.id, v, target))
    assert not failures, failures[:20]


def _row(cid: int, entities: str) -> MedCalcRow:
    return MedCalcRow(row="t", calculator_id=cid, entities=entities)


def test_subscripted_apache_entities_are_read() -> None:
    calc = get(28)
    reading = read_gold_parameters(calc, {"FiO₂": [30, "%"], "PaO₂": [80, "mm Hg"]})
    assert set(reading.params) == {"fio2", "pao2"}


def test_combined_criterion_true_fills_one_part_and_says_so() -> None:
    calc = get(16)
    key = "Bedridden recently >3 days or major surgery within 12 weeks"
    reading = read_gold_parameters(calc, {key: True, "Active cancer": True})
    assert reading.params["bedridden"] is True and reading.params["active_cancer"] is True
    assert reading.reinterpreted and "at least one of" in reading.reinterpreted[0]["why"]
    out = run_row(_row(16, repr({key: True})))
    assert out.decision == "accept" and out.answer == 1
    out = run_row(_row(16, repr({key: False})))
    assert out.decision == "accept" and out.answer == 0


def test_negated_name_inverts_the_value() -> None:
    out = run_row(_row(20, repr({"age": [30, "years"], "Temperature": [37, "°C"], "Cough": True})))
    assert out.decision == "accept" and out.parameters["cough_absent"] is False
    assert out.reinterpreted and out.reinterpreted[0]["input"] == "cough_absent"


def test_unknown_and_ambiguous_keys_abstain_with_the_reason() -> None:
    out = run_row(_row(4, repr({"age": [70, "years"], "Favourite colour": "blue"})))
    assert out.decision == "abstain" and "matches no input" in (out.reason or "")
    with pytest.raises(CalculatorError, match="matches no input"):
        read_gold_parameters(get(6), {"weight of evidence": 1})


def test_rule_suffixed_keys_from_the_train_subset_still_resolve() -> None:
    calc = get(25)
    r = read_gold_parameters(calc, {"Liver disease criteria for the HAS-BLED rule": True})
    assert r.params == {"liver_disease": True}
    calc = get(17)
    r = read_gold_parameters(calc, {"Congestive Heart Faliure criteria for the RCRI": True})
    assert r.params == {"chf": True}
