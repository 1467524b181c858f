"""MedCalc-Bench input and output: rows, gold parameters, answers and batch runs.

MedCalc-Bench CSVs carry, per row, the calculator, the patient note, the question, the gold
parameters (``Relevant Entities``, a Python-literal dict such as
``{'sex': 'Male', 'age': [87, 'years'], 'weight': [48.0, 'kg']}``) and the labelled answer with
its tolerance (``Lower Limit``/``Upper Limit``). In *gold* mode the parameters come from
``Relevant Entities``; in *note* mode an :class:`~clinbridge.calculators.extract.Extractor`
reads the note. Both modes share everything after that.

The gold parameters follow the benchmark's convention that a finding it does not list is
absent, so gold mode computes with ``missing="absent"`` (said in each explanation); other
sources (records, notes) use the spec's own policy and abstain on a missing required input.
"""

from __future__ import annotations

import ast
import csv
import datetime as dt
import logging
import math
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from clinbridge.calculators.compile import Calculator
from clinbridge.calculators.extract import Extractor, NoExtractor
from clinbridge.calculators.goldkeys import GoldTarget, resolve_gold_key
from clinbridge.calculators.registry import Registry, default_registry
from clinbridge.errors import CalculatorError, ClinbridgeError, LoadError

__all__ = [
    "GoldReading",
    "MedCalcRow",
    "RowOutcome",
    "answer_matches",
    "gold_parameters",
    "parse_entities",
    "read_gold_parameters",
    "read_medcalc_csv",
    "run_row",
    "run_rows",
]

logger = logging.getLogger(__name__)

Mode = Literal["gold", "note"]
REQUIRED_COLUMNS = ("Row Number", "Calculator ID", "Patient Note", "Relevant Entities")


class MedCalcRow(BaseModel):
    """One benchmark row (the columns clinbridge uses)."""

    model_config = ConfigDict(frozen=True)

    row: str
    calculator_id: int
    calculator_name: str = ""
    note: str = ""
    question: str = ""
    entities: str = ""
    answer: str | None = None
    lower: str | None = None
    upper: str | None = None
    output_type: str | None = None
    file: str = ""


class RowOutcome(BaseModel):
    """One output line of a batch run."""

    model_config = ConfigDict(frozen=True)

    row: str
    calculator_id: int
    answer: Any = None
    decision: Literal["accept", "abstain"]
    parameters: dict[str, Any] = {}
    explanation: str = ""
    reason: str | None = None
    """Abstention reason: an error code and message."""
    ignored: list[dict[str, Any]] = []
    """Gold entities of another calculator that the spec declares foreign: dropped, with why."""
    reinterpreted: list[dict[str, Any]] = []
    """Gold units read through the spec's declared MedCalc-Bench shorthands, with why."""
    evidence: list[dict[str, Any]] = []
    """Note mode: where each extracted value came from (span, text, method, assertion)."""
    expected: str | None = None
    match: bool | None = None
    """Whether the answer is within the label's limits (``None``: abstained or no label)."""

    def to_json_dict(self) -> dict[str, Any]:
        """The result as plain JSON types."""
        return self.model_dump(mode="json")


def read_medcalc_csv(
    path: str | Path, *, mode: Mode = "gold", registry: Registry | None = None
) -> Iterator[MedCalcRow]:
    """Read a MedCalc-Bench CSV.

    Gold mode needs ``Row Number``, ``Calculator ID``, ``Patient Note`` and ``Relevant
    Entities``. Note mode reads only what a user has: ``Patient Note`` and the calculator
    (``Calculator ID`` or ``Calculator Name``); ``Question``, ``Row Number`` and the label
    columns are optional (a missing row number is the file's line number).

    Raises:
        LoadError: a required column is missing, a Calculator ID is not a number or a
            Calculator Name matches no calculator (names file, record, field).
    """
    p = Path(path)
    with p.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        fields = reader.fieldnames or []
        if mode == "gold":
            missing = [c for c in REQUIRED_COLUMNS if c not in fields]
        else:
            missing = [] if "Patient Note" in fields else ["Patient Note"]
            if "Calculator ID" not in fields and "Calculator Name" not in fields:
                missing.append("Calculator ID or Calculator Name")
        if missing:
            raise LoadError(f"not a MedCalc-Bench file: missing column(s) {missing}", file=str(p))
        for n, rec in enumerate(reader, start=2):
            row = rec.get("Row Number") or str(n)
            if not (rec.get("Calculator ID") or "").strip() and rec.get("Calculator Name"):
                found = (registry or default_registry()).find(rec["Calculator Name"])
                if found is None:
                    raise LoadError(
                        f"Calculator Name matches no calculator: {rec['Calculator Name']!r}",
                        file=str(p),
                        record=row,
                        field="Calculator Name",
                    )
                rec["Calculator ID"] = str(found.id)
            try:
                cid = int(float(rec["Calculator ID"]))
            except (TypeError, ValueError) as exc:
                raise LoadError(
                    f"Calculator ID is not a number: {rec['Calculator ID']!r}",
                    file=str(p),
                    record=row,
                    field="Calculator ID",
                ) from exc
            yield MedCalcRow(
                row=row,
                calculator_id=cid,
                calculator_name=rec.get("Calculator Name") or "",
                note=rec.get("Patient Note") or "",
                question=rec.get("Question") or "",
                entities=rec.get("Relevant Entities") or "",
                answer=rec.get("Ground Truth Answer"),
                lower=rec.get("Lower Limit"),
                upper=rec.get("Upper Limit"),
                output_type=rec.get("Output Type"),
                file=str(p),
            )


