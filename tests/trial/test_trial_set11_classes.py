"""Classes of convention that set 11's independent workbook showed the loader and the reader did
not read, on a small workbook of that builder's habits written here (not its text): a SAS-style
dictionary headed ``VARNAME | VARLABEL | TYPE | FORMAT | UNITS | COMMENT`` whose sparse comment
column is not the label, a trial column of text (``Char``, width format ``$6.``) with no value
labels, a CNTLOUT-style formats sheet, a query log whose note says a code is a true value
('-9 is a true base excess, not the unknown code'), and a share asked per group within a trial
('for each SITE with TRIAL = X, the share of ...'). Gold is computed in pandas."""

from __future__ import annotations

import numpy as np
import openpyxl
import pandas as pd
import pytest

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial, read_trial
from clinbridge.adapters.trial._admin_columns import ADMIN_SOURCE
from clinbridge.adapters.trial._missing_decl import declarations_in_text, is_missing_meaning
from clinbridge.engine.understand._trial_spelling import derived_forms

N = 240
SITES = {1: "Aberdeen", 2: "Bergen", 5: "Cusco", 6: "Dakar"}
HEAD = ("VARNAME", "VARLABEL", "TYPE", "FORMAT", "UNITS", "TIMEPOINT", "COMMENT")
# (dictionary name, data column, label, type, format, unit, time point, comment)
ITEMS = (
    ("pid", "PID", "Participant", "Char", "$10.", "", "", ""),
    ("study", "STUDY", "Trial", "Char", "$6.", "", "", "NORTH or SOUTH"),
    ("site", "SITE", "Recruiting hospital", "Num", "SITEF.", "", "", "see the sites sheet"),
    ("arm", "ARM", "Randomised group", "Char", "$ARMF.", "", "PT0H", ""),
    ("sex", "Sex", "Sex", "Num", "SEXF.", "", "", ""),
    (
        "base_xs",
        "Base_XS",
        "Base excess, first gas",
        "Num",
        "8.",
        "mmol/L",
        "",
        "negative: deficit",
    ),
    ("tc_0h", "TC_0H", "Core temperature", "Num", "8.1", "degC", "PT0H", ""),
    ("tc_24h", "TC_24H", "Core temperature", "Num", "8.1", "degC", "PT24H", ""),
    (
        "gluc_6h_lab",
        "Gluc_6h_lab",
        "Blood glucose, laboratory plasma",
        "Num",
        "8.1",
        "mmol/L",
        "PT6H",
        "",
    ),
    ("gluc_6h", "Gluc_6h", "Blood glucose", "Num", "8.1", "mmol/L", "PT6H", ""),
    ("gluc_24h", "Gluc_24h", "Blood glucose", "Num", "8.1", "mmol/L", "PT24H", ""),
    ("iq_2y", "IQ_2Y", "Full-scale IQ", "Num", "8.", "", "P2Y", ""),
    ("mat_pyr", "MAT_PYR", "Maternal pyrexia in labour", "Num", "YNF.", "", "", ""),
    ("hypogly", "HYPOGLY", "Hypoglycaemia in the first 72 h", "Num", "YNF.", "", "PT72H", ""),
    ("bili_d3", "BILI_D3", "Total serum bilirubin", "Num", "8.", "umol/L", "P3D", ""),
    ("died", "DIED", "Death before discharge", "Num", "YNF.", "", "", ""),
    ("prewarm", "PREWARM", "Passive cooling before entry", "Num", "YNF.", "", "PT0H", ""),
)
FORMATS = (
    ("FMTNAME", "START", "LABEL", "TYPE"),
    *(("SITEF.", k, v, "N") for k, v in SITES.items()),
    ("$ARMF.", "H", "Hypothermia", "C"),
    ("$ARMF.", "S", "Standard care", "C"),
    ("SEXF.", 1, "Male", "N"),
    ("SEXF.", 2, "Female", "N"),
    ("YNF.", 0, "No", "N"),
    ("YNF.", 1, "Yes", "N"),
)


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pd.DataFrame, object]:
    rng = np.random.default_rng(1111)
    study = np.where(rng.random(N) < 0.55, "NORTH", "SOUTH")
    site = np.where(study == "NORTH", rng.choice([1, 2], N), rng.choice([5, 6], N))
    base = rng.integers(-22, 2, N)
    base[rng.random(N) < 0.2] = -9  # a true value: the query log says so
    temp = rng.normal(34.0, 1.2, N).round(1)
    temp[rng.random(N) < 0.05] = 9999
    df = pd.DataFrame(
        {
            "PID": [f"N-{i:04d}" for i in range(N)],
            "STUDY": study,
            "SITE": site,
            "ARM": rng.choice(["H", "S"], N),
            "Sex": rng.integers(1, 3, N),
            "Base_XS": base,
            "TC_0H": rng.normal(35.5, 0.8, N).round(1),
            "TC_24H": temp,
            "Gluc_6h_lab": rng.normal(5.0, 1.0, N).round(1),
            "Gluc_6h": rng.normal(4.6, 1.0, N).round(1),
            "Gluc_24h": rng.normal(5.2, 1.0, N).round(1),
            "IQ_2Y": rng.normal(95, 15, N).round(),
            "MAT_PYR": (rng.random(N) < 0.15).astype(int),
            "HYPOGLY": np.where(rng.random(N) < 0.1, -9, (rng.random(N) < 0.2).astype(int)),
            "BILI_D3": rng.normal(120, 30, N).round(),
            "DIED": (rng.random(N) < 0.2).astype(int),
            "PREWARM": np.where(study == "NORTH", rng.random(N) < 0.5, rng.random(N) < 0.1).astype(
                int
            ),
        }
    )
    for col in ("TC_24H", "Base_XS", "DIED", "PREWARM"):  # a query flag beside each item
        df[f"{col}_QF"] = (rng.random(N) < 0.05).astype(int)
    for col in ("TC_24H", "DIED"):  # a suffix beside two items only: no convention
        df[f"{col}_CHK"] = rng.integers(0, 2, N)
    path = tmp_path_factory.mktemp("set11") / "book.xlsx"
    wb = openpyxl.Workbook()
    wb.active.title = "Readme"
    notes = wb["Readme"]
    notes.append(["NORTH / SOUTH pooled export"])
    notes.append([])
    notes.append(["Code", "Meaning", "Applies to"])
    notes.append([9999, "not recorded", "numeric items"])
    notes.append([-9, "unknown", "coded items"])
    dictionary = wb.create_sheet("VARIABLES")
    dictionary.append(list(HEAD))
    dictionary.append(["SECTION 1 - ENTRY"])
    for name, _, label, typ, fmt, unit, tp, comment in ITEMS:
        dictionary.append([name, label, typ, fmt, unit or None, tp or None, comment or None])
    fmts = wb.create_sheet("FORMATS")
    for row in FORMATS:
        fmts.append(list(row))
    data = wb.create_sheet("data")
    data.append(list(df.columns))
    for row in df.itertuples(index=False):
        data.append([v.item() if hasattr(v, "item") else v for v in row])
    log = wb.create_sheet("query_log")
    log.append(["query", "variable", "status", "text"])
    log.append(["Q-1", "base_xs", "closed", "-9 is a true base excess, not the unknown code"])
    log.append(["Q-2", "tc_24h", "open", "reading of 31.0 confirmed at source"])
    wb.save(path)
    url = f"duckdb:///{path.with_suffix('.duckdb')}"
    report = load_trial(path, url)
    return url, df, report


