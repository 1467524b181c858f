"""A workbook another builder made (tests/trial/foreign_book.py): loaded and read, answers
checked against pandas on the same cells — and the notations its dictionary uses."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from tests.trial import foreign_book as fb

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial
from clinbridge.adapters.trial._codes import parse_code_list, split_missing
from clinbridge.timepoint import canonical, time_in_label, time_in_name


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return fb.frame()


@pytest.fixture(scope="module", params=["codebook", "redcap"])
def url(request, data, tmp_path_factory) -> str:  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp(f"foreign_{request.param}")
    if request.param == "codebook":
        book = fb.write(tmp / "book.xlsx", data)
    else:
        book = fb.write(tmp / "book.xlsx", data, fb.REDCAP_HEADER, fb.redcap_rows())
    out = f"duckdb:///{tmp / 'book.duckdb'}"
    report = load_trial(book, out)
    assert report.reconciled
    return out


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("1=Male; 2=Female", {"1": "Male", "2": "Female"}),
        ("1, Male | 2, Female", {"1": "Male", "2": "Female"}),
        ("0 = No, 1 = Yes", {"0": "No", "1": "Yes"}),
        ("1: Mild / 2: Moderate / 3: Severe", {"1": "Mild", "2": "Moderate", "3": "Severe"}),
        ("(1) Male (2) Female", {"1": "Male", "2": "Female"}),
        ("1 - Male, 2 - Female", {"1": "Male", "2": "Female"}),
        ("Male=1, Female=2", {"1": "Male", "2": "Female"}),
        ("1 Male\n2 Female", {"1": "Male", "2": "Female"}),
        ("1=0-2 days; 2=3-5 days", {"1": "0-2 days", "2": "3-5 days"}),
        ("-99, -88", {"-99": "", "-88": ""}),
        ("M=Male; F=Female", {"M": "Male", "F": "Female"}),
    ],
)
def test_code_list_notations(text: str, codes: dict[str, str]) -> None:
    assert parse_code_list(text) == codes


def test_a_missing_label_leaves_the_categories() -> None:
    keep, gone = split_missing(parse_code_list("1 = Yes | 0 = No | 9 = Missing"))
    assert keep == {"1": "Yes", "0": "No"} and gone == {"9": "Missing"}
    keep, gone = split_missing(parse_code_list("0=None; 1=Mild; 2=Unknown cause"))
    assert gone == {} and keep["0"] == "None"


def test_time_points_as_builders_write_them() -> None:
    assert [canonical(t) for t in ("Day 3", "72 hours", "18 mo", "Month 18", "10 minutes")] == [
        "72 h",
        "72 h",
        "18 months",
        "18 months",
        "10 min",
    ]
    assert time_in_name("Temp (6 h)").text() == "6 h"  # type: ignore[union-attr]
    assert time_in_name("bayley_cog_18mo").text() == "18 months"  # type: ignore[union-attr]
    assert time_in_label("Lactate at 72 hours").text() == "72 h"  # type: ignore[union-attr]
    assert time_in_label("Seizures in the first 72 hours") is None


def test_the_catalog_reads_the_other_builders_dictionary(url: str) -> None:
    with cb.connect(url) as conn:
        by = {v.name: v for v in conn.catalog.variables}
    assert by["subj"].role == "subject" and by["alloc"].role == "arm"
    assert by["study"].role == "trial" and by["centre"].role == "site"
    assert by["sex"].codes == {"1": "Male", "2": "Female"} and by["sex"].missing_codes == ("9",)
    assert by["sarnat"].codes == {"1": "Mild", "2": "Moderate", "3": "Severe"}
    assert by["alloc"].codes == {"1": "Cooling", "2": "Control"}
    assert by["lact_72"].type == "float" and by["lact_72"].missing_codes == ("-9",)
    assert by["bw_g"].type in {"integer", "float"}  # no type column: numbers are numbers
    times = {n: by[n].time_point for n in ("Temp (6 h)", "temp_core_24h", "TEMP72", "apgar_10")}
    assert times == {
        "Temp (6 h)": "6 h",
        "temp_core_24h": "24 h",
        "TEMP72": "72 h",
        "apgar_10": "10 min",
    }
    assert by["bayley_cog_18mo"].time_point == "18 months"
    assert by["bayley_cog_18mo"].trials == ("COOLKIDS",)


def _ask(url: str, question: str) -> cb.Answer:  # type: ignore[name-defined]
    with cb.connect(url) as conn:
        return conn.ask(question)


def test_answers_agree_with_pandas(url: str, data: pd.DataFrame) -> None:
    cooled = data["alloc"] == 1
    t72 = fb.clean(data, "TEMP72")
    a = _ask(url, "mean core temperature at 72 hours in the cooling arm")
    assert a.decision == "accept" and a.value == pytest.approx(t72[cooled].mean())
    a = _ask(url, "mean temperature at 6 h")
    assert a.value == pytest.approx(fb.clean(data, "Temp (6 h)").mean())
    a = _ask(url, "median lactate at 72 h")  # -9 and 'NA' are missing
    assert a.value == pytest.approx(fb.clean(data, "lact_72").median())
    a = _ask(url, "percentage of infants who died in the cooling group")
    assert (a.details["numerator"], a.details["denominator"]) == (
        int(data.loc[cooled, "died"].sum()),
        int(cooled.sum()),
    )
    a = _ask(url, "number of girls")
    assert a.value == int((data["sex"] == 2).sum())
    a = _ask(url, "mean apgar at 10 minutes by arm")
    got = {r["alloc"]: r["value"] for r in a.value}
    assert got["Control"] == pytest.approx(data.loc[~cooled, "apgar_10"].mean())
    a = _ask(url, "change in lactate from 0 h to 72 h by arm")
    change = fb.clean(data, "lact_72") - fb.clean(data, "lact_0")
    got = {r["alloc"]: r["value"] for r in a.value}
    assert got["Cooling"] == pytest.approx(change[cooled].mean())
    a = _ask(url, "mean bayley cognitive score at 18 months in ICEBABY")
    assert a.decision != "accept" and "not collected in ICEBABY" in str(a.reason)


def test_the_dictionary_is_found_by_content_when_its_header_is_unnamed(
    data: pd.DataFrame, tmp_path: Path
) -> None:
    header = ("Col", "Text", "Scale", "Coding", "", "")
    book = fb.write(tmp_path / "bare.xlsx", data, header)
    url = f"duckdb:///{tmp_path / 'bare.duckdb'}"
    load_trial(book, url)
    with cb.connect(url) as conn:
        by = {v.name: v for v in conn.catalog.variables}
    assert by["sarnat"].description == "Encephalopathy grade (Sarnat)"
    assert by["sex"].codes == {"1": "Male", "2": "Female"}


def test_text_codes_listed_as_words(data: pd.DataFrame, tmp_path: Path) -> None:
    assert parse_code_list("Cooling, Control") == {"Cooling": "Cooling", "Control": "Control"}
    assert parse_code_list("Y=Yes / N=No") == {"Y": "Yes", "N": "No"}
    coded, rows = fb.text_coded(data)
    book = fb.write(tmp_path / "text.xlsx", coded, fb.HEADER, rows)
    url = f"duckdb:///{tmp_path / 'text.duckdb'}"
    load_trial(book, url)
    cooled = coded["group"] == "Cooling"
    a = _ask(url, "percentage of infants who died in the cooling group")
    assert (a.details["numerator"], a.details["denominator"]) == (
        int((coded.loc[cooled, "died"] == "Y").sum()),
        int(cooled.sum()),
    )
    a = _ask(url, "mean birth weight by arm")
    got = {r["group"]: r["value"] for r in a.value}
    assert got == pytest.approx(
        {"Cooling": data.loc[cooled, "bw_g"].mean(), "Control": data.loc[~cooled, "bw_g"].mean()}
    )
    assert _ask(url, "how many infants died").value == int((coded["died"] == "Y").sum())


def test_labels_exported_types_in_words_and_missing_codes_stated_once(
    data: pd.DataFrame, tmp_path: Path
) -> None:
    # a fourth habit: the export writes code labels ('Severe'), the type column says
    # 'Numeric (continuous)', and -99 is declared once for the workbook, not per variable
    exported = data.copy()
    exported["sarnat"] = exported["sarnat"].map({1: "Mild", 2: "Moderate", 3: "Severe"})
    exported.loc[exported.index[:5], "bw_g"] = -99

    def kind(name: str, codes: str) -> str:
        if name in {"subj", "form_status"}:
            return "Free text"
        return "Categorical (nominal)" if "=" in codes or "," in codes else "Numeric (continuous)"

    rows = [
        (
            *r[:3],
            r[3].replace("-9 = not done", ""),
            r[4],
            r[5],
            kind(r[0], r[3].replace("-9 = not done", "")),
        )
        for r in fb.CODEBOOK
    ]
    book = fb.write(tmp_path / "labels.xlsx", exported, (*fb.HEADER, "Data type"), rows)
    url = f"duckdb:///{tmp_path / 'labels.duckdb'}"
    report = load_trial(book, url)
    assert report.reconciled
    with cb.connect(url) as conn:
        by = {v.name: v for v in conn.catalog.variables}
    assert by["bw_g"].type == "float" and "-99" in by["bw_g"].missing_codes
    assert by["sarnat"].type == "categorical"
    a = _ask(url, "how many infants had severe encephalopathy")
    assert a.value == int((data["sarnat"] == 3).sum())
    a = _ask(url, "mean birth weight")
    assert a.value == pytest.approx(data["bw_g"].iloc[5:].mean())


@pytest.mark.parametrize(
    "cell",
    ["(see Centres sheet)", "see sheet Sites", "Refer to the site list", "free text", "Site name"],
)
def test_a_codes_cell_that_points_elsewhere_lists_no_codes(cell: str) -> None:
    """A reference to another sheet, 'free text' or one phrase alone is no code list: the column's
    values must not be checked against it (each would be a bad cell)."""
    assert parse_code_list(cell) == {}


def test_words_alone_still_list_codes() -> None:
    assert parse_code_list("Cooling, Control") == {"Cooling": "Cooling", "Control": "Control"}
    assert parse_code_list("Yes/No") == {"Yes": "Yes", "No": "No"}
