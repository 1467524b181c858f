"""LLM-drafted calculator specs: draft, compile, check against examples, repair, cache.

A configured LLM (anything with ``complete(messages) -> str``) is shown the spec format, a
worked spec, the calculator's rule text and its worked examples, and asked for a YAML spec. The
draft is validated (:func:`~clinbridge.calculators.spec.parse_spec`), compiled (whitelisted
expressions only) and run on every example. Failures go back to the LLM as structured messages
(error code, location, expected vs got) for at most ``max_repairs`` repair rounds. The LLM's
text is never executed.

A draft is ACCEPTED (returned as passing, cached) only when it also

* passes at least ``min_held_out`` (3) worked examples that were NOT shown in the drafting
  prompt (``held_out``; a failure is reported to the LLM only as a count, never the example),
* and its result depends on every declared input: for each input some change of its value
  (flip, scale, other category, shifted date) changes the result on some example — a spec that
  declares an input and ignores it fails with ``ignores_input``.
"""

from __future__ import annotations

import hashlib
import logging
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import orjson
import yaml
from pydantic import BaseModel, ConfigDict

from clinbridge.calculators.compile import Calculator, compile_spec
from clinbridge.calculators.registry import SPEC_DIR
from clinbridge.calculators.spec import Spec, parse_spec
from clinbridge.errors import ClinbridgeError, LLMError

__all__ = [
    "DraftAttempt",
    "DraftFailure",
    "DraftResult",
    "LLMClient",
    "SpecCache",
    "SpecExample",
    "check_dependence",
    "check_examples",
    "draft_spec",
]

logger = logging.getLogger(__name__)

Message = Mapping[str, str]


@runtime_checkable
class LLMClient(Protocol):
    """The one method clinbridge needs from an LLM backend."""

    def complete(self, messages: Sequence[Message]) -> str:
        """Reply to a chat (``[{"role": "system"|"user"|"assistant", "content": ...}]``)."""
        ...


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SpecExample(_Model):
    """A worked example: inputs and the expected output."""

    name: str = ""
    params: dict[str, Any]
    expect: Any
    tolerance: float | None = None
    """Absolute tolerance for decimal outputs (default: 0.5 % of the expected value)."""
    missing: Literal["spec", "absent"] = "absent"


class DraftFailure(_Model):
    """Why a drafted spec was refused: the example it got wrong, or the error."""

    code: str
    """An error code from :mod:`clinbridge.errors` or ``wrong_answer`` / ``no_yaml``."""
    message: str
    example: str | None = None
    expected: Any = None
    got: Any = None


class DraftAttempt(_Model):
    """One try at drafting a spec: the model's text and its failures."""

    round: int
    text: str
    failures: tuple[DraftFailure, ...] = ()


class DraftResult(_Model):
    """The drafted spec (or None) with every attempt."""

    passed: bool
    spec: Spec | None = None
    attempts: tuple[DraftAttempt, ...] = ()
    cached: bool = False
    cache_path: str | None = None


_FENCE = re.compile(r"```(?:ya?ml)?\s*\n(.*?)```", re.S)


def _extract_yaml(text: str) -> str:
    m = _FENCE.search(text)
    return m.group(1) if m else text


def _close(got: Any, want: Any, tolerance: float | None) -> bool:
    if isinstance(want, list | tuple):
        return list(got) == list(want)
    if isinstance(want, str) or isinstance(got, str):
        return str(got) == str(want)
    tol = tolerance if tolerance is not None else max(abs(float(want)) * 0.005, 1e-9)
    return math.isclose(float(got), float(want), abs_tol=tol)


def check_examples(calc: Calculator, examples: Sequence[SpecExample]) -> list[DraftFailure]:
    """Run every example; return what failed (empty list: all pass)."""
    failures: list[DraftFailure] = []
    for i, ex in enumerate(examples):
        label = ex.name or f"example {i + 1}"
        try:
            got = calc.compute(ex.params, missing=ex.missing).value
        except ClinbridgeError as exc:
            failures.append(
                DraftFailure(code=exc.code, message=str(exc), example=label, expected=ex.expect)
            )
            continue
        if not _close(got, ex.expect, ex.tolerance):
            failures.append(
                DraftFailure(
                    code="wrong_answer",
                    message=f"{label}: expected {ex.expect!r}, the spec computes {got!r}",
                    example=label,
                    expected=ex.expect,
                    got=got,
                )
            )
    return failures


def _variants(calc: Calculator, name: str, value: Any) -> list[Any]:
    """Other values of input ``name`` to try (in its canonical unit)."""
    import datetime as dt

    i = calc.spec.input(name)
    if i.type == "boolean":
        return [not bool(value)] if value is not None else [True, False]
    if i.type == "categorical":
        return [v.value for v in i.values if v.value != value]
    if i.type == "date":
        if not isinstance(value, dt.date):
            return []
        return [value + dt.timedelta(days=d) for d in (-90, -30, -7, 7, 30, 90)]
    lo, hi = i.range if i.range is not None else (None, None)
    out: list[float] = []
    if isinstance(value, int | float):
        out += [value * f for f in (0.5, 0.8, 1.25, 2.0)] + [value + 1, value - 1]
    if lo is not None and hi is not None:
        out += [lo + (hi - lo) * q for q in (0.02, 0.1, 0.25, 0.5, 0.75, 0.95)]
    out = [v for v in out if lo is None or hi is None or lo <= v <= hi]
    if i.type == "integer":
        out = [float(round(v)) for v in out]
    return [v for v in dict.fromkeys(out) if v != value]


