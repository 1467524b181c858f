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
* the unit wanted, as a conversion — 'converted from kg to lb', 'converted to inches': read as
  'in lb', 'in inches'.

Anything else is left as written (and read, or named as unread, by the readers).
"""

from __future__ import annotations

import re

from clinbridge.engine._analytes import analyte_in
from clinbridge.engine._units import unit_factor

__all__ = ["unit_asides"]

_UNIT = r"(?P<{0}>[a-zµ][a-zµ0-9/^\[\]_]*)"
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
    r"|\s*[;,]\s*(?:the\s+)?[a-z]+\s+(?:are|is)\s+(?:stored|recorded)\s+in\s+"
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
_SPELLINGS = {"pounds": "lb", "pound": "lb", "kilograms": "kg", "kilogram": "kg"}


def _key(unit: str) -> str:
    u = unit.strip().lower().replace("micromol", "umol").replace("µmol", "umol")
    return _SPELLINGS.get(u, u)


def _factor(u1: str, u2: str, question: str) -> float | None:
    """How many ``u2`` one ``u1`` is, by the known factors; None when not known."""
    return unit_factor(_key(u1), _key(u2), analyte_in(question))


def _agrees(stated: float, known: float) -> bool:
    return abs(stated / known - 1.0) <= 0.01


def unit_asides(question: str) -> tuple[str, str | None]:
    """(the question with its unit asides accounted for, an abstention reason or None)."""
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
    return question, None
