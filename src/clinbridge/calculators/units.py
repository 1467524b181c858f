"""Unit parsing and conversion for calculator inputs (pint, plus clinical spellings).

Clinical texts write units in many ways ('mm hg', 'beats per minute', 'µmol/L', 'lbs',
'degrees fahreinheit', '10^9/L'); :func:`normalize_unit` maps them to pint syntax. Conversions
between mass and substance concentrations use the input's molar mass; milliequivalents are
converted to millimoles with the input's valence.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import pint

from clinbridge.errors import CalculatorInputError

__all__ = ["convert", "normalize_unit", "registry", "same_unit"]

_ALIASES: dict[str, str] = {
    "mm hg": "mmHg",
    "mmhg": "mmHg",
    "s mm hg": "mmHg",
    "mm of hg": "mmHg",
    "beats per minute": "1/min",
    "bpm": "1/min",
    "breaths per minute": "1/min",
    "beats/min": "1/min",
    "beats/minute": "1/min",
    "beats per min": "1/min",
    "beats a minute": "1/min",
    "b.p.m.": "1/min",
    "b.p.m": "1/min",
    "breaths/min": "1/min",
    "breaths/minute": "1/min",
    "breaths per min": "1/min",
    "breaths a minute": "1/min",
    "per minute": "1/min",
    "/minute": "1/min",
    "times per minute": "1/min",
    "times/min": "1/min",
    "mm/hg": "mmHg",
    "℃": "degC",
    "℉": "degF",
    "° c": "degC",
    "° f": "degF",
    "ºc": "degC",
    "ºf": "degF",
    "/min": "1/min",
    "per min": "1/min",
    "lbs": "lb",
    "lb": "lb",
    "pounds": "lb",
    "in": "inch",
    "inches": "inch",
    "ft": "foot",
    "feet": "foot",
    "degrees celsius": "degC",
    "degree celsius": "degC",
    "°c": "degC",
    "c": "degC",
    "degrees fahrenheit": "degF",
    "degrees fahreinheit": "degF",
    "degree fahrenheit": "degF",
    "°f": "degF",
    "f": "degF",
    "years": "year",
    "yrs": "year",
    "months": "month",
    "weeks": "week",
    "days": "day",
    "msec": "ms",
    "ms": "ms",
    "sec": "s",
    "%": "percent",
    "/µl": "1/uL",
    "/ul": "1/uL",
    "/l": "1/L",
    "cells/µl": "1/uL",
    "cells/ul": "1/uL",
    "count/µl": "1/uL",
    "count/l": "1/L",
    "10^9/l": "per_nL",
    "x10^9/l": "per_nL",
    "×10^9/l": "per_nL",
    "10⁹/l": "per_nL",
    "×10⁹/l": "per_nL",
    "10^3/µl": "per_nL",
    "10^3/ul": "per_nL",
    "x10^3/µl": "per_nL",
    "k/µl": "per_nL",
    "k/ul": "per_nL",
    "iu/l": "U/L",
    # UCUM spellings (OMOP unit concept codes, FHIR Quantity.code)
    "[in_i]": "inch",
    "[ft_i]": "foot",
    "[lb_av]": "lb",
    "[oz_av]": "oz",
    "[degf]": "degF",
    "cel": "degC",
    "mm[hg]": "mmHg",
    "{beats}/min": "1/min",
    "{breaths}/min": "1/min",
    "10*9/l": "per_nL",
    "10*3/ul": "per_nL",
    "10*3/µl": "per_nL",
    "[iu]/l": "U/L",
    "meq/l": "mEq/L",
    "kg/m2": "kg/m^2",
    "units/l": "U/L",
    "u/l": "U/L",
    # dosing frequencies (MedCalc-Bench writes opioid doses per day as [n, 'per day'])
    "per day": "1/day",
    "/day": "1/day",
    "doses/day": "1/day",
    "doses per day": "1/day",
    "times per day": "1/day",
    "times a day": "1/day",
    "times daily": "1/day",
    "times/day": "1/day",
    "x daily": "1/day",
    "time a day": "1/day",
    "time daily": "1/day",
    "time per day": "1/day",
    "mm/l": "mmol/L",
    "mmol/l": "mmol/L",
    "x/day": "1/day",
    "doses a day": "1/day",
}


_COUNT_WORDS = {"lakh": 100000, "thousand": 1000, "million": 1000000}
"""Dimensionless multipliers notes write in counts ('2.5 lakh/mm3', '150 thousand/µL')."""
_PER_MICRO = re.compile(r"(?<=/)(?:micro-?lit(?:er|re)|mcl)$", re.I)
_POWER_PREFIX = re.compile(r"^(?:[x×*]\s*)?10\s*(?:\^|\*\*|\*)\s*(3|5|6)\s*(?=/)")
_CUBED = re.compile(r"(?<![A-Za-z])(mm|cm|dm|m|um|µm|μm)([23])(?![0-9])")
_PER_VOLUME = re.compile(
    r"^(?:cells?|counts?)\s*/|^1?/\s*cu\.?\s*mm$|^per\s+cubic\s+(?:mm|millimet(?:er|re))s?$", re.I
)


def _count_unit(u: str) -> str:
    """'10^3/mm3' → 'thousand/mm^3', 'K/mm3' → 'thousand/mm^3', 'cells/mm3' → '1/mm^3',
    'per cubic mm' → '1/mm^3', 'per microliter' → '1/uL'."""
    u = re.sub(r"^[kK]\s*/", "thousand/", u)
    u = re.sub(r"(?i)^per\s+(?=micro|mcl|cmm)", "1/", u)
    u = re.sub(r"(?i)(?<=/)cmm$", "mm^3", u)
    u = _PER_MICRO.sub("uL", u)
    m = _POWER_PREFIX.match(u)
    if m:
        u = {"3": "thousand", "5": "lakh", "6": "million"}[m.group(1)] + u[m.end() :]
    u = _CUBED.sub(r"\1^\2", u)
    m2 = _PER_VOLUME.match(u)
    if m2:
        u = "1/mm^3" if m2.group(0)[-1:] not in "/" else "1/" + u[m2.end() :]
    return u


@functools.lru_cache(maxsize=1)
def registry() -> pint.UnitRegistry[Any]:
    """The unit registry used for calculators (built once, on first use)."""
    ureg: pint.UnitRegistry[Any] = pint.UnitRegistry(autoconvert_offset_to_baseunit=True)
    ureg.define("per_nL = 1 / nanoliter = 10^9/L")
    ureg.define("per_pL = 1 / picoliter")
    for name, factor in _COUNT_WORDS.items():
        ureg.define(f"{name} = {factor}")
    return ureg


@functools.lru_cache(maxsize=512)
def normalize_unit(unit: str) -> str:
    """Map a clinical spelling of a unit to pint syntax ('µmol/L' → 'umol/L', 'mm hg' → 'mmHg')."""
    u = " ".join(str(unit).strip().split())
    key = u.lower()
    if key in _ALIASES:
        return _ALIASES[key]
    u = re.sub(r"\{[^}]*\}", "", u) or u  # UCUM annotations: '{cells}/uL' -> '/uL'
    if u.startswith("/"):
        u = "1" + u
    u = u.replace("µ", "u").replace("μ", "u").replace("³", "^3").replace("²", "^2")
    u = re.sub(r"(?i)\bmEq\b", "mEq", u)
    u = _count_unit(u)
    return _ALIASES.get(u.lower(), u)


def same_unit(a: str, b: str) -> bool:
    """Whether two unit spellings mean the same unit (no conversion needed)."""
    return normalize_unit(a).lower() == normalize_unit(b).lower()


_IU = re.compile(r"(?<![A-Za-z])([munp]?)(?:IU|iU|U)(?![A-Za-z])")
"""An international unit with an optional prefix ('uIU', 'mIU', 'mU', 'IU', 'U')."""


def _iu_to_mol(unit: str, iu_mol: float | None) -> tuple[str, float]:
    """Rewrite IU-based units to mol with ``iu_mol`` mol per IU (analyte-specific, e.g. insulin).

    Returns the new unit and the factor to apply to the value; unchanged without ``iu_mol``
    (enzyme activities keep pint's ``U``).
    """
    if iu_mol is None or _IU.search(unit) is None:
        return unit, 1.0
    return _IU.sub(lambda m: m.group(1) + "mol", unit), iu_mol


@functools.lru_cache(maxsize=64)
def iu_in_mol(amount: str) -> float:
    """'6 nmol' → 6e-9 (mol per international unit)."""
    return float(registry().Quantity(amount).to("mol").magnitude)


def _eq_to_mol(unit: str, valence: int | None) -> tuple[str, float]:
    """Rewrite mEq/Eq to mmol/mol; returns the new unit and the factor to apply to the value."""
    if re.search(r"(?i)eq\b", unit) is None:
        return unit, 1.0
    if not valence:
        raise ValueError("equivalents need a valence")
    return re.sub(r"(?i)(m|u)?eq\b", lambda m: (m.group(1) or "") + "mol", unit), 1.0 / valence


@functools.lru_cache(maxsize=4096)
def _factor(
    src: str,
    dst: str,
    molar_mass: float | None,
    valence: int | None,
    iu_mol: float | None = None,
) -> tuple[float, float]:
    """(scale, offset) such that value_dst = value_src * scale + offset."""
    ureg = registry()
    s, ks = _eq_to_mol(src, valence)
    d, kd = _eq_to_mol(dst, valence)
    s, ks_iu = _iu_to_mol(s, iu_mol)
    d, kd_iu = _iu_to_mol(d, iu_mol)
    ks, kd = ks * ks_iu, kd * kd_iu
    q0 = ureg.Quantity(0.0, s)
    q1 = ureg.Quantity(1.0, s)
    try:
        v0 = q0.to(d).magnitude
        v1 = q1.to(d).magnitude
    except pint.DimensionalityError:
        # A count "per µL" is often written as just "µL": read a bare volume as "per volume".
        volume = ureg.Quantity(1.0, "L").dimensionality
        per_src = ureg.Quantity(1.0, f"1/({s})") if q1.dimensionality == volume else q1
        dst_q = ureg.Quantity(1.0, d)
        d_units = f"1/({d})" if dst_q.dimensionality == volume else d
        candidates = [per_src]
        if molar_mass is not None:
            mm = ureg.Quantity(molar_mass, "g/mol")
            candidates += [q1 * mm, q1 / mm]
        for q in candidates:
            try:
                return float(q.to(d_units).magnitude) * ks / kd, 0.0
            except pint.DimensionalityError:
                continue
        raise
    return float(v1 - v0) * ks / kd, float(v0) / kd


def convert(
    value: float,
    unit: str,
    to: str,
    *,
    molar_mass: float | None = None,
    valence: int | None = None,
    iu_amount: str | None = None,
    field: str | None = None,
) -> float:
    """Convert ``value`` from ``unit`` to ``to``.

    ``molar_mass`` (g/mol) bridges mass and substance; ``valence`` equivalents and moles;
    ``iu_amount`` (e.g. '6 nmol' for insulin) international units and moles.

    Raises:
        CalculatorInputError: the unit is unknown or cannot be converted (names the field).
    """
    if same_unit(unit, to):
        return float(value)
    src, dst = normalize_unit(unit), normalize_unit(to)
    try:
        iu_mol = iu_in_mol(iu_amount) if iu_amount else None
        scale, offset = _factor(src, dst, molar_mass, valence, iu_mol)
    except (pint.errors.PintError, ValueError, AttributeError, TypeError, AssertionError) as exc:
        raise CalculatorInputError(
            f"cannot convert {field or 'value'} from {unit!r} to {to!r}: {exc}",
            field=field,
            unit=unit,
            expected=to,
        ) from exc
    # Round away float noise of the conversion (101.3 degF gave 38.49999999999876 degC), which
    # would otherwise flip a score at an exact band boundary; 12 significant digits is far below
    # any clinical precision.
    return float(f"{float(value) * scale + offset:.12g}")


def describe(value: Any, unit: str | None) -> str:
    """'87 years', '1.2 mg/dL'."""
    if isinstance(value, float):
        text = f"{value:.6g}"
    else:
        text = str(value)
    return f"{text} {unit}" if unit else text
