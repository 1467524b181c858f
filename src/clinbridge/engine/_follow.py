"""Events that follow one of the patient's anchor events: the ``each`` anchor of a window.

'Y within 2 months after X', 'Y later in the same hospital stay as X', 'Y later in the same
month as X': an event at ``t`` of patient ``pid`` (in encounter ``eid``) is tied to an anchor
event of the same patient that is earlier than it (or at/after it, as the window's days say),
optionally in the same encounter or calendar month, the anchor events optionally in their own
dates. The tie is an ``EXISTS`` (the event counts once), or, with ``per_anchor``, an inner
join (the event counts once per anchor event it follows: how often Y followed an X).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from clinbridge.engine import sqlfuncs as f
from clinbridge.engine.plan import EventAnchor, RelativeWindow
from clinbridge.errors import UnsupportedOperationError

if TYPE_CHECKING:
    from clinbridge.engine._cohort import CohortBuilder

__all__ = ["anchor_tie", "each_anchor_window", "join_anchor"]


def each_anchor_window(window: object) -> RelativeWindow | None:
    """The window when it is relative to each of a patient's anchor events, else None."""
    if (
        isinstance(window, RelativeWindow)
        and isinstance(window.anchor, EventAnchor)
        and window.anchor.which == "each"
    ):
        return window
    return None


def _add(e: exp.Expr, n: int, unit: str, dialect: str) -> exp.Expr:
    if unit == "day":
        return f.add_days_exact(e, n, dialect)
    if dialect == "sqlite":
        return exp.func("DATETIME", e, exp.Literal.string(f"{n:+d} months"))
    if dialect in {"duckdb", "postgres"}:
        return exp.Add(
            this=exp.cast(e, "TIMESTAMP"),
            expression=exp.Interval(this=exp.Literal.string(str(n)), unit=exp.var("MONTH")),
        )
    return exp.DateAdd(this=e, expression=exp.Literal.number(n), unit=exp.var("MONTH"))


def anchor_tie(
    cb: CohortBuilder,
    window: RelativeWindow,
    t: exp.Expr,
    pid: exp.Expr,
    eid: exp.Expr | None,
) -> tuple[exp.Expr, exp.Expr]:
    """The anchor events (an aliased source) and the condition tying the event to one."""
    anchor = window.anchor
    assert isinstance(anchor, EventAnchor)
    d = cb.d
    a = cb.alias("ea")

    def col(name: str) -> exp.Column:
        return exp.column(name, table=a)

    at = col("t")
    conds: list[exp.Expr] = [col("pid").eq(pid.copy())]
    unit = window.unit
    if window.start_days == 0 and window.end_days == 0 and unit == "day":
        # 'on the same day as X': the calendar day of one of the anchor events
        conds.append(f.as_date(at.copy(), d).eq(f.as_date(t.copy(), d)))
    elif window.start_days == 0:
        conds.append(exp.LT(this=at, expression=t.copy()))
    elif window.start_days is not None:
        conds.append(exp.GTE(this=t.copy(), expression=_add(at.copy(), window.start_days, unit, d)))
    if window.end_days == 0 and window.start_days != 0:
        conds.append(exp.LTE(this=t.copy(), expression=at.copy()))
    elif window.end_days is not None:
        conds.append(exp.LTE(this=t.copy(), expression=_add(at.copy(), window.end_days, unit, d)))
    if anchor.same == "encounter":
        if eid is None:
            raise UnsupportedOperationError("these events have no encounter to share")
        conds.append(col("eid").eq(eid.copy()))
    elif anchor.same == "month":
        for part in (f.year, f.month):
            conds.append(part(col("t"), d).eq(part(t.copy(), d)))
    if anchor.dates is not None:
        own = cb.window_condition(anchor.dates, col("t"), col("pid"), None)  # type: ignore[arg-type]
        if own is not None:
            conds.append(own)
    rel = cb.stream_relation(anchor.stream, anchor.concepts)
    source = exp.alias_(exp.Subquery(this=rel) if not isinstance(rel, exp.Subquery) else rel, a)
    return source, exp.and_(*conds, copy=False)


def join_anchor(
    cb: CohortBuilder, query: exp.Select, window: RelativeWindow, alias: str
) -> exp.Select:
    """``query`` (events aliased ``alias``) joined to the anchor events each one follows."""
    source, on = anchor_tie(
        cb,
        window,
        exp.column("t", table=alias),
        exp.column("pid", table=alias),
        exp.column("eid", table=alias),
    )
    return query.join(source, on=on, join_type="inner", copy=False)
