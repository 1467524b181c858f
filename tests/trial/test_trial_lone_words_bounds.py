"""Question classes that sets 11-13 left abstaining once their workbooks loaded, on a small
workbook written here (issue 10): 'survivors' where the dictionary holds several deaths (the
one recorded when the other variables are: the death before discharge beside the length of
stay, the death before 18 months beside an 18-month assessment), a negator that governs the
next mention only ('surviving NORTH infants' is not 'not NORTH'), and a bound said as a move
('dropped below 32 degrees during cooling') that names the yes/no item whose label states it
— never when a numeric variable it could bound is named too. Gold is computed in pandas."""

from __future__ import annotations

import numpy as np
import openpyxl
import pandas as pd
import pytest

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial

N = 300
YN = "0=No; 1=Yes"
MISS = "-99=Not done; -88=Not applicable"
# (variable, label, type, units, codes, missing codes, time point)
ITEMS = (
    ("PID", "Participant", "string", "", "", "", ""),
    ("TRIAL", "Trial", "categorical", "", "1=NORTH; 2=SOUTH", "", ""),
    ("ARM", "Randomised arm", "categorical", "", "1=Hypothermia; 2=Normothermia", "", ""),
    ("TC_24H", "Core temperature", "float", "°C", "", MISS, "24 h"),
    ("TC_72H", "Core temperature", "float", "°C", "", MISS, "72 h"),
    (
        "OVERCOOL",
        "Any core temperature below 32.0 °C during cooling",
        "categorical",
        "",
        YN,
        "-88=Not applicable",
        "72 h",
    ),
    (
        "FEVER",
        "Any core temperature above 38.0 °C in the first 96 hours",
        "categorical",
        "",
        YN,
        "",
        "",
    ),
    ("PASSIVE", "Passive cooling before randomisation", "categorical", "", YN, "", "0 h"),
    ("DIED", "Death before discharge", "categorical", "", YN, "", ""),
    (
        "COD",
        "Cause of death",
        "categorical",
        "",
        "1=Multi-organ failure; 2=Other",
        "-88=Not applicable",
        "",
    ),
    ("LOS", "Length of stay", "integer", "days", "", MISS, ""),
    (
        "DEAD18",
        "Died before 18 months (including in hospital)",
        "categorical",
        "",
        YN,
        "",
        "18 months",
    ),
    (
        "PRIMARY",
        "Primary outcome: death or moderate/severe disability at 18 months",
        "categorical",
        "",
        YN,
        "",
        "18 months",
    ),
    ("COG18", "Bayley-III cognitive composite score", "integer", "", "", MISS, "18 months"),
    (
        "DISAB18",
        "Disability grade at 18 months",
        "categorical",
        "",
        "0=None; 1=Mild; 2=Moderate; 3=Severe",
        "-88=Not applicable",
        "18 months",
    ),
    ("HIE", "HIE grade at entry", "categorical", "", "1=Mild; 2=Moderate; 3=Severe", "", "0 h"),
    ("BE", "Base excess, first hour", "integer", "mmol/L", "", MISS, ""),
    ("GA", "Gestational age at birth", "float", "weeks", "", MISS, ""),
    (
        "MOTOR",
        "Motor impairment at 18 months",
        "categorical",
        "",
        "0=None; 1=Mild; 2=Severe",
        "",
        "18 months",
    ),
    ("SZ_PRE", "Seizures before randomisation", "categorical", "", YN, "", "0 h"),
    ("SZ_POST", "Clinical seizures after randomisation", "categorical", "", YN, "", ""),
    ("ADREN", "Adrenaline during resuscitation", "categorical", "", YN, "", ""),
    ("INTUB", "Intubated during resuscitation", "categorical", "", YN, "", ""),
    ("MRS", "Thalamic lactate/NAA ratio (MR spectroscopy)", "float", "", "", MISS, ""),
    ("LACT", "Lactate, first hour", "float", "mmol/L", "", MISS, ""),
    (
        "HEAR_SCR",
        "Newborn hearing screen passed",
        "categorical",
        "",
        YN,
        "888=Not applicable (died before discharge); 9=Unknown",
        "",
    ),
)


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(2813)
    arm = rng.choice([1, 2], N)
    died = (rng.random(N) < 0.15).astype(int)
    dead18 = np.where(died == 1, 1, (rng.random(N) < 0.05).astype(int))
    tc24 = np.round(np.where(arm == 1, rng.normal(33.4, 0.6, N), rng.normal(37.0, 0.5, N)), 1)
    overcool = np.where(arm == 1, (rng.random(N) < 0.2).astype(int), -88)
    df = pd.DataFrame(
        {
            "PID": [f"P{i:04d}" for i in range(N)],
            "TRIAL": rng.choice([1, 2], N),
            "ARM": arm,
            "TC_24H": tc24,
            "TC_72H": np.round(rng.normal(36.5, 0.6, N), 1),
            "OVERCOOL": overcool,
            "FEVER": (rng.random(N) < 0.1).astype(int),
            "PASSIVE": (rng.random(N) < 0.3).astype(int),
            "DIED": died,
            "COD": np.where(died == 1, rng.choice([1, 2], N), -88),
            "LOS": np.where(rng.random(N) < 0.05, -99, rng.integers(3, 40, N)),
            "DEAD18": dead18,
            "PRIMARY": np.where(dead18 == 1, 1, (rng.random(N) < 0.2).astype(int)),
            "COG18": np.where(dead18 == 1, -88, rng.integers(60, 130, N)),
            "DISAB18": np.where(dead18 == 1, -88, rng.choice([0, 1, 2, 3], N)),
            "HIE": rng.choice([1, 2, 3], N),
            "BE": np.where(rng.random(N) < 0.05, -99, rng.integers(-25, 0, N)),
            "GA": np.where(rng.random(N) < 0.05, -99, np.round(rng.normal(39, 1.6, N), 1)),
            "MOTOR": rng.choice([0, 1, 2], N),
            "SZ_PRE": (rng.random(N) < 0.3).astype(int),
            "SZ_POST": (rng.random(N) < 0.4).astype(int),
            "ADREN": (rng.random(N) < 0.2).astype(int),
            "INTUB": (rng.random(N) < 0.5).astype(int),
            "MRS": np.where(rng.random(N) < 0.1, -99, np.round(rng.gamma(2.0, 0.2, N), 2)),
            "LACT": np.round(rng.gamma(3.0, 3.0, N), 1),
            "HEAR_SCR": np.where(died == 1, 888, rng.choice([0, 1, 1, 1, 9], N)),
        }
    )
    path = tmp_path_factory.mktemp("lone") / "lone.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(list(df.columns))
    for row in df.itertuples(index=False):
        ws.append([v.item() if hasattr(v, "item") else v for v in row])
    dd = wb.create_sheet("Data dictionary")
    dd.append(["Variable", "Label", "Type", "Units", "Codes", "Missing codes", "Time point"])
    for item in ITEMS:
        dd.append([x or None for x in item])
    wb.save(path)
    url = f"duckdb:///{path.with_suffix('.duckdb')}"
    load_trial(path, url)
    conn = cb.connect(url)
    yield conn, df
    conn.close()


