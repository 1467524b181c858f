"""Asides about units, accounted for before the question is read.

A question may say how its units relate, beside what it asks:

* a conversion factor — '(1 kg = 2.20462 lb)', '(1 inch = 2.54 cm)', '(1 mg/dL = 88.4 µmol/L)':
  checked against the known factor (a physical one from ``engine/_units``, or the analyte's
  own from ``engine/_analytes`` for the analyte the question names). Within 1 % of it, the
  aside is the known factor restated and is taken out (the engine converts by the known one);
  further off, the question's factor and the known one disagree and the reader abstains,
  naming both (never picking one);
* the same threshold in a second unit — '200 lb (about 90.7 kg)': taken out when the two agree
  within 1 %, else an abstention;
* where values are stored — '(stored in cm)', '; weights are stored in kg': the engine converts
  each row by the unit the row records, whatever the question says, so the claim is taken out;
* several of these in one parenthesis, by clause ('(stored in cm; 1 inch = 2.54 cm)', '(the
  source stores mg/dL; 1 mmol/L = 88.57 mg/dL, so about 177.1 mg/dL)'): taken out whole when
  every clause is one of them and each checks;
* the unit wanted, as a conversion — 'converted from kg to lb', 'converted to inches': read as
  'in lb', 'in inches'.

Anything else is left as written (and read, or named as unread, by the readers).
"""

from __future__ import annotations

import re

from clinbridge.engine._analytes import analyte_in
from clinbridge.engine._units import convert_value, unit_factor
from clinbridge.engine.understand._unit_arith import unit_arithmetic

__all__ = ["unit_asides"]

_UNIT = r"(?P<{0}>(?:°\s*|degrees?\s+)?[a-zµ][a-zµ0-9/^\[\]_]*|%)"
_NUM = r"(?P<{0}>\d+(?:\.\d+)?)"
_FACTOR = re.compile(
    r"[,;]?\s*\(\s*1\s*"
    + _UNIT.format("u1")
    + r"\s*=\s*"
    + _NUM.format("f")
    + r"\s*"
    + _UNIT.format("u2")
    + r"\s*\)",
    re.I,
)
_STORED = re.compile(
    r"\s*\(\s*(?:values?\s+)?(?:stored|recorded)\s+in\s+" + _UNIT.format("u") + r"\s*\)"
    r"|\s*[;,]\s*(?:(?:the\s+)?[a-z]+\s+(?:are|is)\s+)?(?:stored|recorded)\s+in\s+"
    + _UNIT.format("u2")
    + r"(?=\s*\))",
    re.I,
)
_SAME_AGAIN = re.compile(
    _NUM.format("n0") + r"\s*" + _UNIT.format("u0") + r"\s*\(\s*(?:about|approximately|approx\.?|"
    r"roughly|~|≈|i\.?\s?e\.?,?|that\s+is,?)\s*"
    + _NUM.format("n")
    + r"\s*"
    + _UNIT.format("u")
    + r"\s*\)",
    re.I,
)
_CONVERTED = re.compile(
    r",?\s*converted\s+(?:from\s+" + _UNIT.format("u1") + r"\s+)?to\s+" + _UNIT.format("u2"), re.I
)
_SPELLINGS = {
    "pounds": "lb",
    "pound": "lb",
    "kilograms": "kg",
    "kilogram": "kg",
    "percentage": "%",
    "percent": "%",
    "celsius": "cel",
    "fahrenheit": "[degf]",
}


def _key(unit: str) -> str:
    u = unit.strip().lower().replace("micromol", "umol").replace("µmol", "umol")
    u = re.sub(r"^(?:°\s*|degrees?\s+)", "°" if "°" in u else "", u)
    return _SPELLINGS.get(u, u)


def _in_unit(x: float, u1: str, u2: str, question: str) -> float | None:
    """``x`` ``u1`` in ``u2`` (offsets included: °F to °C), by the known conversions."""
    if _key(u1) == _key(u2):
        return x
    return convert_value(x, _key(u1), _key(u2), analyte_in(question))


def _factor(u1: str, u2: str, question: str) -> float | None:
    """How many ``u2`` one ``u1`` is, by the known factors; None when not known."""
    return unit_factor(_key(u1), _key(u2), analyte_in(question))


def _agrees(stated: float, known: float) -> bool:
    return abs(stated / known - 1.0) <= 0.01


