"""Rule-based note extraction into a calculator's input schema.

Every input is looked for by its own spec data: the label, aliases, ``note_terms`` and record
names (with the abbreviations of ``medcalc_terms.yaml`` in both directions) anchor a mention;
then, by input type:

* number/integer: the first quantity after a mention (same sentence, within 60 characters)
  whose unit converts to the input's unit (or has no unit and lies in the input's range);
  systolic/diastolic pressures read ``120/80``; age and sex have their own patterns
  ('a 45-year-old woman'); weight and height fall back to the first quantity in one of the
  input's declared units ('weighing 84 kg', '5 ft 7 in');
* boolean: present when a mention is affirmed (not negated — negspacy — not a relative's,
  not hypothetical/uncertain); absent when every mention is negated/uncertain/family or there
  is none (said in the evidence: 'not mentioned'); a medication implies it only where the
  spec lists it in ``note_implied_by``;
* categorical: a value's name or alias, preferring one in a sentence that mentions the input;
* date: a date after a mention (MM/DD/YYYY, ISO or 'March 3, 2021').

Every value carries an :class:`~.base.Evidence` (span, text, method, assertion).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from clinbridge.calculators.extract.base import Evidence, Extraction
from clinbridge.calculators.extract.patterns import (
    AGE_PATTERNS,
    DATE,
    FEET_INCHES,
    FEMALE,
    MALE,
    SEX_NOUN,
    WORD_NUMBER,
    to_date,
    word_number,
)
from clinbridge.calculators.extract.text import Quantity, assertion, find_quantities, sentences
from clinbridge.calculators.goldkeys import _terms
from clinbridge.calculators.units import convert, normalize_unit, registry

if TYPE_CHECKING:
    from clinbridge.calculators.compile import Calculator
    from clinbridge.calculators.spec import InputSpec

__all__ = ["NoteIndex", "RuleExtractor", "input_terms"]

_GENERIC_PREFIX = re.compile(
    r"^(history of|previously documented|previous|prior|current|presence of|known|"
    r"number of|serum|plasma|blood|total|initial|pre-operative|patient's|patient)\s+",
    re.I,
)
_GENERIC_SUFFIX = re.compile(
    r"\s+(history|present|criteria.*|level|count|concentration|value|test|score|"
    r"doses? per day|dose|per day)$",
    re.I,
)
_BODY_DIMENSIONS = {"[mass]", "[length]"}
"""Dimensions whose unit alone identifies a body measurement (weight, height) in a note."""
_STOP_TERMS = {"age", "sex", "no", "yes", "none", "other", "normal", "history", "present"}


SYNONYMS_FILE = Path(__file__).parents[1] / "note_synonyms.yaml"


@functools.cache
def _synonyms() -> dict[str, list[str]]:
    data = yaml.safe_load(SYNONYMS_FILE.read_text(encoding="utf-8")) or {}
    return {str(k).lower(): [str(v) for v in vs] for k, vs in data.items()}


@functools.cache
def _abbrev() -> tuple[dict[str, str], dict[str, list[str]]]:
    t = _terms()
    fwd = {str(k).lower(): str(v).lower() for k, v in (t.get("abbreviations") or {}).items()}
    rev: dict[str, list[str]] = {}
    for k, v in fwd.items():
        rev.setdefault(v, []).append(k)
    return fwd, rev


def _variants(phrase: str) -> set[str]:
    p = " ".join(re.sub(r"\([^)]*\)", " ", phrase).replace("_", " ").split()).strip(" ,.:")
    out = {p}
    q = p
    for _ in range(2):
        q = _GENERIC_PREFIX.sub("", q)
        q = _GENERIC_SUFFIX.sub("", q)
    out.add(q)
    fwd, rev = _abbrev()
    for v in list(out):
        low = v.lower()
        if low in fwd:
            out.add(fwd[low])
        for full, abbrs in rev.items():
            if full in low:
                out.update(low.replace(full, a) for a in abbrs)
    syn = _synonyms()
    for v in list(out):
        out.update(syn.get(v.lower(), ()))
    return {v for v in out if len(v) >= 2 and v.lower() not in _STOP_TERMS}


def input_terms(i: InputSpec) -> list[str]:
    """The phrases that mention input ``i`` in a note, longest first."""
    names: list[str] = [i.label, *i.aliases, i.name, *i.note_terms]
    for r in i.records:
        names += list(r.names)
    out: set[str] = set()
    for n in names:
        if n and "#" not in n:
            out |= _variants(n)
    return sorted(out, key=lambda s: (-len(s), s))


@functools.cache
def _term_pattern(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    if not terms:
        return None
    alts = []
    for t in terms:
        esc = re.escape(t).replace(r"\ ", r"[\s\-]+")
        alts.append(rf"(?<![A-Za-z0-9]){esc}s?(?![A-Za-z0-9])")
    return re.compile("|".join(alts), re.I)


class NoteIndex:
    """One note, pre-split: sentences, quantities, and term mentions (cached)."""

    def __init__(self, note: str) -> None:
        self.text = note
        self.sents = sentences(note) or [(0, len(note))]
        self.quantities = find_quantities(note)
        self._mentions: dict[tuple[str, ...], list[tuple[int, int]]] = {}

    def sentence_of(self, pos: int) -> tuple[int, int]:
        """The start and end of the sentence around ``pos``."""
        for s in self.sents:
            if s[0] <= pos < s[1]:
                return s
        return (max(0, pos - 200), min(len(self.text), pos + 200))

    def mentions(self, terms: Iterable[str]) -> list[tuple[int, int]]:
        """Where any of ``terms`` stands in the note, as (start, end) spans."""
        key = tuple(terms)
        got = self._mentions.get(key)
        if got is None:
            pat = _term_pattern(key)
            got = []
            if pat is not None:
                for m in pat.finditer(self.text):
                    s = m.group(0)
                    if len(s.strip()) <= 3 and s == s.lower():
                        continue  # short abbreviations only in capitals ('Na', 'BUN', 'HR')
                    got.append((m.start(), m.end()))
            self._mentions[key] = got
        return got


def _unit_candidates(after: str) -> list[str]:
    after = re.sub(r"^\s*-(?=[A-Za-zµμ])", "", after)
    m = re.match(r"^\s*([^\s,;()\[\]—–]+(?:\s+[^\s,;()\[\]—–]+){0,2})", after)
    if not m:
        return []
    toks = m.group(1).split()
    out = []
    for n in range(len(toks), 0, -1):
        u = " ".join(toks[:n]).rstrip(".:;")
        if u:
            out.append(u)
    return out


@functools.lru_cache(maxsize=16384)
def _conversion(
    unit: str, to: str, molar_mass: float | None, valence: int | None, iu: str | None
) -> tuple[float, float] | None:
    """(scale, offset) from ``unit`` to ``to``, or ``None`` when ``unit`` is not convertible
    (cached, failures included: pint is slow to refuse text that is not a unit)."""
    if not re.search(r"[A-Za-z%°µμ/]", unit):
        return None
    try:
        a = convert(0.0, unit, to, molar_mass=molar_mass, valence=valence, iu_amount=iu)
        b = convert(1.0, unit, to, molar_mass=molar_mass, valence=valence, iu_amount=iu)
    except Exception:
        return None
    return b - a, a


@functools.lru_cache(maxsize=4096)
def _is_unit(text: str) -> bool:
    if not re.search(r"[A-Za-z%°µμ/]", text):
        return False
    try:
        registry().Unit(normalize_unit(text))
        return True
    except Exception:
        return False


def _quoted(
    idx: NoteIndex, i: InputSpec, value: Any, start: int, end: int, method: str
) -> Evidence:
    """Evidence whose text is exactly the note's span from ``start`` to ``end``."""
    return Evidence(i.name, value, start, end, idx.text[start:end], method)


