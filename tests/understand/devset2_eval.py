"""Score the understanding on devset2 (shared by ``bench/bench_understand_open.py`` and the tests).

Outcomes, per question:

* ``correct`` — an answerable question accepted with the gold value (numbers within the row's
  tolerance, dates to the day, lists and tables exact after normalising case and number format,
  yes/no as a boolean or yes/no word);
* ``abstained_ok`` — gold ``abstain`` and the answer abstained; gold ``ambiguous`` and the answer
  abstained (any reason) or reported itself ambiguous (reason/reason code ``ambiguous`` or a
  non-empty ``alternatives`` list);
* ``wrong`` — accepted with a value that is not the gold, or any accepted answer to an
  unanswerable or ambiguous question (a *wrong answer accepted*);
* ``abstained`` — an answerable question not answered (abstain, or an error raised).

The scorer reads answers duck-typed (attributes or dict keys), so new ``Answer`` fields (e.g.
``alternatives``, a decision other than accept/abstain) do not break it: anything that is not
``accept`` is a non-answer.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import math
import re
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEVSET2_DIR = Path(__file__).resolve().parents[1] / "data" / "devset2"
OUTCOMES = ("correct", "abstained_ok", "wrong", "abstained")


def load_devset2(split: str = "dev") -> list[dict[str, Any]]:
    """Questions of ``split``: ``dev`` (open), ``sealed`` (do not read by hand) or ``all``."""
    rows: list[dict[str, Any]] = []
    if split in ("dev", "all"):
        text = (DEVSET2_DIR / "dev.jsonl").read_text(encoding="utf-8")
        rows += [json.loads(x) for x in text.splitlines() if x.strip()]
    if split in ("sealed", "all"):
        with gzip.open(DEVSET2_DIR / "sealed.jsonl.gz", "rt", encoding="utf-8") as fh:
            rows += [json.loads(x) for x in fh.read().splitlines() if x.strip()]
    if split not in ("dev", "sealed", "all"):
        raise ValueError(f"split must be dev, sealed or all, not {split!r}")
    return rows


# ----------------------------------------------------------------------------- reading answers
def _get(answer: Any, name: str, default: Any = None) -> Any:
    if isinstance(answer, dict):
        return answer.get(name, default)
    return getattr(answer, name, default)


def decision_of(answer: Any) -> str:
    return str(_get(answer, "decision", "abstain") or "abstain")


def is_ambiguous(answer: Any) -> bool:
    """The answer says the question is ambiguous (reason, reason code or alternatives)."""
    for name in ("reason_code", "reason", "decision"):
        v = _get(answer, name)
        if isinstance(v, str) and "ambiguous" in v.lower():
            return True
    alts = _get(answer, "alternatives")
    if alts:
        return True
    details = _get(answer, "details") or {}
    return bool(isinstance(details, dict) and details.get("alternatives"))


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int | float):
        return None if isinstance(v, float) and math.isnan(v) else float(v)
    if isinstance(v, str):
        try:
            return float(v.strip().rstrip("%"))
        except ValueError:
            return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _scalar(value: Any) -> Any:
    """One value out of a one-element list, a one-row/one-column table or a one-key dict."""
    for _ in range(3):
        if isinstance(value, list | tuple) and len(value) == 1:
            value = value[0]
        elif isinstance(value, dict) and len(value) == 1:
            value = next(iter(value.values()))
        else:
            break
    return value


_SEX = {
    "f": "female",
    "m": "male",
    "woman": "female",
    "women": "female",
    "man": "male",
    "men": "male",
}


def norm_key(k: Any) -> str:
    if isinstance(k, bool):
        return str(k).lower()
    if isinstance(k, float) and k.is_integer():
        k = int(k)
    if isinstance(k, dt.date):
        k = k.isoformat()
    s = re.sub(r"\s+", " ", str(k).replace("\u200b", "")).strip().lower()
    if re.fullmatch(r"-?\d+\.0+", s):
        s = s.split(".")[0]
    return _SEX.get(s, s)


def _values_of(answer: Any) -> Any:
    value = _get(answer, "value")
    if value is None:
        rows = _get(answer, "rows") or []
        cols = _get(answer, "columns") or []
        if rows and cols:
            value = [dict(zip(cols, r, strict=False)) for r in rows]
        elif rows:
            value = rows
    return value


def _table(value: Any) -> dict[str, float] | None:
    """A grouped answer (dict, list of row dicts, list of [key, value] rows) → {key: number}."""
    if isinstance(value, dict):
        out = {norm_key(k): _num(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v is not None}
    if not isinstance(value, list) or not value:
        return None
    out: dict[str, float] = {}
    for row in value:
        cells = (
            list(row.values())
            if isinstance(row, dict)
            else list(row)
            if isinstance(row, list | tuple)
            else None
        )
        if not cells or len(cells) < 2:
            return None
        n = _num(cells[-1])
        if n is None:
            return None
        key = " ".join(norm_key(c) for c in cells[:-1])
        out[key] = n
    return out


def _items(value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple):
        value = [value]
    out = []
    for x in value:
        if isinstance(x, dict):
            x = next(iter(x.values()), None)
        elif isinstance(x, list | tuple):
            x = x[0] if x else None
        out.append(norm_key(x))
    return sorted(set(out))


def value_matches(row: dict[str, Any], answer: Any) -> bool:
    """Does an accepted answer carry the row's gold value?"""
    gold, kind = row["gold"], row["answer_type"]
    value = _values_of(answer)
    if kind == "table":
        got = _table(value)
        want = {norm_key(k): float(v) for k, v in gold.items()}
        if got is None:
            return False
        got = {
            k: v for k, v in got.items() if k not in {"none", "null", "unknown", "nan"} or k in want
        }
        return got.keys() == want.keys() and all(
            math.isclose(got[k], want[k], rel_tol=1e-4, abs_tol=1e-6) for k in want
        )
    if kind == "list":
        got_items = _items(value)
        return got_items is not None and got_items == sorted({norm_key(x) for x in gold})
    value = _scalar(value)
    if kind == "yesno":
        if isinstance(value, str) and value.strip().lower() in {"yes", "no", "true", "false"}:
            value = value.strip().lower() in {"yes", "true"}
        return isinstance(value, bool) and value is bool(gold)
    if kind == "date":
        if isinstance(value, dt.datetime):
            value = value.date()
        if isinstance(value, dt.date):
            value = value.isoformat()
        return isinstance(value, str) and value[:10] == str(gold)[:10]
    v, g = _num(value), _num(gold)
    if v is None or g is None:
        return False
    tol = row.get("tol")
    if kind == "count":
        return abs(v - g) < 1e-9
    if tol is not None:
        ok = abs(v - g) <= tol + 1e-12
        if not ok and row.get("unit") == "fraction":
            ok = abs(v / 100.0 - g) <= tol + 1e-12
        return ok
    return math.isclose(v, g, rel_tol=1e-4, abs_tol=1e-6)


