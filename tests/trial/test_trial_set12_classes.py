"""Classes of convention and of reading that set 12's independent workbook showed, on a small
workbook of that builder's habits written here (not its text): a banner row above the names and
a descriptions row under them; a dictionary whose codes stand one to a row beneath their
variable (``Code | Code label | Missing?``, a ``Y`` flag for a missing code); visits written as
codes (``V2``) timed on a visit-schedule sheet; units in a label's square brackets; audit
columns ``X__qry`` beside the variables; a study column that writes the trials' codes
(``AA/BB``) where the trial variable's labels are their names. The reader's classes: a
condition written by name (``ARM = 2``) is never dropped nor read as a grouping, a grouping
must name its groups, 'of babies who X, % Y' counts Y among X, and 'level III to V' is every
code between. Gold is computed in pandas."""

from __future__ import annotations

import numpy as np
import openpyxl
import pandas as pd
import pytest

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial, read_trial
from clinbridge.adapters.trial._admin_columns import ADMIN_SOURCE

N = 260
HEAD = (
    "Field name",
    "Description",
    "Format",
    "Visit",
    "Study",
    "CRF module",
    "Code",
    "Code label",
    "Missing?",
)
YN = ((1, "Yes", ""), (0, "No", ""), (9, "Unknown", "Y"))
# (name, description, format, visit, study, module, codes)
ITEMS = (
    ("SUBJ", "Subject number", "text", "", "AA/BB", "RAND", ()),
    ("TRIAL", "Study", "coded", "", "AA/BB", "RAND", (("AA", "ALPHA", ""), ("BB", "BRAVO", ""))),
    (
        "CENTRE",
        "Recruiting hospital",
        "coded",
        "",
        "AA/BB",
        "RAND",
        (("A1", "Oslo", ""), ("A2", "Turku", ""), ("B1", "Quito", ""), ("B2", "Lima", "")),
    ),
    (
        "ARM",
        "Allocated treatment",
        "coded",
        "V0",
        "AA/BB",
        "RAND",
        ((1, "Hypothermia", ""), (2, "Normothermia", "")),
    ),
    ("CPR", "Chest compressions at resuscitation", "coded", "BIRTH", "AA/BB", "BIRTH", YN),
    ("ETT", "Intubated at resuscitation", "coded", "BIRTH", "AA/BB", "BIRTH", YN),
    (
        "GLU_0",
        "Blood glucose [mmol/L]",
        "decimal",
        "V0",
        "AA/BB",
        "METAB",
        ((-99, "Not recorded", "Y"),),
    ),
    (
        "GLU_24",
        "Blood glucose [mmol/L]",
        "decimal",
        "V2",
        "AA/BB",
        "METAB",
        ((-99, "Not recorded", "Y"),),
    ),
    (
        "VENT",
        "Duration of ventilation [days]",
        "integer",
        "DSC",
        "AA/BB",
        "OUTCOME",
        ((-99, "Not recorded", "Y"),),
    ),
    (
        "DIED",
        "Died before discharge",
        "coded",
        "DSC",
        "AA/BB",
        "OUTCOME",
        ((1, "Yes", ""), (0, "No", "")),
    ),
    (
        "MOTOR",
        "Motor function level",
        "coded",
        "FU18",
        "AA/BB",
        "FOLLOWUP",
        (
            *((k, lab, "") for k, lab in enumerate(("I", "II", "III", "IV", "V"), start=1)),
            (-88, "Not applicable - died", "Y"),
        ),
    ),
    (
        "NIRS",
        "Cerebral oxygenation [%]",
        "integer",
        "V2",
        "BB",
        "CVS",
        ((-99, "Not recorded", "Y"),),
    ),
    (
        "GRADE",
        "Encephalopathy grade",
        "coded",
        "V0",
        "AA/BB",
        "NEURO",
        ((1, "Mild", ""), (2, "Moderate", ""), (3, "Severe", "")),
    ),
    (
        "PRIMARY",
        "Death or moderate/severe disability",
        "coded",
        "FU18",
        "AA/BB",
        "FOLLOWUP",
        ((1, "Yes", ""), (0, "No", "")),
    ),
    ("PASSIVE", "Passive cooling during transfer", "coded", "V0", "AA/BB", "RAND", YN),
    ("TUBE", "Tube feeding at discharge", "coded", "DSC", "AA/BB", "OUTCOME", YN),
    (
        "HYPERTHERMIA",
        "Core temperature above 38.0 °C in first 72 hours",
        "coded",
        "V3",
        "AA/BB",
        "TEMP",
        YN,
    ),
    (
        "MRI",
        "MRI injury grade",
        "coded",
        "DSC",
        "AA/BB",
        "IMAGING",
        ((0, "Normal", ""), (1, "Abnormal", ""), (-77, "Not done", "Y")),
    ),
)
VISITS = (
    ("Visit code", "Visit name", "Nominal time", "Window"),
    ("BIRTH", "Birth", "birth", ""),
    ("V0", "Randomisation", "hour 0 (at randomisation)", ""),
    ("V2", "24-hour assessment", "hour 24 after randomisation", "+/- 2 h"),
    ("V3", "72-hour assessment", "hour 72 after randomisation", "+/- 3 h"),
    ("DSC", "Discharge", "discharge", ""),
    ("FU18", "18-month follow-up", "18 months corrected age", "16-20 months"),
)