def _after_term(
    idx: NoteIndex, i: InputSpec, fit: tuple[float, str | None, str], a0: int, q: Quantity, how: str
) -> Evidence:
    """A value found after its term: from the term (at ``a0``) to the quantity and its unit."""
    value = [fit[0], fit[1]] if fit[1] else fit[0]
    text = idx.text[a0 : q.end + 8]
    return Evidence(i.name, value, a0, q.end, text, f"rule:term+quantity ({how})")


def _fit(i: InputSpec, q: Quantity, value: float) -> tuple[float, str | None, str] | None:
    """(value, unit text, how) when ``value`` read with the unit after it fits input ``i``."""
    if i.unit is None:
        return (value, None, "no unit") if _in_range(i, value, None) else None
    for u in _unit_candidates(q.after):
        u = u.lstrip("-").replace("μ", "µ")
        if u.lower() in {"in", "and", "or", "on", "at", "to", "of", "a"}:
            continue
        factor = _conversion(u, i.unit, i.molar_mass, i.valence, i.iu_amount)
        if factor is None:
            continue  # not a unit of this input
        conv = float(f"{value * factor[0] + factor[1]:.12g}")
        if _in_range(i, conv, i.unit):
            return value, u, "unit"
        return None
    if re.match(r"^[\s\-]*[A-Za-zµμ%°]", q.after) and not re.match(
        r"^\s*(and|or|on|at|in|to|with|while|but|which|that|was|were|is)\b", q.after, re.I
    ):
        return None  # a word or unit of another kind follows ('140 mg', '3-month')
    if _in_range(i, value, i.unit):
        return value, None, "unit assumed"
    return _unit_from_range(i, value)