def test_survivors_beside_a_stay_item_are_those_alive_at_discharge(book) -> None:  # type: ignore[no-untyped-def]
    conn, df = book
    a = conn.ask("Among survivors, what was the median length of stay in each arm?")
    assert a.decision == "accept", a.reason
    alive = df[(df["DIED"] == 0) & (df["LOS"] != -99)]
    want = {
        1: alive[alive["ARM"] == 1]["LOS"].median(),
        2: alive[alive["ARM"] == 2]["LOS"].median(),
    }
    got = {r["arm"]: r["value"] for r in a.value}
    assert got == {"Hypothermia": want[1], "Normothermia": want[2]}
    assert a.plan["filters"][0]["variable"] == "DIED"


def test_survivors_beside_an_18_month_item_are_those_alive_at_18_months(book) -> None:  # type: ignore[no-untyped-def]
    conn, df = book
    a = conn.ask("mean Bayley cognitive composite score at 18 months among surviving NORTH infants")
    assert a.decision == "accept", a.reason
    keep = df[(df["DEAD18"] == 0) & (df["TRIAL"] == 1) & (df["COG18"] >= 0)]
    assert a.value == pytest.approx(keep["COG18"].mean())
    kept = {(f["variable"], f["negate"]) for f in a.plan["filters"]}
    assert kept == {("DEAD18", True), ("TRIAL", False)}  # NORTH itself is not negated