def parse_entities(
    text: str, *, file: str | None = None, record: str | None = None
) -> dict[str, Any]:
    """Parse a ``Relevant Entities`` cell (a Python literal, read with ``ast.literal_eval``).

    Raises:
        LoadError: not a literal dict.
    """
    try:
        value = ast.literal_eval(text.strip()) if text.strip() else {}
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        raise LoadError(
            f"Relevant Entities is not a Python literal: {exc}",
            file=file,
            record=record,
            field="Relevant Entities",
        ) from exc
    if not isinstance(value, dict):
        raise LoadError(
            "Relevant Entities is not a dict", file=file, record=record, field="Relevant Entities"
        )
    return {str(k): v for k, v in value.items()}


class GoldReading(BaseModel):
    """Gold parameters mapped to a calculator's inputs, with what was adjusted and why."""

    model_config = ConfigDict(frozen=True)

    params: dict[str, Any]
    ignored: list[dict[str, Any]] = []
    """``{"key", "value", "why"}`` for each entity the spec declares foreign (``medcalc_foreign``)."""
    reinterpreted: list[dict[str, Any]] = []
    """``{"input", "given", "read_as", "why"}`` for each unit read as a declared shorthand."""

    def notes(self) -> list[str]:
        """One line per adjustment, for the explanation."""
        out = [
            f"gold entity {i['key']!r} = {i['value']!r} ignored (belongs to another calculator): "
            f"{i['why']}"
            for i in self.ignored
        ]
        out += [
            f"{r['input']}: gold unit {r['given']!r} read as {r['read_as']!r} (MedCalc-Bench "
            f"shorthand): {r['why']}"
            if r.get("kind", "unit") == "unit"
            else f"{r['input']}: gold entity {r['given']} read as {r['read_as']}: {r['why']}"
            for r in self.reinterpreted
        ]
        return out