def _data(rng: np.random.Generator) -> dict[str, list]:
    trial = np.where(rng.random(N) < 0.5, "AA", "BB")
    centre = np.where(trial == "AA", rng.choice(["A1", "A2"], N), rng.choice(["B1", "B2"], N))
    died = (rng.random(N) < 0.15).astype(int)
    motor = np.where(died == 1, -88, rng.integers(1, 6, N))
    return {
        "SUBJ": [f"S{i:04d}" for i in range(N)],
        "TRIAL": list(trial),
        "CENTRE": list(centre),
        "ARM": list(rng.integers(1, 3, N)),
        "CPR": list(np.where(rng.random(N) < 0.03, 9, (rng.random(N) < 0.25).astype(int))),
        "ETT": list((rng.random(N) < 0.5).astype(int)),
        "GLU_0": list(np.where(rng.random(N) < 0.05, -99, rng.normal(5, 1.5, N).round(1))),
        "GLU_24": list(np.where(rng.random(N) < 0.05, -99, rng.normal(5, 1, N).round(1))),
        "VENT": list(np.where(rng.random(N) < 0.03, -99, rng.poisson(3, N))),
        "DIED": list(died),
        "MOTOR": list(motor),
        "NIRS": [
            int(x) if t == "BB" else None
            for x, t in zip(rng.integers(50, 90, N), trial, strict=True)
        ],
        "GRADE": list(rng.integers(1, 4, N)),
        "PRIMARY": list((rng.random(N) < 0.4).astype(int)),
        "PASSIVE": list(np.where(rng.random(N) < 0.03, 9, (rng.random(N) < 0.4).astype(int))),
        "TUBE": list(np.where(rng.random(N) < 0.03, 9, (rng.random(N) < 0.2).astype(int))),
        "HYPERTHERMIA": list((rng.random(N) < 0.1).astype(int)),
        "MRI": list(np.where(rng.random(N) < 0.1, -77, (rng.random(N) < 0.4).astype(int))),
    }


def _write(path: str, data: dict[str, list], *, codes: bool = True) -> None:
    wb = openpyxl.Workbook()
    sheet = wb.active
    sheet.title = "export"
    names = [n for n, *_ in ITEMS]
    audit = ["GLU_24__qry", "VENT__qry", "DIED__qry", "ARM__qry"]
    sheet.append(["ALPHA/BRAVO pooled export | locked"])
    sheet.append([*names, *audit])
    sheet.append([d for _, d, *_ in ITEMS] + [""] * len(audit))
    rng = np.random.default_rng(5)
    for i in range(N):
        row = [data[n][i] for n in names]
        row = [v.item() if isinstance(v, np.generic) else v for v in row]
        sheet.append([*row, *(int(x) for x in rng.poisson(0.1, len(audit)))])
    dd = wb.create_sheet("Dictionary_v1")
    dd.append(list(HEAD))
    for name, desc, fmt, visit, study, module, item_codes in ITEMS:
        dd.append([name, desc, fmt, visit, study, module, None, None, None])
        for code, label, miss in item_codes if codes else ():
            dd.append([None] * 6 + [code, label, miss or None])
    vs = wb.create_sheet("Visits")
    for row in VISITS:
        vs.append(list(row))
    wb.save(path)


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pd.DataFrame, str]:
    rng = np.random.default_rng(1212)
    data = _data(rng)
    tmp = tmp_path_factory.mktemp("set12")
    xlsx, bare = str(tmp / "book.xlsx"), str(tmp / "bare.xlsx")
    _write(xlsx, data)
    _write(bare, data, codes=False)
    url, bare_url = f"duckdb:///{tmp / 'book.duckdb'}", f"duckdb:///{tmp / 'bare.duckdb'}"
    assert load_trial(xlsx, url).reconciled
    load_trial(bare, bare_url)
    return url, pd.DataFrame(data), bare_url


