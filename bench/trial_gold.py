"""Gold and scoring for trial-table question sets (the dev set, the sealed holdout).

Gold is computed with pandas straight from the generated .xlsx (``pd.read_excel``, the
workbook's own dictionary sheet for missing codes and labels) — never through clinbridge.
Numeric answers are judged within 5 % (CLEAR-Med's rule); a percentage must also state its
numerator and denominator; an expected abstention is correct only if the answer abstains.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["Gold", "Question", "load_gold_frame", "score"]


@dataclass(frozen=True)
class Question:
    id: int
    voice: str
    text: str
    kind: str
    """number | count | proportion | rows | rows_proportion | list | abstain"""
    gold: Callable[[Gold], Any] | None

    @property
    def sealed(self) -> bool:
        return self.id % 3 == 0


class Gold:
    """The workbook as pandas sees it, with the dictionary's missing codes and labels."""

    def __init__(self, data: pd.DataFrame, dictionary: pd.DataFrame) -> None:
        self.df = data
        self.missing: dict[str, list[float]] = {}
        self.labels: dict[str, dict[float, str]] = {}
        for rec in dictionary.to_dict("records"):
            name = rec["Variable"]
            miss = str(rec.get("Missing codes") or "")
            self.missing[name] = [float(x) for x in re.findall(r"(-?\d+)\s*=", miss)]
            codes = str(rec.get("Codes") or "")
            self.labels[name] = {
                float(k): v.strip() for k, v in re.findall(r"(-?\d+)\s*=\s*([^;]+)", codes)
            }

    def clean(self, col: str) -> pd.Series:
        s = pd.to_numeric(self.df[col], errors="coerce")
        return s.where(~s.isin(self.missing.get(col, [])))

    def mean(self, col: str, mask: pd.Series | None = None) -> float:
        s = self.clean(col)
        return float(s[mask].mean() if mask is not None else s.mean())

    def median(self, col: str, mask: pd.Series | None = None) -> float:
        s = self.clean(col)
        return float(s[mask].median() if mask is not None else s.median())

    def eq(self, col: str, *codes: float) -> pd.Series:
        return self.clean(col).isin(codes)

    def prop(
        self, col: str, codes: tuple[float, ...], mask: pd.Series | None = None
    ) -> tuple[int, int]:
        s = self.clean(col)
        if mask is not None:
            s = s[mask]
        known = s.dropna()
        return int(known.isin(codes).sum()), len(known)

    def by(self, group: str, fn: Callable[[pd.Series], Any]) -> dict[str, Any]:
        g = self.clean(group)
        out = {}
        for code in sorted(g.dropna().unique()):
            out[self.labels[group].get(code, str(code))] = fn(g == code)
        return out


def load_gold_frame(path: str | Path) -> Gold:
    data = pd.read_excel(path, sheet_name="Data", engine="calamine")
    dictionary = pd.read_excel(path, sheet_name="Data dictionary", engine="calamine").fillna("")
    return Gold(data, dictionary)


# -- scoring --------------------------------------------------------------------------------


def _close(a: Any, b: Any, tol: float = 0.05) -> bool:
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        return False
    if b == 0:
        return abs(a) < 1e-9
    return abs(a - b) <= tol * abs(b)


def score(q: Question, answer: Any, gold: Gold) -> tuple[str, str]:
    """('correct' | 'wrong' | 'abstained', why) for one answer (a clinbridge Answer)."""
    accepted = answer.decision == "accept"
    if q.kind == "abstain":
        return (
            ("correct", "abstained as expected")
            if not accepted
            else ("wrong", f"answered {answer.value!r}")
        )
    if not accepted:
        return "abstained", str(answer.reason)
    want = q.gold(gold) if q.gold else None
    value = answer.value
    if q.kind in {"number", "count"}:
        ok = _close(value, want)
        return ("correct" if ok else "wrong"), f"got {value!r}, gold {want!r}"
    if q.kind == "proportion":
        num, den = want
        d = answer.details
        stated = "numerator" in d and "denominator" in d
        ok = stated and _close(value, num / den) and d["denominator"] == den
        return (
            "correct" if ok else "wrong"
        ), f"got {value!r} ({d.get('numerator')}/{d.get('denominator')}), gold {num}/{den}"
    if q.kind in {"rows", "rows_proportion"}:
        if not isinstance(value, list):
            return "wrong", f"expected rows, got {value!r}"
        got: dict[str, Any] = {}
        for row in value:
            label = next((v for k, v in row.items() if isinstance(v, str)), None)
            got[str(label)] = row
        if set(got) != set(want):
            return "wrong", f"groups {sorted(got)} != gold {sorted(want)}"
        for label, w in want.items():
            row = got[label]
            if q.kind == "rows_proportion":
                num, den = w
                if row.get("denominator") != den or not _close(row.get("value"), num / den):
                    return "wrong", f"{label}: got {row}, gold {num}/{den}"
            elif not _close(row.get("value"), w):
                return "wrong", f"{label}: got {row.get('value')}, gold {w}"
        return "correct", "every group within 5 %"
    if q.kind == "list":
        ok = isinstance(value, list) and sorted(map(str, value)) == sorted(map(str, want))
        return ("correct" if ok else "wrong"), f"got {value!r}, gold {want!r}"
    return "wrong", f"unknown kind {q.kind}"
