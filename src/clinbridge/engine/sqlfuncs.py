"""Portable date and number expressions: one sqlglot tree per dialect.

sqlglot renders most functions for every dialect; the few that SQLite lacks (YEAR, date
arithmetic with intervals) are built here per dialect so that the same plan gives the same
answer on DuckDB, SQLite and PostgreSQL.
"""

from __future__ import annotations

import datetime as dt

from sqlglot import exp

__all__ = [
    "COMPARISONS",
    "add_days",
    "as_date",
    "date_literal",
    "day",
    "days_between",
    "month",
    "year",
]

COMPARISONS: dict[str, type[exp.Binary]] = {
    ">": exp.GT,
    ">=": exp.GTE,
    "<": exp.LT,
    "<=": exp.LTE,
    "=": exp.EQ,
    "!=": exp.NEQ,
}
"""A plan's comparison operators and the sqlglot nodes they compile to."""


def as_date(e: exp.Expr, dialect: str) -> exp.Expr:
    """``e`` as a date."""
    if dialect == "sqlite":
        return exp.func("DATE", e)
    return exp.cast(e, "DATE")


def date_literal(value: dt.date | dt.datetime, dialect: str) -> exp.Expr:
    """A date (or timestamp) literal."""
    d = value.date() if isinstance(value, dt.datetime) else value
    text = exp.Literal.string(d.isoformat())
    if dialect == "sqlite":
        return text
    return exp.cast(text, "DATE")


def at_or_after(e: exp.Expr, at: dt.datetime, dialect: str) -> exp.Expr:
    """``e`` (a timestamp) at or after the minute ``at``."""
    text = exp.Literal.string(at.strftime("%Y-%m-%d %H:%M:%S"))
    if dialect == "sqlite":
        return exp.GTE(this=exp.func("DATETIME", e), expression=text)
    return exp.GTE(this=exp.cast(e, "TIMESTAMP"), expression=exp.cast(text, "TIMESTAMP"))


def add_days(e: exp.Expr, days: int, dialect: str) -> exp.Expr:
    """``e`` plus ``days`` days."""
    if days == 0:
        return e
    if dialect == "sqlite":
        return exp.func("DATE", e, exp.Literal.string(f"{days:+d} days"))
    if dialect in {"duckdb", "postgres"}:
        # date + integer is a date in both, and keeps the result a DATE.
        return exp.Add(this=e, expression=exp.Literal.number(days))
    return exp.DateAdd(this=e, expression=exp.Literal.number(days), unit=exp.var("DAY"))


def add_days_exact(e: exp.Expr, days: int, dialect: str) -> exp.Expr:
    """``e`` plus ``days`` days at its own precision (a timestamp stays one: 48 hours, not
    two calendar days)."""
    if dialect == "sqlite":
        return exp.func("DATETIME", e, exp.Literal.string(f"{days:+d} days"))
    if dialect in {"duckdb", "postgres"}:
        return exp.Add(
            this=exp.cast(e, "TIMESTAMP"),
            expression=exp.Interval(this=exp.Literal.string(str(days)), unit=exp.var("DAY")),
        )
    return exp.DateAdd(this=e, expression=exp.Literal.number(days), unit=exp.var("DAY"))


def days_between(later: exp.Expr, earlier: exp.Expr, dialect: str) -> exp.Expr:
    """Whole days from ``earlier`` to ``later`` (both dates)."""
    if dialect == "sqlite":
        return exp.cast(
            exp.Sub(this=exp.func("JULIANDAY", later), expression=exp.func("JULIANDAY", earlier)),
            "INTEGER",
        )
    if dialect in {"duckdb", "postgres"}:
        return exp.Sub(this=as_date(later, dialect), expression=as_date(earlier, dialect))
    return exp.DateDiff(this=later, expression=earlier, unit=exp.var("DAY"))


def _part(e: exp.Expr, fmt: str, node: type[exp.Func], dialect: str) -> exp.Expr:
    if dialect == "sqlite":
        return exp.cast(exp.func("STRFTIME", exp.Literal.string(fmt), e), "INTEGER")
    return exp.cast(node(this=e), "INTEGER")


def year(e: exp.Expr, dialect: str) -> exp.Expr:
    """The year of ``e``."""
    return _part(e, "%Y", exp.Year, dialect)


def month(e: exp.Expr, dialect: str) -> exp.Expr:
    """The month of ``e``."""
    return _part(e, "%m", exp.Month, dialect)


def day(e: exp.Expr, dialect: str) -> exp.Expr:
    """The day of the month of ``e``."""
    return _part(e, "%d", exp.Day, dialect)