_CLAUSE_STORED = re.compile(
    r"^(?:(?:the\s+)?(?:source|database|data|db|table)\s+(?:stores|records|keeps)\s+(?:them\s+in\s+|values\s+in\s+)?"
    r"|(?:(?:the\s+)?[a-z]+\s+(?:are|is)\s+|values?\s+(?:are\s+)?)?(?:stored|recorded|kept)\s+(?:in|as)\s+(?:an?\s+)?)"
    + _UNIT.format("u")
    + r"(?:\s*,?\s*which\s+is\s+the\s+same\s+(?:number|value))?$",
    re.I,
)
_CLAUSE_FACTOR = re.compile(
    r"^1\s*"
    + _UNIT.format("u1")
    + r"(?:\s+of\s+[a-z]+)?\s*=\s*"
    + _NUM.format("f")
    + r"\s*"
    + _UNIT.format("u2")
    + "$",
    re.I,
)
_CLAUSE_AGAIN = re.compile(
    r"^(?:(?:so|i\.?\s?e\.?|that\s+is|which\s+is)\s*,?\s*)?"
    r"(?:(?:below|under|above|over|at\s+least|at\s+most|less\s+than|more\s+than|greater\s+than|"
    r"or\s+(?:more|less|higher|lower)|[<>]=?|[≤≥])\s*)?"
    r"(?:(?:about|approximately|approx\.?|roughly|around|~|≈)\s+)?"
    + _NUM.format("n")
    + r"\s*"
    + _UNIT.format("u")
    + "$",
    re.I,
)
_CLAUSE_PAIR = re.compile(
    r"^"
    + _NUM.format("n0")
    + r"\s*"
    + _UNIT.format("u0")
    + r"\s+(?:is|=|equals)\s+(?:about\s+|approximately\s+|roughly\s+|~\s*)?"
    + _NUM.format("n")
    + r"\s*"
    + _UNIT.format("u")
    + "$",
    re.I,
)
_CLAUSE_COUNTED = re.compile(
    r"^(?:every|each|all)\s+(?:results?|values?|readings?|measurements?|records?)\s+(?:counted|included|pooled)$",
    re.I,
)
_CLAUSE_SCALE = re.compile(
    r"^(?:to\s+convert,?\s*)?(?P<op>divide|divided|multiply|multiplied|times|x|\*|×)\s*(?:it\s+|them\s+|values?\s+)?"
    r"(?:by\s+)?" + _NUM.format("f") + "$",
    re.I,
)
_CLAUSE_ONE = re.compile(
    r"^(?:only\s+)?(?:one|a\s+single)\s+[a-z]+(?:\s+(?:that|in\s+that)\s+(?:year|day|month|visit))?$",
    re.I,
)
_ASKED_UNIT = re.compile(
    r"\b(?:in|into|to|expressed\s+in|as)\s+" + _UNIT.format("u") + r"(?![a-z])", re.I
)
_BARE_BEFORE = re.compile(r"(?P<n0>\d*\.\d+|\d+)\s*$")
_THRESHOLD = re.compile(r"(?<![\w.-])" + _NUM.format("n0") + r"\s*" + _UNIT.format("u0"), re.I)


