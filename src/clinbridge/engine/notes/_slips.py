"""A value whose written unit is a slip of a metric prefix: *albumin 3.2 mg/dL*, *glucose 61
g/dL*, *HCO3- 11.3 µmol/L* — published case notes carry such typos.

Read with its written unit the value is impossible for the analyte (outside the input's
plausible range); read in the input's own unit — the written unit with its prefix off by a
factor of 1000, 10⁶ … — the number is plausible. Then the note's number is reported in the
input's unit and the answer says so in a check (the unit as written, the factor, the range):
the number is the note's, the unit is a reading. Anything else (a factor that is not a power of
1000, a number implausible either way) gives nothing, so the question abstains as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.calculators.extract import Evidence
    from clinbridge.engine.notes._target import Target

__all__ = ["UnitSlip", "unit_slip"]


@dataclass(frozen=True)
class UnitSlip:
    """The evidence re-read in the input's unit, and what the note wrote."""

    evidence: Evidence
    written: str
    factor: float

    def detail(self, label: str, unit: str, lo: float, hi: float) -> str:
        """The check's words: what was written, why it was read otherwise."""
        number = self.evidence.value[0] if isinstance(self.evidence.value, list) else "?"
        return (
            f"the note writes {label} {number} {self.written}, impossible for it (x{self.factor:g} "
            f"puts it outside {lo:g}-{hi:g} {unit}); the number is read in {unit}, the unit "
            "the written one is a metric-prefix slip of"
        )


def relaxed(target: Target) -> Target:
    """The target with no plausible range, so a value with a slipped unit is extracted."""
    return replace(target, input=target.input.model_copy(update={"range": None}))


def unit_slip(target: Target, ev: Evidence) -> UnitSlip | None:
    """``ev`` (extracted without a range) re-read in the input's unit, or None when its
    written unit is no prefix slip (see the module)."""
    from clinbridge.calculators.units import convert

    i = target.input
    if i.range is None or not i.unit or not isinstance(ev.value, list) or len(ev.value) != 2:
        return None
    if "(unit)" not in ev.method:
        return None  # only a unit the note writes can be a slip
    number, written = float(ev.value[0]), str(ev.value[1])
    try:
        as_written = convert(number, written, i.unit, molar_mass=i.molar_mass, valence=i.valence)
    except Exception:
        return None
    lo, hi = i.range
    if lo <= as_written <= hi or not lo <= number <= hi or number <= 0:
        return None
    factor = as_written / number
    power = math.log10(abs(factor)) if factor else 0.0
    if abs(power - round(power)) > 1e-6 or round(power) == 0 or round(power) % 3:
        return None
    fixed = replace(ev, value=[number, i.unit], method=f"{ev.method} (unit slip: {written})")
    return UnitSlip(fixed, written, factor)
