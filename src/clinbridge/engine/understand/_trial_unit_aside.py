"""'median age at randomisation (mins)', 'head circumference (cm)', 'birth weight (in grams)':
a unit in brackets says what the answer is in. It is read when it is the stored unit of the
variable measured (or compared) — said so in a grounding — and abstains when it is another unit
(no conversion is made here but kg/g in conditions)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._trial_model import Abstain, Family, Mention

if TYPE_CHECKING:
    from clinbridge.catalog import Variable

__all__ = ["UNIT_ASIDE", "check_unit_aside", "read_unit_asides", "unit_name"]

_ALIASES = {
    **dict.fromkeys(("min", "mins", "minute", "minutes"), "minutes"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "hours"),
    **dict.fromkeys(("d", "day", "days"), "days"),
    **dict.fromkeys(("wk", "wks", "week", "weeks"), "weeks"),
    **dict.fromkeys(("mo", "mos", "month", "months"), "months"),
    **dict.fromkeys(("y", "yr", "yrs", "year", "years"), "years"),
    **dict.fromkeys(("g", "gram", "grams", "gm"), "g"),
    **dict.fromkeys(("kg", "kgs", "kilogram", "kilograms", "kilos"), "kg"),
    **dict.fromkeys(("cm", "cms", "centimetre", "centimetres", "centimeter", "centimeters"), "cm"),
    **dict.fromkeys(("mm", "millimetre", "millimetres", "millimeter", "millimeters"), "mm"),
    **dict.fromkeys(("°c", "c", "deg c", "degrees c", "celsius"), "°C"),
    "mmhg": "mmHg",
    "mmol/l": "mmol/L",
    "bpm": "beats/min",
    "beats/min": "beats/min",
}
UNIT_ASIDE = re.compile(r"\(\s*(?:in\s+)?(?P<unit>[a-z°][a-z°/ ]{0,11}?)\s*\)")
"""A unit alone in brackets, with or without 'in' ('(%)' is the share asked, not a unit)."""


def unit_name(unit: str) -> str:
    """The unit in one spelling ('mins' and 'minutes' → 'minutes')."""
    u = re.sub(r"\s+", " ", unit.strip().lower())
    return _ALIASES.get(u, u)


class _Read(Protocol):
    masked: str
    groundings: list[Grounding]
    units_said: list[str]

    def blank(self, a: int, b: int) -> None: ...


def read_unit_asides(q: _Read, units: set[str]) -> None:
    """Blank each bracketed unit that is some variable's stored unit; keep it to be checked."""
    for m in UNIT_ASIDE.finditer(q.masked):
        said = m.group("unit")
        if said.strip().lower() not in _ALIASES and unit_name(said) not in units:
            continue
        q.units_said.append(unit_name(said))
        q.groundings.append(Grounding(phrase=m.group(0), kind="unit", target="the unit asked"))
        q.blank(*m.span())


def _units(mt: Mention) -> set[str]:
    members: list[Variable] = (
        [v for vs in mt.target.members.values() for v in vs]
        if isinstance(mt.target, Family)
        else [mt.target.var]
    )
    return {unit_name(v.unit) for v in members if v.unit}


def check_unit_aside(said: list[str], mentions: list[Mention], measured: Variable | None) -> None:
    """Each unit said in brackets must be the stored unit of the variable measured (or, with
    none measured, of a numeric variable named)."""
    for unit in said:
        stored = (
            {unit_name(measured.unit)}
            if measured is not None and measured.unit
            else set().union(
                *(
                    _units(mt)
                    for mt in mentions
                    if isinstance(mt.target, Family) and mt.target.kind == "numeric"
                )
            )
        )
        if unit not in stored:
            where = (
                f"{measured.name} is stored in {measured.unit}"
                if measured
                else ("no variable named is stored in it")
            )
            raise Abstain(f"the answer is asked in {unit}; {where}", unresolved=[unit])
