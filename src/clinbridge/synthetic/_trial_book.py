"""The trial generator's bookkeeping: the workbook it returns, the column builder, the missing-code
helpers, and the .xlsx writer (README, Data and Data dictionary sheets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["ColumnBuilder", "TrialWorkbook", "with_missing", "write_trial_workbook", "yesno"]


@dataclass
class TrialWorkbook:
    """The generated wide data (as exported, codes and all) and its data dictionary."""

    data: pd.DataFrame
    dictionary: pd.DataFrame
    seed: int
    notes: list[str] = field(default_factory=list)

    @property
    def shape(self) -> tuple[int, int]:
        """(subjects, variables) of the generated table."""
        return self.data.shape  # type: ignore[return-value]

    def write_xlsx(self, path: str | Path) -> Path:
        """Write the trial as a spreadsheet at ``path``; the path."""
        return write_trial_workbook(self, path)

    def write_csv(self, path: str | Path, *, dictionary: str | Path | None = None) -> Path:
        """The data as CSV (UTF-8) and, if asked, the dictionary as a second CSV."""
        out = Path(path)
        self.data.to_csv(out, index=False)
        if dictionary is not None:
            self.dictionary.to_csv(Path(dictionary), index=False)
        return out


class ColumnBuilder:
    """The columns of the wide sheet, each added with its data dictionary row."""

    def __init__(self, rng: np.random.Generator, n: int) -> None:
        self.rng = rng
        self.n = n
        self.columns: dict[str, Any] = {}
        self.rows: list[dict[str, str]] = []

    def add(
        self,
        name: str,
        values: Any,
        label: str,
        *,
        type_: str = "float",
        unit: str = "",
        codes: str = "",
        missing: str = "",
        time_point: str = "",
        trial: str = "Both",
        form: str = "",
    ) -> None:
        if name in self.columns:  # pragma: no cover - a generator bug
            raise ValueError(f"duplicate generated column {name}")
        self.columns[name] = values
        self.rows.append(
            {
                "Variable": name,
                "Label": label,
                "Type": type_,
                "Units": unit,
                "Codes": codes,
                "Missing codes": missing,
                "Time point": time_point,
                "Trial": trial,
                "Form": form,
            }
        )


def with_missing(
    rng: np.random.Generator, x: np.ndarray, *, p_not_done: float = 0.03, p_unknown: float = 0.01
) -> np.ndarray:
    """``x`` with a share of values replaced by the not-done (-99) and unknown (-77) codes."""
    out = x.astype(float).copy()
    u = rng.random(len(out))
    out[u < p_not_done] = -99
    out[(u >= p_not_done) & (u < p_not_done + p_unknown)] = -77
    return out


def yesno(rng: np.random.Generator, p: np.ndarray, *, p_unknown: float = 0.02) -> np.ndarray:
    """1 with probability ``p`` else 0, and a share coded 9 (unknown)."""
    out = (rng.random(len(p)) < p).astype(float)
    out[rng.random(len(p)) < p_unknown] = 9
    return out


def write_trial_workbook(wb: TrialWorkbook, path: str | Path) -> Path:
    """Write README, Data and Data dictionary sheets (openpyxl, write-only mode)."""
    from openpyxl import Workbook

    out = Path(path)
    book = Workbook(write_only=True)
    readme = book.create_sheet("README")
    for line in wb.notes:
        readme.append([line])
    sheet = book.create_sheet("Data")
    sheet.append(list(wb.data.columns))
    cols = [wb.data[c].tolist() for c in wb.data.columns]
    for row in zip(*cols, strict=True):
        sheet.append([_cell(v) for v in row])
    dsheet = book.create_sheet("Data dictionary")
    dsheet.append(list(wb.dictionary.columns))
    for rec in wb.dictionary.itertuples(index=False):
        dsheet.append([v if v != "" else None for v in rec])
    out.parent.mkdir(parents=True, exist_ok=True)
    book.save(out)
    return out


def _cell(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, float):
        if v != v:  # NaN: a blank cell
            return None
        return int(v) if v.is_integer() else v
    if isinstance(v, np.generic):
        return _cell(v.item())
    return v
