"""A small workbook in conventions our other builders never use, and its truth.

* the dictionary sheet is named ``Metadata``, has a title line and a blank line above its
  heading row, and headings ``Item | Item description | Data type | Units | Response options |
  Missing value codes``;
* response options are written ``code: label`` one per line inside the cell;
* missing codes are declared per item: ``9`` is a missing code of one item and a real value of
  another (an Apgar score of 9);
* trial and centre are numeric codes whose labels stand on list sheets of their own
  (``Trials``, ``Centres``), the dictionary cell saying ``see Trials sheet``;
* time points written into column names in several notations (``temp_T+36h``, ``TEMP@24h``,
  ``lact_d3``, ``bayley.m18``, ``hr-72h``, ``gluc_day3``).

``Book.truth`` holds each value as the builder meant it (NaN where a missing code was written).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

N = 120
TRIALS = {1: "ALPHA", 2: "BETA"}
CENTRES = {1: "Leeds", 2: "Oslo", 3: "Lyon", 4: "Turin", 5: "Cork"}


@dataclass
class Book:
    path: Path
    truth: pd.DataFrame
    raw: pd.DataFrame


def build(path: Path, seed: int = 7) -> Book:
    """Write the workbook to ``path`` (openpyxl) and return it with its truth."""
    from openpyxl import Workbook

    rng = np.random.default_rng(seed)
    trial = rng.integers(1, 3, N)
    centre = np.where(trial == 1, rng.integers(1, 4, N), rng.integers(3, 6, N))
    arm = rng.integers(1, 3, N)
    raw: dict[str, np.ndarray] = {
        "SUBJ": np.array([f"S{i:04d}" for i in range(N)], dtype=object),
        "TRIAL": trial,
        "CENTRE": centre,
        "ARM": arm,
        "APGAR10": rng.integers(3, 11, N).astype(float),
        "SEIZ": rng.integers(0, 2, N).astype(float),
        "temp_T+36h": np.round(rng.normal(34.5, 0.6, N), 1),
        "TEMP@24h": np.round(rng.normal(33.6, 0.5, N), 1),
        "lact_d3": np.round(rng.gamma(2.0, 1.2, N), 1),
        "bayley.m18": np.round(rng.normal(90, 15, N)),
        "hr-72h": np.round(rng.normal(125, 12, N)),
        "gluc_day3": np.round(rng.normal(5.4, 1.0, N), 1),
    }
    truth = {k: v.astype(float) if k != "SUBJ" else v for k, v in raw.items()}
    # 9 is a missing code of SEIZ only; APGAR10 keeps its 9s as scores and uses -99
    raw["SEIZ"][rng.choice(N, 9, replace=False)] = 9
    raw["APGAR10"][rng.choice(N, 6, replace=False)] = -99
    raw["bayley.m18"][rng.choice(N, 7, replace=False)] = 999
    raw["lact_d3"][rng.choice(N, 5, replace=False)] = -1
    for k, code in (("SEIZ", 9), ("APGAR10", -99), ("bayley.m18", 999), ("lact_d3", -1)):
        truth[k] = np.where(raw[k] == code, np.nan, raw[k]).astype(float)
    raw_df = pd.DataFrame(raw)
    truth_df = pd.DataFrame(truth)
    wb = Workbook()
    ws = wb.active
    ws.title = "Data"
    ws.append(list(raw_df.columns))
    for row in raw_df.itertuples(index=False):
        ws.append([x.item() if hasattr(x, "item") else x for x in row])
    md = wb.create_sheet("Metadata")
    md.append(["Harmonised data set: item metadata (version 3)"])
    md.append([])
    md.append(
        [
            "Item",
            "Item description",
            "Data type",
            "Units",
            "Response options",
            "Missing value codes",
        ]
    )
    lines = [
        ("SUBJ", "Participant identifier", "text", "", "", ""),
        ("TRIAL", "Trial", "integer", "", "see Trials sheet", ""),
        ("CENTRE", "Recruiting centre", "integer", "", "see Centres sheet", ""),
        ("ARM", "Randomised arm", "integer", "", "1: Hypothermia\n2: Normothermia", ""),
        ("APGAR10", "Apgar score at 10 minutes", "integer", "", "", "-99: not recorded"),
        ("SEIZ", "Clinical seizures", "integer", "", "0: No\n1: Yes", "9: unknown"),
        ("temp_T+36h", "Rectal temperature", "decimal", "°C", "", ""),
        ("TEMP@24h", "Rectal temperature", "decimal", "°C", "", ""),
        ("lact_d3", "Lactate", "decimal", "mmol/L", "", "-1: sample not taken"),
        (
            "bayley.m18",
            "Bayley-III cognitive composite score",
            "integer",
            "",
            "",
            "999: not assessed",
        ),
        ("hr-72h", "Heart rate", "integer", "bpm", "", ""),
        ("gluc_day3", "Blood glucose", "decimal", "mmol/L", "", ""),
    ]
    for line in lines:
        md.append(list(line))
    tr = wb.create_sheet("Trials")
    tr.append(["Trial code", "Trial name"])
    for k, v in TRIALS.items():
        tr.append([k, v])
    ce = wb.create_sheet("Centres")
    ce.append(["Centre code", "Centre name"])
    for k, v in CENTRES.items():
        ce.append([k, v])
    wb.save(path)
    return Book(path, truth_df, raw_df)