def test_survivors_with_nothing_timed_beside_them_abstain(book) -> None:  # type: ignore[no-untyped-def]
    conn, _ = book
    for q in ("how many survivors were there?", "how many infants died?"):
        assert conn.ask(q).decision == "abstain", q


@pytest.mark.parametrize(
    "question",
    [
        "what % of the hypothermia babies dropped below 32 degrees during cooling?",
        "cooled babies - what % ever dipped under 32 during cooling?",
    ],
)
def test_a_bound_said_as_a_move_names_the_item_whose_label_states_it(book, question) -> None:  # type: ignore[no-untyped-def]
    conn, df = book
    a = conn.ask(question)
    assert a.decision == "accept", a.reason
    cooled = df[(df["ARM"] == 1) & (df["OVERCOOL"] >= 0)]
    assert (a.details["numerator"], a.details["denominator"]) == (
        int((cooled["OVERCOOL"] == 1).sum()),
        len(cooled),
    )


def test_a_bound_beside_a_numeric_variable_stays_its_condition_or_abstains(book) -> None:  # type: ignore[no-untyped-def]
    conn, df = book
    a = conn.ask("how many babies had a core temperature below 32 at 24h?")
    assert a.decision == "accept", a.reason
    assert a.value == int(((df["TC_24H"] < 32) & (df["TC_24H"] > -1)).sum())
    b = conn.ask("how many babies had a core temperature below 32 during cooling?")
    assert b.decision == "abstain"
    c = conn.ask("what % of cooled babies dropped below 31 during cooling?")  # no label says 31
    assert c.decision == "abstain"


def test_a_composite_said_whole_after_its_known_clause(book) -> None:  # type: ignore[no-untyped-def]
    conn, df = book
    a = conn.ask(
        "For each HIE grade at entry, what percentage of infants with a known primary outcome "
        "died or had moderate or severe disability at 18 months?"
    )
    assert a.decision == "accept", a.reason
    got = {r["hie"]: (r["numerator"], r["denominator"]) for r in a.value}
    labels = {1: "Mild", 2: "Moderate", 3: "Severe"}
    want = {
        labels[g]: (int((part["PRIMARY"] == 1).sum()), len(part)) for g, part in df.groupby("HIE")
    }
    assert got == want
    b = conn.ask("percentage of infants died or had moderate or severe disability at 18 months")
    assert b.decision == "accept", b.reason
    assert b.plan["aggregate"]["numerator"][0]["variable"] == "PRIMARY"


def test_a_known_variable_the_bound_applies_to(book) -> None:  # type: ignore[no-untyped-def]
    conn, df = book
    a = conn.ask(
        "How many infants with a known gestational age were born before 37 completed weeks?"
    )
    assert a.decision == "accept", a.reason
    assert a.value == int(((df["GA"] < 37) & (df["GA"] > 0)).sum())
    # a known variable that is not the one bounded is still a condition of its own
    b = conn.ask("How many infants with a known gestational age had a base excess below -20?")
    assert b.decision == "abstain"