def names_missing(row: dict[str, Any], answer: Any) -> bool:
    """Heuristic: the abstention's reason mentions a content word of what the gold says is missing."""
    reason = " ".join(str(_get(answer, n) or "") for n in ("reason", "reason_code")).lower()
    head = str(row.get("missing") or "").split("(")[0].lower()
    words = [w for w in re.findall(r"[a-z0-9]+", head) if len(w) >= 3 and w not in _STOP]
    return bool(words) and any(w in reason for w in words)


_STOP = {
    "the",
    "and",
    "which",
    "values",
    "value",
    "drug",
    "class",
    "not",
    "any",
    "such",
    "this",
    "source",
}


@dataclass
class Outcome:
    id: str
    group: str
    db: str
    voice: str
    category: str
    answer_type: str
    split: str
    answerable: bool
    outcome: str
    decision: str
    seconds: float
    value: Any = None
    gold: Any = None
    reason: str | None = None
    names_missing: bool | None = None

    @property
    def answered(self) -> bool:
        return self.decision == "accept"


def score_answer(row: dict[str, Any], answer: Any, seconds: float = 0.0) -> Outcome:
    """Score one answer (an ``Answer``, its dict, or None for an error) against one devset2 row."""
    decision = decision_of(answer) if answer is not None else "error"
    accepted = decision == "accept"
    kind = row["answer_type"]
    named: bool | None = None
    if kind in ("abstain", "ambiguous"):
        if accepted:
            outcome = "wrong"
        else:
            outcome = "abstained_ok"
            named = names_missing(row, answer) if answer is not None else False
    elif accepted:
        outcome = "correct" if value_matches(row, answer) else "wrong"
    else:
        outcome = "abstained"
    if kind == "ambiguous" and accepted and answer is not None and is_ambiguous(answer):
        outcome = "abstained_ok"
    return Outcome(
        id=row["id"],
        group=row["group"],
        db=row["db"],
        voice=row["voice"],
        category=row["category"],
        answer_type=kind,
        split=row.get("split", "dev"),
        answerable=bool(row["answerable"]),
        outcome=outcome,
        decision=decision,
        seconds=seconds,
        value=_values_of(answer) if answer is not None else None,
        gold=row.get("gold"),
        reason=_get(answer, "reason") if answer is not None else "error",
        names_missing=named,
    )


