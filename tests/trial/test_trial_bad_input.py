"""Broken trial files: each gets a clear error naming file, sheet, row and column; nothing is
dropped silently and the counts reconcile."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from openpyxl import Workbook

from clinbridge.adapters.trial import load_trial, read_trial
from clinbridge.errors import LoadError

HEADER = ["SUBJ_ID", "TRIAL", "Rand_Arm", "TEMP_24H", "hr_48h"]
DICT = [
    ["Variable", "Label", "Type", "Units", "Codes", "Missing codes", "Time point", "Trial"],
    ["SUBJ_ID", "Subject identifier", "string", "", "", "", "", "Both"],
    ["TRIAL", "Trial", "categorical", "", "1=A; 2=B", "", "", "Both"],
    [
        "Rand_Arm",
        "Randomised treatment arm",
        "categorical",
        "",
        "1=Cooling; 2=Standard care",
        "",
        "",
        "Both",
    ],
    ["TEMP_24H", "Core temperature", "float", "°C", "", "-99=Not done", "24 h", "Both"],
    ["hr_48h", "Heart rate", "integer", "bpm", "", "-99=Not done", "48 h", "Both"],
]


def rows(n: int = 6) -> list[list[object]]:
    return [[f"S{i:03d}", 1 + i % 2, 1 + (i // 2) % 2, 33.5 + i / 10, 100 + i] for i in range(n)]


def write_csv(
    path: Path, header: list[str], body: list[list[object]], *, encoding: str = "utf-8"
) -> Path:
    with path.open("w", newline="", encoding=encoding) as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(body)
    return path


def dict_csv(tmp_path: Path, entries: list[list[str]] = DICT) -> Path:
    return write_csv(tmp_path / "dict.csv", entries[0], entries[1:])  # type: ignore[arg-type]


def workbook(
    path: Path, header_rows: list[list[object]], body: list[list[object]], merge: str | None = None
) -> Path:
    wb = Workbook()
    ws = wb.active
    ws.title = "Data"
    for r in header_rows + body:
        ws.append(r)
    if merge:
        ws.merge_cells(merge)
    d = wb.create_sheet("Dictionary")
    for r in DICT:
        d.append(r)
    wb.save(path)
    return path


def test_good_file_loads(tmp_path: Path) -> None:
    path = workbook(tmp_path / "ok.xlsx", [HEADER], rows())
    t = read_trial(path)
    assert t.report.rows_loaded == 6 and t.report.reconciled
    assert t.report.dictionary_source == "sheet 'Dictionary'"


def test_merged_header_rows(tmp_path: Path) -> None:
    # merged cells that are the only names of their columns: the header is broken
    group = ["SUBJ_ID", "TRIAL", "Rand_Arm", "Vital signs", ""]
    below = ["", "", "", "", ""]
    path = workbook(tmp_path / "m.xlsx", [group, below], rows(), merge="D1:E1")
    with pytest.raises(LoadError) as info:
        read_trial(path)
    msg = str(info.value)
    assert "merged header cells D1:E1" in msg and "'Vital signs'" in msg
    assert "sheet 'Data' row 1" in msg and "column D" in msg


def test_merged_cell_inside_the_header_row(tmp_path: Path) -> None:
    header = ["SUBJ_ID", "TRIAL", "Rand_Arm", "Temperatures", None]
    path = workbook(tmp_path / "m2.xlsx", [header], rows(), merge="D1:E1")
    with pytest.raises(LoadError, match=r"merged header cells D1:E1"):
        read_trial(path)


def test_two_header_rows_in_a_csv(tmp_path: Path) -> None:
    path = tmp_path / "two.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["", "", "", "Vital signs", ""] + [""] * 0)
        w.writerow(["", "Design", "", "", ""])
        w.writerow(HEADER)
        w.writerows(rows())
    with pytest.raises(LoadError) as info:
        read_trial(path, dictionary=dict_csv(tmp_path))
    assert "two header rows" in str(info.value) and "row 2" in str(info.value)


def test_header_cell_blank_above_data(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "blank.csv", ["SUBJ_ID", "TRIAL", "", "TEMP_24H", "hr_48h"], rows())
    with pytest.raises(LoadError) as info:
        read_trial(path)
    assert "column C holds data but has no name" in str(info.value)
    assert "row 1" in str(info.value)


@pytest.mark.parametrize("second", ["TEMP_24H", "temp_24h"])
def test_duplicate_column_names(tmp_path: Path, second: str) -> None:
    header = [*HEADER, second]
    body = [[*r, 34.0] for r in rows()]
    path = write_csv(tmp_path / "dup.csv", header, body)
    with pytest.raises(LoadError) as info:
        read_trial(path, dictionary=dict_csv(tmp_path))
    msg = str(info.value)
    assert f"duplicate column name {second!r}: columns D and F" in msg
    assert "record sheet 'dup' row 1" in msg


def test_text_in_a_numeric_column_strict_and_lenient(tmp_path: Path) -> None:
    body = rows()
    body[3][3] = "3S.5"
    body[5][4] = "1OO"
    body[1][3] = "n/a"  # a missing marker, not a bad cell
    path = workbook(tmp_path / "text.xlsx", [HEADER], body)
    with pytest.raises(LoadError) as info:
        read_trial(path)
    msg = str(info.value)
    assert "2 bad cell(s) in sheet 'Data'" in msg
    assert "row 5 column D (TEMP_24H): text '3S.5' in a float column" in msg
    assert "row 7 column E (hr_48h)" in msg
    assert info.value.details["problems"][0]["row"] == 5
    url = f"duckdb:///{tmp_path / 't.duckdb'}"
    report = load_trial(path, url, strict=False)
    assert [(p["row"], p["column"]) for p in report.problems] == [(5, "D"), (7, "E")]
    assert report.reconciled  # values + missing + blank + bad == cells
    assert report.missing_code_cells == 1  # the 'n/a'
    assert report.value_cells + len(report.problems) + report.blank_cells + 1 == report.cells


def test_dictionary_disagrees_with_the_data(tmp_path: Path) -> None:
    body = rows()
    body[2][2] = 3  # Rand_Arm has codes 1 and 2 only
    path = write_csv(tmp_path / "codes.csv", HEADER, body)
    with pytest.raises(LoadError) as info:
        read_trial(path, dictionary=dict_csv(tmp_path))
    msg = str(info.value)
    assert "row 4 column C (Rand_Arm): the dictionary disagrees with the data: value 3" in msg

    extra = [*DICT, ["SKIN_24H", "Skin temperature", "float", "°C", "", "", "24 h", "Both"]]
    path = write_csv(tmp_path / "ok.csv", HEADER, rows())
    with pytest.raises(LoadError) as info:
        read_trial(path, dictionary=dict_csv(tmp_path, extra))
    assert "lists 1 variable(s) the data sheet 'ok' lacks, first 'SKIN_24H'" in str(info.value)
    assert "row 7" in str(info.value)

    body = rows()
    body[1][4] = -88  # hr_48h declares -99 only
    path = write_csv(tmp_path / "undeclared.csv", HEADER, body)
    with pytest.raises(
        LoadError, match=r"-88 looks like a missing code but the dictionary does not declare"
    ):
        read_trial(path, dictionary=dict_csv(tmp_path))


def test_wrong_encoding_in_a_csv(tmp_path: Path) -> None:
    header = [*HEADER, "SITE_NAME"]
    body = [[*r, "Hôpital Nord" if i == 4 else "Leeds"] for i, r in enumerate(rows())]
    path = write_csv(tmp_path / "latin.csv", header, body, encoding="cp1252")
    with pytest.raises(LoadError) as info:
        read_trial(path)
    msg = str(info.value)
    assert "not utf-8 text: byte 0xf4 at line 6" in msg and "--encoding" in msg
    t = read_trial(path, encoding="cp1252")
    assert "Hôpital Nord" in list(t.frame["site_name"])
    assert t.report.inferred and t.report.reconciled


def test_blank_rows_are_counted_not_dropped_silently(tmp_path: Path) -> None:
    body = rows()
    body.insert(2, ["", "", "", "", ""])
    path = write_csv(tmp_path / "gaps.csv", HEADER, body)
    t = read_trial(path, dictionary=dict_csv(tmp_path))
    assert t.report.blank_rows_skipped == 1 and t.report.rows_loaded == 6
    assert any("blank row" in line for line in t.report.summary_lines())


def test_duplicate_subject_ids(tmp_path: Path) -> None:
    body = rows()
    body[4][0] = body[1][0]
    path = write_csv(tmp_path / "ids.csv", HEADER, body)
    with pytest.raises(LoadError, match=r"duplicate 'S001'"):
        read_trial(path, dictionary=dict_csv(tmp_path))
