"""A patient's recorded demographic attribute (race, ethnicity, city, state) as one text value.

The value is what the catalog's :class:`~clinbridge.catalog.PatientAttribute` names: the code's
name, else the source's own text (where it keeps one), else the stored value — the same values
the understanding grounds a question's words against, so a filter on 'Asian' and a group named
'Asian' are one thing.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from clinbridge.errors import SchemaMismatchError

__all__ = ["attribute_value"]


def attribute_value(
    cohorts: Any, pid: exp.Expr, name: str, joins: Any, *, group: bool = False
) -> exp.Expr:
    """The text value of attribute ``name`` for patient ``pid`` (NULL when unrecorded).

    With ``group`` (the label of a breakdown's row), where some stored codes have a name and
    others only the source's text ('Asian' beside 'hawaiian'), every row is named by the
    source's text: one breakdown speaks one naming system, the one every patient has.
    """
    p = cohorts.catalog.patients
    assert p is not None
    a = p.attribute(name)
    if a is None:
        raise SchemaMismatchError(
            f"source {cohorts.catalog.source!r} records no {name} for its patients"
        )
    code = exp.cast(cohorts.patient_col(pid, a.column, joins), "TEXT")
    fallback: exp.Expr = (
        cohorts.patient_col(pid, a.source_column, joins) if a.source_column else code.copy()
    )
    if not a.labels:
        return fallback
    if group and a.source_column and _mixed(a):
        named = attribute_value(cohorts, pid, name, joins)
        return exp.Coalesce(this=fallback, expressions=[named])
    case = exp.Case()
    for stored, label in a.labels.items():
        case = case.when(code.copy().eq(exp.Literal.string(stored)), exp.Literal.string(label))
    return case.else_(fallback)


def _mixed(a: Any) -> bool:
    """Some of the attribute's values are code names and some the source's own text."""
    names = set(a.labels.values())
    return any(v in names for v in a.values) and any(v not in names for v in a.values)
