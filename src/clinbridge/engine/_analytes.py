"""Analyte-specific unit conversions: a mass concentration (mg/dL) ↔ a molar one (mmol/L,
µmol/L) of one substance.

The factor depends on the analyte's molar mass (mg/dL → mmol/L is 10 / M, with M in g/mol), so
it is data, listed here per analyte with the molar mass used by the SI conversion tables of
clinical chemistry (e.g. the AMA Manual of Style SI unit conversion table; Young DS, Ann Intern
Med 1987;106:114-129). Conventions of the field are kept: triglycerides as triolein, urea
nitrogen as N₂ (BUN), phosphate as phosphorus.

An analyte is recognised from the names of a measurement's concepts ('Creatinine [Mass/volume]
in Serum or Plasma', 'Glucose [Mass/volume] in Blood', 'Cholesterol in HDL'): every name must
name the same one analyte of the table, and none may be a ratio or a clearance (whose units are
not concentrations of the analyte).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["ANALYTES", "analyte_in", "analyte_of", "analyte_of_set", "analyte_units"]

ANALYTES: dict[str, tuple[float, tuple[str, ...]]] = {
    # analyte: (molar mass in g/mol, the words that name it)
    "creatinine": (113.12, ("creatinine",)),
    "glucose": (180.16, ("glucose", "blood sugar")),
    "cholesterol": (386.65, ("cholesterol", "ldl", "hdl")),
    "triglycerides": (885.7, ("triglyceride", "triglycerides", "triacylglycerol")),
    "urea nitrogen": (28.014, ("urea nitrogen", "bun")),
    "bilirubin": (584.66, ("bilirubin",)),
    "uric acid": (168.11, ("uric acid", "urate")),
    "calcium": (40.078, ("calcium",)),
    "magnesium": (24.305, ("magnesium",)),
    "phosphorus": (30.974, ("phosphate", "phosphorus")),
}

_NOT_A_CONCENTRATION = re.compile(r"\b(?:ratio|clearance|excretion)\b", re.I)
_MOLAR = {"mmol/l": 1.0, "umol/l": 0.001, "µmol/l": 0.001, "micromol/l": 0.001, "mol/l": 1000.0}
_MASS = {"mg/dl": 10.0, "g/dl": 10000.0, "mg/l": 1.0, "g/l": 1000.0}
"""mg/L per unit (mass) and mmol/L per unit (molar)."""


def analyte_in(text: str) -> str | None:
    """The one analyte of the table ``text`` names, or None (none, or several)."""
    low = text.lower()
    if _NOT_A_CONCENTRATION.search(low):
        return None
    found = {
        a
        for a, (_, words) in ANALYTES.items()
        if any(re.search(rf"\b{re.escape(w)}\b", low) for w in words)
    }
    return found.pop() if len(found) == 1 else None


def analyte_of(names: Iterable[str]) -> str | None:
    """The analyte every one of ``names`` (a measurement's concept names) names, or None."""
    found = {analyte_in(n) for n in names if n}
    return found.pop() if len(found) == 1 else None


def analyte_units(analyte: str | None) -> dict[str, tuple[str, float, float]]:
    """The units of one analyte's concentrations, as ``engine/_units``' table writes them:
    spelling → (family, factor to the family's base (mmol/L), offset)."""
    if analyte not in ANALYTES:
        return {}
    molar_mass = ANALYTES[analyte][0]
    family = f"concentration of {analyte}"
    table = {u: (family, f, 0.0) for u, f in _MOLAR.items()}
    table |= {u: (family, f / molar_mass, 0.0) for u, f in _MASS.items()}
    return table


def analyte_of_set(concepts: object) -> str | None:
    """The analyte of a concept set (its concepts' names, else its label), or None."""
    if concepts is None:
        return None
    names = [c.name for c in getattr(concepts, "concepts", ()) if getattr(c, "name", None)]
    label = getattr(concepts, "label", None)
    return analyte_of(names or ([label] if label else []))
