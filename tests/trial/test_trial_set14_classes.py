"""Classes that set 14's independent workbook showed, on a small workbook of our own: code lists
kept on a sheet of lists and named in the dictionary (``ARM | HT=Hypothermia|NT=Normothermia``,
text codes unquoted, a TRUE/FALSE list for boolean cells), a missing-values column with a dash
as a code (``-1=Not done|-=Not applicable``), visit codes timed on a visit schedule that holds
a note row, units in round brackets at a label's end; and in the reader, labels told apart only
by 'before' / 'after' a moment, yes/no items asked by their text code (``ADREN = 'Y'``) and a
missing code in letters said excluded (``UNK excluded``). Gold is computed in pandas."""

from __future__ import annotations

import numpy as np
import openpyxl
import pandas as pd
import pytest

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial, read_trial
from clinbridge.errors import LoadError

N = 200
LISTS = {
    "ARM": "HT=Hypothermia|NT=Normothermia",
    "NY": "Y=Yes|N=No",
    "TF": "TRUE=Yes|FALSE=No",
    "GRADE": "1=Mild|2=Moderate|3=Severe",
    "DISAB": "0=No disability|1=Mild|2=Moderate|3=Severe",
}
VISITS = (
    ("V0", "Birth", "at birth"),
    ("V1", "Randomisation", "0 h (start of intervention)"),
    ("V4", "24 hours", "24 h after randomisation"),
    ("V9", "Discharge", "discharge from the unit"),
    ("V10", "18 months", "18 months corrected age"),
)


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(1414)
    adren = rng.choice(["Y", "N"], N).astype(object)
    adren[:5] = "UNK"
    temp = rng.normal(34, 1.5, N).round(1).astype(object)
    temp[5:12] = -1
    dev = np.where(rng.random(N) < 0.5, rng.normal(31, 1, N).round(1), "-").astype(object)
    return pd.DataFrame(
        {
            "SUBJID": [f"S{i:04d}" for i in range(N)],
            "RANDARM_V1": rng.choice(["HT", "NT"], N),
            "GRADE_V1": rng.choice([1, 2, 3], N),
            "ADREN_V0": adren,
            "SEIZPRE_V1": [bool(x) for x in rng.random(N) < 0.3],
            "SEIZPOST_V9": rng.choice(["Y", "N"], N, p=[0.4, 0.6]),
            "BWT_V0": rng.normal(3300, 400, N).round(),
            "TEMP_V4": temp,
            "TEMPDEV_V4": dev,
            "BE_V0": rng.normal(-15, 5, N).round(1),
            "DISAB_V10": rng.choice([0, 1, 2, 3], N),
            "CP_V10": rng.choice(["Y", "N"], N, p=[0.2, 0.8]),
            "GAWK_V0": [int(x) if k > 3 else "UNK" for k, x in enumerate(rng.integers(35, 42, N))],
            "GADAY_V0": [int(x) if k > 3 else "UNK" for k, x in enumerate(rng.integers(0, 7, N))],
            "INBORN_V0": rng.choice(["Y", "N"], N, p=[0.45, 0.55]),
            "PASSCOOL_V1": [bool(x) for x in rng.random(N) < 0.4],
        }
    )


DICT = (
    ("SUBJID", "Subject identifier", "", "Char", "", ""),
    ("RANDARM_V1", "Randomised treatment arm", "V1", "Char", "ARM", ""),
    ("GRADE_V1", "Encephalopathy grade (modified Sarnat)", "V1", "Num", "GRADE", ""),
    ("ADREN_V0", "Adrenaline given at resuscitation", "V0", "Char", "NY", "UNK=Unknown"),
    ("SEIZPRE_V1", "Clinical seizures before randomisation", "V1", "Bool", "TF", ""),
    ("SEIZPOST_V9", "Clinical seizures after randomisation", "V9", "Char", "NY", ""),
    ("BWT_V0", "Birth weight (g)", "V0", "Num", "", ""),
    ("TEMP_V4", "Core temperature (deg C)", "V4", "Num", "", "-1=Not done"),
    ("TEMPDEV_V4", "Device temperature (deg C)", "V4", "Num", "", "-=Not applicable"),
    ("BE_V0", "Base excess in the first hour (mmol/L)", "V0", "Num", "", ""),
    ("DISAB_V10", "Severity of neurodevelopmental disability", "V10", "Num", "DISAB", ""),
    ("CP_V10", "Cerebral palsy", "V10", "Char", "NY", ""),
    ("GAWK_V0", "Gestational age at birth, completed weeks", "V0", "Num", "", "UNK=Unknown"),
    ("GADAY_V0", "Gestational age at birth, additional days (0-6)", "V0", "Num", "", "UNK=Unknown"),
    ("INBORN_V0", "Born in the recruiting hospital (inborn)", "V0", "Char", "NY", ""),
    ("PASSCOOL_V1", "Passive cooling before randomisation", "V1", "Bool", "TF", ""),
)


