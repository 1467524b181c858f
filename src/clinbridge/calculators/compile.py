"""Compile a :class:`~clinbridge.calculators.spec.Spec` into a :class:`Calculator` tool.

The tool validates and converts its inputs, computes deterministically (compiled whitelisted
expressions, no ``eval``), applies the output contract and returns a :class:`CalcResult` with
every input (and where it came from) and every intermediate step, so the answer can be audited.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from clinbridge.calculators.expr import Expr, compile_expr
from clinbridge.calculators.spec import InputSpec, PointsItem, Spec
from clinbridge.calculators.units import convert, describe
from clinbridge.errors import CalculatorInputError, CalculatorSpecError, MissingInputError

__all__ = ["CalcResult", "Calculator", "InputValue", "StepResult", "compile_spec", "format_output"]

MissingPolicy = Literal["spec", "absent"]
"""``spec``: only inputs whose definition says so count as absent when missing; ``absent``: the
caller's convention is that findings it does not mention are absent (e.g. MedCalc-Bench gold
parameters), which applies to every input that has an absent value (booleans, declared ones)."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class InputValue(_Model):
    """One validated input: its value in the canonical unit and where it came from."""

    name: str
    label: str
    value: Any
    unit: str | None = None
    given: str | None = None
    """The value as given, e.g. '1.2 mg/dL', before conversion."""
    source: str = "given"
    """'given', 'absent by definition', 'absent by caller convention', or a record's provenance."""


class StepResult(_Model):
    """One scoring step of a calculation: what it looked at and the points it gave."""

    label: str
    expression: str = ""
    value: Any = None
    unit: str | None = None
    points: float | None = None
    detail: str = ""


class CalcResult(_Model):
    """A computed score with its full audit trail."""

    calculator_id: int
    calculator: str
    value: Any
    """Rounded per the output contract: float, int, 'MM/DD/YYYY' or (weeks, days)."""
    raw_value: Any = None
    unit: str | None = None
    output_type: str
    inputs: tuple[InputValue, ...]
    steps: tuple[StepResult, ...]
    notes: tuple[str, ...] = ()

    @property
    def answer(self) -> str:
        """The value as text ('3', '22.857', '12/02/2000', "('4 weeks', '2 days')")."""
        return answer_text(self.value, self.output_type)

    def explanation(self) -> str:
        """Step-by-step explanation in plain text."""
        lines = [f"{self.calculator} (MedCalc id {self.calculator_id})", "Inputs:"]
        for i in self.inputs:
            shown = describe(_show(i.value), i.unit)
            extra = f" (given as {i.given})" if i.given and i.given != shown else ""
            src = "" if i.source == "given" else f" [{i.source}]"
            lines.append(f"  - {i.label}: {shown}{extra}{src}")
        lines.append("Steps:")
        for s in self.steps:
            if s.points is not None:
                lines.append(f"  - {s.label}: {s.detail} → {_num(s.points):+}")
            else:
                expr = f" = {s.expression}" if s.expression else ""
                lines.append(f"  - {s.label}{expr} = {describe(_show(s.value), s.unit)}")
        lines.append(f"Result: {self.answer}{' ' + self.unit if self.unit else ''}")
        lines.extend(f"Note: {n}" for n in self.notes)
        return "\n".join(lines)