def check_dependence(calc: Calculator, examples: Sequence[SpecExample]) -> list[DraftFailure]:
    """One ``ignores_input`` failure per declared input that no change of value affects."""
    failures: list[DraftFailure] = []
    bases: list[tuple[SpecExample, dict[str, Any], Any]] = []
    for ex in examples:
        try:
            values = calc.validate(ex.params, missing=ex.missing)
            base = calc.compute(ex.params, missing=ex.missing).value
        except ClinbridgeError:
            continue
        bases.append((ex, {n: v.value for n, v in values.items()}, base))
    if not bases:
        return failures
    for inp in calc.spec.inputs:
        affects = False
        for ex, values, base in bases:
            for alt in _variants(calc, inp.name, values.get(inp.name)):
                params = {n: v for n, v in values.items() if v is not None}
                params[inp.name] = alt
                try:
                    got = calc.compute(params, missing=ex.missing).value
                except ClinbridgeError:
                    continue
                if got != base:
                    affects = True
                    break
            if affects:
                break
        if not affects:
            failures.append(
                DraftFailure(
                    code="ignores_input",
                    message=f"the result does not depend on the declared input {inp.name!r}: "
                    "use it in the rules or remove it",
                    example=None,
                )
            )
    return failures


def _accept_checks(
    calc: Calculator, shown: Sequence[SpecExample], held_out: Sequence[SpecExample]
) -> list[DraftFailure]:
    """The checks beyond the shown examples: unseen examples (as a count) and dependence."""
    failures: list[DraftFailure] = []
    unseen = check_examples(calc, held_out)
    if unseen:
        failures.append(
            DraftFailure(
                code="held_out",
                message=f"{len(unseen)} of {len(held_out)} worked examples that you were not "
                "shown disagree with the spec; re-read the rule text",
            )
        )
    failures += check_dependence(calc, [*shown, *held_out])
    return failures


def _evaluate(text: str, examples: Sequence[SpecExample]) -> tuple[Spec | None, list[DraftFailure]]:
    body = _extract_yaml(text)
    if not body.strip():
        return None, [DraftFailure(code="no_yaml", message="the reply contains no YAML spec")]
    try:
        spec = parse_spec(body, source="draft")
        calc = compile_spec(spec)
    except ClinbridgeError as exc:
        errors = exc.details.get("errors")
        if errors:
            return None, [
                DraftFailure(code=exc.code, message=f"{e['loc']}: {e['msg']}") for e in errors
            ]
        return None, [DraftFailure(code=exc.code, message=str(exc))]
    return spec, check_examples(calc, examples)


def _system_prompt() -> str:
    worked = (SPEC_DIR / "4_cha2ds2_vasc.yaml").read_text(encoding="utf-8")
    worked2 = (SPEC_DIR / "6_bmi.yaml").read_text(encoding="utf-8")
    return (
        "You write calculator specs for clinbridge as YAML. A spec is declarative: inputs (name, "
        "label, type number|integer|boolean|categorical|date, unit, units, molar_mass, valence, "
        "values, range, missing, absent_value, aliases), steps (name, formula | input+map), "
        "points (label, when+points | cases+otherwise | input+map), result, output (name, label, "
        "type decimal|integer|date|weeks_days, unit, decimals), citation, notes. Formulas use "
        "Python expression syntax restricted to arithmetic, comparisons, and/or/not, 'a if c else "
        "b', 'in' with tuples, and the functions abs add_days ceil clamp count days_between exp "
        "floor ln log log10 max min round sqrt. Quote any flow-style value that contains a comma. "
        "Reply with exactly one ```yaml block.\n\nWorked spec (points table):\n```yaml\n"
        f"{worked}```\n\nWorked spec (formula):\n```yaml\n{worked2}```"
    )


def _user_prompt(
    rule_text: str, examples: Sequence[SpecExample], calculator_id: int, name: str
) -> str:
    ex = [e.model_dump(exclude_defaults=True) for e in examples]
    return (
        f"Write the spec for calculator id {calculator_id}, name {name!r}.\n\nRule text:\n"
        f"{rule_text}\n\nWorked examples (inputs -> expected output):\n"
        f"{orjson.dumps(ex, option=orjson.OPT_INDENT_2).decode()}"
    )


def _repair_prompt(failures: Sequence[DraftFailure]) -> str:
    lines = ["The spec failed these checks; fix them and reply with the whole corrected spec:"]
    lines += [f"- [{f.code}] {f.message}" for f in failures]
    return "\n".join(lines)


