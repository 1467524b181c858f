"""Conditions on a stream's other columns: a text column reported instead of the concept's name
(``Measure.column``: the organism of a microbiology record, present), and stored values another
column must hold (``Measure.matches``: the route a drug was given by). Each column must be a
column of the stream's own table (the catalog's table description), or the plan is refused.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from clinbridge.catalog import Catalog, EventStream
from clinbridge.errors import UnsupportedOperationError

__all__ = ["edge_values", "field_conditions", "has_column", "patient_sex"]


def has_column(catalog: Catalog, stream: EventStream, column: str) -> bool:
    """Whether ``column`` is a column of the stream's table."""
    info = catalog.table(stream.table)
    return info is not None and any(c.name == column for c in info.columns)


def field_conditions(
    catalog: Catalog,
    stream: EventStream,
    alias: str,
    label: str | None,
    matches: tuple[tuple[str, tuple[str, ...]], ...],
) -> list[exp.Expr]:
    """The WHERE conditions for a reported column (present) and matched column values."""
    out: list[exp.Expr] = []
    for column in [label] if label else []:
        if not has_column(catalog, stream, column):
            raise UnsupportedOperationError(f"{column!r} is not a column of {stream.table}")
        out.append(exp.not_(exp.column(column, table=alias).is_(exp.null()), copy=False))
    for column, values in matches:
        if not has_column(catalog, stream, column) or not values:
            raise UnsupportedOperationError(f"{column!r} is not a column of {stream.table}")
        out.append(exp.column(column, table=alias).isin(*[exp.Literal.string(v) for v in values]))
    return out


def patient_sex(catalog: Catalog, plan: Any) -> exp.Select:
    """The stored sex code of the plan's cohort members (one patient: one row)."""
    pt = catalog.patients
    if pt is None or not pt.sex_column:
        raise UnsupportedOperationError(f"source {catalog.source!r} records no sex")
    ids = exp.select("pid").from_("cohort", copy=False)
    return (
        exp.select(exp.column(pt.sex_column, table="p").as_("value"))
        .from_(exp.alias_(exp.to_table(pt.table), "p"), copy=False)
        .where(exp.column(pt.id_column, table="p").isin(query=ids), copy=False)
    )


def edge_values(q: exp.Select, extreme: Any, alias: str) -> exp.Select:
    """``q`` (values of ``ev`` with their time) kept at the first/last time a value is
    recorded, every distinct value then: two values charted at the same minute are both the
    last one, not one of them picked by the tie-break of an ORDER BY."""
    edge = exp.Subquery(
        this=exp.select(extreme(this=exp.column("t", table=alias)))
        .from_(exp.alias_(exp.to_table("ev"), alias), copy=False)
        .where(exp.not_(exp.column("val", table=alias).is_(exp.null()), copy=False), copy=False)
    )
    return (
        q.where(exp.column("t", table="e").eq(edge), copy=False)
        .distinct(copy=False)
        .order_by(exp.Ordered(this=exp.column("value")), copy=False)
    )