def _unit_from_range(i: InputSpec, value: float) -> tuple[float, str | None, str] | None:
    """A unitless value outside the canonical unit's range that exactly one of the input's
    declared alternative units puts in range ('creatinine of 129' → µmol/L)."""
    fits = []
    for u in i.units:
        factor = _conversion(u, i.unit or "", i.molar_mass, i.valence, i.iu_amount)
        if factor is not None and _in_range(i, value * factor[0] + factor[1], i.unit):
            fits.append(u)
    if len(fits) != 1:
        return None
    return value, fits[0], "unit inferred from the range"


def _in_range(i: InputSpec, value: float, unit: str | None) -> bool:
    if i.range is None:
        return True
    return i.range[0] <= value <= i.range[1]


_LIST_SEP = re.compile(r"\s*[^\d\s,;()]{0,12}\s*(?:,\s*and|,|and|;)\s*", re.I)
_OTHER_PERSON = re.compile(
    r"\b(father|mother|brother|sister|sibling|parents?|son|daughter|twin|donor)'?s?\W+"
    r"(?:\w+\W+){0,2}$",
    re.I,
)
"""A mention qualified as someone else's or as at birth ('birth weight', "her mother's height")."""
_BEFORE_TERM = re.compile(r"\s*(?:of|in)?\s*(?:the\s+)?$", re.I)
"""What may stand between a value's unit and the term it measures ('60 kg in weight')."""


_SLASH_AFTER = re.compile(r"\s*/\s*[A-Za-z]")
_SLASH_BEFORE = re.compile(r"[A-Za-z)]\s*/\s*$")


def _in_slash_terms(idx: NoteIndex, a0: int, a1: int) -> bool:
    """Whether the mention is one side of 'A/B' ('AST/ALT', 'BUN/creatinine ratio')."""
    return (
        _SLASH_AFTER.match(idx.text[a1 : a1 + 4]) is not None
        or _SLASH_BEFORE.search(idx.text[max(0, a0 - 4) : a0]) is not None
    )


_NOT_CURRENT = re.compile(r"\b(baseline|usual|pre-?morbid)\b\W+(?:\w+\W+){0,1}$", re.I)
"""A mention of a reference value rather than the current one ('baseline creatinine')."""
_BOUND = re.compile(r"(?:[<>≤≥]|\b(?:less|more|greater|fewer) than)\s*$", re.I)
_AT_BIRTH = re.compile(r"\b(birth|born|newborn|neonatal|fetal|fetus|prenatal(ly)?)\b", re.I)
_CHANGE = re.compile(
    r"\b(los[st]|losing|loosing|loss|gain(ed|ing)?|increase[ds]?|decrease[ds]?|drop(ped)?|"
    r"reduction|fell|rose|change)(?:\s+(?:of|by|about|approximately|nearly|almost|around|over|~))*\s*$",
    re.I,
)
"""Words saying a value is a change ('lost 40 kg', 'weight loss of 5 kg'), not a measurement."""


