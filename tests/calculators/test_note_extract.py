"""Note mode: rule extraction with evidence, files without gold columns, the one-note CLI, and the
fine-tuned judge (train a few steps on tiny data, save, load, infer) — real spaCy/negspacy and
the real MiniLM weights, offline."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from clinbridge import calculators
from clinbridge.calculators.extract import Extraction, get_extractor
from clinbridge.calculators.extract.evaluate import is_heldout
from clinbridge.calculators.extract.rules import RuleExtractor
from clinbridge.calculators.medcalc import MedCalcRow, read_medcalc_csv, run_row
from clinbridge.cli import main

os.environ["HF_HUB_OFFLINE"] = "1"
DATA = Path(__file__).parents[1] / "data" / "medcalc"

NOTE_CHADS = (
    "A 78-year-old woman presented with palpitations. She has a history of hypertension and "
    "type 2 diabetes mellitus. She denies any prior stroke or transient ischemic attack. Her "
    "mother had congestive heart failure. Blood pressure was 150/90 mmHg, heart rate 110 "
    "beats per minute."
)


def test_rules_read_age_sex_booleans_with_negation_and_family_history() -> None:
    calc = calculators.get(4)
    got = RuleExtractor().extract(NOTE_CHADS, calc)
    assert isinstance(got, Extraction)
    assert got["age"] == [78, "years"] and got["sex"] == "Female"
    assert got["hypertension"] is True and got["diabetes"] is True
    assert got["stroke"] is False and got["tia"] is False
    assert got["chf"] is False  # the mother's, not the patient's
    ev = got.evidence["stroke"]
    assert ev.assertion == "negated" and ev.method == "rule:term+negex"
    assert "denies" in ev.text
    assert got.evidence["chf"].assertion.startswith("family")
    span = got.evidence["age"]
    assert span.start is not None and NOTE_CHADS[span.start : span.end] == "78-year-old"
    out = run_row(
        MedCalcRow(row="n", calculator_id=4, note=NOTE_CHADS),
        mode="note",
        extractor=RuleExtractor(),
    )
    assert out.decision == "accept" and out.answer == 5  # age 2, female 1, HTN 1, DM 1
    assert {e["input"] for e in out.evidence} >= {"age", "sex", "stroke"}


def test_rules_read_numbers_with_units_pressure_pairs_and_lists() -> None:
    note = (
        "A 45-year-old man weighing 176 lbs, 5 ft 9 in tall. Blood pressure 132/84 mm Hg. "
        "Sodium, chloride and bicarbonate were 138, 101 and 22 mmol/L, respectively."
    )
    bmi = RuleExtractor().extract(note, calculators.get(6))
    assert bmi["weight"] == [176.0, "lbs"] and bmi["height"] == [69.0, "in"]
    mp = RuleExtractor().extract(note, calculators.get(5))
    assert mp["sbp"] == [132.0, "mmHg"] and mp["dbp"] == [84.0, "mmHg"]
    ag = RuleExtractor().extract(note, calculators.get(39))

    def num(v: object) -> object:
        return v[0] if isinstance(v, list) else v  # a bare number is in the input's own unit

    assert (num(ag["sodium"]), num(ag["chloride"]), num(ag["bicarbonate"])) == (138, 101, 22)
    assert "respectively" in ag.evidence["chloride"].method


def test_missing_required_number_abstains_naming_it() -> None:
    out = run_row(
        MedCalcRow(row="n", calculator_id=6, note="A tall man with a cough."),
        mode="note",
        extractor=RuleExtractor(),
    )
    assert out.decision == "abstain" and "weight" in (out.reason or "")


def test_note_mode_reads_a_file_without_gold_columns(tmp_path: Path) -> None:
    f = tmp_path / "user.csv"
    with f.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["Patient Note", "Question", "Calculator Name"])
        w.writerow([NOTE_CHADS, "What is the CHA2DS2-VASc score?", "CHA2DS2-VASc"])
        w.writerow(["A 30-year-old man, weight 70 kg, height 175 cm.", "BMI?", "bmi"])
    rows = list(read_medcalc_csv(f, mode="note"))
    assert [r.calculator_id for r in rows] == [4, 6] and rows[0].entities == ""
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(
        main,
        ["calc", "--medcalc", str(f), "--mode", "note", "--extractor", "rules", "--out", str(out)],
    )
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["decision"] for x in lines] == ["accept", "accept"]
    assert lines[1]["answer"] == pytest.approx(22.857, abs=1e-3)
    assert all(x["evidence"] for x in lines)
    with pytest.raises(Exception, match="missing column"):
        list(read_medcalc_csv(f, mode="gold"))


def test_cli_one_note(tmp_path: Path) -> None:
    f = tmp_path / "note.txt"
    f.write_text(NOTE_CHADS, encoding="utf-8")
    res = CliRunner().invoke(
        main, ["calc", "CHA2DS2-VASc", "--note", str(f), "--extractor", "rules", "--json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["decision"] == "accept" and data["answer"] == 5
    assert any(e["method"].startswith("rule:") for e in data["evidence"])


def test_split_is_by_note_and_deterministic() -> None:
    rows = list(read_medcalc_csv(DATA / "train_subset_v1.0.csv"))
    held = [r for r in rows if is_heldout(r.note)]
    assert 0.1 < len(held) / len(rows) < 0.3
    by_note: dict[str, set[bool]] = {}
    for r in rows:
        by_note.setdefault(" ".join(r.note.split()), set()).add(is_heldout(r.note))
    assert all(len(v) == 1 for v in by_note.values())


@pytest.mark.slow
def test_train_a_few_steps_save_load_infer(tmp_path: Path) -> None:
    from clinbridge.calculators.extract.model import ModelExtractor, load_judge
    from clinbridge.calculators.extract.train import TrainConfig, train_judge
    from clinbridge.calculators.registry import default_registry

    rows = list(csv.DictReader((DATA / "train_subset_v1.0.csv").open(encoding="utf-8")))
    tiny = tmp_path / "tiny.csv"
    picked = [r for r in rows if r["Calculator ID"] in ("4", "6")][:6]
    with tiny.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(picked)
    meta = train_judge(
        tiny,
        None,
        default_registry(),
        tmp_path / "ck",
        TrainConfig(epochs=1, max_pairs=24, synthetic_per_calc=1, batch=8),
    )
    assert (tmp_path / "ck" / "judge.safetensors").stat().st_size < 8_000_000
    assert meta["data"]["pairs"] == 24 and len(meta["epoch_losses"]) == 1
    judge = load_judge(tmp_path / "ck")
    ext = ModelExtractor(judge=judge)
    got = ext.extract(NOTE_CHADS, calculators.get(4))
    assert got["age"] == [78, "years"]
    assert all(e.score is None or 0.0 <= e.score <= 1.0 for e in got.evidence.values())


def test_shipped_checkpoint_is_used_by_note_mode() -> None:
    ext = get_extractor("builtin")
    out = run_row(MedCalcRow(row="n", calculator_id=4, note=NOTE_CHADS), mode="note", extractor=ext)
    assert out.decision == "accept"
    assert any(e.get("score") is not None for e in out.evidence)


def test_rules_read_what_notes_write_around_a_value() -> None:
    """Slash pairs, the value before its term, spelled ages, count units, wrapped lines."""
    fib4 = calculators.get(19)
    note = (
        "A forty-two-year-old man. Aspartate aminotransferase/alanine aminotransferase of 33/24 "
        "IU/L, platelet count 2.5 lakh/mm3."
    )
    got = RuleExtractor().extract(note, fib4)
    assert got["age"] == [42, "years"] and got.evidence["age"].method == "rule:age-words"
    assert got["ast"] == [33.0, "IU/L"] and got["alt"] == [24.0, "IU/L"]
    assert got.evidence["alt"].method == "rule:term+quantity (slash pair)"
    assert fib4._coerce(fib4.spec.input("platelets"), got["platelets"])[0] == 250.0
    bmi = calculators.get(6)
    got = RuleExtractor().extract("She was 1.54 meters in height and 60 kilogram in weight.", bmi)
    assert got["height"] == [1.54, "meters"] and got["weight"] == [60.0, "kilogram"]
    assert got.evidence["weight"].method == "rule:quantity+term"
    mdrd = calculators.get(9)
    got = RuleExtractor().extract("A 60-year-old man; creatinine was\n1.9 mg/dL on arrival.", mdrd)
    assert got["creatinine"] == [1.9, "mg/dL"]  # a wrapped line is one sentence
    got = RuleExtractor().extract("A 60-year-old man with a creatinine of 129 on arrival.", mdrd)
    assert got["creatinine"][1] in ("umol/L", "µmol/L")
    assert got.evidence["creatinine"].method.endswith("(unit inferred from the range)")


def test_rules_skip_values_of_others_at_birth_baselines_and_changes() -> None:
    bmi = calculators.get(6)
    note = (
        "Her birth weight was 2100 g and her height was 44 cm. Her mother was 153 cm in height. "
        "She lost 5 kg in a month. On examination her height was 137 cm and weight 27 kg."
    )
    got = RuleExtractor().extract(note, bmi)
    assert got["height"] == [137.0, "cm"] and got["weight"] == [27.0, "kg"]
    newborn = RuleExtractor().extract(
        "A boy was delivered with a birth weight of 4160 gram.", calculators.get(22)
    )
    assert newborn["weight"] == [4160.0, "gram"]
    assert newborn.evidence["weight"].method.endswith("(qualified mention)")
    mdrd = calculators.get(9)
    got = RuleExtractor().extract(
        "A 58-year-old man. Baseline creatinine was 0.85 mg/dL; creatinine was 5.97 mg/dL.", mdrd
    )
    assert got["creatinine"] == [5.97, "mg/dL"]
    sirs = calculators.get(51)
    got = RuleExtractor().extract("Blood pressure 120/80 mmHg, saturation 94%.", sirs)
    assert "paco2" not in got and "bands" not in got  # a bare unit names no lab


def test_scoring_against_corrected_labels() -> None:
    from clinbridge.calculators.extract.evaluate import corrected_match

    row = MedCalcRow(row="1", calculator_id=51, answer="2")
    assert corrected_match("accept", 0, row, 0) and not corrected_match("accept", 2, row, 0)
    assert corrected_match("abstain", None, row, "abstain")
    assert not corrected_match("accept", 1, row, "abstain")
    weeks = MedCalcRow(row="2", calculator_id=69, answer="('8 weeks', '1 days')")
    assert corrected_match("accept", [8, 1], weeks, "('8 weeks', '1 days')")


def test_an_inverted_criterion_reads_the_opposite_finding() -> None:
    centor = calculators.get(20)
    ext = RuleExtractor()
    no_cough = ext.extract("A 30-year-old woman with sore throat. She denies cough.", centor)
    assert no_cough["cough_absent"] is True
    assert no_cough.evidence["cough_absent"].method.endswith("(opposite finding)")
    cough = ext.extract("A 30-year-old woman with sore throat and a dry cough.", centor)
    assert cough["cough_absent"] is False
    silent = ext.extract("A 30-year-old woman with sore throat.", centor)
    assert silent["cough_absent"] is True  # not mentioned: no cough (the input's absent value)
