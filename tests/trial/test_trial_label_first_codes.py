"""Code lists written label first with the code in brackets ('Hypothermia (A) / Normothermia (B)',
'No (0) / Yes (1)'), read so per list, only when every item is written that way and the data's
values are among those codes; the notations read before keep their readings."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import Workbook

from clinbridge.adapters.trial import read_trial
from clinbridge.adapters.trial._codes import parse_code_list
from clinbridge.errors import LoadError


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Hypothermia (A) / Normothermia (B)", {"A": "Hypothermia", "B": "Normothermia"}),
        ("No (0) / Yes (1)", {"0": "No", "1": "Yes"}),
        ("Cooling (TH); Control (SC)", {"TH": "Cooling", "SC": "Control"}),
        ("Mild (1), Moderate (2), Severe (3)", {"1": "Mild", "2": "Moderate", "3": "Severe"}),
        ("Yes (Y) | No (N) | Unknown (9)", {"Y": "Yes", "N": "No", "9": "Unknown"}),
        ("Yes (1); Unknown / not recorded (9)", {"1": "Yes", "9": "Unknown / not recorded"}),
        # notations read before, unchanged
        ("1=Yes; 0=No", {"1": "Yes", "0": "No"}),
        ("0 = No | 1 = Yes", {"0": "No", "1": "Yes"}),
        ("(1) Male (2) Female", {"1": "Male", "2": "Female"}),
        ("1) Male 2) Female", {"1": "Male", "2": "Female"}),
        ("-999 (not done)", {"-999": "not done"}),
        # a label with its own brackets is no code in brackets
        ("3=Severe (grade 3); 1=Mild", {"3": "Severe (grade 3)", "1": "Mild"}),
        ("1=Mild; 3=Severe (grade 3)", {"1": "Mild", "3": "Severe (grade 3)"}),
        ("1=Mild (grade 1); 2=Severe (grade 3)", {"1": "Mild (grade 1)", "2": "Severe (grade 3)"}),
    ],
)
def test_code_list_readings(text: str, want: dict[str, str]) -> None:
    assert parse_code_list(text) == want


@pytest.mark.parametrize(
    "text",
    [
        "Male (M), Female",  # not every item label-first with a code
        "Yes (Y) / No (Y)",  # two items, one code
        "Severe (grade 3)",  # one item, a label's own brackets
    ],
)
def test_no_mixed_or_partial_reading(text: str) -> None:
    got = parse_code_list(text)
    assert "M" not in got and "Y" not in got and "3" not in got


def book(
    path: Path, arm_codes: str, arms: list[object], yes_codes: str = "No (0) / Yes (1)"
) -> Path:
    wb = Workbook()
    ws = wb.active
    ws.title = "EXPORT"
    ws.append(["SUBJ_ID", "ARM", "SEIZURE", "TEMP_24H"])
    for i, arm in enumerate(arms):
        ws.append([f"S{i:03d}", arm, i % 2, 33.5 + i / 10])
    d = wb.create_sheet("Dictionary")
    d.append(["Variable", "Label", "Type", "Units", "Codes", "Missing codes"])
    d.append(["SUBJ_ID", "Subject identifier", "string", "", "", ""])
    d.append(["ARM", "Randomised arm", "categorical", "", arm_codes, ""])
    d.append(["SEIZURE", "Seizures", "categorical", "", yes_codes, ""])
    d.append(["TEMP_24H", "Core temperature", "float", "°C", "", "-99=Not done"])
    wb.save(path)
    return path


def test_label_first_codes_load(tmp_path: Path) -> None:
    arms = ["A", "B"] * 4
    t = read_trial(book(tmp_path / "x.xlsx", "Hypothermia (A) / Normothermia (B)", arms))
    assert t.report.rows_loaded == 8 and t.report.reconciled
    by = {e.name: e for e, _ in t.entries}
    assert by["ARM"].codes == {"A": "Hypothermia", "B": "Normothermia"}
    assert by["SEIZURE"].codes == {"0": "No", "1": "Yes"}


def test_the_data_decide_between_readings(tmp_path: Path) -> None:
    # values written as the whole items: the cell lists words, not bracketed codes
    arms = ["Hypothermia (A)", "Normothermia (B)"] * 4
    t = read_trial(book(tmp_path / "w.xlsx", "Hypothermia (A) / Normothermia (B)", arms))
    assert t.report.rows_loaded == 8 and t.report.reconciled
    arm = next(e for e, _ in t.entries if e.name == "ARM")
    assert set(arm.codes) == {"Hypothermia (A)", "Normothermia (B)"}


def test_a_value_outside_the_bracketed_codes_is_still_refused(tmp_path: Path) -> None:
    arms = ["A", "B", "C", "A"]
    with pytest.raises(LoadError, match=r"value 'C' is not one of the codes"):
        read_trial(book(tmp_path / "c.xlsx", "Hypothermia (A) / Normothermia (B)", arms))
