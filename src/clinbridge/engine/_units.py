"""Unit conversion the compiled plans do themselves: physical units whose conversion does not
depend on the analyte (mass, length, temperature, and a change of scale within concentrations
by mass or by amount: mg/dL ↔ g/L, mmol/L ↔ µmol/L).

A plan that asks for its values in one unit (``Measure.unit``: 'last weight in lb') converts the
stored values row by row, by the unit each row records; a row in a unit outside the target's
family becomes NULL, and the validator accepts the conversion only when every stored unit is in
the family (:func:`engine_converts`). Analyte-dependent conversions (mg/dL ↔ mmol/L) are made
only for an analyte named (``analyte``: see ``engine/_analytes.py``, whose table lists them).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlglot import exp

from clinbridge.engine._analytes import analyte_units

__all__ = [
    "convert_expr",
    "convert_value",
    "engine_converts",
    "in_unit",
    "unit_factor",
    "unit_spellings",
]

# unit spelling (lower case) -> (family, factor to the family's base, offset): base = v*f + o
_UNITS: dict[str, tuple[str, float, float]] = {
    "kg": ("mass", 1.0, 0.0),
    "g": ("mass", 0.001, 0.0),
    "lb": ("mass", 0.45359237, 0.0),
    "lbs": ("mass", 0.45359237, 0.0),
    "[lb_av]": ("mass", 0.45359237, 0.0),
    "oz": ("mass", 0.028349523125, 0.0),
    "[oz_av]": ("mass", 0.028349523125, 0.0),
    "m": ("length", 1.0, 0.0),
    "cm": ("length", 0.01, 0.0),
    "mm": ("length", 0.001, 0.0),
    "in": ("length", 0.0254, 0.0),
    "[in_i]": ("length", 0.0254, 0.0),
    "inch": ("length", 0.0254, 0.0),
    "inches": ("length", 0.0254, 0.0),
    "ft": ("length", 0.3048, 0.0),
    "[ft_i]": ("length", 0.3048, 0.0),
    "feet": ("length", 0.3048, 0.0),
    "foot": ("length", 0.3048, 0.0),
    "cel": ("temperature", 1.0, 0.0),
    "c": ("temperature", 1.0, 0.0),
    "°c": ("temperature", 1.0, 0.0),
    "degc": ("temperature", 1.0, 0.0),
    "[degf]": ("temperature", 5.0 / 9.0, -32.0 * 5.0 / 9.0),
    "degf": ("temperature", 5.0 / 9.0, -32.0 * 5.0 / 9.0),
    "°f": ("temperature", 5.0 / 9.0, -32.0 * 5.0 / 9.0),
    "f": ("temperature", 5.0 / 9.0, -32.0 * 5.0 / 9.0),
    # the same units spelt out
    "gram": ("mass", 0.001, 0.0),
    "grams": ("mass", 0.001, 0.0),
    "kilogram": ("mass", 1.0, 0.0),
    "kilograms": ("mass", 1.0, 0.0),
    "pound": ("mass", 0.45359237, 0.0),
    "pounds": ("mass", 0.45359237, 0.0),
    "centimeter": ("length", 0.01, 0.0),
    "centimeters": ("length", 0.01, 0.0),
    "centimetre": ("length", 0.01, 0.0),
    "centimetres": ("length", 0.01, 0.0),
    "meter": ("length", 1.0, 0.0),
    "meters": ("length", 1.0, 0.0),
    "metre": ("length", 1.0, 0.0),
    "metres": ("length", 1.0, 0.0),
    # concentrations by mass or by amount: a change of scale, whatever the analyte (base g/L,
    # mol/L); mass to amount needs the analyte's molar mass (engine/_analytes.py)
    "g/l": ("mass_concentration", 1.0, 0.0),
    "g/dl": ("mass_concentration", 10.0, 0.0),
    "mg/dl": ("mass_concentration", 0.01, 0.0),
    "mg/l": ("mass_concentration", 0.001, 0.0),
    "mg/ml": ("mass_concentration", 1.0, 0.0),
    "ug/ml": ("mass_concentration", 0.001, 0.0),
    "µg/ml": ("mass_concentration", 0.001, 0.0),
    "mcg/ml": ("mass_concentration", 0.001, 0.0),
    "ug/l": ("mass_concentration", 1e-6, 0.0),
    "µg/l": ("mass_concentration", 1e-6, 0.0),
    "ng/ml": ("mass_concentration", 1e-6, 0.0),
    "ug/dl": ("mass_concentration", 1e-5, 0.0),
    "µg/dl": ("mass_concentration", 1e-5, 0.0),
    "mcg/dl": ("mass_concentration", 1e-5, 0.0),
    "mol/l": ("amount_concentration", 1.0, 0.0),
    "mmol/l": ("amount_concentration", 0.001, 0.0),
    "umol/l": ("amount_concentration", 1e-6, 0.0),
    "µmol/l": ("amount_concentration", 1e-6, 0.0),
    "nmol/l": ("amount_concentration", 1e-9, 0.0),
}


def _key(unit: str | None) -> str:
    return (unit or "").strip().lower().replace(" ", "")


def _table(analyte: str | None) -> dict[str, tuple[str, float, float]]:
    return _UNITS | analyte_units(analyte) if analyte else _UNITS


def engine_converts(units: Iterable[str | None], target: str, analyte: str | None = None) -> bool:
    """Whether every stored unit converts to ``target`` by :func:`convert_expr`."""
    table = _table(analyte)
    t = table.get(_key(target))
    if t is None:
        return False
    units = list(units)
    return bool(units) and all(
        (u := table.get(_key(x))) is not None and u[0] == t[0] for x in units
    )


def convert_expr(
    value: exp.Expr, unit: exp.Expr, target: str, analyte: str | None = None
) -> exp.Expr | None:
    """``value`` (recorded in the row's ``unit``) in ``target``; None when ``target`` is not a
    unit converted here (the value is then used as stored and the validator checks the unit)."""
    table = _table(analyte)
    t = table.get(_key(target))
    if t is None:
        return None
    family, tf, to = t
    key = exp.func("lower", exp.func("trim", exp.cast(unit, "TEXT")))
    case = exp.Case()
    for name, (fam, f, o) in table.items():
        if fam != family:
            continue
        # value -> base: v*f + o; base -> target: (b - to) / tf
        factor = f / tf
        offset = (o - to) / tf
        conv: exp.Expr = exp.Mul(
            this=exp.cast(value, "DOUBLE"), expression=exp.Literal.number(factor)
        )
        if offset:
            conv = exp.Add(this=conv, expression=exp.Literal.number(offset))
        case = case.when(key.eq(exp.Literal.string(name)), conv)
    return case.else_(exp.null())


def in_unit(
    value: exp.Expr, unit: exp.Expr | None, target: str | None, analyte: str | None = None
) -> exp.Expr:
    """``value`` expressed in ``target`` where the row's unit converts to it, else as stored.

    A threshold given in another unit than the source records ('over 200 lb' on weights in kg,
    '100.4 °F or more' on temperatures in Celsius) is compared with each row's value converted
    to the threshold's unit. A row whose unit is not in the threshold's family, or not a unit
    converted here, keeps its stored value (what the comparison used before conversion existed).
    """
    if unit is None or not target:
        return value
    converted = convert_expr(value, unit, target, analyte)
    if converted is None:
        return value
    # rounded: 38.0 °C is 100.4 °F exactly, not 100.39999999999999 (a bound must hold at it)
    rounded = exp.Round(this=converted, decimals=exp.Literal.number(6))
    return exp.Coalesce(this=rounded, expressions=[value])


def unit_factor(u1: str, u2: str, analyte: str | None = None) -> float | None:
    """How many ``u2`` one ``u1`` is, for two units of one family converted by a factor alone
    (an analyte's concentrations with ``analyte``); None otherwise."""
    table = _table(analyte)
    a, b = table.get(_key(u1)), table.get(_key(u2))
    if a is None or b is None or a[0] != b[0] or a[2] or b[2]:
        return None
    return a[1] / b[1]


def convert_value(x: float, u1: str, u2: str, analyte: str | None = None) -> float | None:
    """``x`` in ``u1`` expressed in ``u2`` (offsets included: 102 °F in Cel), by the same table
    :func:`convert_expr` converts rows by; None when the two are not units of one family."""
    table = _table(analyte)
    a, b = table.get(_key(u1)), table.get(_key(u2))
    if a is None or b is None or a[0] != b[0]:
        return None
    return (x * a[1] + a[2] - b[2]) / b[1]


_AMBIGUOUS = frozenset({"in", "f", "c", "g"})  # spellings that are also words or letters
_PREFER = {"gram": "grams", "inch": "inches"}


def unit_spellings(analyte: str | None = None) -> dict[str, str]:
    """Each unit spelling the engine converts → one readable spelling of the same unit (the
    first of the table's spellings with the same family, factor and offset that is not
    bracketed and not also a word: 'grams', not 'g')."""
    table = _table(analyte)
    first: dict[tuple[str, float, float], str] = {}
    for name, key in table.items():
        if not name.startswith("[") and name not in _AMBIGUOUS:
            first.setdefault(key, _PREFER.get(name, name))
    return {name: first.get(key, name) for name, key in table.items()}