def _ask(url: str, question: str) -> cb.Answer:  # type: ignore[name-defined]
    with cb.connect(url) as conn:
        return conn.ask(question)


def test_the_label_column_is_varlabel_not_the_sparse_comment(book) -> None:  # type: ignore[no-untyped-def]
    _, _, report = book
    assert not report.problems
    assert sorted(report.inferred) == ["DIED_CHK", "TC_24H_CHK"]
    table = read_trial(report.file)
    by = {e.name: e for e, _ in table.entries}
    assert by["TC_24H"].label == "Core temperature"
    assert by["STUDY"].label == "Trial"
    assert by["Base_XS"].label == "Base excess, first gas"
    assert by["TC_24H"].time_point == "24 h"


def test_a_text_trial_column_is_the_trial(book) -> None:  # type: ignore[no-untyped-def]
    url, df, report = book
    by = {e.name: e for e, _ in read_trial(report.file).entries}
    assert by["STUDY"].type == "categorical" and by["STUDY"].role == "trial"
    assert by["STUDY"].codes == {"NORTH": "NORTH", "SOUTH": "SOUTH"}
    a = _ask(url, "how many deaths before discharge in SOUTH?")
    assert a.decision == "accept", a.reason
    assert a.value == int(df[df.STUDY == "SOUTH"].DIED.sum())
    a = _ask(url, "mean core temperature at 24 hours by trial")
    assert a.decision == "accept", a.reason
    t = df.TC_24H.where(df.TC_24H != 9999)
    got = {r["study"]: r["value"] for r in a.value}
    assert got == pytest.approx(t.groupby(df.STUDY).mean().to_dict())


