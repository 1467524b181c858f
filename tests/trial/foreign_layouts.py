"""Small trial workbooks in layouts clinbridge's own generator never writes, and their truth.

Each :func:`build` (seeded) draws another builder's habits: the order and names of the sheets,
the dictionary's header words (``Variable / Field name / Column``, ``Special codes / Missing
values / Non-response codes / NA codes``), the code notation (``0=No; 1=Yes``, ``0 - No / 1 -
Yes``, ``(0) No (1) Yes``...), where the missing codes are declared (a notes sheet in free text,
a ``Code | Meaning`` table on a codes sheet, a column of the dictionary, inside the codes column,
a title row above the dictionary), which codes they are (numeric and text: ``-999``, ``8888``,
``ND``, ``'.'``, ``NE``, ``LTFU``), how time points are written, and ranges where codes would go.

The truth is kept beside the written cells: ``Book.truth`` holds every value as the builder
meant it (NaN where a missing code was written), so that gold is computed in pandas from the
builder's intent, not from anything clinbridge reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

N_ROWS = 48

MISSING_SETS: tuple[tuple[dict[int, str], dict[str, str]], ...] = (
    ({-999: "not done", 8888: "not applicable"}, {"ND": "not done", ".": "missing"}),
    ({-99: "not recorded", -88: "not applicable"}, {"NE": "not evaluated"}),
    ({-777: "lost to follow-up", 9999: "unknown"}, {"LTFU": "lost to follow-up"}),
)
WHERE = ("notes_text", "notes_table", "dict_column", "inline", "title", "dict_side", "sentence")
NOTATIONS = (
    ("{c}={l}", "; "),
    ("{c} - {l}", " / "),
    ("{c}: {l}", " | "),
    ("({c}) {l}", " "),
    ("{c} = {l}", ", "),
)
SHEETS_DATA = ("MERGED_DATA", "export", "Sheet1", "data_v2", "Harmonised")
SHEETS_DICT = ("Codebook", "Data dictionary", "Variables", "Metadata")
SHEETS_NOTES = ("Notes", "README", "Conventions", "Codes", "About")
HEAD_VARIABLE = ("Variable", "Field name", "Column", "Var")
HEAD_LABEL = ("Label", "Description", "Field label", "Question")
HEAD_CODES = ("Codes", "Values", "Value labels", "Response options")
HEAD_MISSING = ("Special codes", "Missing values", "Non-response codes", "NA codes")
HEAD_TIME = ("Time point", "Visit", "Timepoint")
TIME_NAMES = ("{v}_{h}h", "{V}_H{h}", "{v}_{h}hrs", "{V}_{h}HR", "{v}.{h}h")
TIME_TEXT = ("{h} hours", "Hour {h}", "{h}h")
HOURS = (0, 24, 48, 72)


@dataclass
class Var:
    name: str
    label: str
    kind: str
    """id | coded | text_coded | measured | padding"""
    codes: dict[Any, str] = field(default_factory=dict)
    unit: str = ""
    time: int | None = None
    range: tuple[float, float] | None = None
    concept: str = ""


@dataclass
class Book:
    path: Path
    variables: list[Var]
    truth: pd.DataFrame
    """Every value as meant (NaN / None where a missing code was written), by column name."""
    raw: pd.DataFrame
    """The cells as written."""
    missing: dict[Any, str]
    """Every missing code the book declares (numeric and text)."""
    where: str
    sheets: dict[str, str]
    """role (data, dictionary, notes) → sheet name."""

    def var(self, concept: str) -> Var:
        return next(v for v in self.variables if v.concept == concept)

    def missing_cells(self) -> int:
        """How many cells hold a missing code (written, but no value meant)."""
        return int((self.raw.notna() & self.truth.isna()).to_numpy().sum())


def _codes_text(codes: dict[Any, str], notation: tuple[str, str]) -> str:
    form, sep = notation
    return sep.join(form.format(c=c, l=lab) for c, lab in codes.items())


def _variables(rng: np.random.Generator, time_name: str) -> list[Var]:
    yes_no = {0: "No", 1: "Yes"}
    out = [
        Var(str(rng.choice(["subj", "Participant_ID", "record_id", "ID"])), "Participant ID", "id"),
        Var("trial", "Trial", "coded", {1: "ALPHA", 2: "BETA"}, concept="trial"),
        Var("site", "Recruiting site", "coded", {k: f"Site {k}" for k in range(1, 6)}),
        Var(
            str(rng.choice(["arm", "rand_arm", "alloc"])),
            "Randomised treatment arm",
            "coded",
            {1: "Hypothermia", 2: "Standard care"},
            concept="arm",
        ),
        Var("sex", "Sex of the infant", "text_coded", {"M": "Male", "F": "Female"}, concept="sex"),
        Var(
            "sarnat",
            "Encephalopathy severity",
            "coded",
            {1: "Mild", 2: "Moderate", 3: "Severe"},
            concept="severity",
        ),
        Var("died", "Death before discharge", "coded", yes_no, concept="died"),
        Var("seiz", "Clinical seizures", "coded", yes_no, concept="seizures"),
        Var("bw_g", "Birth weight", "measured", unit="g", concept="bw"),
        Var("ph_cord", "Cord blood pH", "measured", concept="ph"),
        Var("apgar_10", "Apgar score at 10 minutes", "measured", range=(0, 10), concept="apgar"),
    ]
    for h in HOURS:
        out.append(
            Var(
                time_name.format(h=h, v="temp", V="TEMP"),
                "Core temperature",
                "measured",
                unit="°C",
                time=h,
                range=(30, 40) if h else None,
                concept=f"temp{h}",
            )
        )
    for h in (0, 24):
        out.append(
            Var(
                time_name.format(h=h, v="lact", V="LACT"),
                "Lactate",
                "measured",
                unit="mmol/L",
                time=h,
                concept=f"lact{h}",
            )
        )
    out += [Var(f"dm_flag_{k}", "Data management flag", "padding") for k in range(1, 7)]
    return out


def _values(rng: np.random.Generator, v: Var, n: int, arm: np.ndarray) -> np.ndarray:
    if v.kind == "id":
        return np.array([f"P{i:03d}" for i in range(1, n + 1)], dtype=object)
    if v.kind in {"coded", "text_coded"}:
        return rng.choice(np.array(list(v.codes), dtype=object), n)
    if v.kind == "padding":
        return rng.choice(np.array(["ok", "query", "locked"], dtype=object), n)
    cooled = arm == 1
    if v.concept == "bw":
        return rng.normal(3200, 450, n).round(0)
    if v.concept == "ph":
        return rng.normal(7.1, 0.1, n).round(2)
    if v.concept == "apgar":
        return rng.integers(0, 11, n).astype(float)
    if v.concept.startswith("temp"):
        base = np.where(cooled, 33.5, 37.0) if v.time else np.full(n, 36.6)
        return (base + rng.normal(0, 0.4, n)).round(1)
    return rng.gamma(3.0 if v.time == 0 else 1.5, 2.0, n).round(1)


def _declaration_lines(numeric: dict[int, str], text: dict[str, str], style: int) -> list[str]:
    pairs = [*numeric.items(), *text.items()]
    quoted = [(f"'{c}'" if c == "." else c, m) for c, m in pairs]
    if style == 0:
        return [f"{c} = {m}" for c, m in quoted]
    if style == 1:
        return [f"{c}: {m}" for c, m in quoted]
    if style == 2:
        return ["Missing codes: " + "; ".join(f"{c} = {m}" for c, m in quoted)]
    if style == 3:
        return [f"{m.capitalize()} is coded as {c}" for c, m in quoted]
    said = " and ".join(
        f"{c if isinstance(c, int) or c.startswith(chr(39)) else repr(c)} for '{m}'"
        for c, m in quoted
    )
    return [f"Throughout the export, fields use {said}."]


def build(seed: int, path: Path, *, where: str | None = None) -> Book:
    """A workbook at ``path`` in the layout ``seed`` draws (``where`` forces the declaration;
    ``where='nowhere'``: -999 is written for missing values and declared nowhere)."""
    rng = np.random.default_rng(seed)
    numeric, text = MISSING_SETS[seed % len(MISSING_SETS)]
    if where == "nowhere":
        numeric, text = {-999: "not done"}, {}
    where = where or WHERE[seed % len(WHERE)]
    notation = NOTATIONS[int(rng.integers(len(NOTATIONS)))]
    time_name = TIME_NAMES[int(rng.integers(len(TIME_NAMES)))]
    variables = _variables(rng, time_name)
    n = N_ROWS
    arm_var = next(v for v in variables if v.concept == "arm")
    arm = rng.choice([1, 2], n)
    truth: dict[str, Any] = {}
    raw: dict[str, Any] = {}
    codes_all: list[Any] = [*numeric, *text]
    for v in variables:
        vals = arm if v is arm_var else _values(rng, v, n, arm)
        meant = vals.astype(object).copy()
        written = vals.astype(object).copy()
        if v.kind in {"coded", "measured"} and v.concept not in {"arm", "trial"}:
            hit = rng.random(n) < 0.15
            for i in np.flatnonzero(hit):
                code = codes_all[int(rng.integers(len(codes_all)))]
                written[i], meant[i] = code, None
        if v.kind == "text_coded" and text:  # a text code of the workbook in a text-coded column
            for i in np.flatnonzero(rng.random(n) < 0.1):
                written[i], meant[i] = next(iter(text)), None
        truth[v.name] = meant
        raw[v.name] = written
    truth_df = pd.DataFrame(truth)
    for v in variables:
        if v.kind in {"coded", "measured"}:
            truth_df[v.name] = pd.to_numeric(truth_df[v.name])
    raw_df = pd.DataFrame(raw)
    sheets = {
        "data": str(rng.choice(SHEETS_DATA)),
        "dictionary": str(rng.choice(SHEETS_DICT)),
        "notes": str(rng.choice(SHEETS_NOTES)),
    }
    _write(path, variables, raw_df, sheets, rng, notation, numeric, text, where)
    return Book(path, variables, truth_df, raw_df, {**numeric, **text}, where, sheets)


def _write(
    path: Path,
    variables: list[Var],
    raw: pd.DataFrame,
    sheets: dict[str, str],
    rng: np.random.Generator,
    notation: tuple[str, str],
    numeric: dict[int, str],
    text: dict[str, str],
    where: str,
) -> None:
    from openpyxl import Workbook

    heads = {
        "variable": str(rng.choice(HEAD_VARIABLE)),
        "label": str(rng.choice(HEAD_LABEL)),
        "codes": str(rng.choice(HEAD_CODES)),
        "missing": str(rng.choice(HEAD_MISSING)),
        "time": str(rng.choice(HEAD_TIME)),
    }
    with_time = bool(rng.integers(2))
    with_type = bool(rng.integers(2))
    time_text = TIME_TEXT[int(rng.integers(len(TIME_TEXT)))]
    style = int(rng.integers(4))
    header = [heads["variable"], heads["label"], "Units", heads["codes"]]
    header += [heads["missing"]] if where == "dict_column" else []
    header += [heads["time"]] if with_time else []
    header += ["Type"] if with_type else []
    inline = [f"{c} ({m})" for c, m in [*numeric.items(), *text.items()]]
    book = Workbook()
    book.remove(book.active)
    order = list(rng.permutation(["data", "dictionary", "notes"]))
    for role in order:
        ws = book.create_sheet(sheets[role])
        if role == "notes":
            ws.append(["Harmonised export of two neonatal cooling trials."])
            ws.append(["One row per infant; trial-specific fields are blank for the other trial."])
            if where in {"notes_text", "sentence"}:
                for line in _declaration_lines(numeric, text, 4 if where == "sentence" else style):
                    ws.append([line])
            elif where == "notes_table":
                ws.append([])
                ws.append(["Code", "Meaning"])
                for c, m in [*numeric.items(), *text.items()]:
                    ws.append([c, m])
        elif role == "dictionary":
            if where == "title":
                ws.append(["Missing codes: " + "; ".join(inline)])
                ws.append([])
            side = ["", "Missing codes:", *inline] if where == "dict_side" else []
            ws.append(header + side[:2])
            for k, v in enumerate(variables):
                codes = _codes_text(v.codes, notation) if v.codes else ""
                if v.range is not None:
                    codes = f"range {v.range[0]:g} to {v.range[1]:g}"
                miss = ""
                if v.kind in {"coded", "measured", "text_coded"} and v.concept not in {
                    "arm",
                    "trial",
                }:
                    if where == "inline":
                        codes = "; ".join([c for c in (codes,) if c] + inline)
                    elif where == "dict_column":
                        miss = ", ".join(inline)
                row = [v.name, v.label, v.unit, codes]
                row += [miss] if where == "dict_column" else []
                if with_time:
                    row.append(time_text.format(h=v.time) if v.time is not None else "")
                if with_type:
                    kind = {"id": "text", "padding": "text", "measured": "numeric"}
                    row.append(kind.get(v.kind, "categorical"))
                ws.append(row + (["", side[k + 2]] if k + 2 < len(side) else []))
        else:
            ws.append(list(raw.columns))
            for rec in raw.itertuples(index=False):
                ws.append([None if x is None else x for x in rec])
    book.save(path)