def read_gold_parameters(calc: Calculator, entities: Mapping[str, Any]) -> GoldReading:
    """Map MedCalc-Bench gold entities to the calculator's inputs.

    A key matches an input by name, label or alias. A ``[name, dose, unit]`` list (steroid and
    opioid doses) fills the inputs aliased ``<key>#name`` and ``<key>#dose``. Two declared,
    benchmark-only adjustments are applied and reported (never silently): keys the spec lists in
    ``medcalc_foreign`` (entities of another calculator) are dropped, and a unit an input lists
    in ``medcalc_units`` is read as the unit it stands for in the benchmark.

    Raises:
        CalculatorError: a key matches no input and is not declared foreign
            (``details['field']``).
    """
    foreign = {f.key.strip(): f.why for f in calc.spec.medcalc_foreign}
    params: dict[str, Any] = {}
    ignored: list[dict[str, Any]] = []
    reinterpreted: list[dict[str, Any]] = []
    combined: list[tuple[str, Any, GoldTarget]] = []

    def put(name: str, value: Any) -> None:
        value, note = _read_shorthand(calc, name, value)
        if note is not None:
            reinterpreted.append(note)
        params[name] = value

    for key, value in entities.items():
        if isinstance(value, list | tuple) and len(value) == 3 and isinstance(value[0], str):
            n_in, d_in = calc.resolve_name(f"{key}#name"), calc.resolve_name(f"{key}#dose")
            if n_in and d_in:
                params[n_in] = value[0]
                put(d_in, [value[1], value[2]])
                continue
        name = calc.resolve_name(key)
        if name is not None:
            put(name, _plain(value))
            continue
        if key.strip() in foreign:
            ignored.append({"key": key, "value": _jsonable(value), "why": foreign[key.strip()]})
            continue
        target, candidates = resolve_gold_key(calc, key)
        if target is None:
            if candidates:
                raise CalculatorError(
                    f"{calc.name}: gold entity {key!r} is ambiguous: it may name "
                    f"{', '.join(candidates)}",
                    field=key,
                    calculator_id=calc.id,
                    candidates=candidates,
                )
            raise CalculatorError(
                f"{calc.name}: gold entity {key!r} matches no input",
                field=key,
                calculator_id=calc.id,
            )
        if target.negated:
            flag = _truth(value)
            if flag is None:
                raise CalculatorError(
                    f"{calc.name}: gold entity {key!r} names the opposite of "
                    f"{target.inputs[0]} but is not true/false: {value!r}",
                    field=key,
                    calculator_id=calc.id,
                )
            params[target.inputs[0]] = not flag
            reinterpreted.append(
                {
                    "kind": "negated",
                    "input": target.inputs[0],
                    "given": f"{key} = {value!r}",
                    "read_as": f"{target.inputs[0]} = {not flag}",
                    "why": f"{key!r} names the opposite finding of {target.inputs[0]}",
                }
            )
            continue
        if not target.combined:
            put(target.inputs[0], _plain(value))
            continue
        combined.append((key, value, target))
    for key, value, target in combined:
        _put_combined(calc, key, value, target, params, reinterpreted)
    return GoldReading(params=params, ignored=ignored, reinterpreted=reinterpreted)


def _put_combined(
    calc: Calculator,
    key: str,
    value: Any,
    target: GoldTarget,
    params: dict[str, Any],
    reinterpreted: list[dict[str, Any]],
) -> None:
    """A combined criterion ('A or B'): false sets every part false; true sets one part true.

    Only for a criterion scored as an ``or`` of boolean inputs that no other rule reads, where
    which part holds cannot change the result; otherwise the row abstains with the reason.
    """
    parts = " or ".join(target.inputs)
    flag = _truth(value)
    if flag is None:
        raise CalculatorError(
            f"{calc.name}: gold entity {key!r} (combined criterion {parts}) is not true/false: "
            f"{value!r}",
            field=key,
            calculator_id=calc.id,
        )
    if not flag:
        for n in target.inputs:
            params.setdefault(n, False)
        return
    if any(params.get(n) is True or _truth(params.get(n)) for n in target.inputs):
        return
    if target.shared:
        raise CalculatorError(
            f"{calc.name}: gold entity {key!r} says at least one of {parts} holds, but "
            f"{', '.join(target.shared)} also count elsewhere in the score, so which one matters",
            field=key,
            calculator_id=calc.id,
        )
    first = target.inputs[0]
    params[first] = True
    reinterpreted.append(
        {
            "kind": "combined",
            "input": first,
            "given": f"{key} = {value!r}",
            "read_as": f"{first} = True",
            "why": f"combined criterion ({target.via!r}) scored as 'at least one of {parts}'; "
            "which part holds does not change the score",
        }
    )


