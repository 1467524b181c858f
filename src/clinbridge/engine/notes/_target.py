"""Which extractor input a question's target names: a calculator input when one matches (its
label, aliases and note terms are a curated clinical vocabulary with units and ranges), else an
input made for the phrase itself.
"""

from __future__ import annotations

import functools
import re
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
    strong: frozenset[str] = frozenset()
    """The input's own names (label, aliases, abbreviations, plurals), normalised: a mention
    by one of them names the finding itself; the spec's extra note terms (related findings a
    score may count, 'systolic dysfunction' for CHF) only point at it."""


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
        units = [h[1].unit for h in hits]
        common = max(set(units), key=lambda u: (units.count(u), str(u)))
        if any(not _convertible(u, common) for u in units):
            return None  # one phrase, inputs of different kinds: not a guess to make
        hits = [h for h in hits if h[1].unit == common]
        calc, inp, name = max(hits, key=lambda h: len(h[1].note_terms) + len(h[1].aliases))
        return Target(
            inp, calc, f"calculator input {inp.name!r} ({calc.spec.name}) by {name!r}", True
        )
    return None


_IRREGULAR = ((re.compile(r"sis\b", re.I), "ses"), (re.compile(r"(?<=[^aeiou])us\b", re.I), "i"))


def _with_plurals(inp: InputSpec) -> InputSpec:
    """The input with the irregular plurals of its names as note terms ('deep vein
    thromboses'); the extractor's own matching adds only a trailing 's'."""
    from clinbridge.calculators.extract.rules import input_terms

    extra = []
    for term in input_terms(inp):
        for pat, plural in _IRREGULAR:
            if pat.search(term):
                extra.append(pat.sub(plural, term))
        extra.extend(_verb_forms(term))
    if not extra:
        return inp
    return inp.model_copy(update={"note_terms": (*inp.note_terms, *sorted(set(extra)))})


def _verb_forms(term: str) -> list[str]:
    """A one-word '-ing' name's verb forms ('smoking' → 'smoke', 'smoked'; 'bleeding' →
    'bleed'): 'he does not smoke' names the finding as much as 'smoking' does. Both the stem
    and stem + 'e' are kept (English spelling does not say which); the wrong one matches no
    word."""
    m = re.fullmatch(r"([a-z]{3,})ing", term)
    if m is None:
        return []
    stem = m.group(1)
    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        stem = stem[:-1]  # 'clubbing' → 'club'
    return [stem, f"{stem}e", f"{stem}ed"]


def _convertible(a: str | None, b: str | None) -> bool:
    if a == b:
        return True
    if a is None or b is None:
        return False
    from clinbridge.calculators.units import convert

    try:
        convert(1.0, a, b)
    except Exception:
        return False
    return True


def find_target(target: str, kind: str, unit: str | None = None) -> Target:
    """The input to look for in notes for ``target`` (a value or a yes/no finding)."""
    from clinbridge.calculators.spec import InputSpec

    got = _curated(target, kind)
    if got is None and target.lower().startswith("history of "):
        got = _curated(target[len("history of ") :], kind)
    if got is not None:
        inp = _with_plurals(got.input)
        return Target(inp, got.calculator, got.via, True, _strong(got.input))
    inp = InputSpec(
        name="target",
        label=target,
        type="boolean" if kind == "yesno" else "number",
        unit=unit if kind == "value" else None,
    )
    strong = _strong(inp)
    inp = _with_plurals(inp)
    stand_in = SimpleNamespace(spec=SimpleNamespace(inputs=(inp,), name="question"))
    return Target(inp, stand_in, f"the question's phrase {target!r}", False, strong)


def normal(text: str) -> str:
    """Lower case, words only, a trailing plural 's' dropped (for comparing mentions)."""
    return re.sub(r"s$", "", " ".join(re.findall(r"[a-z0-9]+", text.lower())))


def own_names(target: Target) -> InputSpec:
    """The target's input with only its own names (no related note terms, no records)."""
    own = target.input.model_copy(update={"note_terms": (), "records": ()})
    return _with_plurals(own)


def _strong(inp: InputSpec) -> frozenset[str]:
    own = inp.model_copy(update={"note_terms": (), "records": ()})
    return frozenset(normal(t) for t in input_terms_of(_with_plurals_of(own)))


def input_terms_of(inp: InputSpec) -> list[str]:
    from clinbridge.calculators.extract.rules import input_terms

    return input_terms(inp)


def _with_plurals_of(inp: InputSpec) -> InputSpec:
    return _with_plurals(inp)