def _book(tmp_path, *, lists: dict[str, str] = LISTS) -> tuple[str, pd.DataFrame]:
    df = _frame()
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Index"
    ws.append(["Codelists", "Value labels, written value=label and separated by |"])
    vs = wb.create_sheet("Visit schedule")
    vs.append(["Visit", "Visit name", "Nominal time"])
    for v in VISITS:
        vs.append(list(v))
    vs.append(["Day 1 / Day 3", "Day of life", "postnatal day"])  # a note row, no code
    ds = wb.create_sheet("Variables")
    ds.append(
        ["Variable Name", "Variable Label", "Visit", "Data Type", "Codelist", "Missing Values"]
    )
    for row in DICT:
        ds.append(list(row))
    cl = wb.create_sheet("Codelists")
    cl.append(["Codelist", "Values"])
    for name, values in lists.items():
        cl.append([name, values])
    data = wb.create_sheet("CRF_DATA")
    data.append(list(df.columns))
    for row in df.itertuples(index=False):
        data.append([v.item() if hasattr(v, "item") else v for v in row])
    path = tmp_path / "set14_like.xlsx"
    wb.save(path)
    return str(path), df


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("s14")
    path, df = _book(tmp)
    url = f"duckdb:///{tmp / 'b.duckdb'}"
    report = load_trial(path, url)
    with cb.connect(url) as conn:
        yield conn, df, report


def _var(conn, name):
    return next(v for v in conn.catalog.variables if v.name == name)


def test_code_lists_on_a_sheet_of_lists_label_the_variables_that_name_them(loaded):
    conn, df, report = loaded
    assert report.reconciled
    assert _var(conn, "RANDARM_V1").codes == {"HT": "Hypothermia", "NT": "Normothermia"}
    assert _var(conn, "RANDARM_V1").role == "arm"
    assert _var(conn, "GRADE_V1").codes == {"1": "Mild", "2": "Moderate", "3": "Severe"}
    assert _var(conn, "SEIZPRE_V1").codes == {"TRUE": "Yes", "FALSE": "No"}
    assert _var(conn, "ADREN_V0").missing_labels == {"UNK": "Unknown"}
    a = conn.ask("number of babies by arm")
    got = {r["randarm_v1"]: r["value"] for r in a.value}
    counts = df.RANDARM_V1.value_counts()
    assert got == {"Hypothermia": counts["HT"], "Normothermia": counts["NT"]}
    a = conn.ask("% with clinical seizures before randomisation")  # boolean cells: TRUE / FALSE
    assert a.details["numerator"] == int(df.SEIZPRE_V1.sum())


def test_a_dash_is_a_missing_code_and_visit_codes_take_the_schedules_times(loaded):
    conn, df, _ = loaded
    dev = _var(conn, "TEMPDEV_V4")
    assert dev.missing_labels == {"-": "Not applicable"} and dev.type in {"float", "integer"}
    assert dev.unit == "°C" and _var(conn, "BWT_V0").unit == "g"
    assert _var(conn, "TEMP_V4").time_point == "24 h"
    assert _var(conn, "RANDARM_V1").time_point == "0 h"
    assert _var(conn, "SEIZPOST_V9").time_point == "discharge"
    assert _var(conn, "ADREN_V0").time_point is None  # 'at birth' names no time point
    a = conn.ask("mean device temperature")
    gold = pd.to_numeric(df.TEMPDEV_V4, errors="coerce").mean()
    assert a.decision == "accept" and abs(a.value - gold) < 1e-6
    a = conn.ask("mean core temperature at 24 hours")
    temp = df.TEMP_V4.astype(float)
    assert abs(a.value - temp[temp != -1].mean()) < 1e-6


def test_before_and_after_a_moment_are_two_items(loaded):
    conn, df, _ = loaded
    a = conn.ask("% with seizures after randomisation")
    assert a.details["numerator"] == int((df.SEIZPOST_V9 == "Y").sum())
    a = conn.ask("% with seizures before randomisation")
    assert a.details["numerator"] == int(df.SEIZPRE_V1.sum())
    assert conn.ask("% with seizures").decision == "abstain"  # which of the two?
    a = conn.ask("post-randomisation seizures, % by arm")
    got = {r["randarm_v1"]: r["numerator"] for r in a.value}
    gold = df[df.SEIZPOST_V9 == "Y"].RANDARM_V1.value_counts()
    assert got == {"Hypothermia": gold["HT"], "Normothermia": gold["NT"]}
    # a label that says only 'before' is never what 'after' names
    a = conn.ask("% with passive cooling after randomisation")
    assert a.decision == "abstain" and ("before" in a.reason or "cooling" in a.reason)
    a = conn.ask("% with passive cooling before randomisation")
    assert a.details["numerator"] == int(df.PASSCOOL_V1.sum())