def _unit_clauses(question: str) -> tuple[str, str | None]:
    """'(heights are stored in cm; 1 inch = 2.54 cm)', '(the source stores mg/dL; 1 mmol/L =
    88.57 mg/dL, so about 177.1 mg/dL)', '(stored in mg/dL; divide by 4.008)', '(the ratio is
    stored as a percentage, so below 70 %)': a parenthesis whose every clause is one of the
    asides above — a storage unit, a factor (checked), a division or multiplication from the
    stored unit to the one asked (checked), the threshold again in another unit (checked against
    the number before the parenthesis; a bare fraction restated as a percentage of a value
    stored as one is replaced by it), one reading said to be the one asked (the answer's own
    check sees whether the data holds more) — is taken out whole."""
    for m in list(re.finditer(r"\s*\(([^()]{4,200})\)", question)):
        clauses = [c.strip() for c in re.split(r"\s*[;,]\s*", m[1]) if c.strip()]
        before = list(_THRESHOLD.finditer(question[: m.start()]))
        stored = next((st["u"] for c in clauses if (st := _CLAUSE_STORED.match(c))), None)
        ok, swap = bool(clauses), None
        for c in clauses:
            if _CLAUSE_STORED.match(c) or _CLAUSE_COUNTED.match(c) or _CLAUSE_ONE.match(c):
                continue
            if not _CLAUSE_FACTOR.match(c) and (
                pair := _CLAUSE_PAIR.match(c)
            ):  # '200 lb is about 90.7 kg'
                known = _in_unit(float(pair["n0"]), pair["u0"], pair["u"], question)
                if known is None or not _agrees(float(pair["n"]), known):
                    return (
                        question,
                        f"{pair['n0']} {pair['u0']} is not {pair['n']} {pair['u']}; say which is meant",
                    )
                continue
            if f := _CLAUSE_FACTOR.match(c):
                known = _factor(f["u1"], f["u2"], question)
                if known is not None and not _agrees(float(f["f"]), known):
                    return question, (
                        f"the question's factor (1 {f['u1']} = {f['f']} {f['u2']}) is not the known "
                        f"one (1 {f['u1']} = {known:.4g} {f['u2']}); say which to use"
                    )
                ok = ok and known is not None
                continue
            if sc := _CLAUSE_SCALE.match(c):  # 'divide by 4.008': from the stored unit to the asked
                asked = [u["u"] for u in _ASKED_UNIT.finditer(question[: m.start()])]
                target = next(
                    (u for u in reversed(asked) if stored and _key(u) != _key(stored)), None
                )
                known = _factor(stored, target, question) if stored and target else None
                if known is None:
                    ok = False
                    continue
                want = 1 / known if sc["op"].lower().startswith("divide") else known
                if not _agrees(float(sc["f"]), want):
                    how = "divided by" if sc["op"].lower().startswith("divide") else "times"
                    return question, (
                        f"{stored} {how} {sc['f']} is not {target} (1 {stored} = {known:.4g} "
                        f"{target}); say which to use"
                    )
                continue
            a = _CLAUSE_AGAIN.match(c)
            bare = _BARE_BEFORE.search(question[: m.start()])
            if a and bare and stored and _key(stored) == "%" == _key(a["u"]):  # '0.70 (… so 70 %)'
                if float(bare["n0"]) > 1 or not _agrees(float(a["n"]), float(bare["n0"]) * 100):
                    return question, (
                        f"{bare['n0']} is not {a['n']} %; say which threshold is meant"
                    )
                swap = (bare.start("n0"), bare.end("n0"), f"{a['n']} %")
                continue
            if (a := _CLAUSE_AGAIN.match(c)) and before:
                t = before[-1]
                known = _in_unit(float(t["n0"]), t["u0"], a["u"], question)
                if known is None or not _agrees(float(a["n"]), known):
                    return question, (
                        f"{t['n0']} {t['u0']} is not {a['n']} {a['u']}; say which threshold is meant"
                    )
                continue
            ok = False
        if ok:
            question = question[: m.start()] + question[m.end() :]
            if swap is not None:
                question = question[: swap[0]] + swap[2] + question[swap[1] :]
            return _unit_clauses(question)  # the positions of the next parentheses moved
    return question, None


_NOT_UNIT = re.compile(
    r"\b(?P<w>in|as)\s+"
    + _UNIT.format("u")
    + r"\s*\(\s*not\s+(?:in\s+)?"
    + _UNIT.format("v")
    + r"\s*\)",
    re.I,
)


def _not_unit(m: re.Match[str]) -> str:
    """'in g/l (not g/dl)': the unit asked, said again against another of its family."""
    known = unit_factor(_key(m["u"]), _key(m["v"]))
    return f"{m['w']} {m['u']}" if known is not None and _key(m["u"]) != _key(m["v"]) else m[0]


def unit_asides(question: str) -> tuple[str, str | None]:
    """(the question with its unit asides accounted for, an abstention reason or None)."""
    question, differ = unit_arithmetic(question)  # 'g/dL x 10', '(kg) ..., times 1000'
    if differ:
        return question, differ
    question, differ = _unit_clauses(question)
    if differ:
        return question, differ
    for m in list(_FACTOR.finditer(question)):
        known = _factor(m["u1"], m["u2"], question)
        if known is None:
            continue
        if not _agrees(float(m["f"]), known):
            return question, (
                f"the question's factor (1 {m['u1']} = {m['f']} {m['u2']}) is not the known "
                f"one (1 {m['u1']} = {known:.4g} {m['u2']}); say which to use"
            )
        question = question.replace(m[0], "", 1)
    question = _STORED.sub("", question)
    for m in list(_SAME_AGAIN.finditer(question)):
        known = _factor(m["u0"], m["u"], question)
        if known is None:
            continue
        if not _agrees(float(m["n"]), float(m["n0"]) * known):
            return question, (
                f"{m['n0']} {m['u0']} is not {m['n']} {m['u']}; say which threshold is meant"
            )
        question = question.replace(m[0], f"{m['n0']} {m['u0']}", 1)
    question = _CONVERTED.sub(lambda m: f" in {_key(m['u2'])}", question)
    question = _NOT_UNIT.sub(_not_unit, question)
    return question, None
