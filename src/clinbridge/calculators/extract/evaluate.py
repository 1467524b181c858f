"""Held-out split and scoring of note extraction against MedCalc-Bench gold parameters.

The split is BY NOTE: a note's rows (one note can serve several calculators) all fall on the
same side, decided by a hash of the note text, so it is deterministic and independent of row
order. Training never sees a held-out note.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clinbridge.calculators.medcalc import (
    MedCalcRow,
    _takes_question,
    answer_matches,
    parse_entities,
    read_gold_parameters,
    run_row,
)
from clinbridge.errors import ClinbridgeError

if TYPE_CHECKING:
    from clinbridge.calculators.compile import Calculator
    from clinbridge.calculators.extract.base import Extractor
    from clinbridge.calculators.registry import Registry

__all__ = [
    "HELDOUT_BUCKETS",
    "Score",
    "corrected_match",
    "is_heldout",
    "score_rows",
    "values_agree",
    "with_gold",
]

HELDOUT_BUCKETS = 5
"""One note in five is held out (hash bucket 0)."""


def is_heldout(note: str) -> bool:
    """Whether a note belongs to the held-out part (deterministic, by the note's text)."""
    h = hashlib.sha256(" ".join(note.split()).encode("utf-8")).digest()
    return h[0] % HELDOUT_BUCKETS == 0


def _canon(calc: Calculator, name: str, raw: Any) -> Any:
    i = calc.spec.input(name)
    try:
        value, _unit, _shown = calc._coerce(i, raw)
    except ClinbridgeError:
        return None
    return value


def values_agree(a: Any, b: Any) -> bool:
    """Same value: numbers within 2 % (or 0.05 absolute), others equal."""
    if a is None or b is None:
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a) == bool(b) and isinstance(a, bool) == isinstance(b, bool)
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(float(a), float(b), rel_tol=0.02, abs_tol=0.05)
    return bool(a == b)


def gold_input_values(calc: Calculator, row: MedCalcRow) -> dict[str, Any]:
    """Gold values in canonical units; unlisted booleans are absent (the benchmark's rule)."""
    reading = read_gold_parameters(calc, parse_entities(row.entities))
    out = {n: _canon(calc, n, v) for n, v in reading.params.items()}
    for i in calc.spec.inputs:
        if i.name not in out and i.type == "boolean":
            out[i.name] = bool(i.absent()) if i.absent() is not None else False
    return out


@dataclass
class Score:
    """Counts for one extractor over a set of rows."""

    rows: int = 0
    params: int = 0
    params_matched: int = 0
    accepted: int = 0
    correct: int = 0
    seconds: float = 0.0
    by_category: dict[str, list[int]] = field(default_factory=dict)
    """category -> [rows, correct, params, params_matched]."""
    by_input_type: dict[str, list[int]] = field(default_factory=dict)
    """input type -> [params, params_matched]."""
    correct_corrected: int = 0
    """Rows right against the corrected labels (see :func:`score_rows`)."""
    by_category_corrected: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        """The figures as one line."""
        pm = self.params_matched / self.params if self.params else 0.0
        return (
            f"rows {self.rows}: parameter match {pm:.1%} ({self.params_matched}/{self.params}), "
            f"answered {self.accepted / max(self.rows, 1):.1%}, "
            f"correct {self.correct / max(self.rows, 1):.1%} ({self.correct}/{self.rows}), "
            f"against corrected labels {self.correct_corrected / max(self.rows, 1):.1%} "
            f"({self.correct_corrected}), "
            f"{self.seconds / max(self.rows, 1):.3f} s/note"
        )


def corrected_match(decision: str, answer: Any, row: MedCalcRow, corrected: Any) -> bool:
    """Whether an outcome agrees with a corrected label (``'abstain'``: the right outcome is to
    abstain; otherwise the corrected value, compared like the benchmark's label: integers
    exactly, decimals within 5 %, dates and (weeks, days) exactly)."""
    if str(corrected).strip().lower() == "abstain":
        return decision == "abstain"
    if decision != "accept":
        return False
    value = tuple(answer) if isinstance(answer, list) else answer
    fixed = row.model_copy(update={"answer": str(corrected), "lower": None, "upper": None})
    return answer_matches(value, fixed) is True


def with_gold(
    rows: Iterable[MedCalcRow], registry: Registry
) -> Iterator[tuple[MedCalcRow, Calculator, dict[str, Any]]]:
    """Each row whose calculator is known, with its calculator and gold input values; rows whose
    gold entities are themselves unreadable are passed over (not a fair test of extraction)."""
    for row in rows:
        calc = registry.find(row.calculator_id)
        if calc is None:
            continue
        try:
            gold = gold_input_values(calc, row)
        except ClinbridgeError:
            continue
        yield row, calc, gold


def score_rows(
    rows: Iterable[MedCalcRow],
    extractor: Extractor,
    registry: Registry,
    corrections: Mapping[str, Any] | None = None,
) -> tuple[Score, list[dict[str, Any]]]:
    """Run note mode on ``rows`` and compare parameters and answers with the gold ones.

    ``corrections`` maps ``'<file>:<Row Number>'`` keys (``train:9674``) to corrected labels
    (documented label errors): with it, ``Score.correct_corrected`` counts answers against the
    corrected labels (the label itself where no correction is known)."""
    corrections = corrections or {}
    score = Score()
    details: list[dict[str, Any]] = []
    for row, calc, gold in with_gold(rows, registry):
        t0 = time.perf_counter()
        if _takes_question(extractor):
            got = extractor.extract(row.note, calc, question=row.question)  # type: ignore[call-arg]
        else:
            got = extractor.extract(row.note, calc)
        extracted = dict(got)
        out = run_row(row, mode="note", registry=registry, extractor=_Fixed(extracted))
        score.seconds += time.perf_counter() - t0
        score.rows += 1
        cat = calc.spec.category or "other"
        c = score.by_category.setdefault(cat, [0, 0, 0, 0])
        c[0] += 1
        ok = out.decision == "accept" and out.match is True  # the computed value, not its JSON form
        score.accepted += out.decision == "accept"
        score.correct += ok
        c[1] += ok
        key = f"{'one_shot' if 'one_shot' in row.file else 'train'}:{row.row}"
        ok_fixed = (
            corrected_match(out.decision, out.answer, row, corrections[key])
            if key in corrections
            else ok
        )
        score.correct_corrected += ok_fixed
        score.by_category_corrected[cat] = score.by_category_corrected.get(cat, 0) + ok_fixed
        wrong: dict[str, Any] = {}
        for name, gv in gold.items():
            if gv is None:
                continue
            ev = _canon(calc, name, extracted[name]) if name in extracted else None
            agree = values_agree(ev, gv)
            t = calc.spec.input(name).type
            bt = score.by_input_type.setdefault(t, [0, 0])
            bt[0] += 1
            bt[1] += agree
            score.params += 1
            score.params_matched += agree
            c[2] += 1
            c[3] += agree
            if not agree:
                wrong[name] = {"gold": gv, "got": ev}
        details.append(
            {
                "row": row.row,
                "calculator_id": row.calculator_id,
                "decision": out.decision,
                "correct": ok,
                "answer": out.answer,
                "expected": row.answer,
                "reason": out.reason,
                "wrong": wrong,
            }
        )
    return score, details


class _Fixed:
    name = "fixed"

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params

    def extract(self, note: str, calculator: Calculator) -> dict[str, Any]:
        return self.params
