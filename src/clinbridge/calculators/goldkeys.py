"""Which calculator input a MedCalc-Bench gold-entity name refers to.

The benchmark's ``Relevant Entities`` keys are worded differently across its releases (v1.0,
v1.2, Verified): Unicode subscripts (``FiO₂``, ``PaO₂``), suffixes naming the rule they belong to
(``Renal disease criteria for the HAS-BLED rule``), abbreviations and misspellings
(``Congestive Heart Faliure``), and combined criteria worded exactly as the calculator's own
criteria text (``Bedridden recently >3 days or major surgery within 12 weeks``).

Resolution is data-driven: the names come from the spec (input names, labels, aliases; points
items' labels and aliases — the criteria text) and the wording rules from
``medcalc_terms.yaml`` (abbreviations, spellings, filler words). A key is compared with every
name at successively looser levels; the first level with a match decides, and a key whose
normalised form names two different targets at that level is refused as ambiguous rather than
guessed.

Levels: 1. exact (case, spacing); 2. canonical (Unicode NFKC, punctuation, abbreviations and
spellings); 3. canonical without parenthesised text, a trailing unit (``Age, years``), a
threshold (``Heart rate > 100``) and a trailing rule/score suffix; 4. the set of words of level 3 without filler words (order-free).
"""

from __future__ import annotations

import ast
import functools
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from clinbridge.calculators.expr import names_in

if TYPE_CHECKING:
    from clinbridge.calculators.compile import Calculator

__all__ = ["GoldTarget", "canonical", "forms", "resolve_gold_key"]

TERMS_FILE = Path(__file__).with_name("medcalc_terms.yaml")


