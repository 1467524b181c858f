"""Which extractor input a question's target names: a calculator input when one matches (its
label, aliases and note terms are a curated clinical vocabulary with units and ranges), else an
input made for the phrase itself.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinbridge.calculators.spec import InputSpec

__all__ = ["Target", "find_target"]

_TYPES = {"value": ("number", "integer"), "yesno": ("boolean",)}


@dataclass(frozen=True)
class Target:
    """The input to extract, the calculator it belongs to (or a stand-in) and how it matched."""

    input: InputSpec
    calculator: Any
    via: str
    curated: bool
    """From a calculator spec (True) or made for this question's phrase (False)."""


@functools.cache
def _names() -> list[dict[tuple[int, str], list[tuple[Any, InputSpec, str]]]]:
    """Per comparison level: form → (calculator, input, name) for every number/boolean input."""
    from clinbridge.calculators.goldkeys import forms
    from clinbridge.calculators.registry import default_registry

    levels: list[dict[tuple[int, str], list[tuple[Any, InputSpec, str]]]] = [{}, {}, {}, {}]
    for calc in default_registry():
        for i in calc.spec.inputs:
            if i.type not in ("number", "integer", "boolean"):
                continue
            for name in (i.label, *i.aliases, i.name.replace("_", " ")):
                if not name or "#" in name:
                    continue
                for level, form in enumerate(forms(name)):
                    if form:
                        levels[level].setdefault((level, form), []).append((calc, i, name))
    return levels


def _curated(target: str, kind: str) -> Target | None:
    from clinbridge.calculators.goldkeys import forms

    wanted = _TYPES[kind]
    for level, form in enumerate(forms(target)):
        hits = [h for h in _names()[level].get((level, form), []) if h[1].type in wanted]
        if not hits:
            continue
        units = {h[1].unit for h in hits}
        if len(units) > 1:
            return None  # one phrase, inputs in different units: not a guess to make
        calc, inp, name = max(hits, key=lambda h: (len(h[1].note_terms) + len(h[1].aliases)))
        return Target(inp, calc, f"calculator input {inp.name!r} ({calc.spec.name}) by {name!r}", True)
    return None


def find_target(target: str, kind: str, unit: str | None = None) -> Target:
    """The input to look for in notes for ``target`` (a value or a yes/no finding)."""
    from clinbridge.calculators.spec import InputSpec

    got = _curated(target, kind)
    if got is None and target.lower().startswith("history of "):
        got = _curated(target[len("history of ") :], kind)
    if got is not None:
        return got
    inp = InputSpec(
        name="target",
        label=target,
        type="boolean" if kind == "yesno" else "number",
        unit=unit if kind == "value" else None,
    )
    stand_in = SimpleNamespace(spec=SimpleNamespace(inputs=(inp,), name="question"))
    return Target(inp, stand_in, f"the question's phrase {target!r}", False)
