"""Conditions on a stream's other columns: a text column reported instead of the concept's name
(``Measure.column``: the organism of a microbiology record, present), and stored values another
column must hold (``Measure.matches``: the route a drug was given by). Each column must be a
column of the stream's own table (the catalog's table description), or the plan is refused.
"""

from __future__ import annotations

from sqlglot import exp

from clinbridge.catalog import Catalog, EventStream
from clinbridge.errors import UnsupportedOperationError

__all__ = ["field_conditions", "has_column"]


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