def _num(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def _show(v: Any) -> Any:
    if isinstance(v, dt.date):
        return v.strftime("%m/%d/%Y")
    if isinstance(v, bool):
        return "yes" if v else "no"
    return v


def answer_text(value: Any, output_type: str) -> str:
    if output_type == "weeks_days":
        w, d = value
        return str((f"{w} weeks", f"{d} days"))
    return str(value)


def _round_half_up(x: float, decimals: int) -> float:
    q = 10**decimals
    return math.copysign(math.floor(abs(x) * q + 0.5) / q, x)


def format_output(raw: Any, spec: Spec) -> Any:
    """Apply the output contract to a raw value."""
    out = spec.output
    if out.type == "date":
        if not isinstance(raw, dt.date):
            raise CalculatorSpecError(f"spec {spec.id}: date output but formula gave {raw!r}")
        return raw.strftime("%m/%d/%Y")
    if out.type == "weeks_days":
        days = round(float(raw))
        return (days // 7, days % 7)
    if isinstance(raw, bool):
        raw = int(raw)
    if not isinstance(raw, int | float) or math.isnan(raw) or math.isinf(raw):
        raise CalculatorInputError(f"{spec.name}: result is not a finite number ({raw!r})")
    if out.type == "integer":
        return int(_round_half_up(float(raw), 0))
    if out.decimals is not None:
        return _round_half_up(float(raw), out.decimals)
    return float(raw)


_TRUE = {"true", "yes", "y", "1", "present", "positive", "t"}
_FALSE = {"false", "no", "n", "0", "absent", "negative", "f", "none"}


def _key(text: str) -> str:
    return " ".join(str(text).lower().replace("_", " ").split())


class _CompiledItem:
    __slots__ = ("cases", "item", "map", "otherwise", "points", "when")

    def __init__(self, item: PointsItem, names: set[str]) -> None:
        self.item = item
        self.when = compile_expr(item.when, names=names) if item.when is not None else None
        self.points = _points_expr(item.points, names) if item.points is not None else None
        self.cases = [
            (compile_expr(c.when, names=names), _points_expr(c.points, names), c.label or c.when)
            for c in item.cases
        ]
        self.otherwise = _points_expr(item.otherwise, names)
        self.map = {_key(k): float(v) for k, v in item.map.items()}


def _points_expr(p: float | str, names: set[str]) -> Expr:
    return compile_expr(p, names=names)


class Calculator:
    """A compiled calculator: validates, converts, computes and explains.

    Build with :func:`compile_spec`; call :meth:`compute` with a mapping of inputs.
    """

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        names: set[str] = {i.name for i in spec.inputs}
        self._steps: list[tuple[str, Expr | dict[str, float]]] = []
        for s in spec.steps:
            if s.formula is not None:
                self._steps.append((s.name, compile_expr(s.formula, names=names)))
            else:
                assert s.input is not None
                self._check_map(s.input, s.map, s.name)
                self._steps.append((s.name, {_key(k): float(v) for k, v in s.map.items()}))
            names.add(s.name)
        self._items: list[_CompiledItem] = []
        for item in spec.points:
            if item.input is not None:
                self._check_map(item.input, item.map, item.label)
            self._items.append(_CompiledItem(item, names))
            if item.name:
                names.add(item.name)
        input_names = {i.name for i in spec.inputs}
        self._constraints = [
            (compile_expr(c.expr, names=input_names), c.message) for c in spec.constraints
        ]
        names.add("total")
        self._result = compile_expr(spec.result, names=names) if spec.result else None
        self._aliases: dict[str, str] = {}
        for i in spec.inputs:
            for a in (i.name, i.label, *i.aliases):
                self._aliases[_key(a)] = i.name

    def _check_map(self, name: str, mapping: Mapping[str, float], where: str) -> None:
        inp = self._input(name)
        if inp.type != "categorical":
            raise CalculatorSpecError(
                f"spec {self.spec.id}: {where!r} maps a non-categorical input"
            )
        allowed = {_key(v.value) for v in inp.values}
        unknown = [k for k in mapping if _key(k) not in allowed]
        if unknown:
            raise CalculatorSpecError(
                f"spec {self.spec.id}: {where!r} maps unknown values {unknown}"
            )
        uncovered = [v.value for v in inp.values if _key(v.value) not in {_key(k) for k in mapping}]
        if uncovered:
            raise CalculatorSpecError(
                f"spec {self.spec.id}: {where!r} has no entry for {uncovered}"
            )

    # -- metadata ------------------------------------------------------------------------------
    @property
    def id(self) -> int:
        """The calculator's id."""
        return self.spec.id

    @property
    def name(self) -> str:
        """The calculator's name."""
        return self.spec.name

    def _input(self, name: str) -> InputSpec:
        try:
            return self.spec.input(name)
        except KeyError:
            raise CalculatorSpecError(f"spec {self.spec.id}: no input named {name!r}") from None

    def json_schema(self) -> dict[str, Any]:
        """JSON schema of the inputs (for an LLM extractor or an API form)."""
        props: dict[str, Any] = {}
        required: list[str] = []
        for i in self.spec.inputs:
            p: dict[str, Any] = {"title": i.label}
            if i.description:
                p["description"] = i.description
            if i.type in ("number", "integer"):
                num: dict[str, Any] = {"type": i.type}
                if i.range:
                    num["minimum"], num["maximum"] = i.range
                if i.unit:
                    units = [i.unit, *i.units]
                    p["anyOf"] = [
                        num,
                        {
                            "type": "array",
                            "prefixItems": [num, {"enum": units}],
                            "minItems": 2,
                            "maxItems": 2,
                        },
                    ]
                    p["x-unit"] = i.unit
                else:
                    p.update(num)
            elif i.type == "boolean":
                p["type"] = "boolean"
            elif i.type == "categorical":
                p["enum"] = [v.value for v in i.values]
            else:
                p["type"] = "string"
                p["format"] = "date"
            props[i.name] = p
            if i.missing == "required":
                required.append(i.name)
        return {
            "title": self.spec.name,
            "type": "object",
            "properties": props,
            "required": required,
            "additionalProperties": False,
        }

    # -- validation ----------------------------------------------------------------------------
    def resolve_name(self, key: str) -> str | None:
        """The input a parameter name refers to (its name, label or an alias), or ``None``."""
        return self._aliases.get(_key(key))

    def validate(
        self,
        params: Mapping[str, Any],
        *,
        missing: MissingPolicy = "spec",
        sources: Mapping[str, str] | None = None,
    ) -> dict[str, InputValue]:
        """Check and convert every input.

        Args:
            params: input name (or label/alias) → value; numbers may be ``[value, unit]`` or
                ``{"value": v, "unit": u}``; booleans, categorical labels, dates as text.
            missing: the missing-input policy (see :data:`MissingPolicy`).
            sources: input name → provenance text, recorded on each value.

        Raises:
            CalculatorInputError: an unknown parameter, a bad value, unit or range (names the field).
            MissingInputError: required inputs are missing (``details['missing']``).
        """
        given: dict[str, Any] = {}
        for key, value in params.items():
            name = self.resolve_name(key)
            if name is None:
                raise CalculatorInputError(
                    f"{self.spec.name}: unknown input {key!r}",
                    field=key,
                    expected=[i.name for i in self.spec.inputs],
                )
            given[name] = value
        out: dict[str, InputValue] = {}
        lacking: list[str] = []
        for i in self.spec.inputs:
            raw = given.get(i.name)
            if raw is None:
                if i.missing == "absent" or (missing == "absent" and i.absent() is not None):
                    src = (
                        "absent by definition"
                        if i.missing == "absent"
                        else "absent by caller convention"
                    )
                    out[i.name] = InputValue(
                        name=i.name, label=i.label, value=i.absent(), unit=i.unit, source=src
                    )
                elif i.missing == "optional":
                    out[i.name] = InputValue(
                        name=i.name, label=i.label, value=None, source="not given"
                    )
                else:
                    lacking.append(i.name)
                continue
            value, unit, shown = self._coerce(i, raw)
            src = (sources or {}).get(i.name, "given")
            out[i.name] = InputValue(
                name=i.name, label=i.label, value=value, unit=unit, given=shown, source=src
            )
        if lacking:
            raise MissingInputError(
                f"{self.spec.name}: missing required input(s): {', '.join(lacking)}",
                missing=lacking,
                calculator_id=self.spec.id,
            )
        self._check_constraints(out)
        return out

    def _check_constraints(self, inputs: Mapping[str, InputValue]) -> None:
        env = {k: v.value for k, v in inputs.items()}
        for expr, message in self._constraints:
            if any(env.get(n) is None for n in expr.names):
                continue  # an optional input not given: the constraint does not apply
            if not expr(env):
                shown = {n: describe(_show(env[n]), inputs[n].unit) for n in sorted(expr.names)}
                raise CalculatorInputError(
                    f"{self.spec.name}: {message} ({', '.join(f'{k} = {v}' for k, v in shown.items())})",
                    field=",".join(sorted(expr.names)),
                    constraint=expr.source,
                    values=shown,
                )

    def _coerce(self, i: InputSpec, raw: Any) -> tuple[Any, str | None, str]:
        field = i.name
        if i.type in ("number", "integer"):
            value, unit = _split_quantity(raw, field)
            shown = describe(value, unit)
            if unit is not None and i.unit is None:
                raise CalculatorInputError(
                    f"{self.spec.name}: {i.label} takes no unit, got {unit!r}", field=field
                )
            if i.unit is not None and unit is not None:
                value = convert(
                    value,
                    unit,
                    i.unit,
                    molar_mass=i.molar_mass,
                    valence=i.valence,
                    iu_amount=i.iu_amount,
                    field=field,
                )
            if math.isnan(value) or math.isinf(value):
                raise CalculatorInputError(
                    f"{self.spec.name}: {i.label} is not finite", field=field
                )
            if i.type == "integer":
                if not float(value).is_integer():
                    raise CalculatorInputError(
                        f"{self.spec.name}: {i.label} must be a whole number, got {value}",
                        field=field,
                    )
                value = int(value)
            if i.range is not None and not (i.range[0] <= value <= i.range[1]):
                raise CalculatorInputError(
                    f"{self.spec.name}: {i.label} = {describe(value, i.unit)} is outside the valid "
                    f"range {i.range[0]}..{i.range[1]}",
                    field=field,
                    value=value,
                    range=list(i.range),
                )
            return value, i.unit, shown
        if i.type == "boolean":
            if isinstance(raw, bool):
                return raw, None, str(raw)
            if isinstance(raw, int | float) and raw in (0, 1):
                return bool(raw), None, str(raw)
            k = _key(str(raw))
            if k in _TRUE:
                return True, None, str(raw)
            if k in _FALSE:
                return False, None, str(raw)
            raise CalculatorInputError(
                f"{self.spec.name}: {i.label} must be true or false, got {raw!r}", field=field
            )
        if i.type == "categorical":
            k = _key(str(raw))
            for v in i.values:
                if k == _key(v.value) or k in {_key(a) for a in v.aliases}:
                    return v.value, None, str(raw)
            raise CalculatorInputError(
                f"{self.spec.name}: {i.label} must be one of {[v.value for v in i.values]}, got {raw!r}",
                field=field,
                allowed=[v.value for v in i.values],
            )
        # date
        return _parse_date(raw, field), None, str(raw)

    # -- computation ---------------------------------------------------------------------------
    def compute(
        self,
        params: Mapping[str, Any],
        *,
        missing: MissingPolicy = "spec",
        sources: Mapping[str, str] | None = None,
    ) -> CalcResult:
        """Validate the inputs and compute the score with its explanation.

        Raises:
            CalculatorInputError: bad input (see :meth:`validate`); MissingInputError when
                required inputs are missing.
        """
        inputs = self.validate(params, missing=missing, sources=sources)
        env: dict[str, Any] = {k: v.value for k, v in inputs.items()}
        steps: list[StepResult] = []
        for (name, rule), s in zip(self._steps, self.spec.steps, strict=True):
            if isinstance(rule, Expr):
                env[name] = rule(env)
                shown = s.formula or ""
            else:
                env[name] = rule[_key(str(env[s.input or ""]))]
                shown = f"table[{s.input} = {env[s.input or '']}]"
            steps.append(
                StepResult(label=s.label or name, expression=shown, value=env[name], unit=s.unit)
            )
        total = 0.0
        for ci in self._items:
            pts, detail = self._score_item(ci, env)
            total += pts
            if ci.item.name:
                env[ci.item.name] = pts
            steps.append(StepResult(label=ci.item.label, points=pts, detail=detail))
        env["total"] = total
        if self._result is not None:
            raw = self._result(env)
            if self.spec.points:
                steps.append(StepResult(label="Total", expression=self._result.source, value=raw))
        else:
            raw = total
        value = format_output(raw, self.spec)
        return CalcResult(
            calculator_id=self.spec.id,
            calculator=self.spec.name,
            value=value,
            raw_value=_show(raw) if isinstance(raw, dt.date) else raw,
            unit=self.spec.output.unit,
            output_type=self.spec.output.type,
            inputs=tuple(inputs.values()),
            steps=tuple(steps),
        )

    def _score_item(self, ci: _CompiledItem, env: Mapping[str, Any]) -> tuple[float, str]:
        item = ci.item
        if ci.when is not None and ci.points is not None:
            hit = bool(ci.when(env))
            return (
                float(ci.points(env)) if hit else 0.0
            ), f"{item.when} is {'true' if hit else 'false'}"
        if item.input is not None:
            value = env[item.input]
            pts = ci.map.get(_key(str(value)))
            if pts is None:
                raise CalculatorInputError(
                    f"{self.spec.name}: no points for {item.input} = {value!r}", field=item.input
                )
            return pts, f"{item.input} = {value}"
        for when, points, label in ci.cases:
            if when(env):
                return float(points(env)), label
        return float(ci.otherwise(env)), "none of the cases holds"


_NUM_UNIT = re.compile(r"^\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")


def _split_quantity(raw: Any, field: str) -> tuple[float, str | None]:
    if isinstance(raw, bool):
        raise CalculatorInputError(f"{field}: expected a number, got {raw!r}", field=field)
    if isinstance(raw, int | float):
        return float(raw), None
    if isinstance(raw, Mapping) and "value" in raw:
        return _split_quantity(raw["value"], field)[0], raw.get("unit") or None
    if isinstance(raw, list | tuple) and len(raw) == 2:
        value, unit = raw
        num = _split_quantity(value, field)[0]
        return num, (str(unit) if unit not in (None, "") else None)
    if isinstance(raw, str):
        m = _NUM_UNIT.match(raw)
        if m:
            return float(m.group(1)), (m.group(2) or None)
    raise CalculatorInputError(
        f"{field}: expected a number (with a unit), got {raw!r}", field=field
    )


def _parse_date(raw: Any, field: str) -> dt.date:
    if isinstance(raw, dt.datetime):
        return raw.date()
    if isinstance(raw, dt.date):
        return raw
    text = str(raw).strip()
    for fmt in ("%m/%d/%Y", "%Y-%m-%d", "%m/%d/%y"):
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    raise CalculatorInputError(
        f"{field}: expected a date MM/DD/YYYY or YYYY-MM-DD, got {raw!r}", field=field
    )


def compile_spec(spec: Spec) -> Calculator:
    """Compile a spec into a calculator tool.

    Raises:
        CalculatorSpecError: an expression is outside the whitelist or names an unknown input.
    """
    try:
        return Calculator(spec)
    except CalculatorSpecError as exc:
        if "calculator_id" not in exc.details:
            exc.details["calculator_id"] = spec.id
        raise
