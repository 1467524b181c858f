"""Workbooks in layouts our own generator never writes (tests/trial/foreign_layouts.py): each is
read, its missing codes found wherever it declares them, and every mean, count and denominator
checked against pandas on the builder's own truth; broken ones give errors naming sheet, row and
column."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
import pytest
from openpyxl import load_workbook
from tests.trial import foreign_layouts as fl

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial, read_trial
from clinbridge.adapters.trial._missing_decl import (
    declarations_in_row,
    declarations_in_text,
    is_missing_header,
)
from clinbridge.adapters.trial._ranges import split_range
from clinbridge.adapters.trial._read import column_letter
from clinbridge.catalog import Catalog
from clinbridge.errors import LoadError
from clinbridge.timepoint import canonical

SEEDS = range(14)
"""Two of each place a declaration can stand (notes text, codes table, dictionary column,
inside the codes column, a title row, notes beside the dictionary, a sentence in the notes),
with drawn sheet names, orders, headers and notations."""


def _catalog(url: str) -> Catalog:
    with cb.connect(url) as conn:
        return conn.catalog


@pytest.fixture(scope="module", params=SEEDS)
def loaded(request, tmp_path_factory) -> tuple[fl.Book, str, object]:  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp(f"layout{request.param}")
    book = fl.build(request.param, tmp / "book.xlsx")
    url = f"duckdb:///{tmp / 'book.duckdb'}"
    report = load_trial(book.path, url)
    return book, url, report


def test_each_layout_loads_and_its_counts_reconcile(loaded) -> None:  # type: ignore[no-untyped-def]
    book, _, report = loaded
    assert report.reconciled
    assert report.sheet == book.sheets["data"]
    assert report.dictionary_source == f"sheet {book.sheets['dictionary']!r}"
    assert report.rows_loaded == fl.N_ROWS and not report.problems and not report.inferred
    assert report.missing_code_cells == book.missing_cells()
    workbook_cells = sum(d["cells"] for d in report.workbook_missing)
    if book.where in {"notes_text", "notes_table", "title", "dict_side", "sentence"}:
        assert workbook_cells == book.missing_cells()
        assert {str(d["code"]) for d in report.workbook_missing} == {str(c) for c in book.missing}
        on_dictionary = book.where in {"title", "dict_side"}
        sheet = book.sheets["dictionary" if on_dictionary else "notes"]
        assert all(d["declared"].startswith(f"sheet {sheet!r}") for d in report.workbook_missing)
    else:  # declared per variable: nothing is workbook-wide
        assert workbook_cells == 0


def test_missing_codes_never_enter_a_mean_or_a_denominator(loaded) -> None:  # type: ignore[no-untyped-def]
    book, url, _ = loaded
    catalog = _catalog(url)
    by = {v.name: v for v in catalog.variables}
    path = url.removeprefix("duckdb:///")
    with duckdb.connect(path, read_only=True) as con:
        data = con.execute("SELECT * FROM trial_data").df()
        long = con.execute("SELECT variable, value FROM trial_long").df()
    for v in book.variables:
        if v.kind not in {"coded", "measured"}:
            continue
        var = by[v.name]
        stored = pd.to_numeric(data[var.column])
        codes = [float(c) for c in var.missing_codes]
        clean = stored.where(~stored.isin(codes))
        truth = book.truth[v.name]
        assert int(clean.notna().sum()) == int(truth.notna().sum()), v.name
        assert clean.mean() == pytest.approx(truth.mean()), v.name
        if v.time is not None:
            values = long.loc[long["variable"] == v.name, "value"]
            assert values.mean() == pytest.approx(truth.mean()), v.name
            assert int(values.notna().sum()) == int(truth.notna().sum()), v.name


def test_labels_time_points_and_ranges_come_out(loaded) -> None:  # type: ignore[no-untyped-def]
    book, url, _ = loaded
    by = {v.name: v for v in _catalog(url).variables}
    for v in book.variables:
        if v.codes:
            assert by[v.name].codes == {str(c): lab for c, lab in v.codes.items()}, v.name
        if v.time is not None:
            assert by[v.name].time_point == canonical(f"{v.time} hours"), v.name
    assert by[book.var("arm").name].role == "arm"
    table = read_trial(book.path)
    ranges = {e.name: e.range for e, _ in table.entries}
    assert ranges[book.var("temp24").name] == (30.0, 40.0)
    assert ranges[book.var("apgar").name] == (0.0, 10.0)
    assert by[book.var("apgar").name].codes == {}  # a range, not the codes 0 and 10


@pytest.mark.parametrize("seed", [0, 2, 3, 4])
def test_questions_answer_as_pandas_does(seed: int, tmp_path: Path) -> None:
    book = fl.build(seed, tmp_path / "book.xlsx")
    url = f"duckdb:///{tmp_path / 'book.duckdb'}"
    load_trial(book.path, url)
    truth, arm = book.truth, book.raw[book.var("arm").name]
    lact = truth[book.var("lact24").name]
    with cb.connect(url) as conn:
        a = conn.ask("mean lactate at 24 hours by arm")
        got = {r[book.var("arm").name]: r["value"] for r in a.value}
        assert got["Hypothermia"] == pytest.approx(lact[arm == 1].mean())
        assert got["Standard care"] == pytest.approx(lact[arm == 2].mean())
        a = conn.ask("percentage of infants who died")
        assert (a.details["numerator"], a.details["denominator"]) == (
            int((truth["died"] == 1).sum()),
            int(truth["died"].notna().sum()),
        )
        assert conn.ask("number of boys").value == int((truth["sex"] == "M").sum())
        a = conn.ask("mean core temperature at 24 hours")
        assert a.value == pytest.approx(truth[book.var("temp24").name].mean())


# -- broken workbooks ---------------------------------------------------------------------------


def _spoil(book: fl.Book, column: str, row: int, value: object) -> tuple[str, int]:
    """Write ``value`` into data row ``row`` (0-based) of ``column``; its column letter and
    spreadsheet row."""
    wb = load_workbook(book.path)
    ws = wb[book.sheets["data"]]
    j = list(book.raw.columns).index(column)
    ws.cell(row=row + 2, column=j + 1, value=value)
    wb.save(book.path)
    return column_letter(j), row + 2


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_an_undeclared_text_in_a_numeric_column_is_an_error(seed: int, tmp_path: Path) -> None:
    book = fl.build(seed, tmp_path / "book.xlsx")
    letter, row = _spoil(book, "bw_g", 5, "n.q.")
    with pytest.raises(LoadError) as info:
        read_trial(book.path)
    msg = str(info.value)
    assert f"bad cell(s) in sheet {book.sheets['data']!r}" in msg
    assert f"row {row} column {letter} (bw_g): text 'n.q.'" in msg
    lenient = read_trial(book.path, strict=False).report  # --lenient: NULL, listed, reconciled
    assert [(p["row"], p["column"], p["value"]) for p in lenient.problems] == [
        (row, letter, "n.q.")
    ]
    assert lenient.reconciled


@pytest.mark.parametrize("seed", [0, 2, 3])
def test_an_undeclared_code_is_an_error(seed: int, tmp_path: Path) -> None:
    book = fl.build(seed, tmp_path / "book.xlsx")
    letter, row = _spoil(book, "sarnat", 7, 5)
    with pytest.raises(LoadError) as info:
        read_trial(book.path)
    assert f"row {row} column {letter} (sarnat): the dictionary disagrees" in str(info.value)


def test_a_declared_text_code_of_another_workbook_is_still_an_error(tmp_path: Path) -> None:
    book = fl.build(0, tmp_path / "book.xlsx")  # declares ND and '.', not NE
    letter, row = _spoil(book, "ph_cord", 3, "NE")
    with pytest.raises(LoadError) as info:
        read_trial(book.path)
    assert f"row {row} column {letter} (ph_cord): text 'NE'" in str(info.value)


def test_values_outside_a_declared_range_are_reported_not_dropped(tmp_path: Path) -> None:
    book = fl.build(0, tmp_path / "book.xlsx")
    name = book.var("temp48").name
    letter, row = _spoil(book, name, 2, 45.5)
    letter2, row2 = _spoil(book, name, 4, 999)  # a usual missing code nobody declared
    report = read_trial(book.path).report
    assert report.reconciled
    out = {(o["row"], o["column"]): o for o in report.out_of_range}
    assert out[(row, letter)]["action"] == "kept as a value" and out[(row, letter)]["value"] == 45.5
    assert out[(row2, letter2)]["action"].startswith("treated as missing")
    assert any("outside their variable's declared range" in line for line in report.summary_lines())


def test_a_usual_code_declared_nowhere(tmp_path: Path) -> None:
    """-999 beside '0=No; 1=Yes' and among measurements where the workbook declares no missing
    code at all: missing, and said so in its label (5 is still an error, above)."""
    book = fl.build(2, tmp_path / "book.xlsx", where="nowhere")
    table = read_trial(book.path)
    by = {e.name: e for e, _ in table.entries}
    assert by["died"].missing == {"-999": "undeclared: a usual missing code"}
    assert by["bw_g"].missing == {"-999": "undeclared: a usual missing code"}
    assert table.report.missing_code_cells == book.missing_cells() and table.report.reconciled


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("-999 = not done", {"-999": "not done"}),
        ("8888: not applicable", {"8888": "not applicable"}),
        ("ND = not done", {"ND": "not done"}),
        ("'.' = missing", {".": "missing"}),
        ("-999 (not done)", {"-999": "not done"}),
        ("Not done is coded as -999", {"-999": "Not done"}),
        ("Missing values are coded as -99 throughout.", {"-99": "Missing values"}),
        (
            "Missing codes: -999 = not done; -888 = not applicable",
            {"-999": "not done", "-888": "not applicable"},
        ),
        ("• -777 = lost to follow-up", {"-777": "lost to follow-up"}),
        ("One row per infant; trial-specific fields are blank for the other trial.", {}),
        ("Version 3: unknown subjects removed", {}),
        ("1 = Yes", {}),
    ],
)
def test_declaration_notations(text: str, codes: dict[str, str]) -> None:
    assert declarations_in_text(text) == codes


def test_declaration_tables_and_headers() -> None:
    assert declarations_in_row([-999, "Not done"]) == {"-999": "Not done"}
    assert declarations_in_row(["Not applicable", 8888]) == {"8888": "Not applicable"}
    assert declarations_in_row([1, "Centre A", "ALPHA"]) == {}
    for header in ("Special codes", "Missing values", "Non-response codes", "NA codes"):
        assert is_missing_header(header)
    for header in ("Codes", "Values", "% missing", "N missing", "Label"):
        assert not is_missing_header(header)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("range 30 to 40", (30.0, 40.0)),
        ("30-40", (30.0, 40.0)),
        ("[0, 10]", (0.0, 10.0)),
        ("min 500, max 6000", (500.0, 6000.0)),
        ("between 6.5 and 7.6", (6.5, 7.6)),
        ("range 30 to 40; -999 = not done", (30.0, 40.0)),
        ("1=Yes; 0=No", None),
        ("1=0-2 days; 2=3-5 days", None),
        ("-99, -88", None),
    ],
)
def test_range_notations(text: str, found: tuple[float, float] | None) -> None:
    assert split_range(text)[0] == found


def test_a_footnote_under_the_dictionary_declares_for_the_workbook(tmp_path: Path) -> None:
    book = fl.build(3, tmp_path / "book.xlsx", where="nowhere")
    wb = load_workbook(book.path)
    ws = wb[book.sheets["dictionary"]]
    ws.append([])
    ws.append(["Note: -999 = not done (all fields)"])  # in the variable column, naming none
    wb.save(book.path)
    report = read_trial(book.path).report
    assert report.dictionary_entries == len(book.variables)  # the note is no entry
    (code,) = report.workbook_missing
    assert code["code"] == "-999" and code["cells"] == book.missing_cells()
    assert code["declared"] == f"sheet {book.sheets['dictionary']!r} row {len(book.variables) + 3}"


def test_a_row_naming_a_column_declares_for_that_column_only(tmp_path: Path) -> None:
    book = fl.build(4, tmp_path / "book.xlsx", where="nowhere")
    wb = load_workbook(book.path)
    ws = wb.create_sheet("Special")
    ws.append(["Variable", "Code", "Meaning"])
    ws.append(["died", -999, "not done"])
    wb.save(book.path)
    table = read_trial(book.path)
    by = {e.name: e for e, _ in table.entries}
    assert by["died"].missing == {"-999": "not done"}
    assert by["seiz"].missing == {"-999": "undeclared: a usual missing code"}
    assert table.report.workbook_missing == []