@pytest.mark.parametrize(
    ("question", "first", "second", "col", "by"),
    [
        (
            "What was the difference in mean first-hour base excess between severe and moderate "
            "HIE (severe minus moderate)?",
            3,
            2,
            "BE",
            "HIE",
        ),
        (
            "core temp at 24h, normothermia minus hypothermia - what's the gap?",
            2,
            1,
            "TC_24H",
            "ARM",
        ),
    ],
)
def test_a_difference_with_its_sides_after_between_or_before_a_dash(  # type: ignore[no-untyped-def]
    book, question, first, second, col, by
) -> None:
    conn, df = book
    a = conn.ask(question)
    assert a.decision == "accept", a.reason
    v = df[col].where(df[col] > -50)
    want = v[df[by] == first].mean() - v[df[by] == second].mean()
    assert a.value == pytest.approx(want)


def test_clipped_words_read_by_their_context(book) -> None:  # type: ignore[no-untyped-def]
    conn, df = book
    a = conn.ask("of the babies who got adrenaline at resus, what % were intubated?")
    assert a.decision == "accept", a.reason
    given = df[df["ADREN"] == 1]
    assert (a.details["numerator"], a.details["denominator"]) == (
        int((given["INTUB"] == 1).sum()),
        len(given),
    )
    b = conn.ask("mean MRS lac/NAA ratio")  # 'lac' beside 'NAA', as the label says it
    assert b.decision == "accept", b.reason
    assert b.value == pytest.approx(df["MRS"].where(df["MRS"] >= 0).mean())
    assert conn.ask("mean lac in cooled babies").decision == "abstain"  # no context: unread


def test_usable_values_with_their_missing_codes_excluded(book) -> None:  # type: ignore[no-untyped-def]
    conn, df = book
    a = conn.ask(
        "Share of HEAR_SCR = 1 among infants with a usable HEAR_SCR value (unknown and not applicable "
        "excluded)."
    )
    assert a.decision == "accept", a.reason
    known = df[df["HEAR_SCR"].isin([0, 1])]
    assert (a.details["numerator"], a.details["denominator"]) == (
        int((known["HEAR_SCR"] == 1).sum()),
        len(known),
    )


def test_a_grouping_named_with_a_class_noun(book) -> None:  # type: ignore[no-untyped-def]
    conn, df = book
    a = conn.ask(
        "mean Bayley cognitive composite score at 18 months for each motor impairment grade"
    )
    assert a.decision == "accept", a.reason
    assert [g["variable"] for g in a.plan["group_by"]] == ["MOTOR"]  # not the HIE grade
    cog = df["COG18"].where(df["COG18"] >= 0)
    want = {"None": cog[df["MOTOR"] == 0].mean(), "Severe": cog[df["MOTOR"] == 2].mean()}
    got = {r["motor"]: r["value"] for r in a.value}
    assert got["None"] == pytest.approx(want["None"])
    assert got["Severe"] == pytest.approx(want["Severe"])


@pytest.mark.parametrize(
    ("question", "col"),
    [
        ("seizures after randomisation, % in each arm?", "SZ_POST"),
        ("post-randomisation seizures, % in each arm?", "SZ_POST"),
        ("% with seizures before randomisation by arm", "SZ_PRE"),
    ],
)
def test_before_and_after_name_different_items(book, question, col) -> None:  # type: ignore[no-untyped-def]
    conn, df = book
    a = conn.ask(question)
    assert a.decision == "accept", a.reason
    assert a.plan["aggregate"]["numerator"][0]["variable"] == col
    row = next(r for r in a.value if r["arm"] == "Hypothermia")
    assert row["numerator"] == int(((df["ARM"] == 1) & (df[col] == 1)).sum())


def test_a_hedge_is_no_content(book) -> None:  # type: ignore[no-untyped-def]
    conn, df = book
    a = conn.ask("how many infants died before discharge? NORTH only i think")
    assert a.decision == "accept", a.reason
    assert a.value == int(((df["DIED"] == 1) & (df["TRIAL"] == 1)).sum())