def _someone_else(idx: NoteIndex, a0: int) -> bool:
    """Whether the mention at ``a0`` measures another person or a reference value (cue just
    before it: 'her mother's height', 'baseline creatinine') or the patient at birth (anywhere
    earlier in its sentence)."""
    s0, _s1 = idx.sentence_of(a0)
    before = idx.text[max(s0, a0 - 40) : a0]
    return (
        _OTHER_PERSON.search(before) is not None
        or _NOT_CURRENT.search(before[-25:]) is not None
        or _AT_BIRTH.search(idx.text[s0:a0]) is not None
    )


class RuleExtractor:
    """The rule extractor (see the module docstring)."""

    name = "rules"

    def extract(self, note: str, calculator: Calculator, question: str = "") -> Extraction:
        """The calculator's inputs found in the note, each with its evidence."""
        idx = NoteIndex(note)
        qidx = NoteIndex(question) if question.strip() else None
        out = Extraction()
        used: set[int] = set()
        for i in calculator.spec.inputs:
            if i.note_source == "question":
                ev = self.extract_input(qidx, calculator, i, set()) if qidx else None
                if ev is not None:
                    ev = replace(ev, method=ev.method + " (in the question)")
            else:
                ev = self.extract_input(idx, calculator, i, used)
            if ev is None:
                out.missing.append(i.name)
            else:
                out.put(ev)
        return out

    # ------------------------------------------------------------------------------------------
    def extract_input(
        self, idx: NoteIndex, calc: Calculator, i: InputSpec, used: set[int]
    ) -> Evidence | None:
        """One input's value found in the note, with its evidence, or None."""
        low = f"{i.name} {i.label}".lower()
        if i.type == "categorical" and {v.value.lower() for v in i.values} >= {"female", "male"}:
            return self._sex(idx, i)
        if i.type in ("number", "integer") and i.name == "age":
            return self._age(idx, i)
        if i.type in ("number", "integer") and ("systolic" in low or "diastolic" in low):
            got = self._pressure(idx, i, second="diastolic" in low)
            if got is not None:
                return got
        if i.type in ("number", "integer"):
            return self._number(idx, calc, i, used)
        if i.type == "boolean":
            return self._boolean(idx, i)
        if i.type == "categorical":
            return self._categorical(idx, i)
        if i.type == "date":
            return self._date(idx, i)
        return None

    def _age(self, idx: NoteIndex, i: InputSpec) -> Evidence | None:
        best: tuple[int, Evidence] | None = None
        for pat, unit in AGE_PATTERNS:
            m = pat.search(idx.text)
            if m and (best is None or m.start() < best[0]):
                n = int(m.group(1))
                if _in_range(i, n if unit == "year" else 0, None) or unit != "year":
                    ev = Evidence(
                        i.name, [n, f"{unit}s"], m.start(), m.end(), m.group(0), "rule:age-pattern"
                    )
                    best = (m.start(), ev)
        if best is None:
            m = WORD_NUMBER.search(idx.text)
            if m:
                n, unit = word_number(m.group(1)), m.group(2).lower()
                return Evidence(
                    i.name, [n, f"{unit}s"], m.start(), m.end(), m.group(0), "rule:age-words"
                )
        return best[1] if best else None

    def _sex(self, idx: NoteIndex, i: InputSpec) -> Evidence | None:
        m = SEX_NOUN.search(idx.text)
        if m:
            w = m.group(1).lower()
            val = "Female" if w in {"woman", "female", "girl", "lady"} else "Male"
            return Evidence(i.name, val, m.start(1), m.end(1), m.group(0), "rule:sex-noun")
        f = list(FEMALE.finditer(idx.text))
        ma = list(MALE.finditer(idx.text))
        if not f and not ma:
            return None
        val = "Female" if len(f) > len(ma) else "Male"
        first = (f if val == "Female" else ma)[0]
        return Evidence(
            i.name,
            val,
            first.start(),
            first.end(),
            first.group(0),
            f"rule:sex-words ({len(f)} female, {len(ma)} male)",
        )

    def _pressure(self, idx: NoteIndex, i: InputSpec, *, second: bool) -> Evidence | None:
        anchors = idx.mentions(("blood pressure", "bp", "b.p.", "pressure", "mmhg", "mm hg"))
        for q in idx.quantities:
            if q.second is None:
                continue
            near = any(0 <= q.start - a[1] <= 40 or 0 <= a[0] - q.end <= 12 for a in anchors)
            if not near:
                continue
            sbp, dbp = q.value, q.second
            if not (40 <= sbp <= 300 and 10 <= dbp <= 200 and sbp > dbp):
                continue
            v = dbp if second else sbp
            if not _in_range(i, v, i.unit):
                continue
            return Evidence(
                i.name,
                [v, "mmHg"],
                q.start,
                q.end,
                idx.text[q.start : q.end + 6],
                "rule:pressure-pair",
            )
        return None

    def _number(
        self, idx: NoteIndex, calc: Calculator, i: InputSpec, used: set[int]
    ) -> Evidence | None:
        found = idx.mentions(tuple(input_terms(i)))
        own = [m for m in found if not _someone_else(idx, m[0])]
        ev = self._after_mentions(idx, i, own, used) or self._before_mentions(idx, i, own, used)
        ev = ev or self._by_unit(idx, calc, i, used)
        if ev is None:  # a neonate's birth weight is its weight: qualified mentions come last
            others = [m for m in found if m not in own]
            ev = self._after_mentions(idx, i, others, used)
            ev = ev or self._before_mentions(idx, i, others, used)
            if ev is not None:
                ev = replace(ev, method=ev.method + " (qualified mention)")
        return ev

    def _after_mentions(
        self, idx: NoteIndex, i: InputSpec, mentions: list[tuple[int, int]], used: set[int]
    ) -> Evidence | None:
        """The value after a mention: a slash pair, a list, or the first fitting quantity."""
        for a0, a1 in mentions:
            _s0, s1 = idx.sentence_of(a1 - 1)  # a term may wrap a line
            paired = self._slash_pair(idx, i, a0, a1, s1, used)
            if paired is not None:
                return paired
            if _in_slash_terms(idx, a0, a1):
                continue  # 'BUN/creatinine ratio of 28' names a ratio, not this value
            listed = self._from_list(idx, i, a0, a1, s1, used)
            if listed is not None:
                q, fit = listed
                used.add(q.start)
                return _after_term(idx, i, fit, a0, q, "listed, respectively")
            for q in idx.quantities:
                if q.start < a1 or q.start - a1 > 60 or q.start >= s1 or q.start in used:
                    continue
                gap = idx.text[a1 : q.start]
                if re.search(r"\d", gap):
                    break  # another number sits between the mention and this one
                if _CHANGE.search(gap):
                    break  # 'weight loss of 5 kg' is a change, not the value
                if _BOUND.search(gap):
                    continue  # 'weight was < 15 kg' is a bound, not a measurement
                got = _fit(i, q, q.value)
                if got is None:
                    continue
                value, unit, how = got
                used.add(q.start)
                end = q.end + (len(unit) + 1 if unit and how == "unit" else 0)
                value_unit = [value, unit] if unit else value
                method = f"rule:term+quantity ({how})"
                return _quoted(idx, i, value_unit, a0, min(end, s1), method)
        return None

    def _before_mentions(
        self, idx: NoteIndex, i: InputSpec, mentions: list[tuple[int, int]], used: set[int]
    ) -> Evidence | None:
        """The value written before its term, with its unit ('60 kg in weight', '88% SpO2')."""
        for a0, a1 in mentions:
            # '60 mg of tramadol', '60 kilograms in weight', '74/min cardiac rate': value first
            for q in reversed(idx.quantities):
                if q.end > a0 or a0 - q.end > 25 or q.start in used or q.second is not None:
                    continue
                between = idx.text[q.end : a0]
                if re.search(r"\d", between) or _CHANGE.search(
                    idx.text[max(0, q.start - 25) : q.start]
                ):
                    continue
                before = _fit(i, q, q.value)
                if before is None or before[1] is None:
                    continue
                gap = between.lstrip(" -").replace("μ", "µ")
                if not gap.startswith(before[1]) or not _BEFORE_TERM.fullmatch(
                    gap[len(before[1]) :]
                ):
                    continue
                used.add(q.start)
                return _quoted(idx, i, [before[0], before[1]], q.start, a1, "rule:quantity+term")
        return None

    def _slash_pair(
        self, idx: NoteIndex, i: InputSpec, a0: int, a1: int, s1: int, used: set[int]
    ) -> Evidence | None:
        """'AST/ALT of 33/24 IU/L': this mention's side of a slash pair of values."""
        if not _in_slash_terms(idx, a0, a1):
            return None
        second = _SLASH_BEFORE.search(idx.text[max(0, a0 - 4) : a0]) is not None
        for q in idx.quantities:
            if q.start < a1 or q.start >= s1 or q.start - a1 > 60:
                continue
            if q.second is None or re.search(r"\d", idx.text[a1 : q.start]):
                break
            value = q.second if second else q.value
            fit = _fit(i, q, value)
            if fit is None or q.start in used:
                break
            return _after_term(idx, i, fit, a0, q, "slash pair")
        return None

    _VERB = re.compile(r"\s(?:were|are|was|of|measured|respectively)\s|:\s", re.I)

    def _from_list(
        self, idx: NoteIndex, i: InputSpec, a0: int, a1: int, s1: int, used: set[int]
    ) -> tuple[Quantity, tuple[float, str | None, str]] | None:
        """'A, B and C were 27, 15 and 20': the value at this mention's place in the list."""
        m = self._VERB.search(idx.text, a1, min(s1, a1 + 160))
        if m is None:
            return None
        gap = idx.text[a1 : m.start()]
        if re.search(r"\d", gap):
            return None
        after_me = len(re.findall(r",|\band\b|;", gap))
        last_item = re.search(r"(,|\band)\s*$", idx.text[max(0, a0 - 6) : a0]) is not None
        if after_me == 0 and not last_item:
            return None
        nums: list[Quantity] = []
        for q in idx.quantities:
            if q.start < m.end():
                continue
            if q.start >= s1:
                break
            between = idx.text[nums[-1].end if nums else m.end() : q.start]
            if nums and not _LIST_SEP.fullmatch(between):
                break  # only a unit and a separator between listed values
            if not nums and len(between.strip()) > 3:
                return None
            nums.append(q)
        if len(nums) <= after_me or len(nums) < 2:
            return None
        q = nums[len(nums) - 1 - after_me]
        if q.start in used:
            return None
        fit = _fit(i, q, q.value)
        return (q, fit) if fit is not None else None

    def _by_unit(
        self, idx: NoteIndex, calc: Calculator, i: InputSpec, used: set[int]
    ) -> Evidence | None:
        """Weight/height-like inputs: the first quantity in one of the input's own units, when
        no other input of the calculator has that dimension."""
        if i.unit is None:
            return None
        mine = {normalize_unit(u).lower() for u in (i.unit, *i.units)}
        ureg = registry()
        try:
            dim = ureg.Quantity(1, normalize_unit(i.unit)).dimensionality
        except Exception:
            return None
        if str(dim) not in _BODY_DIMENSIONS:
            return None  # '90%' or '120 mmHg' alone says nothing about which input it is
        for o in calc.spec.inputs:
            if o.name == i.name or o.unit is None:
                continue
            try:
                if ureg.Quantity(1, normalize_unit(o.unit)).dimensionality == dim:
                    return None
            except Exception:
                continue
        if str(dim) == "[length]":
            m = FEET_INCHES.search(idx.text)
            if m and (m.group(2) or re.search(r"ft|feet|foot", m.group(0), re.I)):
                inches = int(m.group(1)) * 12 + float(m.group(2) or 0)
                ev_val = [round(inches, 2), "in"]
                return Evidence(i.name, ev_val, m.start(), m.end(), m.group(0), "rule:feet-inches")
        for q in idx.quantities:
            if q.start in used or q.second is not None or _someone_else(idx, q.start):
                continue
            if _CHANGE.search(idx.text[max(0, q.start - 25) : q.start]):
                continue
            for u in _unit_candidates(q.after)[-1:]:
                if normalize_unit(u).lower() not in mine:
                    continue
                fit = _fit(i, q, q.value)
                if fit is None or fit[1] is None:
                    continue
                used.add(q.start)
                end = q.end + len(u) + 1
                return _quoted(idx, i, [fit[0], fit[1]], q.start, end, "rule:quantity-in-unit")
        return None

    def _boolean(self, idx: NoteIndex, i: InputSpec) -> Evidence:
        own = self._finding(idx, i, tuple(input_terms(i)))
        if own is not None and own.value:
            return own
        if i.negated_aliases:  # 'cough absent': read the opposite finding and invert it
            terms = {v for n in i.negated_aliases for v in _variants(n)}
            opp = self._finding(idx, i, tuple(sorted(terms, key=lambda t: (-len(t), t))))
            if opp is not None:
                return replace(opp, value=not opp.value, method=opp.method + " (opposite finding)")
        if i.note_implied_by:
            for a0, a1 in idx.mentions(tuple(i.note_implied_by)):
                sent = idx.sentence_of(a0)
                asr = assertion(idx.text, sent, a0, a1)
                if asr.affirmed:
                    return Evidence(
                        i.name,
                        True,
                        a0,
                        a1,
                        idx.text[sent[0] : sent[1]].strip()[:300],
                        "rule:implied-by-medication",
                        "affirmed",
                    )
        if own is not None:
            return own
        value = bool(i.absent_value) if i.absent_value is not None else False
        return Evidence(i.name, value, None, None, "", "rule:not-mentioned", "not mentioned")

    def _finding(self, idx: NoteIndex, i: InputSpec, terms: tuple[str, ...]) -> Evidence | None:
        """The first mention of a finding that asserts it, else the first mention, else None."""
        seen: list[Evidence] = []
        for a0, a1 in idx.mentions(terms):
            sent = idx.sentence_of(a0)
            asr = assertion(idx.text, sent, a0, a1)
            present = asr.affirmed or (
                i.note_suspected_counts and asr.uncertain and not (asr.negated or asr.family)
            )
            present = present and not (i.note_recent_only and asr.historical)
            ev = Evidence(
                i.name,
                present,
                a0,
                a1,
                idx.text[sent[0] : sent[1]].strip()[:300],
                "rule:term+negex",
                asr.describe(),
            )
            if present:
                return ev
            seen.append(ev)
        return seen[0] if seen else None

    def _categorical(self, idx: NoteIndex, i: InputSpec) -> Evidence | None:
        anchor = idx.mentions(tuple(input_terms(i)))
        anchor_sents = {idx.sentence_of(a[0]) for a in anchor}
        best: tuple[int, int, Evidence] | None = None
        for v in i.values:
            names = tuple(
                sorted(
                    {n for n in (v.value, *v.aliases) if len(n) >= 3 and n.lower() not in {"no"}},
                    key=lambda s: -len(s),
                )
            )
            for a0, a1 in idx.mentions(names):
                sent = idx.sentence_of(a0)
                asr = assertion(idx.text, sent, a0, a1)
                if asr.negated:
                    continue
                rank = 0 if sent in anchor_sents else 1
                ev = Evidence(
                    i.name,
                    v.value,
                    a0,
                    a1,
                    idx.text[sent[0] : sent[1]].strip()[:300],
                    "rule:categorical-value" + (" (near input)" if rank == 0 else ""),
                    asr.describe(),
                )
                key = -a0 if i.note_source == "question" else a0
                if best is None or (rank, key) < (best[0], best[1]):
                    best = (rank, key, ev)
                if i.note_source != "question":
                    break
        return best[2] if best else None

    def _date(self, idx: NoteIndex, i: InputSpec) -> Evidence | None:
        terms = tuple(input_terms(i))
        dates = list(DATE.finditer(idx.text))
        for a0, a1 in idx.mentions(terms):
            for m in dates:
                if m.start() < a1 or m.start() - a1 > 80:
                    continue
                d = to_date(m)
                if d is None:
                    continue
                return Evidence(
                    i.name,
                    d.strftime("%m/%d/%Y"),
                    a0,
                    m.end(),
                    idx.text[a0 : m.end()],
                    "rule:term+date",
                )
        return None


def as_params(values: dict[str, Any]) -> dict[str, Any]:
    """Copy of a parameters mapping (for callers that mutate)."""
    return dict(values)
