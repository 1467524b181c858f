"""Group banners above the header (issue 10): rows of merged cells naming forms or visits over
blocks of columns, with the real header (one name per column) below. Each column keeps its group
as its form; merged cells that are the only names of their columns are still refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook

import clinbridge.api as cb
from clinbridge.adapters import describe
from clinbridge.adapters.trial import load_trial, read_trial
from clinbridge.adapters.trial._read import column_letter
from clinbridge.db import Database
from clinbridge.errors import LoadError
from clinbridge.synthetic.trial import generate_trial

HEADER = ["SUBJ_ID", "TRIAL", "Rand_Arm", "TEMP_24H", "hr_48h", "SBP_48H"]
DICT = [
    ["Variable", "Label", "Type", "Units", "Codes", "Missing codes", "Time point"],
    ["SUBJ_ID", "Subject identifier", "string", "", "", "", ""],
    ["TRIAL", "Trial", "categorical", "", "1=A; 2=B", "", ""],
    ["Rand_Arm", "Randomised treatment arm", "categorical", "", "1=Cooling; 2=Standard", "", ""],
    ["TEMP_24H", "Core temperature", "float", "°C", "", "-99=Not done", "24 h"],
    ["hr_48h", "Heart rate", "integer", "bpm", "", "-99=Not done", "48 h"],
    ["SBP_48H", "Systolic blood pressure", "integer", "mmHg", "", "-99=Not done", "48 h"],
]


def body(n: int = 8) -> list[list[object]]:
    return [
        [f"S{i:03d}", 1 + i % 2, 1 + (i // 2) % 2, 33.5 + i / 10, 100 + i, 60 + i] for i in range(n)
    ]


def book(
    path: Path,
    banner: list[list[object]],
    merges: list[str],
    *,
    dict_banner: tuple[list[object], list[str]] | None = None,
    header: list[object] = HEADER,
) -> Path:
    wb = Workbook()
    ws = wb.active
    ws.title = "EXPORT"
    for r in [*banner, header, *body()]:
        ws.append(r)
    for m in merges:
        ws.merge_cells(m)
    d = wb.create_sheet("Dictionary")
    if dict_banner:
        d.append(dict_banner[0])
        for m in dict_banner[1]:
            d.merge_cells(m)
    for r in DICT:
        d.append(r)
    wb.save(path)
    return path


def forms(path: Path) -> dict[str, str | None]:
    return {e.name: e.form for e, _ in read_trial(path).entries}


def test_one_banner_row_with_a_gap(tmp_path: Path) -> None:
    # A, B and C stand under unmerged blank cells (no group); D:E and F:G are blocks; MAP_48H
    # has no dictionary entry (inferred) and keeps its group all the same
    banner = [[None, None, None, "VITAL SIGNS", None, "HAEMODYNAMICS"]]
    path = book(tmp_path / "b.xlsx", banner, ["D1:E1", "F1:G1"], header=[*HEADER, "MAP_48H"])
    t = read_trial(path)
    assert t.report.reconciled and t.report.inferred == ["MAP_48H"]
    f = {e.name: e.form for e, _ in t.entries}
    assert f["SUBJ_ID"] is None and f["Rand_Arm"] is None and f["hr_48h"] == "VITAL SIGNS"
    assert f["SBP_48H"] == f["MAP_48H"] == "HAEMODYNAMICS"


def test_banner_groups_become_forms(tmp_path: Path) -> None:
    banner = [[None, "DESIGN", None, "VITAL SIGNS", None, None]]
    path = book(tmp_path / "b.xlsx", banner, ["B1:C1", "D1:F1"])
    t = read_trial(path)
    assert t.report.rows_loaded == 8 and t.report.reconciled
    assert t.report.title_rows_skipped == 0
    assert t.report.banner_rows == ["row 1: 'DESIGN' over B:C; 'VITAL SIGNS' over D:F"]
    assert any("banner row(s)" in line for line in t.report.summary_lines())
    f = {e.name: e.form for e, _ in t.entries}
    assert f == {
        "SUBJ_ID": None,  # a gap: no group
        "TRIAL": "DESIGN",
        "Rand_Arm": "DESIGN",
        "TEMP_24H": "VITAL SIGNS",
        "hr_48h": "VITAL SIGNS",
        "SBP_48H": "VITAL SIGNS",
    }


def test_two_banner_rows_a_title_and_a_vertical_merge(tmp_path: Path) -> None:
    banner = [
        ["Study X data export 2026-12-01"],  # a title merged across the whole width
        ["IDENTIFICATION", None, None, "DAY 2", None, None],
        [None, "DESIGN", None, "Vital signs", None, "Blood pressure"],
    ]
    merges = ["A1:F1", "A2:A3", "B2:C2", "D2:F2", "B3:C3", "D3:E3"]
    path = book(tmp_path / "b2.xlsx", banner, merges)
    t = read_trial(path)
    assert t.report.title_rows_skipped == 1 and t.report.reconciled
    assert len(t.report.banner_rows) == 2
    f = {e.name: e.form for e, _ in t.entries}
    assert f["SUBJ_ID"] == "IDENTIFICATION"
    assert f["TRIAL"] == "DESIGN"  # under an unmerged blank (a gap) in the top row
    assert f["TEMP_24H"] == "DAY 2 / Vital signs"
    assert f["SBP_48H"] == "DAY 2 / Blood pressure"  # F3 is a one-column group, unmerged
    assert f["hr_48h"] == "DAY 2 / Vital signs"


def test_banner_in_the_dictionary_sheet_too(tmp_path: Path) -> None:
    dict_banner = (["Item", None, "Coding", None, None, None, None], ["A1:B1", "C1:G1"])
    banner = [[None, None, None, "VITAL SIGNS", None, None]]
    path = book(tmp_path / "b3.xlsx", banner, ["D1:F1"], dict_banner=dict_banner)
    t = read_trial(path)
    assert t.report.dictionary_entries == 6
    by = {e.name: e for e, _ in t.entries}
    assert by["TEMP_24H"].label == "Core temperature" and by["TEMP_24H"].unit == "°C"
    assert by["TEMP_24H"].form == "VITAL SIGNS"


def test_the_dictionary_form_wins_over_the_banner(tmp_path: Path) -> None:
    wb = Workbook()
    ws = wb.active
    ws.title = "EXPORT"
    for r in [[None, None, None, "VITALS", None, None], HEADER, *body()]:
        ws.append(r)
    ws.merge_cells("D1:F1")
    d = wb.create_sheet("Dictionary")
    for i, r in enumerate(DICT):
        d.append([*r, "Form" if i == 0 else ("Temperature CRF" if r[0] == "TEMP_24H" else "")])
    wb.save(tmp_path / "f.xlsx")
    f = forms(tmp_path / "f.xlsx")
    assert f["TEMP_24H"] == "Temperature CRF" and f["hr_48h"] == "VITALS"


# -- still refused: merged cells that are the only names of their columns ---------------------


def test_merged_names_with_blanks_below_are_refused(tmp_path: Path) -> None:
    header = ["SUBJ_ID", "TRIAL", "Rand_Arm", "TEMP_24H", None, "SBP_48H"]
    banner = [[None, None, None, "Temperatures", None, None]]
    path = book(tmp_path / "r.xlsx", banner, ["D1:E1"], header=header)
    with pytest.raises(LoadError) as info:
        read_trial(path)
    msg = str(info.value)
    assert "merged header cells D1:E1" in msg and "'Temperatures'" in msg
    assert "sheet 'EXPORT' row 1" in msg and "column D" in msg


def test_merge_reaching_into_the_header_is_refused(tmp_path: Path) -> None:
    banner = [[None, None, None, "VITAL SIGNS", None, None]]
    path = book(tmp_path / "r2.xlsx", banner, ["D1:F1", "A1:A2"])
    with pytest.raises(LoadError, match=r"merged header cells A1:A2"):
        read_trial(path)


def test_an_unmerged_label_beside_the_blocks_is_a_one_column_form(tmp_path: Path) -> None:
    banner = [[None, "Design", None, "VITAL SIGNS", None, None]]
    f = forms(book(tmp_path / "r3.xlsx", banner, ["D1:F1"]))
    assert f["TRIAL"] == "Design" and f["TEMP_24H"] == "VITAL SIGNS" and f["SUBJ_ID"] is None


def test_a_header_with_a_merged_cell_among_its_names_is_refused(tmp_path: Path) -> None:
    # more lone names than blocks: the row is a header holding a merged cell, not a banner
    header = ["SUBJ_ID", "TRIAL", "Rand_Arm", "Temperatures", None, "SBP_48H"]
    path = book(tmp_path / "r5.xlsx", [], ["D1:E1"], header=header)
    with pytest.raises(LoadError, match=r"merged header cells D1:E1"):
        read_trial(path)


def test_a_merged_cell_under_the_banner_is_refused(tmp_path: Path) -> None:
    header = ["SUBJ_ID", "TRIAL", "Rand_Arm", "Temperatures", None, "SBP_48H"]
    banner = [[None, None, None, "VITAL SIGNS", None, None]]
    path = book(tmp_path / "r4.xlsx", banner, ["D1:F1", "D2:E2"], header=header)
    with pytest.raises(LoadError, match=r"merged header cells D[12]:[EF][12]"):
        read_trial(path)  # (the banner's cell is named first: E has no name under it)


def test_names_repeated_under_visit_banners_are_refused(tmp_path: Path) -> None:
    # REDCap-style 'HR' under each visit: the names must be unique without the banner
    header = ["SUBJ_ID", "TRIAL", "Rand_Arm", "HR", "HR", "SBP_48H"]
    banner = [[None, None, None, "Day 1", "Day 3", None]]
    merges = ["B1:C1"]
    path = book(tmp_path / "r5.xlsx", [[None, "DESIGN", None, None, None, None]], merges)
    assert forms(path)["TRIAL"] == "DESIGN"
    wb = load_workbook(path)
    ws = wb["EXPORT"]
    ws.insert_rows(2)
    for j, v in enumerate(banner[0], start=1):
        ws.cell(2, j, v)
    for j, v in enumerate(header, start=1):
        ws.cell(3, j, v)
    ws.merge_cells("D1:E1")
    ws.cell(1, 4, "VITALS")
    wb.save(path)
    with pytest.raises(LoadError) as info:
        read_trial(path)
    msg = str(info.value)
    assert "duplicate column name 'HR': columns D and E" in msg
    assert "banner groups 'VITALS / Day 1' and 'VITALS / Day 3'" in msg


# -- the generator's workbook with a banner, loaded and asked -----------------------------------


def test_generated_workbook_with_a_banner_answers_as_without(tmp_path: Path) -> None:
    wb = generate_trial(7, subjects=60, variables=150)
    plain = wb.write_xlsx(tmp_path / "plain.xlsx")
    book_ = load_workbook(plain)
    ws = book_["Data"]
    names = [c.value for c in ws[1]]
    ws.insert_rows(1)  # the export's banner: a block before TEMP_24H, one from it to the end
    temp = names.index("TEMP_24H") + 1
    ws.cell(1, 1, "IDENTIFICATION & DESIGN")
    ws.merge_cells(start_row=1, start_column=1, end_row=1, end_column=temp - 1)
    ws.cell(1, temp, "DEVICE & MONITOR DOWNLOADS")
    ws.merge_cells(start_row=1, start_column=temp, end_row=1, end_column=len(names))
    d = book_["Data dictionary"]
    d.delete_cols([c.value for c in d[1]].index("Form") + 1)  # the banner is the only form
    banner = tmp_path / "banner.xlsx"
    book_.save(banner)

    t = read_trial(banner)
    assert t.report.rows_loaded == 60 and t.report.reconciled
    assert t.report.banner_rows == [
        f"row 1: 'IDENTIFICATION & DESIGN' over A:{column_letter(temp - 2)}; "
        f"'DEVICE & MONITOR DOWNLOADS' over {column_letter(temp - 1)}:"
        f"{column_letter(len(names) - 1)}"
    ]
    answers = []
    for i, path in enumerate((plain, banner)):
        url = f"duckdb:///{tmp_path / f'db{i}.duckdb'}"
        assert load_trial(path, url).reconciled
        with Database.open(url) as db:
            by = {v.name: v for v in describe(db).variables}
        with cb.connect(url) as conn:
            a = conn.ask("mean core temperature at 24 hours")
            answers.append((a.decision, a.value, a.sql))
    assert by["TEMP_24H"].form == "DEVICE & MONITOR DOWNLOADS"  # in the catalog
    assert by["SUBJ_ID"].form == "IDENTIFICATION & DESIGN"
    assert answers[1] == answers[0] and answers[0][0] == "accept"
    s = wb.data["TEMP_24H"]
    assert answers[1][1] == pytest.approx(s.where(~s.isin([-99, -88, -77])).mean())
