"""A trial workbook built by hand, independently of clinbridge.synthetic.trial.

Another builder's habits: the data sheet comes last and is called ``export_v3``; the dictionary
(``Codebook``, under a title row) has the headers ``Variable / Description / Units / Values /
Visit / Study``; column names mix ``temp_core_24h``, ``TEMP72``, ``Temp (6 h)``, ``apgar_10``;
codes are written ``1=Cooling; 2=Control``, ``1, Male | 2, Female | 9, Not known``,
``0 = No, 1 = Yes``, ``1: Mild / 2: Moderate / 3: Severe``; a missing code sits inside the value
list (``-9 = not done``) and text cells say ``NA``; visits are ``Day 3``, ``72 hours``, ``18 mo``,
``10 minutes``, or left blank where the column name says it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

N = 240
# (column, description, units, values, visit, study)
CODEBOOK: tuple[tuple[str, str, str, str, str, str], ...] = (
    ("subj", "Participant ID", "", "", "", ""),
    ("study", "Study", "", "1, COOLKIDS | 2, ICEBABY", "", ""),
    ("centre", "Recruiting centre", "", "; ".join(f"{k}=Centre {k}" for k in range(1, 7)), "", ""),
    ("alloc", "Randomised group", "", "1=Cooling; 2=Control", "Baseline", ""),
    ("sex", "Sex of the infant", "", "1, Male | 2, Female | 9, Not known", "", ""),
    ("bw_g", "Birth weight", "g", "", "", ""),
    ("sarnat", "Encephalopathy grade (Sarnat)", "", "1: Mild / 2: Moderate / 3: Severe", "", ""),
    ("Temp (6 h)", "Core temperature", "°C", "", "", ""),
    ("temp_core_24h", "Core temperature", "°C", "", "24 hours", ""),
    ("TEMP72", "Core temperature", "°C", "", "Day 3", ""),
    ("apgar_5", "Apgar score", "", "", "5 min", ""),
    ("apgar_10", "Apgar score", "", "", "10 minutes", ""),
    ("lact_0", "Lactate", "mmol/L", "-9 = not done", "0 h", ""),
    ("lact_72", "Lactate", "mmol/L", "-9 = not done", "72 hours", ""),
    ("died", "Death before discharge", "", "0 = No, 1 = Yes", "Discharge", ""),
    ("bayley_cog_18mo", "Bayley-III cognitive composite score", "", "", "18 mo", "COOLKIDS"),
    ("form_status", "Form status (data management)", "", "", "", ""),
)


def frame(seed: int = 11) -> pd.DataFrame:
    """The data as the builder would export it (text 'NA' and -9 codes included)."""
    rng = np.random.default_rng(seed)
    study = rng.choice([1, 2], N)
    alloc = rng.choice([1, 2], N)
    cooled = alloc == 1
    t6 = np.where(cooled, rng.normal(33.6, 0.4, N), rng.normal(37.0, 0.5, N)).round(1)
    t24 = np.where(cooled, rng.normal(33.5, 0.3, N), rng.normal(37.1, 0.4, N)).round(1)
    t72 = np.where(cooled, rng.normal(33.6, 0.3, N), rng.normal(37.0, 0.4, N)).round(1)
    lact0 = rng.gamma(4.0, 2.5, N).round(1).astype(object)
    lact72 = rng.gamma(2.0, 1.0, N).round(1).astype(object)
    lact0[rng.random(N) < 0.08] = -9
    lact72[rng.random(N) < 0.08] = -9
    lact72[rng.random(N) < 0.05] = "NA"
    sex = rng.choice([1, 2], N)
    sex[rng.random(N) < 0.04] = 9
    bayley = rng.normal(95, 15, N).round(0).astype(object)
    bayley[study == 2] = None
    return pd.DataFrame(
        {
            "subj": [f"CK-{i:04d}" for i in range(1, N + 1)],
            "study": study,
            "centre": rng.integers(1, 7, N),
            "alloc": alloc,
            "sex": sex,
            "bw_g": rng.normal(3300, 500, N).round(0),
            "sarnat": rng.choice([1, 2, 3], N, p=[0.1, 0.6, 0.3]),
            "Temp (6 h)": t6,
            "temp_core_24h": t24,
            "TEMP72": t72,
            "apgar_5": rng.integers(0, 11, N),
            "apgar_10": rng.integers(0, 11, N),
            "lact_0": lact0,
            "lact_72": lact72,
            "died": (rng.random(N) < np.where(cooled, 0.2, 0.3)).astype(int),
            "bayley_cog_18mo": bayley,
            "form_status": rng.choice(["complete", "locked"], N),
        }
    )


HEADER = ("Variable", "Description", "Units", "Values", "Visit", "Study")
REDCAP_HEADER = ("Field Name", "Field Label", "UOM", "Choices OR Calculations", "", "Collected in")
"""A second builder: REDCap-like headers and no visit column (the label says when)."""


def redcap_rows() -> list[tuple[str, ...]]:
    """The codebook the second builder writes: the visit in the label, codes as '(1) Male'."""
    out = []
    for name, label, unit, values, visit, study in CODEBOOK:
        if visit and visit.lower() not in {"baseline", "discharge"}:
            label = f"{label} at {visit}"
        values = values.replace(
            "1, Male | 2, Female | 9, Not known", "(1) Male (2) Female (9) Not known"
        )
        values = values.replace("1=Cooling; 2=Control", "Cooling=1, Control=2")
        out.append((name, label, unit, values, "", study))
    return out


def write(
    path: Path,
    data: pd.DataFrame,
    header: tuple[str, ...] = HEADER,
    rows: list[tuple[str, ...]] | None = None,
) -> Path:
    """Notes, Codebook (title row, then the header) and export_v3, in that order."""
    from openpyxl import Workbook

    book = Workbook()
    notes = book.active
    notes.title = "Notes"
    notes.append(["Harmonised export of COOLKIDS and ICEBABY; see Codebook."])
    code = book.create_sheet("Codebook")
    code.append(["Codebook - harmonised export v3"])
    code.append([])
    code.append(list(header))
    for row in rows or CODEBOOK:
        code.append(list(row))
    sheet = book.create_sheet("export_v3")
    sheet.append(list(data.columns))
    for rec in data.itertuples(index=False):
        sheet.append(
            [None if v is None or (isinstance(v, float) and np.isnan(v)) else v for v in rec]
        )
    book.save(path)
    return path


def clean(data: pd.DataFrame, col: str) -> pd.Series:
    """A column as an analyst would read it: numbers, with -9, 9 (sex) and 'NA' missing."""
    s = pd.to_numeric(data[col], errors="coerce")
    missing = [9] if col == "sex" else [-9]
    return s.where(~s.isin(missing))


def text_coded(data: pd.DataFrame) -> tuple[pd.DataFrame, list[tuple[str, ...]]]:
    """A third builder: codes stored as text ('Cooling', 'M', 'Y'), listed as 'Cooling, Control',
    'M = male, F = female, NK = not known', 'Y=Yes / N=No'; the arm column is called 'group'."""
    out = data.copy()
    out["alloc"] = out["alloc"].map({1: "Cooling", 2: "Control"})
    out["sex"] = out["sex"].map({1: "M", 2: "F", 9: "NK"})
    out["died"] = out["died"].map({1: "Y", 0: "N"})
    out = out.rename(columns={"alloc": "group"})
    values = {
        "alloc": ("group", "Treatment allocation", "Cooling, Control"),
        "sex": ("sex", "Sex of the infant", "M = male, F = female, NK = not known"),
        "died": ("died", "Death before discharge", "Y=Yes / N=No"),
    }
    rows = []
    for name, label, unit, codes, visit, study in CODEBOOK:
        if name in values:
            name, label, codes = values[name]
        rows.append((name, label, unit, codes, visit, study))
    return out, rows
