"""A small workbook exported the way a SAS shop writes one, and its truth.

* the dictionary sheet (``VARIABLES``) is cut into sections by divider rows
  (``SECTION 2 - BASELINE`` alone in column A), names variables in lower case while the data
  sheet writes them in mixed case, gives each variable's SAS type (``Num``/``Char``) and its
  format (``YNF.``, ``$SEXF.``, ``BEST12.``, ``DATE9.``) and its visit as an ISO 8601 duration
  (``PT24H``, ``P18M``, ``P2Y``);
* value labels stand on a ``FORMATS`` sheet in PROC FORMAT style, in one of four layouts
  (``LAYOUTS``): ``VALUE armf`` then ``1 = 'Hypothermia'`` rows; the format name alone with its
  pairs beside and below it; one cell per format; or a CNTLOUT table ``FMTNAME | START | LABEL``;
  one format (``TEMPF``) groups ranges and labels no codes;
* missing codes are declared once, in a table on the ``README`` sheet, each with where it
  applies: -99 everywhere, -9 on coded variables only (base excess has real values of -9),
  ``.N``/``.U``/``.`` (SAS special missing values) on numeric variables.

``Book.truth`` holds each value as the builder meant it (NaN where a missing code was written).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

N = 160
TRIALS = {1: "NORTH", 2: "SOUTH"}
SITES = {1: "Leeds", 2: "Oslo", 3: "Lyon", 4: "Cork"}
ARMS = {1: "Hypothermia", 2: "Normothermia"}
SARNAT = {1: "Mild", 2: "Moderate", 3: "Severe"}
LAYOUTS = ("value", "name", "inline", "cntlout")

FORMATS: dict[str, dict[Any, str]] = {
    "TRIALF": dict(TRIALS),
    "SITEF": dict(SITES),
    "ARMF": dict(ARMS),
    "$SEXF": {"M": "Male", "F": "Female"},
    "YNF": {0: "No", 1: "Yes"},
    "SARNATF": dict(SARNAT),
}

# (name in the data, name in the dictionary, label, SAS type, format, unit, visit)
SECTIONS: list[tuple[str, list[tuple[str, str, str, str, str, str]]]] = [
    (
        "SECTION 1 - RANDOMISATION",
        [
            ("SubjID", "Participant identifier", "Char", "$8.", "", ""),
            ("Trial", "Trial", "Num", "TRIALF.", "", ""),
            ("SiteCode", "Recruiting site", "Num", "SITEF.", "", ""),
            ("RandArm", "Randomised arm", "Num", "ARMF.", "", ""),
            ("RandDate", "Date of randomisation", "Num", "DATE9.", "", ""),
        ],
    ),
    (
        "SECTION 2 - BASELINE",
        [
            ("Sex", "Sex of infant", "Char", "$SEXF.", "", ""),
            ("BirthWt", "Birth weight", "Num", "BEST12.", "g", ""),
            ("BaseExcess", "Base excess, first gas", "Num", "8.1", "mmol/L", ""),
            ("Sarnat", "Sarnat grade at entry", "Num", "SARNATF.", "", ""),
        ],
    ),
    (
        "SECTION 3 - COOLING PHASE",
        [
            ("Temp_24", "Rectal temperature", "Num", "TEMPF.", "°C", "PT24H"),
            ("Temp_72", "Rectal temperature", "Num", "TEMPF.", "°C", "PT72H"),
            ("Lact_6", "Lactate", "Num", "8.1", "mmol/L", "PT6H"),
            ("Seizure", "Clinical seizures", "Num", "YNF.", "", "P3D"),
        ],
    ),
    (
        "SECTION 4 - OUTCOMES",
        [
            ("Death", "Death before discharge", "Num", "YNF.", "", ""),
            ("BayleyCog", "Bayley-III cognitive composite score", "Num", "BEST.", "", "P18M"),
            ("IQ", "Full-scale IQ", "Num", "3.", "", "P2Y"),
        ],
    ),
]

README_TABLE = [
    ("Code", "Meaning", "Applies to"),
    (-99, "Not recorded", "All variables"),
    (-9, "Not known", "Coded (categorical) variables only"),
    (".N", "Not done", "Numeric variables"),
    (".U", "Unknown", "Numeric variables"),
    (".", "Missing, no reason given", "All numeric variables"),
]


@dataclass
class Book:
    path: Path
    truth: pd.DataFrame
    raw: pd.DataFrame


def _spoil(
    rng: np.random.Generator, raw: dict[str, Any], truth: dict[str, Any], col: str, codes: list[Any]
) -> None:
    """Write each code into a few cells of ``col`` (raw), NaN in the truth."""
    free = np.flatnonzero(~pd.isna(truth[col]))
    picks = rng.choice(free, 4 * len(codes), replace=False)
    values = list(raw[col])
    for k, code in enumerate(codes):
        for i in picks[4 * k : 4 * k + 4]:
            values[i] = code
            truth[col][i] = np.nan
    raw[col] = np.array(values, dtype=object)


def build(path: Path, seed: int = 11, layout: str = "value") -> Book:
    """Write the workbook to ``path`` (openpyxl) and return it with its truth."""
    from openpyxl import Workbook

    rng = np.random.default_rng(seed)
    trial = rng.integers(1, 3, N)
    base_excess = np.round(rng.normal(-12, 5, N))
    base_excess[:12] = -9.0  # real values of -9: the coded-only missing code is no code here
    raw: dict[str, Any] = {
        "SubjID": np.array([f"S{i:04d}" for i in range(N)], dtype=object),
        "Trial": trial,
        "SiteCode": np.where(trial == 1, rng.integers(1, 3, N), rng.integers(3, 5, N)),
        "RandArm": rng.integers(1, 3, N),
        "RandDate": np.array(
            [dt.datetime(2019, 1, 1) + dt.timedelta(days=int(d)) for d in rng.integers(0, 900, N)],
            dtype=object,
        ),
        "Sex": rng.choice(np.array(["M", "F"], dtype=object), N),
        "BirthWt": np.round(rng.normal(3300, 500, N)),
        "BaseExcess": base_excess,
        "Sarnat": rng.integers(1, 4, N),
        "Temp_24": np.round(rng.normal(33.5, 0.5, N), 1),
        "Temp_72": np.round(rng.normal(34.0, 0.6, N), 1),
        "Lact_6": np.round(rng.gamma(2.0, 2.5, N), 1),
        "Seizure": rng.integers(0, 2, N),
        "Death": (rng.random(N) < 0.2).astype(int),
        "BayleyCog": np.round(rng.normal(95, 15, N)),
        "IQ": np.round(rng.normal(98, 14, N)),
    }
    truth: dict[str, Any] = {
        k: (v.astype(float) if v.dtype.kind in "if" else v.copy()) for k, v in raw.items()
    }
    for k in list(raw):
        raw[k] = raw[k].astype(object)
    _spoil(rng, raw, truth, "BirthWt", [-99, ".N", ".U"])
    _spoil(rng, raw, truth, "BaseExcess", [-99, "."])
    _spoil(rng, raw, truth, "Sarnat", [-9])
    _spoil(rng, raw, truth, "Temp_24", [".", ".N"])
    _spoil(rng, raw, truth, "Temp_72", [-99])
    _spoil(rng, raw, truth, "Seizure", [-9, ".U"])
    _spoil(rng, raw, truth, "Death", [-9])
    _spoil(rng, raw, truth, "BayleyCog", [-99, ".N"])
    _spoil(rng, raw, truth, "IQ", [".U"])
    raw_df = pd.DataFrame(raw)
    truth_df = pd.DataFrame(truth)
    wb = Workbook()
    readme = wb.active
    readme.title = "README"
    readme.append(["NORTH/SOUTH neonatal cooling trials: harmonised IPD export"])
    readme.append(["Exported from SAS 9.4; one row per infant on sheet ipd_wide."])
    readme.append([])
    readme.append(["MISSING VALUE CONVENTIONS"])
    for row in README_TABLE:
        readme.append(list(row))
    readme.append([])
    readme.append(["Value labels: see sheet FORMATS (PROC FORMAT)."])
    data = wb.create_sheet("ipd_wide")
    data.append(list(raw_df.columns))
    for row in raw_df.itertuples(index=False):
        data.append([x.item() if hasattr(x, "item") else x for x in row])
    var = wb.create_sheet("VARIABLES")
    var.append(["Variable", "Label", "Type", "Format", "Units", "Visit"])
    for title, items in SECTIONS:
        var.append([title])
        for name, label, sas_type, fmt, unit, visit in items:
            var.append([name.lower(), label, sas_type, fmt, unit, visit])
    write_formats(wb.create_sheet("FORMATS"), layout)
    wb.save(path)
    return Book(path, truth_df, raw_df)


def _quoted(v: Any) -> str:
    return f"'{v}'" if isinstance(v, str) else str(v)


def write_formats(ws: Any, layout: str, formats: dict[str, dict[Any, str]] = FORMATS) -> None:
    """The formats in one of ``LAYOUTS``, and the range format TEMPF."""
    ws.append(["Value label formats (PROC FORMAT library WORK.FORMATS)"])
    ws.append([])
    if layout == "cntlout":
        ws.append(["FMTNAME", "START", "END", "LABEL", "TYPE"])
        for name, pairs in formats.items():
            kind = "C" if name.startswith("$") else "N"
            for code, label in pairs.items():
                ws.append([name.lstrip("$"), code, code, label, kind])
        ws.append(["TEMPF", "LOW", "36", "Hypothermic", "N"])
        ws.append(["TEMPF", "36", "HIGH", "Normal or above", "N"])
        return
    every = {**{n: {_quoted(c): lab for c, lab in p.items()} for n, p in formats.items()}}
    every["TEMPF"] = {"low -< 36": "Hypothermic", "36 - high": "Normal or above"}
    for name, pairs in every.items():
        lines = [f"{code} = '{label}'" for code, label in pairs.items()]
        if layout == "value":
            ws.append([f"value {name.lower()}"])
            for line in lines:
                ws.append(["", line])
            ws.append(["", ";"])
        elif layout == "name":
            ws.append([f"{name}.", lines[0]])
            for line in lines[1:]:
                ws.append([None, line])
        else:
            ws.append([f"VALUE {name} " + " ".join(lines) + ";"])
        ws.append([])
