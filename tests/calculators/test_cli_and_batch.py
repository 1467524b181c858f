"""CLI, Python API, MedCalc-Bench batch I/O (gold and note modes), and the extractor hook."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from clinbridge import calculators
from clinbridge.calculators.compile import Calculator
from clinbridge.calculators.extract import Extractor
from clinbridge.calculators.medcalc import (
    MedCalcRow,
    answer_matches,
    gold_parameters,
    parse_entities,
    read_medcalc_csv,
    run_row,
)
from clinbridge.cli import main
from clinbridge.errors import CalculatorError, LoadError

DATA = Path(__file__).parents[1] / "data" / "medcalc"
ONE_SHOT = DATA / "one_shot_data_verified.csv"


def test_lookup_by_id_name_alias_and_fuzzy() -> None:
    assert calculators.get(4).id == 4
    assert calculators.get("4").id == 4
    assert calculators.get("CHA2DS2-VASc Score for Atrial Fibrillation Stroke Risk").id == 4
    assert calculators.get("chads vasc").id == 4
    assert calculators.get("wells pe").id == 8
    assert calculators.get("Wells DVT").id == 16
    assert calculators.get("cockroft gault").id == 2  # misspelt
    with pytest.raises(CalculatorError, match="closest"):
        calculators.get("frobnication index")


def test_json_schema_lists_inputs_units_and_required() -> None:
    schema = calculators.get("creatinine clearance").json_schema()
    assert set(schema["required"]) == {"age", "sex", "weight", "height", "creatinine"}
    assert schema["properties"]["creatinine"]["x-unit"] == "mg/dL"
    assert schema["properties"]["sex"]["enum"] == ["Female", "Male"]


def test_cli_list_and_single(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["calc", "--list"])
    assert res.exit_code == 0 and "CHA2DS2-VASc" in res.output
    params = {
        "age": 72,
        "sex": "Female",
        "chf": True,
        "hypertension": True,
        "stroke": False,
        "tia": False,
        "thromboembolism": False,
        "vascular": False,
        "diabetes": False,
    }
    res = runner.invoke(main, ["calc", "CHA2DS2-VASc", "--params", json.dumps(params), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert (
        data["value"] == 4 and data["decision"] == "accept" and "Female sex" in data["explanation"]
    )
    res = runner.invoke(main, ["calc", "CHA2DS2-VASc", "--params", '{"age": 72}', "--json"])
    assert res.exit_code == 2
    err = json.loads(res.output)["error"]
    assert err["code"] == "calculator_missing_input" and "sex" in err["missing"]
    res = runner.invoke(
        main, ["calc", "bmi", "--params", '{"weight": [70, "kg"], "height": [175, "cm"]}']
    )
    assert res.exit_code == 0 and "Result: 22.857 kg/m^2" in res.output
    res = runner.invoke(main, ["calc", "bmi", "--params", "not json"])
    assert res.exit_code != 0 and "not JSON" in res.output


def test_cli_batch_gold_writes_one_line_per_row(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(
        main, ["calc", "--medcalc", str(ONE_SHOT), "--mode", "gold", "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 55
    for line in lines:
        assert {"row", "calculator_id", "answer", "decision", "parameters", "explanation"} <= set(
            line
        )
    by_id = {x["calculator_id"]: x for x in lines}
    assert by_id[4]["decision"] == "accept" and by_id[4]["match"] is True
    assert "MedCalc-Bench convention" in by_id[4]["explanation"]


def test_cli_batch_note_mode_abstains_without_an_extractor(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(
        main,
        [
            "calc",
            "--medcalc",
            str(ONE_SHOT),
            "--mode",
            "note",
            "--extractor",
            "none",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 55 and all(x["decision"] == "abstain" for x in lines)
    assert all("no extractor configured" in x["reason"] for x in lines if x["calculator_id"] == 4)


class _TableExtractor:
    """A protocol test double: returns fixed parameters, as a real extractor would."""

    name = "table"

    def __init__(self, params: Mapping[str, Any]) -> None:
        self.params = params
        self.seen: list[str] = []

    def extract(self, note: str, calculator: Calculator) -> Mapping[str, Any]:
        self.seen.append(note[:20])
        return self.params


def test_note_mode_shares_everything_after_extraction() -> None:
    row = next(r for r in read_medcalc_csv(ONE_SHOT) if r.calculator_id == 6)
    entities = parse_entities(row.entities)
    ext = _TableExtractor(gold_parameters(calculators.get(6), entities))
    assert isinstance(ext, Extractor)
    note = run_row(row, mode="note", extractor=ext)
    gold = run_row(row, mode="gold")
    assert note.decision == gold.decision == "accept"
    assert note.answer == gold.answer and note.match is True and ext.seen
    # an extractor that leaves out a finding makes note mode abstain (no absent-by-convention)
    row4 = next(r for r in read_medcalc_csv(ONE_SHOT) if r.calculator_id == 4)
    partial = run_row(row4, mode="note", extractor=_TableExtractor({"age": 70, "sex": "Male"}))
    assert partial.decision == "abstain" and "calculator_missing_input" in (partial.reason or "")


def test_bad_entities_name_file_record_and_field(tmp_path: Path) -> None:
    with pytest.raises(LoadError) as info:
        parse_entities("{'age': [87, 'years'", file="x.csv", record="7")
    assert info.value.file == "x.csv" and info.value.record == "7"
    assert info.value.field == "Relevant Entities"
    bad = tmp_path / "bad.csv"
    bad.write_text("Row Number,Calculator ID,Patient Note,Relevant Entities\n1,abc,note,{}\n")
    with pytest.raises(LoadError, match="Calculator ID"):
        list(read_medcalc_csv(bad))
    (tmp_path / "nocol.csv").write_text("a,b\n1,2\n")
    with pytest.raises(LoadError, match="missing column"):
        list(read_medcalc_csv(tmp_path / "nocol.csv"))


def test_unknown_gold_entity_abstains_with_the_key() -> None:
    row = MedCalcRow(row="1", calculator_id=6, entities="{'weight': [70, 'kg'], 'shoe size': 44}")
    out = run_row(row)
    assert out.decision == "abstain" and "shoe size" in (out.reason or "")


def test_declared_foreign_entities_are_ignored_and_reported() -> None:
    entities = (
        "{'Purulent tonsils': True, 'Altered mental status for PECARN head injury criteria': True}"
    )
    out = run_row(MedCalcRow(row="f", calculator_id=33, entities=entities, answer="1"))
    assert out.decision == "accept" and out.answer == 1 and out.match is True
    assert [i["key"] for i in out.ignored] == [
        "Altered mental status for PECARN head injury criteria"
    ]
    assert out.ignored[0]["value"] is True and "PECARN" in out.ignored[0]["why"]
    assert "ignored (belongs to another calculator)" in out.explanation
    assert "Altered mental status" not in json.dumps(out.parameters)
    # an entity that is neither an input nor declared foreign is still refused
    bad = run_row(MedCalcRow(row="g", calculator_id=33, entities="{'PECARN age < 2': True}"))
    assert bad.decision == "abstain" and "PECARN age < 2" in (bad.reason or "")


def test_declared_unit_shorthands_apply_in_gold_mode_only_and_are_reported() -> None:
    entities = (
        "{'Temperature': [36.8, 'degrees celsius'], 'Heart Rate or Pulse': [133.0, 'beats per "
        "minute'], 'respiratory rate': [22.0, 'breaths per minute'], "
        "'White blood cell count': [12970.0, 'm^3']}"
    )
    out = run_row(MedCalcRow(row="s", calculator_id=51, entities=entities, answer="3"))
    assert out.decision == "accept" and out.answer == 3 and out.match is True
    assert out.reinterpreted == [
        {
            "input": "wbc",
            "given": "m^3",
            "read_as": "1/mm^3",
            "why": out.reinterpreted[0]["why"],
        }
    ]
    assert "read as '1/mm^3'" in out.explanation
    assert out.to_json_dict()["reinterpreted"][0]["input"] == "wbc"
    # the general API reads the unit literally and refuses it
    with pytest.raises(CalculatorError):
        calculators.compute(
            "sirs",
            {"temperature": 36.8, "heart_rate": 133, "respiratory_rate": 22, "wbc": [12970, "m^3"]},
        )


def test_answer_matching_rules() -> None:
    dec = MedCalcRow(row="1", calculator_id=6, answer="22.857", lower="21.714", upper="24.0")
    assert answer_matches(22.0, dec) and not answer_matches(25.0, dec)
    degenerate = MedCalcRow(row="1", calculator_id=24, answer="6.946", lower="6.946", upper="6.946")
    assert answer_matches(7.04, degenerate)  # the benchmark's ±5 % rule for decimals
    integer = MedCalcRow(row="1", calculator_id=4, answer="3", lower="3", upper="3")
    assert answer_matches(3, integer) and not answer_matches(4, integer)
    date = MedCalcRow(row="1", calculator_id=13, answer="12/02/2000")
    assert answer_matches("12/02/2000", date)
    ga = MedCalcRow(row="1", calculator_id=69, answer="('4 weeks', '2 days')")
    assert answer_matches((4, 2), ga) and not answer_matches((4, 3), ga)


def test_ambiguous_names_are_refused() -> None:
    with pytest.raises(CalculatorError, match="ambiguous"):
        calculators.get("wells")


class GoldLookupExtractor:
    """Loaded by module:attr in the CLI test; reads parameters from a tiny table by note text."""

    name = "gold-lookup"
    TABLE: ClassVar[dict[str, dict[str, Any]]] = {}

    def extract(self, note: str, calculator: Calculator) -> Mapping[str, Any]:
        return self.TABLE.get(note[:40], {})


def test_cli_note_mode_with_a_pluggable_extractor(tmp_path: Path) -> None:
    rows = [r for r in read_medcalc_csv(ONE_SHOT) if r.calculator_id in (6, 10)]
    for r in rows:
        calc = calculators.get(r.calculator_id)
        GoldLookupExtractor.TABLE[r.note[:40]] = gold_parameters(calc, parse_entities(r.entities))
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(
        main,
        [
            "calc",
            "--medcalc",
            str(ONE_SHOT),
            "--mode",
            "note",
            "--out",
            str(out),
            "--extractor",
            f"{__name__}:GoldLookupExtractor",
        ],
    )
    assert res.exit_code == 0, res.output
    by_id = {x["calculator_id"]: x for x in map(json.loads, out.read_text().splitlines())}
    assert by_id[6]["decision"] == by_id[10]["decision"] == "accept"
    assert by_id[6]["match"] is by_id[10]["match"] is True
    assert by_id[4]["decision"] == "abstain"  # nothing extracted: required inputs missing
    bad = CliRunner().invoke(
        main, ["calc", "--medcalc", str(ONE_SHOT), "--mode", "note", "--extractor", "nope"]
    )
    assert bad.exit_code != 0 and "unknown extractor" in bad.output