def _var(url: str, name: str):  # type: ignore[no-untyped-def]
    with cb.connect(url) as conn:
        return next(v for v in conn.catalog.variables if v.name == name)


def test_codes_one_a_row_beneath_their_variable(book) -> None:
    url, _, _ = book
    arm, cpr, motor = (_var(url, n) for n in ("ARM", "CPR", "MOTOR"))
    assert arm.codes == {"1": "Hypothermia", "2": "Normothermia"}
    assert cpr.codes == {"1": "Yes", "0": "No"} and cpr.missing_labels == {"9": "Unknown"}
    assert motor.codes["3"] == "III" and "-88" in motor.missing_labels
    # the code rows are no workbook-wide missing-code declarations
    glu = _var(url, "GLU_24")
    assert set(glu.missing_labels) == {"-99"}


def test_visit_codes_timed_by_the_schedule_units_and_scopes(book) -> None:
    url, _, _ = book
    assert _var(url, "GLU_24").time_point == "24 h"
    assert _var(url, "GLU_0").time_point == "0 h"
    assert _var(url, "MOTOR").time_point == "18 months"
    assert _var(url, "GLU_24").unit == "mmol/L"
    assert _var(url, "NIRS").trials == ("BRAVO",)  # 'BB' is the trial BRAVO
    assert set(_var(url, "VENT").trials) == {"ALPHA", "BRAVO"}


def test_audit_columns_are_no_variables(tmp_path) -> None:
    path = str(tmp_path / "b.xlsx")
    _write(path, _data(np.random.default_rng(3)))
    table = read_trial(path)
    admin = {e.name for e, _ in table.entries if e.source == ADMIN_SOURCE}
    assert {"GLU_24__qry", "VENT__qry", "DIED__qry", "ARM__qry"} <= admin
    assert any("Visits" in line for line in table.report.visit_times)


def _ask(url: str, q: str):  # type: ignore[no-untyped-def]
    with cb.connect(url) as conn:
        return conn.ask(q)


def _clean(df: pd.DataFrame, col: str, missing: tuple = (-99, -88, 9)) -> pd.Series:
    s = pd.to_numeric(df[col], errors="coerce")
    return s.where(~s.isin(missing))


def test_written_conditions_are_kept(book) -> None:
    url, df, _ = book
    a = _ask(url, "Mean of GLU_24 where ARM = 2.")
    assert a.decision == "accept"
    assert a.value == pytest.approx(_clean(df, "GLU_24")[df["ARM"] == 2].mean())
    a = _ask(url, "How many rows have VENT >= 5 and DIED = 0?")
    assert a.decision == "accept"
    assert a.value == int(((_clean(df, "VENT") >= 5) & (df["DIED"] == 0)).sum())


def test_groups_named_by_the_trials_labels(book) -> None:
    url, df, _ = book
    a = _ask(url, "What was the mean blood glucose at 24 hours in each study?")
    assert a.decision == "accept"
    got = {r["trial"]: r["value"] for r in a.value}
    assert set(got) == {"ALPHA", "BRAVO"}
    assert got["ALPHA"] == pytest.approx(_clean(df, "GLU_24")[df["TRIAL"] == "AA"].mean())


def test_undeclared_codes_never_answer_a_grouping_for_a_condition(book) -> None:
    _, _, bare = book
    for q in (
        "Mean of GLU_24 where ARM = 2.",
        "How many rows have VENT >= 5 and DIED = 0?",
        "Median VENT where DIED = 1, by ARM.",
        "mean VENT by arm",  # groups 1 and 2, which the dictionary names not
    ):
        a = _ask(bare, q)
        assert a.decision != "accept", (q, a.value)


