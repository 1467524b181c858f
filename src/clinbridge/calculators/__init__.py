"""Medical calculators as declarative specs, compiled into validated, explainable tools.

Example:
    >>> from clinbridge import calculators
    >>> r = calculators.compute("bmi", {"weight": [70, "kg"], "height": [175, "cm"]})
    >>> r.value
    22.857
"""

from __future__ import annotations

from typing import Any

from clinbridge.calculators.compile import (
    CalcResult,
    Calculator,
    InputValue,
    StepResult,
    compile_spec,
)
from clinbridge.calculators.registry import Registry, default_registry
from clinbridge.calculators.spec import Spec, load_spec, parse_spec

__all__ = [
    "CalcResult",
    "Calculator",
    "InputValue",
    "Registry",
    "Spec",
    "StepResult",
    "compile_spec",
    "compute",
    "get",
    "list_calculators",
    "load_spec",
    "parse_spec",
]


def get(key: int | str) -> Calculator:
    """A built-in calculator by MedCalc id, name, slug or alias (fuzzy).

    Raises:
        CalculatorError: no calculator matches (the message suggests the closest names).
    """
    return default_registry().get(key)


def compute(key: int | str, params: dict[str, Any], **kwargs: Any) -> CalcResult:
    """Compute a built-in calculator; see :meth:`Calculator.compute`."""
    return get(key).compute(params, **kwargs)


def list_calculators() -> list[Calculator]:
    """All built-in calculators, by id."""
    return list(default_registry())