def test_a_note_that_a_code_is_a_true_value_declares_nothing(book) -> None:  # type: ignore[no-untyped-def]
    url, df, report = book
    assert declarations_in_text("-9 is a true base excess, not the unknown code") == {}
    assert declarations_in_text("-9 is not the missing code") == {}
    assert declarations_in_text("-9 = unknown") == {"-9": "unknown"}
    assert not is_missing_meaning("a real value, not a missing code")
    assert is_missing_meaning("not applicable")
    by = {e.name: e for e, _ in read_trial(report.file).entries}
    assert "-9" not in by["Base_XS"].missing
    a = _ask(url, "mean base excess")
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx(df.Base_XS.mean())  # the -9s are values


def test_a_share_per_group_within_a_trial(book) -> None:  # type: ignore[no-untyped-def]
    url, df, _ = book
    a = _ask(url, "For each SITE with STUDY = 'NORTH', the share of PREWARM = 1.")
    assert a.decision == "accept", a.reason
    north = df[df.STUDY == "NORTH"]
    want = {SITES[int(k)]: (int(g.PREWARM.sum()), len(g)) for k, g in north.groupby("SITE")}
    got = {r["site"]: (r["numerator"], r["denominator"]) for r in a.value}
    assert got == want


def test_a_code_quoted_as_sql_quotes_it(book) -> None:  # type: ignore[no-untyped-def]
    url, df, _ = book
    t = df.TC_24H.where(df.TC_24H != 9999)
    for question in ("Mean TC_24H where ARM = 'S'.", 'Mean TC_24H where ARM = "S"'):
        a = _ask(url, question)
        assert a.decision == "accept", (question, a.reason)
        assert a.value == pytest.approx(t[df.ARM == "S"].mean())
    a = _ask(url, "Share of DIED = 1 where Sex = '2'")
    assert a.decision == "accept", a.reason
    girls = df[df.Sex == 2]
    assert (a.details["numerator"], a.details["denominator"]) == (int(girls.DIED.sum()), len(girls))


def test_a_label_with_a_comma_is_one_label(book) -> None:  # type: ignore[no-untyped-def]
    url, df, _ = book
    # 'Blood glucose, laboratory plasma' is not 'Blood glucose' (another item, two time points)
    a = _ask(url, "Mean of Gluc_6h_lab where ARM = 'H'.")
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx(df.Gluc_6h_lab[df.ARM == "H"].mean())


def test_the_summary_of_one_column_minus_another(book) -> None:  # type: ignore[no-untyped-def]
    url, df, _ = book
    a = _ask(url, "mean(Gluc_24h - Gluc_6h) for ARM = 'H'")
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx((df.Gluc_24h - df.Gluc_6h)[df.ARM == "H"].mean())
    # the earlier minus the later is that difference, never the change read the other way
    a = _ask(url, "mean(Gluc_6h - Gluc_24h)")
    if a.decision == "accept":
        assert a.value == pytest.approx((df.Gluc_6h - df.Gluc_24h).mean())
    # two measurements: no change between time points
    assert _ask(url, "mean(Gluc_24h - TC_0H)").decision == "abstain"


def test_a_time_in_years_said_in_words(book) -> None:  # type: ignore[no-untyped-def]
    url, df, _ = book
    a = _ask(url, "How many children had a full-scale IQ below 70 at two years?")
    assert a.decision == "accept", a.reason
    assert a.value == int((df.IQ_2Y < 70).sum())


