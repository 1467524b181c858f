"""Classes of question that set 10's independent workbook found unread or misread, on a small
workbook of that builder's habits written here (not its text): a title line and a blank line
above the dictionary's headings, one ``code: label`` per line in the options cell, missing codes
per item written label first (``not recorded: 999``), a trial whose name begins a centre's name,
an as-treated yes/no item beside the randomised arm, two deaths recorded at two moments. Gold is
computed in pandas."""

from __future__ import annotations

import numpy as np
import openpyxl
import pandas as pd
import pytest

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial

N = 260
CENTRES = {11: "Polar Bay", 12: "Leeds", 21: "Lima", 22: "Quito"}
HEAD = (
    "Item code",
    "Item description",
    "Data type",
    "Unit",
    "Response options",
    "Missing value codes",
    "Assessment",
    "Collected in",
)
BOTH = "POLAR, TROPIC"
YN = "0: No\n1: Yes"
# (column, label, type, unit, options, missing, assessment, trials)
ITEMS = (
    ("pid", "Participant number", "text", "", "", "", "", BOTH),
    ("trial", "Study", "categorical", "", "1: POLAR\n2: TROPIC", "", "", BOTH),
    (
        "centre",
        "Centre",
        "categorical",
        "",
        "\n".join(f"{k}: {v}" for k, v in CENTRES.items()),
        "",
        "",
        BOTH,
    ),
    ("alloc", "Allocated arm", "categorical", "", "1: Cooling\n2: Usual care", "", "Entry", BOTH),
    ("cool_rx", "Received therapeutic cooling (as treated)", "yes/no", "", YN, "", "Entry", BOTH),
    (
        "grade",
        "Encephalopathy grade at entry",
        "categorical",
        "",
        "1: Mild\n2: Moderate\n3: Severe",
        "",
        "Entry",
        BOTH,
    ),
    (
        "wt_b",
        "Weight at birth",
        "integer",
        "g",
        "",
        "not recorded: 999; not known: NK",
        "Birth",
        BOTH,
    ),
    ("tc_0", "Core temperature", "decimal", "°C", "", "not recorded: 999", "T+0h (entry)", BOTH),
    ("tc_24", "Core temperature", "decimal", "°C", "", "not recorded: 999", "T+24h", BOTH),
    ("tc_24_at", "Core temperature reading, clock time", "text", "hh:mm", "", "", "T+24h", BOTH),
    ("hear_b", "Bilateral hearing loss", "yes/no", "", YN, "", "24 months", BOTH),
    ("na_1", "Sodium", "integer", "mmol/L", "", "", "Day 1", BOTH),
    ("na_3", "Sodium", "integer", "mmol/L", "", "", "D3", BOTH),
    ("fits", "Fits in the first three days", "yes/no", "", YN, "unknown: 9", "T+72h", BOTH),
    ("dead_dc", "Death before discharge", "yes/no", "", YN, "", "Discharge", BOTH),
    (
        "dead_24",
        "Death before the 24-month visit",
        "yes/no",
        "",
        YN,
        "unknown: 9",
        "24 months",
        BOTH,
    ),
    (
        "walk_24",
        "Walking unaided",
        "yes/no",
        "",
        YN,
        "unknown: 9; not applicable: 8",
        "24 months",
        BOTH,
    ),
)


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pd.DataFrame]:
    rng = np.random.default_rng(1010)
    trial = rng.integers(1, 3, N)
    centre = np.where(trial == 1, rng.choice([11, 12], N), rng.choice([21, 22], N))
    alloc = rng.integers(1, 3, N)
    dead_dc = (rng.random(N) < 0.15).astype(int)
    dead_24 = np.where(dead_dc == 1, 1, (rng.random(N) < 0.05).astype(int))
    dead_24 = np.where((dead_24 == 0) & (rng.random(N) < 0.07), 9, dead_24)
    walk = np.where(dead_24 == 1, 8, np.where(dead_24 == 9, 9, (rng.random(N) < 0.8).astype(int)))
    wt = rng.normal(3300, 450, N).round().astype(int)
    wt[rng.random(N) < 0.05] = 999
    wt = wt.astype(object)
    wt[rng.random(N) < 0.03] = "NK"
    tc0 = rng.normal(35.5, 0.8, N).round(1)
    tc24 = np.where(alloc == 1, rng.normal(33.5, 0.3, N), rng.normal(37.0, 0.4, N)).round(1)
    tc24[rng.random(N) < 0.05] = 999
    fits = (rng.random(N) < 0.3).astype(int)
    fits[rng.random(N) < 0.04] = 9
    df = pd.DataFrame(
        {
            "pid": [f"P{i:04d}" for i in range(N)],
            "trial": trial,
            "centre": centre,
            "alloc": alloc,
            "cool_rx": np.where(alloc == 1, rng.random(N) < 0.95, rng.random(N) < 0.05).astype(int),
            "grade": rng.integers(1, 4, N),
            "wt_b": wt,
            "tc_0": tc0,
            "tc_24": tc24,
            "tc_24_at": [f"{h:02d}:15" for h in rng.integers(0, 24, N)],
            "fits": fits,
            "na_1": rng.integers(128, 146, N),
            "na_3": rng.integers(128, 146, N),
            "hear_b": (rng.random(N) < 0.1).astype(int),
            "dead_dc": dead_dc,
            "dead_24": dead_24,
            "walk_24": walk,
        }
    )
    path = tmp_path_factory.mktemp("set10") / "book.xlsx"
    wb = openpyxl.Workbook()
    wb.active.title = "Front"
    wb["Front"].append(["POLAR / TROPIC pooled export"])
    data = wb.create_sheet("records")
    data.append(list(df.columns))
    for row in df.itertuples(index=False):
        data.append([v.item() if hasattr(v, "item") else v for v in row])
    meta = wb.create_sheet("Item list")
    meta.append(["POLAR / TROPIC item list, version 1"])
    meta.append([])
    meta.append(list(HEAD))
    for item in ITEMS:
        meta.append(list(item))
    wb.save(path)
    url = f"duckdb:///{path.with_suffix('.duckdb')}"
    load_trial(path, url)
    return url, df