@functools.cache
def _terms() -> dict[str, Any]:
    data = yaml.safe_load(TERMS_FILE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@functools.cache
def _replacements() -> list[tuple[re.Pattern[str], str]]:
    t = _terms()
    pairs: dict[str, str] = {}
    for src in ("spellings", "abbreviations"):
        for k, v in (t.get(src) or {}).items():
            pairs[str(k).lower()] = str(v).lower()
    # Longest first, so 'o2 sat' wins over 'o2'.
    return [
        (re.compile(rf"(?<![a-z0-9]){re.escape(k)}(?![a-z0-9])"), v)
        for k, v in sorted(pairs.items(), key=lambda kv: -len(kv[0]))
    ]


_PAREN = re.compile(r"\([^()]*\)")
_SUFFIX = re.compile(
    r"\s*\b(?:criteria|criterion)?\s*\bfor\s+(?:the\s+)?(?:[a-z0-9'\-]+\s+){0,12}?"
    r"(?:rule|score|criteria|index|scale|calculator|equation)s?$"
)
_THRESHOLD = re.compile(
    r"\s*(?:<=|>=|<|>|=)\s*[0-9].*$|\s+[0-9][0-9.]*\s*(?:-|to)\s*[0-9][0-9.]*\s*$"
)
_TRAILING = re.compile(r"\s+(?:criteria|criterion)$")


def _base(text: str) -> str:
    s = unicodedata.normalize("NFKC", str(text)).lower()
    s = s.replace("’", "'").replace("µ", "u").replace("μ", "u")
    s = s.replace("≥", ">=").replace("≤", "<=").replace("&", " and ")
    return s


def _clean(s: str) -> str:
    s = re.sub(r"[_,;:/\\\"'?!#*\[\]{}\-]+", " ", s)
    s = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", s)
    s = re.sub(r"\s*(<=|>=|<|>|=)\s*", r" \1 ", s)
    s = " ".join(s.split())
    for pat, rep in _replacements():
        s = pat.sub(rep, s)
    return " ".join(s.split())


def canonical(text: str) -> str:
    """Level 2: NFKC, lower case, punctuation removed, abbreviations and spellings normalised."""
    return _clean(_base(text))


def _stripped(text: str) -> str:
    s = _base(text)
    prev = None
    while prev != s:
        prev, s = s, _PAREN.sub(" ", s)
    units = [re.escape(u) for u in _terms().get("unit_words") or ()]
    if units:
        tail = re.compile(rf",\s*[^,]*(?:{'|'.join(units)})[^,]*$")
        s = tail.sub("", s)
    s = _THRESHOLD.sub("", s)
    s = _clean(s)
    s = _SUFFIX.sub("", s)
    s = _TRAILING.sub("", s)
    return " ".join(s.split())


def _words(text: str) -> str:
    fill = set(_terms().get("fillers") or ())
    return " ".join(sorted({w for w in _stripped(text).split() if w not in fill}))


def forms(text: str) -> tuple[str, str, str, str]:
    """The four comparison forms of a name (see the module docstring)."""
    exact = " ".join(str(text).lower().replace("_", " ").split())
    return exact, canonical(text), _stripped(text), _words(text)


@dataclass(frozen=True)
class GoldTarget:
    """What a gold key fills: one input, or a combined criterion ('at least one of')."""

    inputs: tuple[str, ...]
    combined: bool = False
    negated: bool = False
    """The key names the opposite finding (``Cough`` for *cough absent*): the value is inverted."""
    via: str = ""
    """The spec name it matched (input name/label/alias or criterion label/alias)."""
    level: int = 0
    shared: tuple[str, ...] = field(default=())
    """Combined only: inputs also read by another rule (then 'at least one' cannot be split)."""


def _item_inputs(calc: Calculator, item: Any) -> tuple[tuple[str, ...], bool] | None:
    """The inputs a points item reads and whether it is an ``or`` of boolean inputs."""
    inputs = {i.name: i for i in calc.spec.inputs}
    if item.input is not None:
        return (item.input,), False
    sources = [item.when] if item.when is not None else [c.when for c in item.cases]
    refs: list[str] = []
    other = False
    for src in sources:
        for n in sorted(names_in(src)):
            if n in inputs:
                if n not in refs:
                    refs.append(n)
            else:
                other = True
    if other or not refs:
        return None
    if len(refs) == 1:
        return (refs[0],), False
    if item.when is None:
        return None
    tree = ast.parse(item.when, mode="eval").body
    if (
        isinstance(tree, ast.BoolOp)
        and isinstance(tree.op, ast.Or)
        and all(isinstance(v, ast.Name) for v in tree.values)
        and all(inputs[n].type == "boolean" for n in refs)
    ):
        order = [v.id for v in tree.values if isinstance(v, ast.Name)]
        return tuple(order), True
    return None


def _uses(calc: Calculator) -> dict[str, int]:
    """How many rules (steps, points items, result, constraints) read each input."""
    count: dict[str, int] = {}
    srcs: list[str] = []
    for s in calc.spec.steps:
        if s.formula is not None:
            srcs.append(s.formula)
        elif s.input:
            srcs.append(s.input)
    for p in calc.spec.points:
        if p.input:
            srcs.append(p.input)
        if p.when:
            srcs.append(p.when)
        srcs += [c.when for c in p.cases]
        srcs += [str(c.points) for c in p.cases if isinstance(c.points, str)]
        if isinstance(p.points, str):
            srcs.append(p.points)
    if calc.spec.result:
        srcs.append(calc.spec.result)
    for src in srcs:
        for n in names_in(src):
            count[n] = count.get(n, 0) + 1
    return count


class _Index:
    """Names of inputs (tier 0) are preferred to names of criteria (tier 1) at every level."""

    def __init__(self, calc: Calculator) -> None:
        names = {canonical(n) for n in (calc.spec.name, calc.spec.slug, *calc.spec.aliases)}
        alt = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True) if n)
        self.own_suffix = re.compile(
            rf"^(.*?)\s*(?:criteria\s+|criterion\s+)?(?:for|of|in)\s+(?:the\s+)?(?:{alt})"
            r"(?:\s+(?:rule|score|criteria|index|calculator))?$"
        )
        self.tiers: list[list[dict[str, set[GoldTarget]]]] = [[{}, {}, {}, {}], [{}, {}, {}, {}]]
        uses = _uses(calc)
        named: list[tuple[str, GoldTarget]] = []
        for i in calc.spec.inputs:
            for a in (i.name, i.label, *i.aliases):
                named.append((a, GoldTarget(inputs=(i.name,), via=a)))
            for a in i.negated_aliases:
                named.append((a, GoldTarget(inputs=(i.name,), via=a, negated=True)))
        self._add(named, 0)
        named = []
        for p in calc.spec.points:
            got = _item_inputs(calc, p)
            if got is None:
                continue
            refs, combined = got
            shared = tuple(n for n in refs if uses.get(n, 0) > 1) if combined else ()
            for a in (p.label, *p.aliases):
                named.append((a, GoldTarget(inputs=refs, combined=combined, via=a, shared=shared)))
        self._add(named, 1)

    def _add(self, named: list[tuple[str, GoldTarget]], tier: int) -> None:
        for name, target in named:
            for lvl, f in enumerate(forms(name)):
                if f:
                    self.tiers[tier][lvl].setdefault(f, set()).add(target)

    def lookup(self, key: str) -> tuple[GoldTarget | None, list[str]]:
        m = self.own_suffix.match(canonical(key))
        if m and m.group(1):
            key = m.group(1)  # '<criterion> criteria for the <this calculator>'
        for lvl, f in enumerate(forms(key)):
            for tier in self.tiers:
                found = tier[lvl].get(f)
                if not found:
                    continue
                distinct = {(t.inputs, t.combined, t.negated) for t in found}
                if len(distinct) > 1:
                    return None, sorted({"/".join(t.inputs) for t in found})
                t = sorted(found, key=lambda t: t.via)[0]
                return GoldTarget(t.inputs, t.combined, t.negated, t.via, lvl + 1, t.shared), []
        return None, []


_INDEX: dict[tuple[int, int, int], _Index] = {}


def resolve_gold_key(calc: Calculator, key: str) -> tuple[GoldTarget | None, list[str]]:
    """The target of a gold key, or ``(None, candidates)``: candidates name the inputs of an
    ambiguous match (empty when nothing matched)."""
    k = (id(calc), calc.spec.id, calc.spec.version)
    idx = _INDEX.get(k)
    if idx is None:
        idx = _INDEX[k] = _Index(calc)
    return idx.lookup(key)
