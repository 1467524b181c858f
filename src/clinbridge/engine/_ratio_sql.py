"""One count divided by another: the SQL of a ratio plan (``QueryPlan.over``).

Each side is a compiled count (one row, one ``value``); the answer is the first over the second
as a fraction, and NULL (no answer) when the second count is 0.
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["quotient"]


def quotient(first: exp.Expr, second: exp.Expr) -> exp.Select:
    """``value`` of the count ``first`` divided by the ``value`` of the count ``second``."""

    def one(q: exp.Expr, alias: str) -> exp.Subquery:
        inner = exp.select(exp.column("value", alias)).from_(
            exp.alias_(exp.Subquery(this=q), alias), copy=False
        )
        return exp.Subquery(this=inner.limit(1, copy=False))

    num = exp.cast(one(first, "r1"), "DOUBLE")
    den = exp.func("NULLIF", exp.cast(one(second, "r2"), "DOUBLE"), exp.Literal.number(0))
    return exp.select(exp.Div(this=num, expression=den).as_("value"))
