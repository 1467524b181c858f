"""Rankings compiled: the concepts, or the patients, in the first ``top`` places.

Concepts by their number of events (or of distinct patients, ``Aggregate.rank_by``), patients by
their number of events of the measure's stream (or of encounters, or by their own lowest /
highest value of the measure's concepts); ties share a place (DENSE_RANK), so every item as
frequent (or as low) as the last one kept is kept too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlglot import exp

from clinbridge.engine._cohort import _col
from clinbridge.engine.resolve import streams_for
from clinbridge.errors import UnsupportedOperationError

if TYPE_CHECKING:
    from clinbridge.engine.compile import Compiler
    from clinbridge.engine.plan import Aggregate, QueryPlan

__all__ = ["top_concepts", "top_patients"]


def top_concepts(c: Compiler, agg: Aggregate, stream: str | None) -> exp.Select:
    """The concepts of ``ev`` ranked in the first ``top`` places by their number of events
    (or of distinct patients, ``rank_by``); ties share a place (DENSE_RANK), so every
    concept as frequent as the last one kept is kept too."""
    top = agg.top or 1
    streams = streams_for(c.catalog, stream) if stream else ()
    if len({s.dictionary for s in streams}) != 1:
        # several streams with different codes (labs and microbiology): their codes are
        # not one list of names to rank
        raise UnsupportedOperationError(
            f"cannot rank the concepts of {stream!r}: its streams name them differently"
        )
    e = c.cohorts.alias("tk")
    key: exp.Expr = (
        exp.Count(this=exp.Distinct(expressions=[_col("pid", e)]))
        if agg.rank_by == "patients"
        else exp.Count(this=exp.Star())
    )
    rank = exp.Window(
        this=exp.func("DENSE_RANK"),
        order=exp.Order(expressions=[exp.Ordered(this=key, desc=True)]),
    )
    keys = [_col("code", e), _col("sys", e)]
    ranked = (
        exp.select(*keys, rank.as_("rk"))
        .from_(exp.alias_(exp.to_table("ev"), e), copy=False)
        .where(exp.not_(_col("code", e).is_(exp.null())), copy=False)
        .group_by(*[k.copy() for k in keys], copy=False)
    )
    r = c.cohorts.alias("rk")
    return (
        exp.select(c._label(r, stream, record=False).as_("value"))
        .distinct(copy=False)
        .from_(exp.alias_(exp.Subquery(this=ranked), r), copy=False)
        .where(exp.LTE(this=_col("rk", r), expression=exp.Literal.number(top)), copy=False)
        .order_by(exp.Ordered(this=exp.column("value")), copy=False)
    )


def top_patients(c: Compiler, plan: QueryPlan, ctes: list[tuple[str, exp.Expr]]) -> exp.Select:
    """The cohort's patients ranked in the first ``top`` places by their number of events of
    the measure's stream (or of encounters, ``rank_by``), as the ids a user types; ties
    share a place (DENSE_RANK)."""
    by = plan.aggregate.rank_by
    valued = by in {"lowest", "highest"}
    of = "encounters" if by == "encounters" else "value" if valued else "events"
    counted = plan.measure.model_copy(update={"of": of})
    ev, _ = c._events(plan.model_copy(update={"measure": counted}))
    ctes.append(("ev", ev))
    e = c.cohorts.alias("tp")
    key: exp.Expr
    if valued:  # each patient's own lowest (highest) value; the least (greatest) first
        key = (exp.Min if by == "lowest" else exp.Max)(this=_col("val", e))
    elif by == "encounters":
        key = exp.Count(this=exp.Distinct(expressions=[_col("eid", e)]))
    else:
        key = exp.Count(this=exp.Star())
    rank = exp.Window(
        this=exp.func("DENSE_RANK"),
        order=exp.Order(expressions=[exp.Ordered(this=key, desc=by != "lowest")]),
    )
    ranked = (
        exp.select(_col("pid", e), rank.as_("rk"))
        .from_(exp.alias_(exp.to_table("ev"), e), copy=False)
        .group_by(_col("pid", e), copy=False)
    )
    if valued:
        ranked = ranked.where(exp.not_(_col("val", e).is_(exp.null())), copy=False)
    r = c.cohorts.alias("tr")
    kept = (
        exp.select(_col("pid", r))
        .from_(exp.alias_(exp.Subquery(this=ranked), r), copy=False)
        .where(
            exp.LTE(this=_col("rk", r), expression=exp.Literal.number(plan.aggregate.top)),
            copy=False,
        )
    )
    p = c.catalog.patients
    if p is None:
        raise UnsupportedOperationError("patients are ranked by their ids: no patient table")
    return external_ids(p, kept)


def external_ids(p: Any, members: exp.Select) -> exp.Select:
    """The patients of ``members`` (a query of internal ids) as the ids a user types — the
    external id when the source has one — distinct and sorted."""
    column = _col(p.external_id_column or p.id_column, "p")
    q = (
        exp.select(column.as_("value"))
        .distinct(copy=False)
        .from_(exp.alias_(exp.to_table(p.table), "p"), copy=False)
        .where(_col(p.id_column, "p").isin(query=members), copy=False)
    )
    return q.order_by(exp.Ordered(this=exp.column("value")), copy=False)