def test_leading_of_clause_is_the_cohort(book) -> None:
    url, df, _ = book
    a = _ask(url, "of babies who needed chest compressions, % intubated at resus?")
    assert a.decision == "accept"
    cohort = _clean(df, "CPR") == 1
    assert a.details["denominator"] == int(cohort.sum())
    assert a.details["numerator"] == int((cohort & (df["ETT"] == 1)).sum())


def test_a_range_of_code_labels_is_every_code_between(book) -> None:
    url, df, _ = book
    a = _ask(url, "What proportion of children were at motor function level III to V?")
    assert a.decision == "accept"
    known = _clean(df, "MOTOR")
    assert a.details["denominator"] == int(known.notna().sum())
    assert a.details["numerator"] == int(known.isin([3, 4, 5]).sum())


def test_list_of_groups_kept_by_their_count(book) -> None:
    url, df, _ = book
    a = _ask(url, "List the CENTRE values with at least 30 rows where ARM = 1.")
    assert a.decision == "accept", a.reason
    counts = df[df["ARM"] == 1].groupby("CENTRE").size()
    names = {"A1": "Oslo", "A2": "Turku", "B1": "Quito", "B2": "Lima"}
    assert sorted(a.value) == sorted(names[c] for c, n in counts.items() if n >= 30)


def test_a_fall_said_with_its_order(book) -> None:
    url, df, _ = book
    q = "how much did blood glucose fall from randomisation to 24 hours, on average (24h minus 0h)?"
    a = _ask(url, q)
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx((_clean(df, "GLU_24") - _clean(df, "GLU_0")).mean())


def test_difference_sides_share_their_noun(book) -> None:
    url, df, _ = book
    q = (
        "How much higher was the mean blood glucose at 24 hours in severe than in moderate "
        "encephalopathy (severe minus moderate)?"
    )
    a = _ask(url, q)
    assert a.decision == "accept", a.reason
    glu = _clean(df, "GLU_24")
    assert a.value == pytest.approx(glu[df["GRADE"] == 3].mean() - glu[df["GRADE"] == 2].mean())
    a = _ask(url, "mean blood glucose at 24 hours, hypothermia minus normothermia difference?")
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx(glu[df["ARM"] == 1].mean() - glu[df["ARM"] == 2].mean())


def test_participles_beside_their_words_and_known_status(book) -> None:
    url, df, _ = book
    a = _ask(url, "mean blood glucose at 24 hours in babies passively cooled during transfer")
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx(_clean(df, "GLU_24")[df["PASSIVE"] == 1].mean())
    a = _ask(url, "What proportion of infants with a known status were tube fed at discharge?")
    assert a.decision == "accept", a.reason
    tube = _clean(df, "TUBE")
    assert (a.details["numerator"], a.details["denominator"]) == (
        int((tube == 1).sum()),
        int(tube.notna().sum()),
    )


def test_codes_listed_with_commas_are_one_condition(book) -> None:
    url, df, _ = book
    a = _ask(url, "What proportion of children were at motor function level III, IV or V?")
    assert a.decision == "accept", a.reason
    known = _clean(df, "MOTOR")
    assert a.details["numerator"] == int(known.isin([3, 4, 5]).sum())


def test_threshold_the_label_states_and_scanned(book) -> None:
    url, df, _ = book
    a = _ask(url, "% hyperthermia (>38) in first 72h in the normothermia group")
    assert a.decision == "accept", a.reason
    normo = df["ARM"] == 2
    assert a.details["numerator"] == int((normo & (df["HYPERTHERMIA"] == 1)).sum())
    assert (
        _ask(url, "% hyperthermia (>39) in first 72h in the normothermia group").decision
        != "accept"
    )
    a = _ask(
        url, "How were MRI injury grades distributed among hypothermia infants who were scanned?"
    )
    assert a.decision == "accept", a.reason
    mri = _clean(df, "MRI", (-77,))[df["ARM"] == 1]
    assert {r["denominator"] for r in a.value} == {int(mri.notna().sum())}
    assert _ask(url, "mean VENT among infants who were scanned").decision != "accept"
