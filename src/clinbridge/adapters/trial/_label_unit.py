"""The unit a variable's label ends with, as codebooks without a unit column write it.

``Birth weight [g]`` · ``Birth weight (g)`` · ``Core temperature (deg C)`` · ``Blood glucose
(mg/dL)`` · ``Platelet count (x10^9/L)`` · ``Cerebral oxygen saturation, NIRS (%)``. Square
brackets at the end hold a unit unless they hold a range or a pair of codes (``[0-10]``,
``[Y/N]``); round brackets hold one only when their words are a unit's (``(g)``, ``(minutes)``,
a ratio such as ``(beats/min)``), never an aside (``(modified Sarnat)``, ``(inborn)``,
``(0-6)``). Temperatures in degrees Celsius are written ``°C`` whatever the label's spelling.
"""

from __future__ import annotations

import re

__all__ = ["unit_in_label"]

_SQUARE = re.compile(r"\[\s*(?P<unit>[^\[\]=;,]{1,16}?)\s*\]\s*$")
_ROUND = re.compile(r"\(\s*(?P<unit>[^()=;,]{1,16}?)\s*\)\s*$")
_NOT_UNIT = re.compile(r"^[\d.\s]+(?:[-–]|to)[\d.\s]+$|^[A-Za-z]/[A-Za-z]$|\bor\b", re.I)
_WORDS = frozenset(
    {
        "g", "kg", "mg", "µg", "mcg", "cm", "mm", "m", "ml", "l", "dl", "%", "mmhg", "kpa",
        "cmh2o", "h", "hr", "hrs", "hour", "hours", "min", "mins", "minute", "minutes", "s",
        "sec", "seconds", "day", "days", "week", "weeks", "wk", "wks", "month", "months",
        "year", "years", "bpm", "iu", "u", "°c", "ºc", "deg c", "degc", "degrees c",
        "degrees celsius", "°f", "mosm/kg", "mmol", "mol", "u/l", "iu/l",
    }
)  # fmt: skip
_RATIO = re.compile(r"^(?:x\s?10\^?\d+|[A-Za-zµμ%]{1,8})(?:\s?/\s?[A-Za-zµμ0-9^]{1,8}){1,2}$")
_CELSIUS = frozenset({"deg c", "degc", "degrees c", "degrees celsius", "ºc", "° c"})


def _spelling(unit: str) -> str:
    return "°C" if unit.lower() in _CELSIUS else unit


def unit_in_label(label: str) -> str | None:
    """The unit the label ends with (module docstring), or None."""
    text = label or ""
    m = _SQUARE.search(text)
    if m is not None:
        unit = m.group("unit")
        if _NOT_UNIT.search(unit) or not re.search(r"[^\d\s]", unit):
            return None
        return _spelling(unit)
    m = _ROUND.search(text)
    if m is None or m.start() == 0:
        return None
    unit = re.sub(r"\s+", " ", m.group("unit"))
    if unit.lower() in _WORDS or (_RATIO.match(unit) and not _NOT_UNIT.search(unit)):
        return _spelling(unit)
    return None