def _ask(url: str, question: str) -> cb.Answer:  # type: ignore[name-defined]
    with cb.connect(url) as conn:
        return conn.ask(question)


def _known(s: pd.Series, *codes: int) -> pd.Series:
    return s[~s.isin(codes)]


def test_a_code_restated_in_brackets_is_one_condition(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    # said twice, it must still restrict the cohort (it was counted once and dropped as cohort)
    for question, cohort in (
        ("Fraction with dead_dc = 1 among records where grade = 3 (Severe).", df.grade == 3),
        ("Fraction with dead_dc = 1 among records where trial = 1 (POLAR).", df.trial == 1),
    ):
        a = _ask(url, question)
        assert a.decision == "accept", a.reason
        assert (a.details["numerator"], a.details["denominator"]) == (
            int(df[cohort].dead_dc.sum()),
            int(cohort.sum()),
        )
    # the brackets naming another value of it are a contradiction
    assert _ask(
        url, "Fraction with dead_dc = 1 among records where trial = 1 (TROPIC)."
    ).decision == ("abstain")


def test_a_label_said_whole_beats_one_said_in_part(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    # 'POLAR' is the whole label of a trial, a part of the centre 'Polar Bay'
    a = _ask(url, "how many deaths before discharge in POLAR?")
    assert a.decision == "accept", a.reason
    assert a.value == int(df[df.trial == 1].dead_dc.sum())
    a = _ask(url, "how many deaths before discharge at Polar Bay?")
    assert a.decision == "accept", a.reason
    assert a.value == int(df[df.centre == 11].dead_dc.sum())
    # 'cooling' says the arm's label whole, 'Received therapeutic cooling' only in part
    a = _ask(url, "percentage of infants allocated to cooling who died before discharge")
    assert a.decision == "accept", a.reason
    arm = df[df.alloc == 1]
    assert (a.details["numerator"], a.details["denominator"]) == (int(arm.dead_dc.sum()), len(arm))
    a = _ask(url, "what percentage of the cooling arm received cooling (as treated)?")
    assert a.decision == "accept", a.reason
    assert a.details["numerator"] == int(arm.cool_rx.sum())


def _num(s: pd.Series, *missing: float) -> pd.Series:
    v = pd.to_numeric(s, errors="coerce")
    return v.where(~v.isin(missing))


def test_missing_codes_written_meaning_first(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    # 'not recorded: 999; not known: NK': both codes missing, the text one too
    a = _ask(url, "mean weight at birth")
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx(_num(df.wt_b, 999).mean())
    a = _ask(url, "mean(wt_b), 999 and NK excluded")
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx(_num(df.wt_b, 999).mean())


def test_entry_is_the_baseline_assessment(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    a = _ask(url, "mean change in core temperature from entry to 24 hours in the cooling arm")
    assert a.decision == "accept", a.reason
    arm = df.alloc == 1
    want = (_num(df.tc_24, 999) - df.tc_0)[arm].mean()
    assert a.value == pytest.approx(want)


def test_declared_missing_codes_said_excluded(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    fits = _num(df.fits, 9).dropna()
    for question in (
        "share of fits = 1 (code 9 excluded)",
        "share of fits = 1, excluding code 9",
        "share of fits = 1 (9 left out)",
    ):
        a = _ask(url, question)
        assert a.decision == "accept", (question, a.reason)
        assert (a.details["numerator"], a.details["denominator"]) == (int(fits.sum()), len(fits))
    # an ordinary value said to be left out is a condition no figure here states: abstain
    assert _ask(url, "share of fits = 1 by grade (code 3 excluded)").decision == "abstain"
    assert _ask(url, "mean(wt_b), 3000 excluded").decision == "abstain"


def test_known_clauses_in_other_words(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    walk = _num(df.walk_24, 8, 9)
    for question in (
        "Proportion of walk_24 = 1 among records where walk_24 is recorded, alloc = 2.",
        "what proportion of usual care infants (walking unaided known) were walking unaided?",
        "% walking unaided in the usual care arm (known status only)",
    ):
        a = _ask(url, question)
        assert a.decision == "accept", (question, a.reason)
        known = walk[df.alloc == 2].dropna()
        assert (a.details["numerator"], a.details["denominator"]) == (
            int(known.sum()),
            len(known),
        ), question
    # another variable's being known is a restriction of its own: abstain
    assert _ask(url, "mean weight at birth (walking unaided known)").decision == "abstain"


def test_survivors_by_the_time_point_asked(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    # two deaths (before discharge, before the 24-month visit): the time asked says which
    a = _ask(url, "among survivors assessed at 24 months, what proportion were walking unaided?")
    assert a.decision == "accept", a.reason
    alive = df[df.dead_24 == 0]
    walk = _num(alive.walk_24, 8, 9).dropna()
    assert (a.details["numerator"], a.details["denominator"]) == (int(walk.sum()), len(walk))
    a = _ask(url, "percentage of survivors to discharge who had fits")
    assert a.decision == "accept", a.reason
    fits = _num(df[df.dead_dc == 0].fits, 9).dropna()
    assert (a.details["numerator"], a.details["denominator"]) == (int(fits.sum()), len(fits))
    # no time point: which death?
    assert _ask(url, "percentage of survivors who had fits").decision == "abstain"


def test_a_unit_in_brackets(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    for question in ("median weight at birth (grams)", "median weight at birth (in g)"):
        a = _ask(url, question)
        assert a.decision == "accept", (question, a.reason)
        assert a.value == pytest.approx(_num(df.wt_b, 999).median())
    # another unit than the stored one: no silent answer in the wrong unit
    assert _ask(url, "median weight at birth (kg)").decision == "abstain"
    assert _ask(url, "median weight at birth (mins)").decision == "abstain"
    a = _ask(url, "mean core temperature at 24 hours (°C)")
    assert a.decision == "accept", a.reason


def test_grouped_by_a_yes_no_item(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    a = _ask(url, "median wt_b by dead_dc")
    assert a.decision == "accept", a.reason
    w = _num(df.wt_b, 999)
    got = {r["dead_dc"]: r["value"] for r in a.value}
    assert got == pytest.approx(
        {"No": w[df.dead_dc == 0].median(), "Yes": w[df.dead_dc == 1].median()}
    )
    a = _ask(url, "median weight at birth by fits")
    assert a.decision == "accept", a.reason
    assert {r["fits"]: r["value"] for r in a.value} == pytest.approx(
        {"No": w[df.fits == 0].median(), "Yes": w[df.fits == 1].median()}
    )
    # two deaths named whole by 'death': which one groups? (asked back)
    assert _ask(url, "median weight at birth by death").decision == "abstain"
    # 'between' two codes groups by their variable, never by a yes/no item sharing a word
    a = _ask(url, "compare mean weight at birth between the cooling and usual care groups")
    assert a.decision == "accept", a.reason
    assert {r["alloc"] for r in a.value} == {"Cooling", "Usual care"}


def test_a_difference_with_its_order_said_by_a_minus(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    w = _num(df.wt_b, 999)
    cool, usual = w[df.alloc == 1].mean(), w[df.alloc == 2].mean()
    for question, want in (
        # the grouping 'between the arms' is the two sides the minus names
        (
            "What was the difference in mean weight at birth between the arms (cooling minus usual care)?",
            cool - usual,
        ),
        # a comparative of any adjective, the order said by the minus
        (
            "how much heavier were the cooling infants? weight at birth, cooling minus usual care",
            cool - usual,
        ),
        # a side hyphenated where it is said first
        (
            "how much higher was the mean weight at birth in the usual-care arm than in the "
            "cooling arm (usual care minus cooling)?",
            usual - cool,
        ),
    ):
        a = _ask(url, question)
        assert a.decision == "accept", (question, a.reason)
        assert a.value == pytest.approx(want), question
    # a grouping by another variable than the sides: not read as the difference
    assert (
        _ask(
            url, "difference in mean weight at birth between the trials (cooling minus usual care)"
        ).decision
        == "abstain"
    )


def test_a_plural_is_no_spelling_slip(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    a = _ask(
        url,
        "mean change in core temperature from entry to 24 hours among infants with both readings",
    )
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx((_num(df.tc_24, 999) - df.tc_0).mean())


def test_an_arm_said_as_a_yes_no_item_whole_abstains(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # 'Cooling (as treated)' beside the arm 'Cooling': 'in cooling' names both whole
    rng = np.random.default_rng(5)
    df = pd.DataFrame(
        {
            "id": [f"X{i}" for i in range(60)],
            "arm": rng.integers(1, 3, 60),
            "rx": rng.integers(0, 2, 60),
            "died": rng.integers(0, 2, 60),
        }
    )
    meta = pd.DataFrame(
        [
            ("id", "Infant id", ""),
            ("arm", "Randomised arm", "1=Cooling; 2=Usual care"),
            ("rx", "Cooling (as treated)", "0=No; 1=Yes"),
            ("died", "Death before discharge", "0=No; 1=Yes"),
        ],
        columns=["Variable", "Label", "Codes"],
    )
    path = tmp_path / "twins.xlsx"
    with pd.ExcelWriter(path) as xl:
        df.to_excel(xl, sheet_name="Data", index=False)
        meta.to_excel(xl, sheet_name="Dictionary", index=False)
    url = f"duckdb:///{tmp_path / 'twins.duckdb'}"
    load_trial(path, url)
    assert _ask(url, "number of deaths before discharge in cooling").decision == "abstain"
    a = _ask(url, "number of deaths before discharge in the cooling arm")
    assert a.decision == "accept", a.reason
    assert a.value == int(df[df.arm == 1].died.sum())


def test_distributions_in_other_words(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    polar = df[df.trial == 1]
    want = {
        {1: "Mild", 2: "Moderate", 3: "Severe"}[int(k)]: (int(n), len(polar))
        for k, n in polar.grade.value_counts().items()
    }
    for question in (
        "In POLAR, how were the infants spread across the encephalopathy grades?",
        "grade: count and share of each code, trial = 1",
    ):
        a = _ask(url, question)
        assert a.decision == "accept", (question, a.reason)
        assert {r["grade"]: (r["numerator"], r["denominator"]) for r in a.value} == want


def test_shorthand_beside_another_code_of_its_variable(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    # 'mod or severe': 'moderate' and 'severe' are two codes of one variable (no label pairs
    # them); a dash before what is asked parts the cohort from it, subtracting nothing
    usual = df[(df.trial == 1) & (df.alloc == 2)]
    for question in (
        "POLAR usual care - % mod or severe encephalopathy grade",
        "% mod or severe encephalopathy grade in the usual care arm of POLAR",
    ):
        a = _ask(url, question)
        assert a.decision == "accept", (question, a.reason)
        assert (a.details["numerator"], a.details["denominator"]) == (
            int(usual.grade.isin([2, 3]).sum()),
            len(usual),
        )
    assert _ask(url, "% mod weight at birth").decision == "abstain"
    # a dash between two things named still asks a difference the reading did not form
    assert _ask(url, "mean tc_24 - wt_b").decision == "abstain"


def test_an_adverb_of_a_label_word(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    a = _ask(url, "how many infants had hearing loss bilaterally?")
    assert a.decision == "accept", a.reason
    assert a.value == int(df.hear_b.sum())


def test_a_visit_written_as_a_column_code(book: tuple[str, pd.DataFrame]) -> None:
    url, df = book
    # the assessment cell says 'D3' (as a column name would): day 3
    a = _ask(url, "mean change in sodium from day 1 to day 3")
    assert a.decision == "accept", a.reason
    assert a.value == pytest.approx((df.na_3 - df.na_1).mean())