def ask_all(conn: Any, rows: Iterable[dict[str, Any]]) -> list[Outcome]:
    """Ask each question through a clinbridge Connection (public API) and score it."""
    out: list[Outcome] = []
    for r in rows:
        start = time.perf_counter()
        try:
            answer = conn.ask(r["question"], patient_id=r.get("patient_id"), now=r.get("now"))
        except Exception as exc:  # an error is a non-answer, reported
            answer = {"decision": "error", "reason": f"{type(exc).__name__}: {exc}"}
        out.append(score_answer(r, answer, time.perf_counter() - start))
    return out


# ----------------------------------------------------------------------------- figures
def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))
    return s[k]


def figures(outcomes: list[Outcome]) -> dict[str, Any]:
    n = len(outcomes)
    if not n:
        return {"n": 0}
    correct = sum(o.outcome in ("correct", "abstained_ok") for o in outcomes)
    answered = sum(o.answered for o in outcomes)
    unans = [o for o in outcomes if not o.answerable]
    ans = [o for o in outcomes if o.answerable]
    return {
        "n": n,
        "accuracy": correct / n,
        "coverage": answered / n,
        "wrong_accepted": sum(o.outcome == "wrong" for o in outcomes),
        "unanswerable_accepted": sum(o.answered for o in unans),
        "correct_answers": sum(o.outcome == "correct" for o in outcomes),
        "correct_abstentions": sum(o.outcome == "abstained_ok" for o in outcomes),
        "missed": sum(o.outcome == "abstained" for o in outcomes),
        "abstentions_naming_missing": sum(bool(o.names_missing) for o in unans),
        "answerable": len(ans),
        "answerable_accuracy": (
            sum(o.outcome == "correct" for o in ans) / len(ans) if ans else float("nan")
        ),
        "unanswerable": len(unans),
        "unanswerable_abstained": (
            sum(o.outcome == "abstained_ok" for o in unans) / len(unans) if unans else float("nan")
        ),
    }


def breakdown(outcomes: list[Outcome], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[str(getattr(o, key))].append(o)
    out = {k: figures(v) for k, v in sorted(groups.items())}
    out["ALL"] = figures(outcomes)
    return out


def paraphrase_consistency(outcomes: list[Outcome]) -> dict[str, Any]:
    """Groups whose phrasings all had the same outcome (all correct, or all the same failure)."""
    groups: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[o.group].append(o)
    same = [g for g, os_ in groups.items() if len({o.outcome for o in os_}) == 1]
    all_right = [
        g for g, os_ in groups.items() if all(o.outcome in ("correct", "abstained_ok") for o in os_)
    ]
    return {
        "groups": len(groups),
        "consistent": len(same),
        "consistent_rate": len(same) / len(groups) if groups else float("nan"),
        "all_correct": len(all_right),
        "all_correct_rate": len(all_right) / len(groups) if groups else float("nan"),
    }


def latency(outcomes: list[Outcome]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name, sel in (
        ("answered", [o.seconds for o in outcomes if o.answered]),
        ("abstained", [o.seconds for o in outcomes if not o.answered]),
        ("all", [o.seconds for o in outcomes]),
    ):
        out[name] = {
            "n": len(sel),
            "p50_ms": percentile(sel, 0.5) * 1000,
            "p95_ms": percentile(sel, 0.95) * 1000,
            "max_ms": max(sel) * 1000 if sel else float("nan"),
        }
    return out


def _pc(v: float) -> str:
    return "-" if math.isnan(v) else f"{v:.1%}"


def format_breakdown(table: dict[str, dict[str, Any]], title: str) -> str:
    lines = [
        title,
        f"{'group':34s} {'n':>4s} {'accuracy':>9s} {'ans.acc':>8s} {'coverage':>9s} {'wrong':>6s} "
        f"{'unans.acc':>9s} {'missed':>7s}",
    ]
    for name in sorted(table, key=lambda k: (k == "ALL", k)):
        t = table[name]
        lines.append(
            f"{name:34s} {t['n']:4d} {t['accuracy']:9.1%} {_pc(t['answerable_accuracy']):>8s} "
            f"{t['coverage']:9.1%} "
            f"{t['wrong_accepted']:6d} {t['unanswerable_accepted']:9d} {t['missed']:7d}"
        )
    return "\n".join(lines)


def _keyed(o: Outcome, key: str) -> Outcome:
    from dataclasses import replace

    return replace(o, category=key)


@dataclass
class Run:
    outcomes: list[Outcome] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        o = self.outcomes
        return {
            "overall": figures(o),
            "by_split": breakdown(o, "split"),
            "by_db": breakdown(o, "db"),
            "by_category": breakdown(o, "category"),
            "by_voice": breakdown(o, "voice"),
            "by_answer_type": breakdown(o, "answer_type"),
            "by_db_category": breakdown([_keyed(x, f"{x.db}/{x.category}") for x in o], "category"),
            "paraphrase": paraphrase_consistency(o),
            "latency": latency(o),
        }