def _truth(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in {"true", "yes", "present", "1"}:
        return True
    if isinstance(value, str) and value.strip().lower() in {"false", "no", "absent", "0"}:
        return False
    return None


def gold_parameters(calc: Calculator, entities: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of :func:`read_gold_parameters` (adjustments applied, not reported)."""
    return read_gold_parameters(calc, entities).params


def _read_shorthand(calc: Calculator, name: str, value: Any) -> tuple[Any, dict[str, Any] | None]:
    """Apply the input's declared MedCalc-Bench unit shorthand to a ``[value, unit]`` pair."""
    inp = calc.spec.input(name)
    if not inp.medcalc_units or not (isinstance(value, list | tuple) and len(value) == 2):
        return value, None
    number, unit = value
    if not isinstance(unit, str):
        return value, None
    for sh in inp.medcalc_units:
        if unit.strip() == sh.unit.strip():
            note = {"input": name, "given": unit, "read_as": sh.means, "why": sh.why}
            return [number, sh.means], note
    return value, None


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    return value


def answer_matches(value: Any, row: MedCalcRow) -> bool | None:
    """Whether a computed answer agrees with the row's label (within its limits for decimals)."""
    if row.answer is None or row.answer == "":
        return None
    gt = row.answer.strip()
    if isinstance(value, tuple):
        try:
            parsed = ast.literal_eval(gt)
            w, d = (int(str(x).split()[0]) for x in parsed)
        except (ValueError, SyntaxError, TypeError, IndexError):
            return False
        return (w, d) == tuple(value)
    if isinstance(value, str):
        return _same_date(value, gt)
    try:
        v = float(value)
        lo = float(row.lower) if row.lower not in (None, "") else float(gt)
        hi = float(row.upper) if row.upper not in (None, "") else float(gt)
    except (TypeError, ValueError):
        return False
    if isinstance(value, int):
        return math.isclose(v, float(gt), abs_tol=1e-9)
    lo, hi = min(lo, hi), max(lo, hi)
    if lo == hi:
        # A few v1.0 rows carry Lower = Upper for a decimal answer; MedCalc-Bench's rule for
        # decimal answers is the label ±5% (what every other decimal row encodes).
        lo, hi = sorted((float(gt) * 0.95, float(gt) * 1.05))
    return lo - 1e-9 <= v <= hi + 1e-9


def _same_date(a: str, b: str) -> bool:
    try:
        da = dt.datetime.strptime(a.strip(), "%m/%d/%Y").date()
        db = dt.datetime.strptime(b.strip(), "%m/%d/%Y").date()
    except ValueError:
        return a.strip() == b.strip()
    return da == db


def run_row(
    row: MedCalcRow,
    *,
    mode: Mode = "gold",
    registry: Registry | None = None,
    extractor: Extractor | None = None,
) -> RowOutcome:
    """Compute one row; never raises for a bad row (it abstains with the reason)."""
    reg = registry or default_registry()
    params: dict[str, Any] = {}
    evidence: list[dict[str, Any]] = []
    gold: GoldReading | None = None

    def adjustments() -> dict[str, Any]:
        if gold is None:
            return {}
        return {"ignored": gold.ignored, "reinterpreted": gold.reinterpreted}

    def abstain(reason: str) -> RowOutcome:
        return RowOutcome(
            row=row.row,
            calculator_id=row.calculator_id,
            decision="abstain",
            parameters=_jsonable(params),
            reason=reason,
            evidence=evidence,
            expected=row.answer,
            **adjustments(),
        )

    calc = reg.find(row.calculator_id)
    if calc is None:
        return abstain(f"calculator: no spec for calculator id {row.calculator_id}")
    try:
        if mode == "gold":
            entities = parse_entities(row.entities, file=row.file, record=row.row)
            gold = read_gold_parameters(calc, entities)
            params = gold.params
            missing: Literal["spec", "absent"] = "absent"
        else:
            ext = extractor or NoExtractor()
            if _takes_question(ext):
                got = ext.extract(row.note, calc, question=row.question)  # type: ignore[call-arg]
            else:
                got = ext.extract(row.note, calc)
            params = dict(got)
            evidence = [e.to_json_dict() for e in getattr(got, "evidence", {}).values()]
            missing = "spec"
        result = calc.compute(params, missing=missing)
    except ClinbridgeError as exc:
        return abstain(f"{exc.code}: {exc}")
    explanation = result.explanation()
    if gold is not None:
        explanation += (
            "\nNote: findings not listed in the gold parameters are taken as absent "
            "(MedCalc-Bench convention)."
        )
        explanation += "".join(f"\nNote: {n}" for n in gold.notes())
    return RowOutcome(
        row=row.row,
        calculator_id=row.calculator_id,
        answer=_jsonable(result.value),
        decision="accept",
        parameters=_jsonable(params),
        explanation=explanation,
        evidence=evidence,
        expected=row.answer,
        match=answer_matches(result.value, row),
        **adjustments(),
    )


def _takes_question(extractor: Extractor) -> bool:
    """Whether an extractor's ``extract`` accepts the row's question (``question=``)."""
    import inspect

    try:
        return "question" in inspect.signature(extractor.extract).parameters
    except (TypeError, ValueError):
        return False


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dt.date):
        return value.strftime("%m/%d/%Y")
    return value


def run_rows(
    rows: Iterable[MedCalcRow],
    *,
    mode: Mode = "gold",
    registry: Registry | None = None,
    extractor: Extractor | None = None,
) -> Iterator[RowOutcome]:
    """Compute every row (see :func:`run_row`), logging throughput at the end."""
    start, n = time.perf_counter(), 0
    for row in rows:
        n += 1
        yield run_row(row, mode=mode, registry=registry, extractor=extractor)
    logger.info("medcalc: %d rows in %.2f s", n, time.perf_counter() - start)
