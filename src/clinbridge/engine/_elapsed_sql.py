"""Exact time spans for time-since answers and for the length of one nested stay.

'How many hours / days since X' is the time from X's recorded time to 'now' (the plan's
timestamp), in fractional days (24 hours each); the length of one ICU stay is the time from
its start to its end, in fractional days. Each is one sqlglot expression per dialect.
"""

from __future__ import annotations

import datetime as dt

from sqlglot import exp

__all__ = ["elapsed_since", "span_days"]


def _epoch(e: exp.Expr, dialect: str) -> exp.Expr:
    if dialect == "postgres":
        return exp.Extract(this=exp.var("EPOCH"), expression=exp.cast(e, "TIMESTAMP"))
    return exp.func("EPOCH", exp.cast(e, "TIMESTAMP"))


def span_days(later: exp.Expr, earlier: exp.Expr, dialect: str) -> exp.Expr:
    """The time from ``earlier`` to ``later`` in days, with its fraction."""
    if dialect == "sqlite":
        return exp.Sub(
            this=exp.func("JULIANDAY", later), expression=exp.func("JULIANDAY", earlier)
        )
    diff = exp.Sub(this=_epoch(later, dialect), expression=_epoch(earlier, dialect))
    return exp.Div(this=exp.paren(diff, copy=False), expression=exp.Literal.number(86400.0))


def elapsed_since(when: exp.Expr, now: dt.datetime, unit: str, dialect: str) -> exp.Expr:
    """The time from ``when`` to ``now`` in ``days`` or ``hours`` (with their fraction)."""
    days = span_days(exp.Literal.string(now.isoformat(sep=" ")), when, dialect)
    if unit == "hours":
        return exp.Mul(this=exp.Literal.number(24), expression=exp.paren(days, copy=False))
    return days
