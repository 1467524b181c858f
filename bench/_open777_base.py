"""Helpers of the open trial dev set on seed 777 (``bench/trial_open777.py``, batches 1-4)."""

from __future__ import annotations

from typing import Any

from bench.trial_gold import Gold

SEED, SUBJECTS, VARIABLES = 777, 530, 1290
ARM, TR, SEV = "Rand_Arm", "TRIAL", "HIE_GRADE"


def _count(mask: Any) -> int:
    return int(mask.sum())


def _change(g: Gold, later: str, earlier: str, mask: Any = None) -> float:
    d = g.clean(later) - g.clean(earlier)
    if mask is not None:
        d = d[mask]
    return float(d.dropna().mean())


def _cut(g: Gold, col: str, op: str, cut: float) -> Any:
    s = g.clean(col)
    return {"<": s < cut, ">": s > cut, ">=": s >= cut, "<=": s <= cut}[op]


def _one(g: Gold, sid: str, col: str) -> float:
    return float(g.clean(col)[g.df["SUBJ_ID"] == sid].iloc[0])
