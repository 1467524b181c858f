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
