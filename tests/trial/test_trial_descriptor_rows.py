"""Rows under the column names that describe the columns (labels, units), and categorical
variables whose dictionary entry lists no codes: small hand-made workbooks."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from openpyxl import Workbook

import clinbridge as cb
from clinbridge.adapters.trial import load_trial, read_trial
from clinbridge.errors import LoadError

NAMES = ["SUBJ_ID", "REC_STATUS", "Rand_Arm", "TEMP_24H", "hr_48h", "wt_birth"]
LABELS = [
    "Subject identifier",
    "Record status",
    "Randomised treatment arm",
    "Temp at 24h",  # the dictionary's 'Core temperature at 24 hours', shortened
    "Heart rate at 48 h",
    "Birth weight",
]
UNITS = ["", "", "", "°C", "(bpm)", "kg"]
DICT = [
    ["Variable", "Label", "Type", "Units", "Codes", "Missing codes"],
    ["SUBJ_ID", "Subject identifier", "string", "", "", ""],
    ["REC_STATUS", "Record status", "categorical", "", "", ""],
    ["Rand_Arm", "Randomised treatment arm", "categorical", "", "1=Cooling; 2=Standard care", ""],
    ["TEMP_24H", "Core temperature at 24 hours", "float", "°C", "", "-99=Not done"],
    ["hr_48h", "Heart rate at 48 h", "integer", "bpm", "", "-99=Not done"],
    ["wt_birth", "Birth weight", "float", "kg", "", ""],
]
N = 12


def body(n: int = N) -> list[list[object]]:
    return [
        [f"S{i:03d}", 1 + i % 3, 1 + i % 2, 33.0 + i / 10, 110 + i, 2.5 + i / 20] for i in range(n)
    ]


def book(
    path: Path,
    top: list[list[object]],
    rows: list[list[object]],
    dictionary: list[list[str]] | None = DICT,
) -> Path:
    wb = Workbook()
    ws = wb.active
    ws.title = "Data"
    for r in [*top, *rows]:
        ws.append(r)
    if dictionary is not None:
        d = wb.create_sheet("Dictionary")
        for r in dictionary:
            d.append(r)
    wb.save(path)
    return path


def test_a_label_row_checked_against_the_dictionary(tmp_path: Path) -> None:
    path = book(tmp_path / "l.xlsx", [["Pooled export, 2026"], NAMES, LABELS], body())
    t = read_trial(path)
    r = t.report
    assert r.title_rows_skipped == 1 and r.label_rows_skipped == 1
    assert r.rows_read == N and r.rows_loaded == N and r.reconciled
    assert r.descriptor_rows == [
        "row 3: variable labels, checked against the dictionary: 6 agree, 0 differ"
    ]
    assert r.descriptor_rows[0] in r.summary_lines()
    assert t.frame["subj_id"].iloc[0] == "S000"  # the first subject is the row under the labels
    assert t.frame["temp_24h"].iloc[0] == pytest.approx(33.0)


def test_a_categorical_column_without_codes_keeps_its_values(tmp_path: Path) -> None:
    path = book(tmp_path / "c.xlsx", [NAMES, LABELS], body())
    url = f"duckdb:///{tmp_path / 'c.duckdb'}"
    report = load_trial(path, url)
    assert report.problems == [] and report.reconciled
    assert report.codes_not_declared == ["REC_STATUS"]
    assert any("have no codes in the dictionary" in line for line in report.summary_lines())
    with cb.connect(url) as conn:
        v = next(v for v in conn.catalog.variables if v.name == "REC_STATUS")
        assert v.type == "categorical" and v.codes == {"1": "", "2": "", "3": ""}
        assert "codes not declared" in v.description
        rows = conn.db.execute(
            "SELECT rec_status, COUNT(*) FROM trial_data GROUP BY 1 ORDER BY 1"
        ).rows
        a = conn.ask("mean birth weight by REC_STATUS")
    assert [(int(a), b) for a, b in rows] == [(1, 4), (2, 4), (3, 4)]
    # groups the dictionary names none of (codes 1, 2, 3, no labels) are not an answer: the
    # same shape gave set 12's wrong 'by ARM' answers before its code rows were read
    assert a.decision != "accept"
    assert "no label" in (a.reason or "")


def test_grouping_by_a_categorical_column_with_no_codes_at_all(tmp_path: Path) -> None:
    rows = body()
    for i, r in enumerate(rows):
        r[1] = 1 + (i % 3) / 2  # 1, 1.5, 2: no whole-number codes to take from the values
    url = f"duckdb:///{tmp_path / 'g.duckdb'}"
    load_trial(book(tmp_path / "g.xlsx", [NAMES], rows), url)
    with cb.connect(url) as conn:
        v = next(v for v in conn.catalog.variables if v.name == "REC_STATUS")
        assert v.type == "categorical" and v.codes == {}
        a = conn.ask("mean birth weight by REC_STATUS")
    assert a.decision != "accept"  # groups 1, 1.5 and 2 that no label names (as above)
    assert "no label" in (a.reason or "")


def test_a_categorical_column_without_codes_holding_text(tmp_path: Path) -> None:
    rows = body()
    for i, r in enumerate(rows):
        r[1] = ["Locked", "Verified", "Open"][i % 3]
    t = read_trial(book(tmp_path / "t.xlsx", [NAMES], rows))
    entry = next(e for e, _ in t.entries if e.name == "REC_STATUS")
    assert entry.type == "categorical" and set(entry.codes) == {"Locked", "Verified", "Open"}
    assert not entry.codes_declared and t.report.reconciled


def test_a_units_row_under_the_labels(tmp_path: Path) -> None:
    path = book(tmp_path / "u.xlsx", [NAMES, LABELS, UNITS], body())
    r = read_trial(path).report
    assert r.label_rows_skipped == 2 and r.rows_read == N and r.reconciled
    assert r.descriptor_rows == [
        "row 2: variable labels, checked against the dictionary: 6 agree, 0 differ",
        "row 3: units, checked against the dictionary: 3 agree, 0 differ",
    ]


def test_a_units_row_without_a_dictionary_gives_the_units(tmp_path: Path) -> None:
    path = tmp_path / "u.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerows([NAMES, UNITS, *body()])
    t = read_trial(path)
    assert t.report.rows_read == N and t.report.label_rows_skipped == 1
    assert t.report.descriptor_rows[0].startswith("row 2: units under the column names")
    units = {e.name: e.unit for e, _ in t.entries}
    assert units["TEMP_24H"] == "°C" and units["hr_48h"] == "bpm" and units["wt_birth"] == "kg"


def test_labels_without_a_dictionary_some_blank(tmp_path: Path) -> None:
    labels = [*LABELS[:4], "", LABELS[5]]  # no label over one numeric column
    t = read_trial(book(tmp_path / "b.xlsx", [NAMES, labels], body(), dictionary=None))
    assert t.report.rows_read == N and t.report.label_rows_skipped == 1
    got = {e.name: e.label for e, _ in t.entries}
    assert got["TEMP_24H"] == "Temp at 24h" and got["hr_48h"] == "hr_48h"


def test_a_label_row_that_disagrees_with_the_dictionary_everywhere(tmp_path: Path) -> None:
    shifted = ["Study centre", *LABELS[2:], "Comments"]  # the labels of the next column over
    path = book(tmp_path / "x.xlsx", [NAMES, shifted], body())
    with pytest.raises(LoadError) as info:
        read_trial(path)
    msg = str(info.value)
    assert "row 2 of sheet 'Data' reads as a row of variable labels" in msg
    assert "none of its 6 labels agrees" in msg
    assert "column A (SUBJ_ID) says 'Study centre'" in msg
    assert info.value.details["record"] == "sheet 'Data' row 2"


def test_a_label_row_that_partly_disagrees_is_reported(tmp_path: Path) -> None:
    labels = [*LABELS[:4], "Respiratory rate", LABELS[5]]
    r = read_trial(book(tmp_path / "p.xlsx", [NAMES, labels], body())).report
    assert r.rows_read == N
    assert r.descriptor_rows[0].startswith(
        "row 2: variable labels, checked against the dictionary: 5 agree, 1 differ "
        "(column E (hr_48h) 'Respiratory rate', dictionary 'Heart rate at 48 h')"
    )


def test_a_real_first_row_is_never_skipped(tmp_path: Path) -> None:
    rows = body()
    rows[0][3] = "warm"  # a stray text in one numeric column of the first subject
    with pytest.raises(LoadError, match=r"row 2 column D \(TEMP_24H\): text 'warm'"):
        read_trial(book(tmp_path / "r.xlsx", [NAMES], rows))
    rows = body()
    rows[0][3:] = [None, None, None]  # the first subject has no numbers at all
    t = read_trial(book(tmp_path / "r2.xlsx", [NAMES], rows))
    assert t.report.label_rows_skipped == 0 and t.report.rows_read == N


def test_a_categorical_column_whose_codes_stand_on_a_list_sheet(tmp_path: Path) -> None:
    names = [*NAMES, "CENTRE"]
    rows = [[*r, 1 + i % 3] for i, r in enumerate(body())]
    entries = [*DICT, ["CENTRE", "Recruiting centre", "categorical", "", "(see Centres sheet)", ""]]
    path = book(tmp_path / "s.xlsx", [names], rows, dictionary=entries)
    from openpyxl import load_workbook

    wb = load_workbook(path)
    ws = wb.create_sheet("Centres")
    for r in [["Code", "Centre"], [1, "Leeds"], [2, "Glasgow"], [3, "Cork"]]:
        ws.append(r)
    wb.save(path)
    t = read_trial(path)
    entry = next(e for e, _ in t.entries if e.name == "CENTRE")
    assert entry.codes == {"1": "Leeds", "2": "Glasgow", "3": "Cork"} and entry.codes_declared
    assert t.report.codes_not_declared == ["REC_STATUS"]
