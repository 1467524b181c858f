"""A workbook exported the SAS way (tests/trial/sas_style_book.py): dictionary section dividers,
lower-case dictionary names beside mixed-case columns, value labels on a PROC FORMAT sheet,
missing codes in one README table that says where each applies, SAS special missing values
('.', '.N', '.U') in numeric columns, and visits written as ISO 8601 durations."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook
from tests.trial import sas_style_book as sb

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial, read_trial
from clinbridge.adapters.trial._formats import format_ref
from clinbridge.adapters.trial._iso_time import iso_duration, time_point_in_name
from clinbridge.adapters.trial._missing_table import parse_scope
from clinbridge.errors import LoadError


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> tuple[sb.Book, str, object]:  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("sas")
    book = sb.build(tmp / "book.xlsx")
    url = f"duckdb:///{tmp / 'book.duckdb'}"
    report = load_trial(book.path, url)
    return book, url, report


def test_the_load_says_what_it_read(loaded) -> None:  # type: ignore[no-untyped-def]
    _, _, report = loaded
    assert report.reconciled and not report.problems and not report.inferred
    assert report.dictionary_source == "sheet 'VARIABLES'"
    assert report.dictionary_entries == 16  # the four section rows are no variables
    assert report.dictionary_headings == [title for title, _ in sb.SECTIONS]
    lines = "\n".join(report.summary_lines())
    assert "PROC FORMAT style on sheet(s) 'FORMATS'" in lines
    assert "format TEMPF groups ranges" in lines
    by_code = {d["code"]: d for d in report.workbook_missing}
    assert by_code["-9"]["declared"] == "sheet 'README' row 7"
    assert by_code["-9"]["applies_to"] == "Coded (categorical) variables only"
    assert by_code["-9"]["cells"] == 12  # Sarnat, Seizure and Death; never base excess
    assert by_code[".N"]["cells"] == 12
    assert any("-9 on BaseExcess" in x for x in report.workbook_codes_kept)


@pytest.mark.parametrize("layout", sb.LAYOUTS)
def test_every_formats_layout_labels_the_same_codes(tmp_path: Path, layout: str) -> None:
    book = sb.build(tmp_path / f"{layout}.xlsx", layout=layout)
    table = read_trial(book.path)
    by = {e.name: e for e, _ in table.entries}
    assert by["RandArm"].codes == {"1": "Hypothermia", "2": "Normothermia"}
    assert by["RandArm"].role == "arm" and by["Trial"].role == "trial"
    assert by["Sex"].codes == {"M": "Male", "F": "Female"}
    assert by["Sarnat"].codes == {"1": "Mild", "2": "Moderate", "3": "Severe"}
    assert by["Sarnat"].missing == {"-9": "Not known"}
    assert by["Temp_24"].type == "float" and not by["Temp_24"].codes  # TEMPF groups ranges
    assert by["RandDate"].type == "date"
    assert by["Sarnat"].form == "SECTION 2 - BASELINE"
    assert table.report.reconciled


def test_missing_codes_apply_where_the_table_says(loaded) -> None:  # type: ignore[no-untyped-def]
    book, url, _ = loaded
    t = book.truth
    with cb.connect(url) as conn:
        # -9 is a missing code of coded items only: base excess keeps its values of -9
        assert conn.ask("mean base excess").value == pytest.approx(t["BaseExcess"].mean())
        assert (t["BaseExcess"] == -9).sum() >= 12
        # -99, '.N' and '.U' are missing in a continuous column
        assert conn.ask("mean birth weight").value == pytest.approx(t["BirthWt"].mean())
        a = conn.ask("percentage of infants with seizures")
        assert (a.details["numerator"], a.details["denominator"]) == (
            int((t["Seizure"] == 1).sum()),
            int(t["Seizure"].notna().sum()),
        )
        a = conn.ask("percentage with severe Sarnat grade")
        assert (a.details["numerator"], a.details["denominator"]) == (
            int((t["Sarnat"] == 3).sum()),
            int(t["Sarnat"].notna().sum()),
        )


def test_questions_on_labels_and_iso_time_points(loaded) -> None:  # type: ignore[no-untyped-def]
    book, url, _ = loaded
    t = book.truth
    with cb.connect(url) as conn:
        a = conn.ask("mean rectal temperature at 24 hours")
        assert a.value == pytest.approx(t["Temp_24"].mean())
        a = conn.ask("mean Bayley cognitive score at 18 months")
        assert a.value == pytest.approx(t["BayleyCog"].mean())
        assert conn.ask("mean full-scale IQ at 2 years").value == pytest.approx(t["IQ"].mean())
        a = conn.ask("percentage of female infants")
        assert (a.details["numerator"], a.details["denominator"]) == (
            int((t["Sex"] == "F").sum()),
            len(t),
        )
        assert conn.ask("number of infants at Oslo").value == int((t["SiteCode"] == 2).sum())
        a = conn.ask("mean rectal temperature at 72 hours in the hypothermia arm")
        assert a.value == pytest.approx(t.loc[t["RandArm"] == 1, "Temp_72"].mean())


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("PT24H", "24 h"),
        ("PT6H", "6 h"),
        ("P3D", "72 h"),
        ("P18M", "18 months"),
        ("PT18M", "18 min"),
        ("P2Y", "24 months"),
        ("P1Y6M", "18 months"),
        ("P1DT12H", "36 h"),
        ("PT90M", "90 min"),
        ("P24H", None),  # hours need the T
        ("P1M2D", None),  # months and days: no one scale
        ("Post", None),
    ],
)
def test_iso_8601_durations(text: str, words: str | None) -> None:
    tp = iso_duration(text)
    assert (tp.text() if tp else None) == words


def test_an_iso_duration_in_a_column_name() -> None:
    tp = time_point_in_name("Temp_PT24H")
    assert tp is not None and tp.text() == "24 h"


@pytest.mark.parametrize(
    ("cell", "ref"),
    [("YNF.", "YNF"), ("$sexf8.", "$SEXF"), ("ynf", "YNF"), ("BEST12.", "BEST"), ("8.1", "")],
)
def test_format_references(cell: str, ref: str) -> None:
    assert format_ref(cell) == ref


@pytest.mark.parametrize(
    ("text", "kinds", "excluded"),
    [
        ("All variables", {"all"}, set()),
        ("Coded (categorical) variables only", {"categorical"}, set()),
        ("non-coded numeric variables", {"continuous"}, set()),
        ("all except dates", {"all"}, {"date"}),
        ("variables with a format", {"categorical"}, set()),
    ],
)
def test_scopes(text: str, kinds: set[str], excluded: set[str]) -> None:
    scope = parse_scope(text, set())
    assert scope is not None
    assert (set(scope.kinds), set(scope.excluded)) == (kinds, excluded)


def test_a_scope_of_visits() -> None:
    scope = parse_scope("follow-up items (P18M, P2Y)", set())
    assert scope is not None and scope.times == {"18 months", "24 months"}


def _edit(path: Path, sheet: str, cell: str, value: object) -> Path:
    wb = load_workbook(path)
    wb[sheet][cell] = value
    wb.save(path)
    return path


def test_inconsistent_declarations_are_errors_naming_sheet_row_and_column(tmp_path: Path) -> None:
    book = sb.build(tmp_path / "a.xlsx")
    # the dictionary names a format the formats sheet does not define (death's, row 19)
    _edit(book.path, "VARIABLES", "D19", "DIEDF.")
    with pytest.raises(LoadError, match=r"format 'DIEDF\.', which the formats sheet") as info:
        read_trial(book.path)
    assert "row 19" in str(info.value) and "column D" in str(info.value)

    book = sb.build(tmp_path / "b.xlsx")
    _edit(book.path, "VARIABLES", "F14", "P24H")  # temp_24's visit, written like no duration
    with pytest.raises(LoadError, match=r"'P24H', written like an ISO 8601 duration") as info:
        read_trial(book.path)
    assert "row 14" in str(info.value) and "column F" in str(info.value)

    book = sb.build(tmp_path / "c.xlsx")
    _edit(book.path, "README", "C7", "see the protocol")
    with pytest.raises(LoadError, match=r"applies to 'see the protocol', which names no") as info:
        read_trial(book.path)
    assert "sheet 'README' row 7" in str(info.value) and "column C" in str(info.value)

    book = sb.build(tmp_path / "d.xlsx")
    _edit(book.path, "README", "A10", -99)  # -99 again, for numeric variables only
    with pytest.raises(LoadError, match=r"missing code '-99' is declared twice, differently"):
        read_trial(book.path)


def test_a_format_listing_a_value_twice_or_defined_twice(tmp_path: Path) -> None:
    book = sb.build(tmp_path / "twice.xlsx")
    wb = load_workbook(book.path)
    ws = wb["FORMATS"]
    ws.append(["value ynf", "0 = 'No' 1 = 'Yes' 1 = 'Unsure';"])
    wb.save(book.path)
    with pytest.raises(LoadError, match=r"format YNF lists value '1' twice") as info:
        read_trial(book.path)
    assert "sheet 'FORMATS'" in str(info.value)

    book = sb.build(tmp_path / "again.xlsx")
    wb = load_workbook(book.path)
    wb["FORMATS"].append(["value armf 1 = 'Cooled' 2 = 'Control';"])
    wb.save(book.path)
    with pytest.raises(LoadError, match=r"format ARMF is defined twice, differently"):
        read_trial(book.path)


def test_sas_special_missing_values_without_a_declaration(tmp_path: Path) -> None:
    wb = Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(["ID", "TEMP_24H"])
    for i in range(20):
        ws.append([f"P{i}", ".A" if i == 3 else "._" if i == 4 else 33.0 + i / 10])
    wb.save(tmp_path / "special.xlsx")
    table = read_trial(tmp_path / "special.xlsx")
    entry = next(e for e, _ in table.entries if e.name == "TEMP_24H")
    assert entry.type == "float" and set(entry.missing) == {".A", "._"}
    assert table.report.missing_code_cells == 2 and table.report.reconciled


def test_a_lone_name_the_data_lacks_is_still_a_variable(tmp_path: Path) -> None:
    book = sb.build(tmp_path / "lone.xlsx")
    wb = load_workbook(book.path)
    wb["VARIABLES"].append(["skin_24h"])  # a variable's name alone: no heading
    wb.save(book.path)
    with pytest.raises(LoadError, match=r"lists 1 variable\(s\) the data sheet 'ipd_wide' lacks"):
        read_trial(book.path)


def _swap_format_and_type(wb) -> None:  # type: ignore[no-untyped-def]
    for row in wb["VARIABLES"].iter_rows():
        row[2].value, row[3].value = row[3].value, row[2].value


def _formats_as_a_table(wb) -> None:  # type: ignore[no-untyped-def]
    del wb["FORMATS"]
    ws = wb.create_sheet("FORMATS")
    ws.append(["Format name", "Values"])
    for name, pairs in sb.FORMATS.items():
        ws.append([f"{name}.", " ".join(f"{sb._quoted(c)} = '{lab}'" for c, lab in pairs.items())])
    ws.append(["TEMPF.", "low -< 36 = 'Hypothermic' 36 - high = 'Normal'"])


def _readme_without_a_header(wb) -> None:  # type: ignore[no-untyped-def]
    ws = wb["README"]
    ws.delete_rows(5)  # 'Code | Meaning | Applies to'


def _readme_in_other_words(wb) -> None:  # type: ignore[no-untyped-def]
    ws = wb["README"]
    for cell, text in zip(ws[5], ("Value", "Description", "Used for"), strict=False):
        cell.value = text
    ws["C7"] = "Variables with value labels (formats)"


@pytest.mark.parametrize(
    "change",
    [
        _swap_format_and_type,
        lambda wb: wb["VARIABLES"].delete_cols(3),  # no Type column
        lambda wb: wb["VARIABLES"].cell(1, 4, "Value labels"),
        _formats_as_a_table,
        _readme_without_a_header,
        _readme_in_other_words,
    ],
)
def test_other_ways_to_write_the_same_declarations(tmp_path: Path, change) -> None:  # type: ignore[no-untyped-def]
    book = sb.build(tmp_path / "v.xlsx")
    wb = load_workbook(book.path)
    change(wb)
    wb.save(book.path)
    table = read_trial(book.path)
    by = {e.name: e for e, _ in table.entries}
    assert by["RandArm"].codes == {"1": "Hypothermia", "2": "Normothermia"}
    assert by["Sex"].codes == {"M": "Male", "F": "Female"}
    assert by["Temp_24"].type == "float" and by["RandDate"].type == "date"
    assert by["Sarnat"].missing == {"-9": "Not known"}
    assert "-9" not in by["BaseExcess"].missing
    assert set(by["BirthWt"].missing) == {"-99", ".N", ".U"}
    assert table.report.reconciled and not table.report.problems


def test_a_text_code_outside_its_scope_is_missing_and_said_so(tmp_path: Path) -> None:
    book = sb.build(tmp_path / "outside.xlsx")
    wb = load_workbook(book.path)
    wb["README"].append([".L", "Lost to follow-up", "follow-up items (P18M, P2Y)"])
    data = wb["ipd_wide"]
    col = [c.value for c in data[1]].index("BirthWt") + 1
    data.cell(3, col, ".L")  # a baseline item: '.L' cannot be a birth weight either
    data.cell(4, [c.value for c in data[1]].index("IQ") + 1, ".L")
    wb.save(book.path)
    table = read_trial(book.path)
    by = {e.name: e for e, _ in table.entries}
    assert by["IQ"].missing[".L"] == "Lost to follow-up"
    assert by["BirthWt"].missing[".L"] == "Lost to follow-up"
    assert table.report.codes_outside_scope == [".L on BirthWt"]
    assert table.report.reconciled and not table.report.problems