def test_data_management_fields_beside_the_items(book) -> None:  # type: ignore[no-untyped-def]
    url, _, report = book
    assert report.admin_columns == ["QF (4)"] and report.reconciled
    by = {e.name: e for e, _ in read_trial(report.file).entries}
    assert by["TC_24H_QF"].source == ADMIN_SOURCE and by["TC_24H_CHK"].source == "inferred"
    with cb.connect(url) as conn:
        names = {v.name for v in conn.catalog.variables}
    assert "TC_24H_QF" not in names and "TC_24H" in names and "TC_24H_CHK" in names
    a = _ask(url, "mean core temperature at 24 hours by arm")
    assert a.decision == "accept", a.reason


def test_derived_forms_of_dictionary_words() -> None:
    vocab = {"passive", "hypoglycaemia", "hypoxia", "cooling", "passage", "rapid", "rapidity"}
    assert derived_forms("passively", vocab) == ["passive"]
    assert derived_forms("hypoglycemic", vocab) == ["hypoglycaemia"]
    assert derived_forms("hypoxic", vocab) == ["hypoxia"]
    assert derived_forms("rapidly", vocab) == ["rapid"]
    assert derived_forms("slowly", vocab) == []
    assert derived_forms("passive", vocab) == []  # the word itself: nothing to derive


def test_words_of_other_forms_and_fillers(book) -> None:  # type: ignore[no-untyped-def]
    url, df, _ = book
    for question, rows in (
        ("what % had maternal fever in labour?", df.MAT_PYR == 1),
        ("proportion hypoglycemic in the first 72 hrs", df.HYPOGLY == 1),
    ):
        a = _ask(url, question)
        assert a.decision == "accept", (question, a.reason)
        known = int((df.HYPOGLY != -9).sum()) if "hypo" in question else N
        assert (a.details["numerator"], a.details["denominator"]) == (int(rows.sum()), known)
    # 'passively cooled' is never the hypothermia arm: the passive-cooling item, or abstain
    for question in (
        "% of infants passively cooled before entry",
        "% of infants passively cooled beforehand pls",
    ):
        a = _ask(url, question)
        if a.decision == "accept":
            assert (a.details["numerator"], a.details["denominator"]) == (
                int(df.PREWARM.sum()),
                N,
            ), question
    a = _ask(url, "mean total serum bilirubin on postnatal day 3 in girls")
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx(df.BILI_D3[df.Sex == 2].mean())
    a = _ask(url, "Of the infants in the hypothermia arm, what percentage did not in fact die?")
    assert a.decision == "accept", a.reason
    arm = df[df.ARM == "H"]
    assert (a.details["numerator"], a.details["denominator"]) == (
        int((arm.DIED == 0).sum()),
        len(arm),
    )


def test_a_missing_code_left_out_with_its_meaning_in_brackets(book) -> None:  # type: ignore[no-untyped-def]
    url, df, _ = book
    known = df[df.HYPOGLY != -9]
    a = _ask(url, "Share of HYPOGLY = 1 where Sex = 2, the -9 (unknown) rows left out.")
    assert a.decision == "accept", a.reason
    girls = known[known.Sex == 2]
    assert (a.details["numerator"], a.details["denominator"]) == (
        int((girls.HYPOGLY == 1).sum()),
        len(girls),
    )
    # an ordinary value said to be left out is a condition: abstain
    a = _ask(url, "Share of HYPOGLY = 1, the 0 (no) rows left out.")
    assert a.decision == "abstain"


def test_a_split_asked_is_a_distribution(book) -> None:  # type: ignore[no-untyped-def]
    url, df, _ = book
    north = df[df.STUDY == "NORTH"]
    a = _ask(url, "sex split in NORTH pls")
    assert a.decision == "accept", a.reason
    got = {r["sex"]: (r["numerator"], r["denominator"]) for r in a.value}
    want = {"Male": int((north.Sex == 1).sum()), "Female": int((north.Sex == 2).sum())}
    assert got == {k: (n, len(north)) for k, n in want.items()}


def test_a_grouping_item_of_four_words(book) -> None:  # type: ignore[no-untyped-def]
    url, df, _ = book
    a = _ask(url, "mean(Base_XS) by maternal pyrexia in labour")
    assert a.decision == "accept", a.reason
    got = {r["mat_pyr"]: r["value"] for r in a.value}
    want = df.Base_XS.groupby(df.MAT_PYR).mean()
    assert got == pytest.approx({"No": want[0], "Yes": want[1]})