def test_a_yes_no_items_text_code_and_letters_said_excluded(loaded):
    conn, df, _ = loaded
    a = conn.ask("Percentage of ADREN_V0 = 'Y' among rows with GRADE_V1 = 3, UNK excluded.")
    sub = df[(df.GRADE_V1 == 3) & (df.ADREN_V0 != "UNK")]
    assert a.decision == "accept"
    assert (a.details["numerator"], a.details["denominator"]) == (
        int((sub.ADREN_V0 == "Y").sum()),
        len(sub),
    )
    a = conn.ask("Share of SEIZPRE_V1 = TRUE by RANDARM_V1.")
    got = {r["randarm_v1"]: r["numerator"] for r in a.value}
    gold = df.groupby("RANDARM_V1").SEIZPRE_V1.sum()
    assert got == {"Hypothermia": gold["HT"], "Normothermia": gold["NT"]}


def test_a_code_list_no_sheet_defines_is_an_error_naming_sheet_row_and_column(tmp_path):
    path, _ = _book(tmp_path, lists={k: v for k, v in LISTS.items() if k != "GRADE"})
    with pytest.raises(LoadError) as err:
        read_trial(path)
    text = str(err.value)
    assert "GRADE" in text and "Variables" in text and "row 4" in text


def test_differences_said_with_an_aside_or_a_dash(loaded):
    conn, df, _ = loaded
    a = conn.ask(
        "What was the difference in mean first-hour base excess between severe and moderate "
        "encephalopathy (severe minus moderate)?"
    )
    gold = df.BE_V0[df.GRADE_V1 == 3].mean() - df.BE_V0[df.GRADE_V1 == 2].mean()
    assert a.decision == "accept" and abs(a.value - gold) < 1e-6
    a = conn.ask("core temp at 24h, normothermia minus hypothermia - what's the gap?")
    temp = df.TEMP_V4.astype(float).where(df.TEMP_V4.astype(float) != -1)
    gold = temp[df.RANDARM_V1 == "NT"].mean() - temp[df.RANDARM_V1 == "HT"].mean()
    assert a.decision == "accept" and abs(a.value - gold) < 1e-6


def test_a_time_points_gloss_names_no_condition(loaded):
    conn, df, _ = loaded
    temp = df.TEMP_V4.astype(float)
    a = conn.ask("mean core temperature at 24 h (after rewarming)")
    assert a.decision == "accept" and abs(a.value - temp[temp != -1].mean()) < 1e-6
    # a gloss that says a dictionary word, or a negation, is read (here: a condition)
    a = conn.ask("mean core temperature at 24 h (not hypothermia)")
    assert (
        a.decision == "abstain"
        or abs(a.value - temp[(temp != -1) & (df.RANDARM_V1 == "NT")].mean()) < 1e-6
    )


def test_a_code_labelled_no_and_the_variables_words_is_not_named_by_them(loaded):
    conn, df, _ = loaded
    a = conn.ask("Percentage of CP_V10 = 'Y' among rows with DISAB_V10 = 2.")
    sub = df[df.DISAB_V10 == 2]
    assert a.decision == "accept"
    assert (a.details["numerator"], a.details["denominator"]) == (
        int((sub.CP_V10 == "Y").sum()),
        len(sub),
    )
    a = conn.ask("how many children had no disability at 18 months?")
    assert a.decision == "abstain" or a.value == int((df.DISAB_V10 == 0).sum())


def test_a_gestation_in_completed_weeks_and_days_is_one_variable_in_weeks(loaded):
    conn, df, report = loaded
    names = {v.name for v in conn.catalog.variables}
    assert "GAWK_V0" not in names and "GADAY_V0" not in names
    assert any("GAWK_V0" in d and "GADAY_V0" in d for d in report.derived_columns)
    ga = next(v for v in conn.catalog.variables if v.description == "Gestational age at birth")
    assert ga.unit == "weeks"
    known = df[df.GAWK_V0 != "UNK"]
    gold = (known.GAWK_V0.astype(float) + known.GADAY_V0.astype(float) / 7).mean()
    a = conn.ask("mean gestational age at birth")
    assert a.decision == "accept" and abs(a.value - gold) < 1e-6


def test_outborn_is_not_inborn_where_the_dictionary_says_only_inborn(loaded):
    conn, df, _ = loaded
    a = conn.ask("what share of infants were outborn?")
    assert (a.details["numerator"], a.details["denominator"]) == (
        int((df.INBORN_V0 == "N").sum()),
        N,
    )


def test_arm_codes_said_bare_how_often_and_usable_values(loaded):
    conn, df, _ = loaded
    a = conn.ask("seizures after randomisation rate, HT vs NT")
    got = {r["randarm_v1"]: r["numerator"] for r in a.value}
    gold = df[df.SEIZPOST_V9 == "Y"].RANDARM_V1.value_counts()
    assert got == {"Hypothermia": gold["HT"], "Normothermia": gold["NT"]}
    known = df[df.ADREN_V0 != "UNK"]
    a = conn.ask("how often was adrenaline given at resuscitation? %")
    assert (a.details["numerator"], a.details["denominator"]) == (
        int((known.ADREN_V0 == "Y").sum()),
        len(known),
    )
    a = conn.ask("Share of ADREN_V0 = 'Y' among infants with a usable ADREN_V0 value.")
    assert a.details["denominator"] == len(known)
