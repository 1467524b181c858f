"""Exact time spans for time-since answers and for the length of one nested stay.

'How many hours / days since X' is the time from X's recorded time to 'now' (the plan's
timestamp), in fractional days (24 hours each); the length of one ICU stay is the time from
its start to its end, in fractional days; the change between two measurements is one's value
minus the other's. Each is one sqlglot expression per dialect.
"""

from __future__ import annotations

import datetime as dt

from sqlglot import exp

from clinbridge.engine import sqlfuncs as f

_MS_PER_DAY = exp.Literal.number(86400000)

__all__ = [
    "at_time",
    "difference",
    "elapsed_since",
    "nth_event_dates",
    "nth_time",
    "period_key",
    "span_days",
]


def _epoch(e: exp.Expr, dialect: str) -> exp.Expr:
    if dialect == "postgres":
        return exp.Extract(this=exp.var("EPOCH"), expression=exp.cast(e, "TIMESTAMP"))
    return exp.func("EPOCH", exp.cast(e, "TIMESTAMP"))


def span_days(later: exp.Expr, earlier: exp.Expr, dialect: str) -> exp.Expr:
    """The time from ``earlier`` to ``later`` in days, with its fraction."""
    if dialect == "sqlite":  # whole milliseconds (the clock's unit), without float noise
        days = exp.Sub(this=exp.func("JULIANDAY", later), expression=exp.func("JULIANDAY", earlier))
        ms = exp.func("ROUND", exp.Mul(this=exp.paren(days, copy=False), expression=_MS_PER_DAY))
        return exp.Div(this=ms, expression=exp.Literal.number(86400000.0))
    diff = exp.Sub(this=_epoch(later, dialect), expression=_epoch(earlier, dialect))
    return exp.Div(this=exp.paren(diff, copy=False), expression=exp.Literal.number(86400.0))


def elapsed_since(when: exp.Expr, now: dt.datetime, unit: str, dialect: str) -> exp.Expr:
    """The time from ``when`` to ``now`` in ``days`` or ``hours`` (with their fraction)."""
    days = span_days(exp.Literal.string(now.isoformat(sep=" ")), when, dialect)
    if unit == "hours":
        return exp.Mul(this=exp.Literal.number(24), expression=exp.paren(days, copy=False))
    return days


def difference(first: exp.Expr, second: exp.Expr) -> exp.Select:
    """The ``value`` of one compiled first/last SELECT minus the ``value`` of another; NULL if
    either has none, or has two values at its first/last time (a tie the data cannot break)."""

    def one(q: exp.Expr, name: str) -> exp.Expr:
        def pick(select: exp.Expr, alias: str) -> exp.Subquery:
            inner = exp.select(exp.column("value", alias)).from_(
                exp.alias_(exp.Subquery(this=select), alias), copy=False
            )
            return exp.Subquery(this=inner.limit(1, copy=False))

        flipped = q.copy()  # the same time, the values taken the other way round
        order = flipped.args.get("order")
        if order is None or len(order.expressions) < 2:  # every value at that time: one, or none
            n = exp.select(exp.func("COUNT", exp.Star())).from_(
                exp.alias_(exp.Subquery(this=q.copy()), name + "n"), copy=False
            )
            return exp.Case().when(
                exp.EQ(this=exp.Subquery(this=n), expression=exp.Literal.number(1)), pick(q, name)
            )
        last = order.expressions[-1]
        last.set("desc", not last.args.get("desc"))
        same = exp.EQ(this=pick(q, name), expression=pick(flipped, name + "x"))
        return exp.Case().when(same, pick(q, name + "y"))

    return exp.select(exp.Sub(this=one(first, "d1"), expression=one(second, "d2")).as_("value"))


def period_key(t: exp.Expr, unit: str, dialect: str) -> exp.Expr:
    """The calendar ``month`` ('2100-03') or ``day`` (its date) of ``t``, to group by."""
    if unit == "day":
        return f.as_date(t, dialect)
    if dialect == "sqlite":
        return exp.func("STRFTIME", exp.Literal.string("%Y-%m"), t)
    if dialect == "postgres":
        return exp.func("TO_CHAR", t, exp.Literal.string("YYYY-MM"))
    return exp.func("STRFTIME", exp.cast(t, "TIMESTAMP"), exp.Literal.string("%Y-%m"))


def nth_time(t: exp.Column, n: int | None, from_last: bool) -> exp.Expr:
    """``t`` is the nth distinct time of the ``ev`` events counted from the first (or last)."""
    inner = (
        exp.select(exp.column(t.name, "nt"))
        .distinct(copy=False)
        .from_(exp.alias_(exp.to_table("ev"), "nt"), copy=False)
        .order_by(exp.Ordered(this=exp.column(t.name, "nt"), desc=from_last), copy=False)
        .limit(1, copy=False)
        .offset((n or 1) - 1, copy=False)
    )
    return t.eq(exp.Subquery(this=inner))


def at_time(when: dt.datetime, dialect: str) -> exp.Expr:
    """A timestamp literal ('2100-06-07 05:00:00'), as the source stores times."""
    text = exp.Literal.string(when.isoformat(sep=" "))
    return text if dialect == "sqlite" else exp.cast(text, "TIMESTAMP")


def nth_event_dates(rel: exp.Expr, n: int, alias: str, dialect: str) -> exp.Select:
    """(pid, d): each patient's date of their nth event of ``rel`` (pid, t) counted from the
    first (events on one day in any order; a patient with fewer than n events has none)."""
    source = rel if isinstance(rel, (exp.Table, exp.Subquery)) else exp.Subquery(this=rel)
    day = f.as_date(exp.column("t", alias), dialect)
    ranked = exp.Window(
        this=exp.RowNumber(),
        partition_by=[exp.column("pid", alias)],
        order=exp.Order(expressions=[exp.Ordered(this=day.copy())]),
    )
    inner = exp.select(exp.column("pid", alias).as_("pid"), day.as_("d"), ranked.as_("rn")).from_(
        exp.alias_(source, alias), copy=False
    )
    return (
        exp.select("pid", "d")
        .from_(exp.alias_(exp.Subquery(this=inner), alias + "n"), copy=False)
        .where(exp.column("rn").eq(exp.Literal.number(n)), copy=False)
    )
