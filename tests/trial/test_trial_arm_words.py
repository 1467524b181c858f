"""Treatment-arm words, number words and the guards of stop 19, on real workbooks: the generated
HIE workbook (arm labels 'Hypothermia (whole-body cooling)' / 'Standard care (normothermia)')
and the hand-built foreign one ('Cooling' / 'Control'). Gold is computed in pandas on the
workbook's own cells; a probe may abstain where its gold says so, never answer another number."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from tests.trial import foreign_book as fb

import clinbridge.api as cb
from clinbridge.adapters.trial import load_trial
from clinbridge.engine.understand._trial_arms import arm_codes
from clinbridge.engine.understand._trial_numbers import number_of

A = "abstain"


@pytest.mark.parametrize(
    ("labels", "arms"),
    [
        ({"1": "Hypothermia", "2": "Normothermia"}, {"active": "1", "control": "2"}),
        ({"1": "Hypothermia", "2": "Control"}, {"active": "1", "control": "2"}),
        ({"1": "TH", "2": "Standard"}, {"active": "1", "control": "2"}),
        ({"1": "Cooling", "2": "No cooling"}, {"active": "1", "control": "2"}),
        (
            {"1": "Hypothermia (whole-body cooling)", "2": "Standard care (normothermia)"},
            {"active": "1", "control": "2"},
        ),
        ({"1": "Cooling 72 h", "2": "Cooling 120 h"}, {}),  # two active arms: neither is read
        ({"1": "Drug A", "2": "Drug B"}, {}),
    ],
)
def test_arm_codes_by_their_labels(labels: dict[str, str], arms: dict[str, str]) -> None:
    assert arm_codes(labels) == arms


@pytest.mark.parametrize(
    ("said", "n"),
    [
        ("forty", 40),
        ("four thousand", 4000),
        ("two hundred and fifty", 250),
        ("twenty two", 22),
        ("one", 1),
        ("five six", None),
    ],
)
def test_number_runs(said: str, n: int | None) -> None:
    assert number_of(said) == n


def _same(a: Any, g: Any) -> bool:
    if g == A:
        return a.decision != "accept"
    if a.decision != "accept":
        return False
    if isinstance(g, tuple) and g[0] == "prop":
        return (a.details["numerator"], a.details["denominator"]) == (g[1], g[2])
    if isinstance(g, tuple) and g[0] == "per":
        got = sorted(r["value"] for r in a.value) if isinstance(a.value, list) else []
        return got == pytest.approx(sorted(g[1]))
    return not isinstance(a.value, list) and float(a.value) == pytest.approx(g)


def _generated_probes(d: pd.DataFrame) -> list[tuple[str, Any]]:
    def c(col: str, extra: tuple[int, ...] = ()) -> pd.Series:
        s = pd.to_numeric(d[col], errors="coerce")
        return s.where(~s.isin([-99, -88, -77, *extra]))

    def yn(col: str) -> pd.Series:
        return c(col, (9,))

    arm, hie, ino = c("Rand_Arm"), c("HIE_GRADE"), yn("INOTROPES")
    hr48, t24, ga, bw = c("hr_48h"), c("TEMP_24H"), c("GA_WKS"), c("BWT_g")
    known = ino.notna()
    return [
        (
            "% on inotropes severe hie babies that were cooled",
            (
                "prop",
                int(((ino == 1) & (hie == 3) & (arm == 1)).sum()),
                int(((hie == 3) & (arm == 1) & known).sum()),
            ),
        ),
        (
            "% on inotropes in cooled babies",
            ("prop", int(((ino == 1) & (arm == 1)).sum()), int(((arm == 1) & known).sum())),
        ),
        (
            "avg heart rate at 48h cooled vs normothermic",
            ("per", [float(hr48[arm == k].mean()) for k in (1, 2)]),
        ),
        ("avg heart rate at 48h in girls vs normothermic", A),
        (
            "mean temperature at 24 hours in babies who underwent cooling",
            float(t24[arm == 1].mean()),
        ),
        ("mean birth weight at 18 months", A),
        ("how many infants were born at forty weeks or later", int((ga >= 40).sum())),
        ("how many infants weighed at least four thousand grams", int((bw >= 4000).sum())),
        (
            "how many % of infants had seizures before randomisation",
            ("prop", int((yn("SEIZ_BL") == 1).sum()), int(yn("SEIZ_BL").notna().sum())),
        ),
        ("mean birth weight across both trials combined", float(bw.mean())),
        ("mean MRI injury score in both trials combined", A),  # one trial's item
        ("no. of babies with apgar 0 at 10 min", int((c("apgar10") == 0).sum())),
        (
            "splitting the babies by whether they were cooled or received standard care, what "
            "was the mean birth weight?",
            ("per", [float(bw[arm == k].mean()) for k in (1, 2)]),
        ),
        (
            "splitting the babies by whether they were boys or cooled, what was the mean birth weight?",
            A,
        ),
        ("how many infants had no disability at 18 months", int((c("DISAB_LEVEL") == 0).sum())),
        (
            "mean apgar score at 10 minutes for each of the three grades of encephalopathy",
            ("per", [float(c("apgar10")[hie == k].mean()) for k in (1, 2, 3)]),
        ),
    ]


def test_generated_workbook_probes(trial_wb, trial_db) -> None:  # type: ignore[no-untyped-def]
    wrong = []
    with cb.connect(trial_db) as conn:
        for question, gold in _generated_probes(trial_wb.data):
            a = conn.ask(question)
            if not _same(a, gold):
                wrong.append((question, a.decision, a.value, a.reason))
    assert not wrong


@pytest.fixture(scope="module")
def foreign(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pd.DataFrame]:
    data = fb.frame()
    tmp = tmp_path_factory.mktemp("foreign_arms")
    url = f"duckdb:///{tmp / 'book.duckdb'}"
    load_trial(fb.write(tmp / "book.xlsx", data), url)
    return url, data


def test_arm_words_on_cooling_and_control_labels(foreign: tuple[str, pd.DataFrame]) -> None:
    url, data = foreign
    cooled = data["alloc"] == 1
    t72 = fb.clean(data, "TEMP72")
    probes: list[tuple[str, Any]] = [
        ("mean core temperature at 72 hours in cooled babies", float(t72[cooled].mean())),
        ("mean core temperature at 72 hours in normothermic infants", float(t72[~cooled].mean())),
        (
            "mean core temperature at 72 hours in the standard care group",
            float(t72[~cooled].mean()),
        ),
        (
            "mean core temperature at 72 hours, cooled vs normothermic",
            ("per", [float(t72[cooled].mean()), float(t72[~cooled].mean())]),
        ),
        ("how many babies underwent cooling", int(cooled.sum())),
    ]
    with cb.connect(url) as conn:
        wrong = [
            (q, a.decision, a.value, a.reason) for q, g in probes if not _same(a := conn.ask(q), g)
        ]
    assert not wrong