class SpecCache:
    """Passing drafted specs on disk, keyed by a hash of the rule text and examples."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)

    @staticmethod
    def key(rule_text: str, examples: Sequence[SpecExample], calculator_id: int) -> str:
        """The cache key of a rule text with its examples."""
        blob = orjson.dumps(
            [calculator_id, rule_text, [e.model_dump(mode="json") for e in examples]],
            option=orjson.OPT_SORT_KEYS,
        )
        return hashlib.sha256(blob).hexdigest()[:16]

    def path(self, key: str, calculator_id: int) -> Path:
        """Where the spec of ``key`` is kept."""
        return self.dir / f"{calculator_id}_{key}.yaml"

    def get(self, key: str, calculator_id: int, examples: Sequence[SpecExample]) -> Spec | None:
        """The cached spec of ``key`` if it still passes ``examples``, else None."""
        p = self.path(key, calculator_id)
        if not p.exists():
            return None
        spec, failures = _evaluate(p.read_text(encoding="utf-8"), examples)
        if spec is None or failures:  # revalidated on every load; a stale entry is ignored
            logger.warning("cached spec %s no longer passes; ignoring it", p)
            return None
        return spec

    def put(self, key: str, spec: Spec) -> Path:
        """Keep ``spec`` under ``key``; its path."""
        self.dir.mkdir(parents=True, exist_ok=True)
        p = self.path(key, spec.id)
        data = spec.model_dump(mode="json", exclude_defaults=True)
        p.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
        return p


def draft_spec(
    rule_text: str,
    examples: Sequence[SpecExample],
    client: LLMClient,
    *,
    calculator_id: int,
    name: str,
    max_repairs: int = 4,
    cache: SpecCache | None = None,
    held_out: Sequence[SpecExample] = (),
    min_held_out: int = 3,
) -> DraftResult:
    """Have ``client`` draft a spec; check it against ``examples``; repair up to ``max_repairs``.

    Args:
        rule_text: the calculator's rules in prose (e.g. from its publication).
        examples: worked examples shown to the LLM; a spec must reproduce all of them.
        held_out: at least ``min_held_out`` further worked examples, never shown; a spec is
            accepted only when it reproduces them too and depends on every declared input.
        client: the LLM backend.
        calculator_id: the id the spec must carry.
        name: the calculator's name.
        max_repairs: repair rounds after the first draft.
        cache: where passing specs are kept; a cached passing spec is returned without a call.

    Returns:
        A :class:`DraftResult`: ``passed`` with the spec, or the failed attempts.

    Raises:
        LLMError: the client failed (the attempts so far are in ``details['attempts']``).
    """
    if not examples:
        raise ValueError("drafting needs at least one worked example to check against")
    if len(held_out) < min_held_out:
        raise ValueError(
            f"drafting needs at least {min_held_out} held-out worked examples (not shown to "
            f"the LLM) to accept a spec; got {len(held_out)}"
        )
    shown_params = [orjson.dumps(e.params, option=orjson.OPT_SORT_KEYS) for e in examples]
    if any(orjson.dumps(e.params, option=orjson.OPT_SORT_KEYS) in shown_params for e in held_out):
        raise ValueError("a held-out example is also among the shown examples")
    key = SpecCache.key(rule_text, [*examples, *held_out], calculator_id)
    if cache is not None:
        hit = cache.get(key, calculator_id, [*examples, *held_out])
        if hit is not None and not _accept_checks(compile_spec(hit), examples, held_out):
            return DraftResult(
                passed=True, spec=hit, cached=True, cache_path=str(cache.path(key, calculator_id))
            )
    messages: list[dict[str, str]] = [
        {"role": "system", "content": _system_prompt()},
        {"role": "user", "content": _user_prompt(rule_text, examples, calculator_id, name)},
    ]
    attempts: list[DraftAttempt] = []
    for round_no in range(max_repairs + 1):
        try:
            text = client.complete(messages)
        except ClinbridgeError:
            raise
        except Exception as exc:
            raise LLMError(f"LLM call failed: {exc}", attempts=len(attempts)) from exc
        spec, failures = _evaluate(text, examples)
        if spec is not None and not failures:
            failures += _accept_checks(compile_spec(spec), examples, held_out)
        if spec is not None and spec.id != calculator_id:
            failures.append(
                DraftFailure(
                    code="calculator_spec", message=f"id must be {calculator_id}, got {spec.id}"
                )
            )
        attempts.append(DraftAttempt(round=round_no, text=text, failures=tuple(failures)))
        logger.info(
            "draft round %d for calculator %d: %d failure(s)",
            round_no,
            calculator_id,
            len(failures),
        )
        if spec is not None and not failures:
            path = str(cache.put(key, spec)) if cache is not None else None
            return DraftResult(passed=True, spec=spec, attempts=tuple(attempts), cache_path=path)
        messages += [
            {"role": "assistant", "content": text},
            {"role": "user", "content": _repair_prompt(failures)},
        ]
    return DraftResult(passed=False, attempts=tuple(attempts))
