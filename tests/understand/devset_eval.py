"""Run the understanding dev set end to end and score it (shared by tests and bench).

A question is *correct* when an answerable one is accepted with the gold value, or an
unanswerable one is abstained on; *covered* when it is accepted; *wrong* when accepted with a
value that is not the gold (for unanswerable questions: accepted at all).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEVSET_DIR = Path(__file__).resolve().parents[1] / "data" / "devset"


def load_devset(name: str) -> list[dict[str, Any]]:
    path = DEVSET_DIR / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _num(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v)
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6)


def _group_map(value: Any) -> dict[str, float] | None:
    """A group-by answer (list of row dicts, or a dict) → {group: number}."""
    if isinstance(value, dict):
        return {str(k).lower(): float(v) for k, v in value.items() if _num(v) is not None}
    if not isinstance(value, list) or not value or not isinstance(value[0], dict):
        return None
    out: dict[str, float] = {}
    for row in value:
        keys = [
            k
            for k, v in row.items()
            if not (isinstance(v, int | float) and not isinstance(v, bool))
            or k in {"year", "group", "sex", "key"}
        ]
        nums = [k for k, v in row.items() if k not in keys and _num(v) is not None]
        if not keys or not nums:
            return None
        k = row[keys[0]]
        if isinstance(k, float) and k.is_integer():
            k = int(k)
        out[str(k).lower()] = float(row[nums[-1]])
    return out


def matches(value: Any, gold: Any, category: str = "") -> bool:
    if isinstance(gold, bool):
        return isinstance(value, bool) and value == gold
    if isinstance(gold, dict):
        got = _group_map(value)
        if got is None:
            return False
        want = {str(k).lower(): float(v) for k, v in gold.items()}
        got = {k: v for k, v in got.items() if k not in {"none", "null", "unknown"} or k in want}
        return got.keys() == want.keys() and all(_close(got[k], want[k]) for k in want)
    if isinstance(gold, list):
        if not isinstance(value, list):
            value = [value]
        norm = lambda xs: sorted({str(x).strip().lower() for x in xs})  # noqa: E731
        return norm(value) == norm(gold)
    if isinstance(gold, str):
        if isinstance(value, dt.date):
            value = value.isoformat()
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        return isinstance(value, str) and value[:10] == gold[:10]
    g = _num(gold)
    v = _num(value)
    if g is None or v is None:
        return False
    if _close(v, g):
        return True
    return category == "proportion" and _close(v / 100.0, g)


@dataclass
class Outcome:
    id: str
    category: str
    split: str
    answerable: bool
    decision: str
    correct: bool
    wrong: bool
    seconds: float
    value: Any = None
    gold: Any = None
    reason: str | None = None


@dataclass
class Score:
    outcomes: list[Outcome] = field(default_factory=list)

    def table(self, key: str = "category") -> dict[str, dict[str, float]]:
        groups: dict[str, list[Outcome]] = defaultdict(list)
        for o in self.outcomes:
            groups[getattr(o, key)].append(o)
        groups["ALL"] = list(self.outcomes)
        out: dict[str, dict[str, float]] = {}
        for name, os_ in groups.items():
            n = len(os_)
            out[name] = {
                "n": n,
                "accuracy": sum(o.correct for o in os_) / n if n else 0.0,
                "coverage": sum(o.decision == "accept" for o in os_) / n if n else 0.0,
                "wrong_accepted": sum(o.wrong for o in os_),
                "unanswerable_accepted": sum(
                    o.decision == "accept" and not o.answerable for o in os_
                ),
            }
        return out


def evaluate(conn: Any, rows: Iterable[dict[str, Any]]) -> Score:
    """Ask every question through ``conn`` (a clinbridge Connection) and score the answers."""
    score = Score()
    for r in rows:
        start = time.perf_counter()
        answer = conn.ask(r["question"], patient_id=r.get("patient_id"), now=r.get("now"))
        seconds = time.perf_counter() - start
        accepted = answer.decision == "accept"
        if r["answerable"]:
            correct = accepted and matches(answer.value, r["gold"], r["category"])
            wrong = accepted and not correct
        else:
            correct = not accepted
            wrong = accepted
        score.outcomes.append(
            Outcome(
                r["id"],
                r["category"],
                r.get("split", "dev"),
                r["answerable"],
                answer.decision,
                correct,
                wrong,
                seconds,
                answer.value,
                r.get("gold"),
                answer.reason,
            )
        )
    return score


def format_table(table: dict[str, dict[str, float]], title: str) -> str:
    lines = [
        title,
        f"{'group':18s} {'n':>4s} {'accuracy':>9s} {'coverage':>9s} {'wrong':>6s} {'unans.acc':>9s}",
    ]
    for name in sorted(table, key=lambda k: (k == "ALL", k)):
        t = table[name]
        lines.append(
            f"{name:18s} {int(t['n']):4d} {t['accuracy']:9.1%} {t['coverage']:9.1%} "
            f"{int(t['wrong_accepted']):6d} {int(t['unanswerable_accepted']):9d}"
        )
    return "\n".join(lines)
