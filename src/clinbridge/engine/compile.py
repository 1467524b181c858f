"""QueryPlan → one sqlglot SELECT for a catalogued source, in any dialect.

The compiler knows the catalog, never a source's table names: every stream is first normalised
into the same relation ``(pid, eid, t, t_end, code, sys, val, unit, days_supply, quantity)``,
encounters into ``(eid, pid, t, t_end, etype)``, and cohort filters, time windows and encounter
scope are written against those. Each plan node has a ``_visit_<Node>`` rule; a node without one
raises :class:`~clinbridge.errors.UnsupportedOperationError`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from sqlglot import exp

from clinbridge.catalog import Catalog
from clinbridge.engine import sqlfuncs as f
from clinbridge.engine._analytes import analyte_of_set
from clinbridge.engine._cohort import (
    CohortBuilder,
    ResolveFn,
    _as_source,
    _col,
    _Joins,
    _lit,
)
from clinbridge.engine._elapsed_sql import (
    at_time,
    difference,
    elapsed_since,
    nth_time,
    period_key,
    span_days,
)
from clinbridge.engine._fields import edge_values, patient_sex
from clinbridge.engine._follow import each_anchor_window, join_anchor
from clinbridge.engine._patient_attrs import attribute_value
from clinbridge.engine._ranked_sql import external_ids, top_concepts, top_patients
from clinbridge.engine._ratio_sql import quotient
from clinbridge.engine._status import StatusProbe
from clinbridge.engine._units import convert_expr
from clinbridge.engine._wide import compile_wide, is_wide
from clinbridge.engine.plan import (
    Measure,
    PatientAnchor,
    QueryPlan,
)
from clinbridge.engine.resolve import ResolvedConceptSet, streams_for
from clinbridge.errors import SchemaMismatchError, UnsupportedOperationError

__all__ = ["CompiledPlan", "Compiler", "Shape", "compile_plan"]

Shape = Literal["scalar", "date", "boolean", "list", "rows", "proportion", "value_at"]

_AGGS: dict[str, Callable[[exp.Expr], exp.Expr]] = {
    "mean": lambda e: exp.Avg(this=e),
    "min": lambda e: exp.Min(this=e),
    "max": lambda e: exp.Max(this=e),
    "sum": lambda e: exp.Sum(this=e),
    "stddev": lambda e: exp.StddevSamp(this=e),
    "range": lambda e: exp.Sub(this=exp.Max(this=e), expression=exp.Min(this=e.copy())),
}


@dataclass(frozen=True)
class CompiledPlan:
    """A compiled plan: the SELECT, its dialect and shape, the concept sets it used and 'now'."""

    expression: exp.Expr
    dialect: str
    shape: Shape
    concept_sets: tuple[ResolvedConceptSet, ...]
    now: dt.date
    scope_check: exp.Expr | None = None
    """``SELECT COUNT(*)`` of the scoped encounters, for plans with an encounter scope."""
    status_rules: tuple[str, ...] = ()
    """How 'active' / 'ended' was read, per stream, for plans with an event status."""
    status_probes: tuple[StatusProbe, ...] = ()
    """What must be recorded for that reading (``engine/_status.check_recorded``)."""

    @property
    def sql(self) -> str:
        """The SELECT as SQL text in its dialect."""
        return self.expression.sql(dialect=self.dialect)

    def pretty(self) -> str:
        """The SELECT as indented SQL text."""
        return self.expression.sql(dialect=self.dialect, pretty=True)


def compile_plan(
    plan: QueryPlan,
    catalog: Catalog,
    resolve: ResolveFn,
    *,
    dialect: str | None = None,
    now: dt.date | None = None,
) -> CompiledPlan:
    """Compile a plan for ``dialect`` (default: the catalog's)."""
    if is_wide(plan, catalog):  # a trial table: one row per subject, variables as columns
        select, shape = compile_wide(plan, catalog, dialect=dialect or catalog.dialect)
        return CompiledPlan(select, dialect or catalog.dialect, shape, (), now or dt.date.today())  # type: ignore[arg-type]
    return Compiler(catalog, resolve, dialect=dialect or catalog.dialect, now=now).compile(plan)


@dataclass
class Compiler:
    """Compiles a whole plan: the cohort (asked of a :class:`CohortBuilder`), then the measure
    and aggregate."""

    catalog: Catalog
    resolve: ResolveFn
    dialect: str = "duckdb"
    now: dt.date | None = None
    """What 'today' is when the plan does not say (default: the date of compilation)."""
    cohorts: CohortBuilder = field(init=False)

    # -- entry point -----------------------------------------------------------------------
    def compile(self, plan: QueryPlan) -> CompiledPlan:
        """The plan as one SELECT (with its shape, concept sets and date of 'now')."""
        if plan.minus is not None:  # one value minus another, each compiled on its own
            a = self.compile(plan.model_copy(update={"minus": None}))
            b = self.compile(plan.minus)
            both = a.concept_sets + b.concept_sets
            select = difference(a.expression, b.expression)
            return CompiledPlan(select, self.dialect, "scalar", both, a.now, a.scope_check)
        if plan.over is not None:  # one count divided by another ('the ratio of men to women')
            a = self.compile(plan.model_copy(update={"over": None}))
            b = self.compile(plan.over)
            both = a.concept_sets + b.concept_sets
            select = quotient(a.expression, b.expression)
            return CompiledPlan(select, self.dialect, "scalar", both, a.now, a.scope_check)
        if plan.measure.part == "year":  # the calendar year of the date the plan finds
            whole = plan.measure.model_copy(update={"part": None})
            inner = self.compile(plan.model_copy(update={"measure": whole}))
            if inner.shape != "date":
                raise UnsupportedOperationError("the year is taken of a date")
            year = f.year(exp.column("value", "yq"), self.dialect)
            select = exp.select(year.as_("value")).from_(
                exp.alias_(exp.Subquery(this=inner.expression), "yq"), copy=False
            )
            return CompiledPlan(
                select, self.dialect, "scalar", inner.concept_sets, inner.now, inner.scope_check
            )
        self.cohorts = CohortBuilder(
            self.catalog, self.resolve, self._resolve_now(plan), dialect=self.dialect
        )
        patients = self.catalog.patients
        if patients is None:
            raise SchemaMismatchError(f"source {self.catalog.source!r} has no patient table")
        cohort = self.cohorts.cohort(plan)
        ctes: list[tuple[str, exp.Expr]] = [("cohort", cohort)]
        if plan.scope is not None:
            ctes.append(("scope_enc", self.cohorts.scope(plan.scope)))
        select, shape = self._measure_and_aggregate(plan, ctes)
        scope_check: exp.Expr | None = None
        if plan.scope is not None:
            scope_check = exp.select(exp.Count(this=exp.Star()).as_("n")).from_(
                "scope_enc", copy=False
            )
            for name, query in ctes[:2]:
                scope_check = scope_check.with_(name, as_=query.copy(), copy=False)
        # On PostgreSQL the cohort is inlined (NOT MATERIALIZED): a materialised CTE has no
        # statistics, so the planner guessed 200 members and probed a 1M-row index once per
        # patient ("median glucose during ICU stays": > 30 s at 100k patients, 1.1 s inlined).
        for name, query in ctes:
            inline = name == "cohort" and self.dialect == "postgres"
            select = select.with_(
                name, as_=query, materialized=False if inline else None, copy=False
            )
        if plan.limit and shape in {"list", "rows"}:
            select = select.limit(plan.limit, copy=False)
        return CompiledPlan(
            select,
            self.dialect,
            shape,
            tuple(dict.fromkeys(self.cohorts.used)),
            self.cohorts.now,
            scope_check,
            tuple(dict.fromkeys(self.cohorts.status_rules)),
            tuple({p[:2]: p for p in self.cohorts.status_probes}.values()),
        )

    def _resolve_now(self, plan: QueryPlan) -> dt.date:
        if plan.now is not None:
            return plan.now.date()
        if self.now is not None:
            return self.now
        return dt.date.today()

    # -- measure and aggregate -------------------------------------------------------------
    def _events(self, plan: QueryPlan) -> tuple[exp.Select, bool]:
        """ev: the measure's events (or encounters) for cohort members, in window and scope."""
        m = plan.measure
        encounter_level = (
            m.of in {"encounters", "length_of_stay", "end_date", "attribute"}
            or (m.of in {"date", "events_per_patient"} and m.stream is None)
            or _dated_by_encounters(m)
        )
        a = self.cohorts.alias("m")
        nested = plan.scope is not None and (
            self.catalog.nested_encounter(plan.scope.type) is not None
        )
        nested_measure = encounter_level and (
            self.catalog.nested_encounter(m.encounter_type) is not None
        )
        one_stay = m.of == "length_of_stay" and plan.aggregate.op in {"first", "last"}
        # a nested scope of the measured encounters' own type is matched by their ids
        own_scope = plan.scope is not None and plan.scope.type == m.encounter_type
        if nested_measure and (
            (plan.scope is not None and not own_scope)
            or (m.of == "length_of_stay" and not one_stay)
        ):
            # ICU stays inside an admission: not matched to a scope of admissions, and their
            # length (hours to days) is not read in whole days
            raise UnsupportedOperationError(
                "nested encounters (ICU stays) are counted and dated, not scoped or measured"
            )
        if encounter_level:
            attribute = m.variable if m.of == "attribute" else None
            rel: exp.Expr = self.cohorts.encounter_relation(m.encounter_type, attribute)
            cols: list[exp.Expr] = [_col(c, a) for c in ("pid", "eid", "t", "t_end", "etype")]
            if attribute is not None:
                cols.append(_col("attr", a).as_("val"))
            else:
                days = span_days if nested_measure else f.days_between  # one ICU stay: exact
                cols.append(days(_col("t_end", a), _col("t", a), self.cohorts.d).as_("val"))
            cols += [exp.null().as_("code"), exp.null().as_("sys"), exp.null().as_("unit")]
            cols.append(exp.null().as_("lbl"))
            linked = self._linked_encounters(m, a)
        else:
            linked = None
            if m.stream is None:
                raise UnsupportedOperationError(f"measure {m.of!r} needs a stream")
            rel = self.cohorts.stream_relation(
                m.stream,
                m.concepts,
                m.value,
                nested=nested,
                cost=m.of == "cost",
                label=m.column,
                matches=m.matches,
                status=m.status,
            )
            value_col = {"days_supply": "days_supply", "quantity": "quantity"}.get(m.of, "val")
            cols = [_col(c, a) for c in ("pid", "eid", "t", "t_end", "code", "sys", "unit", "lbl")]
            converted = (
                convert_expr(_col("val", a), _col("unit", a), m.unit, analyte_of_set(m.concepts))
                if m.of == "value" and m.unit
                else None
            )
            if m.of == "duration":  # an episode's end minus its start, in whole days
                converted = f.days_between(_col("t_end", a), _col("t", a), self.cohorts.d)
            cols.append((converted or _col(value_col, a)).as_("val"))
        conds: list[exp.Expr] = [
            _col("pid", a).isin(query=exp.select("pid").from_("cohort", copy=False))
        ]
        if linked is not None:
            conds.append(linked)
        if m.of == "duration":  # the events with an end recorded
            conds.append(exp.not_(_col("t_end", a).is_(exp.null())))
        if m.of == "encounters" and m.value is not None:  # the stays that lasted so long
            stay = f.days_between(_col("t_end", a), _col("t", a), self.cohorts.d)
            conds.append(self.cohorts._value_condition(stay, m.value))
        joins = _Joins()
        if m.at is not None:  # the events recorded at one exact time
            conds.append(_col("t", a).eq(at_time(m.at, self.cohorts.d)))
        pairs = each_anchor_window(plan.window)
        pairs = pairs if pairs is not None and pairs.per_anchor else None
        own = pairs.dates if pairs is not None else plan.window
        window = self.cohorts.window_condition(
            own, _col("t", a), _col("pid", a), joins, _col("eid", a)
        )
        if window is not None:
            conds.append(window)
        if plan.scope is not None:
            conds.append(self.cohorts.scope_condition(a, by_encounter=True, nested=nested))
        enc = self.catalog.encounters
        current = plan.scope is not None and plan.scope.which == "current"
        if (
            encounter_level
            and plan.aggregate.op in {"first", "last"}
            and enc
            and enc.end_column
            and not current
        ):
            # 'the last admission' is the last that has ended (an open one is the current one),
            # as for an encounter scope
            conds.append(exp.not_(_col("t_end", a).is_(exp.null())))
        q = joins.apply(exp.select(*cols).from_(_as_source(rel, a), copy=False))
        if pairs is not None:  # each event once per anchor event it follows
            q = join_anchor(self.cohorts, q, pairs, a)
        return q.where(exp.and_(*conds, copy=False), copy=False), encounter_level

    def _linked_encounters(self, m: Measure, a: str) -> exp.Expr | None:
        """'inpatient stays during which X was recorded': the encounter ids of X's events."""
        if m.stream is None:
            return None
        b = self.cohorts.alias("x")
        rel = self.cohorts.stream_relation(m.stream, m.concepts, m.value)
        ids = (
            exp.select(_col("eid", b))
            .from_(_as_source(rel, b), copy=False)
            .where(exp.Not(this=exp.Is(this=_col("eid", b), expression=exp.null())), copy=False)
        )
        return _col("eid", a).isin(query=ids)

    def _measure_and_aggregate(
        self, plan: QueryPlan, ctes: list[tuple[str, exp.Expr]]
    ) -> tuple[exp.Select, Shape]:
        m, op = plan.measure, plan.aggregate.op
        d = self.cohorts.d
        if op == "proportion" and not plan.aggregate.numerator:
            raise UnsupportedOperationError("a distribution (no numerator) needs a trial table")
        if op == "proportion":
            # The numerator counts the cohort's members that pass its filters in a WHERE
            # (semi-/anti-joins the planner can hash), not a per-row CASE WHEN pid IN (...):
            # PostgreSQL re-runs that sub-query per patient once its hash outgrows work_mem.
            num = [self.cohorts.filter(flt, _col("pid", "cn")) for flt in plan.aggregate.numerator]
            numerator = exp.Subquery(
                this=exp.select(exp.Count(this=exp.Star()))
                .from_(exp.alias_(exp.to_table("cohort"), "cn"), copy=False)
                .where(exp.and_(*num, copy=False), copy=False)
            )
            q = exp.select(
                numerator.as_("numerator"), exp.Count(this=exp.Star()).as_("denominator")
            ).from_(exp.alias_(exp.to_table("cohort"), "c"), copy=False)
            return q, "proportion"
        if m.of == "encounter_cost":
            return self._encounter_cost(plan, ctes)
        if op == "list" and plan.aggregate.top is not None and m.of == "patients":
            return top_patients(self, plan, ctes), "list"
        if (
            (m.of in {"patients", "age", "days_between"} and not _dated_by_encounters(m))
            or m.point is not None
            or (m.of == "attribute" and m.variable == "sex")
        ) and m.stream is None:
            if plan.window is not None:  # no event of the plan to hold the window to
                raise UnsupportedOperationError("the time window applies to no event of the plan")
            return self._patient_level(plan)
        ev, _ = self._events(plan)
        ctes.append(("ev", ev))
        e = "e"
        src = exp.alias_(exp.to_table("ev"), e)
        val: exp.Expr = _col("val", e)
        if m.of == "date":  # reported as stored: to the minute where the source keeps times
            val = _col("t", e)
        if m.of == "end_date":
            val = _col("t_end", e)
        if plan.group_by:
            return self._grouped(plan, ctes)
        if op in {"count", "count_distinct", "exists"}:
            if op == "exists":
                q = exp.select(
                    exp.Case()
                    .when(
                        exp.Exists(this=exp.select(exp.Literal.number(1)).from_(src, copy=False)),
                        exp.Literal.number(1),
                    )
                    .else_(exp.Literal.number(0))
                    .as_("value")
                )
                return q, "boolean"
            target: exp.Expr
            if m.of == "patients":
                target = exp.Count(this=exp.Distinct(expressions=[_col("pid", e)]))
            elif m.of == "concept" or op == "count_distinct":
                target = exp.Count(this=exp.Distinct(expressions=[_col("code", e)]))
            elif m.of == "encounters":
                target = exp.Count(this=exp.Distinct(expressions=[_col("eid", e)]))
            elif m.of == "date":
                target = exp.Count(this=exp.Distinct(expressions=[f.as_date(val, d)]))
            else:
                target = exp.Count(this=exp.Star())
            return exp.select(target.as_("value")).from_(src, copy=False), "scalar"
        if m.of == "events_per_patient":
            per = (
                exp.select(_col("pid", "c"), exp.Count(this=_col("pid", e)).as_("val"))
                .from_(exp.alias_(exp.to_table("cohort"), "c"), copy=False)
                .join(src, on=_col("pid", e).eq(_col("pid", "c")), join_type="left", copy=False)
                .group_by(_col("pid", "c"), copy=False)
            )
            ctes.append(("per_patient", per))
            return self._numeric_aggregate(op, exp.to_table("per_patient"), "val")
        if op in _AGGS or op == "median":
            if m.of == "date" and op in {"min", "max"}:
                return exp.select(_AGGS[op](val).as_("value")).from_(src, copy=False), "date"
            if m.of in {"concept", "date", "events", "encounters"} and op not in {"min", "max"}:
                raise UnsupportedOperationError(f"cannot take the {op} of {m.of!r}")
            base = (
                exp.select(val.as_("val"))
                .from_(src, copy=False)
                .where(exp.not_(val.is_(exp.null()), copy=False), copy=False)
            )
            ctes.append(("vals", base))
            return self._numeric_aggregate(op, exp.to_table("vals"), "val")
        if op in {"first", "last"}:
            extreme = exp.Min if op == "first" else exp.Max
            if m.of == "concept":
                # Every concept recorded at the first/last time (to the day where the source keeps
                # only days): ties are reported, not broken at random.
                day = _col("t", e)
                b = self.cohorts.alias("x")
                edge = exp.Subquery(
                    this=exp.select(extreme(this=_col("t", b))).from_(
                        exp.alias_(exp.to_table("ev"), b), copy=False
                    )
                )
                label = _col("lbl", e) if m.column else self._label(e, m.stream)
                q = (
                    exp.select(label.as_("value"), day.as_("date"))
                    .distinct(copy=False)
                    .from_(src, copy=False)
                    .where(day.eq(edge), copy=False)
                )
                return q.order_by(exp.Ordered(this=exp.column("value")), copy=False), "value_at"
            order = [
                exp.Ordered(this=_col("t", e), desc=op == "last"),
                exp.Ordered(this=_col("val", e), desc=op == "last"),
            ]
            if m.of == "end_date":  # the first/last discharge, by when it happened
                order = [exp.Ordered(this=val.copy(), desc=op == "last"), *order]
            if m.of in {"date", "end_date"}:
                now = plan.now or dt.datetime.combine(self.cohorts.now, dt.time())
                since = m.elapsed and elapsed_since(val, now, m.elapsed, d)
                q = exp.select((since or val).as_("value")).from_(src, copy=False)
                return q.order_by(*order, copy=False).limit(1, copy=False), (
                    "scalar" if since else "date"
                )
            q = (
                exp.select(
                    val.as_("value"),
                    f.as_date(_col("t", e), d).as_("date"),
                    _col("unit", e).as_("unit"),
                )
                .from_(src, copy=False)
                .where(exp.not_(val.is_(exp.null()), copy=False), copy=False)
            )
            if (plan.aggregate.nth or 1) > 1:  # the second (to last) time's value
                q = q.where(nth_time(_col("t", e), plan.aggregate.nth, op == "last"), copy=False)
            if m.of == "value" and (plan.aggregate.nth or 1) == 1:  # ties at that time reported
                return edge_values(q, extreme, self.cohorts.alias("x")), "value_at"
            return q.order_by(*order, copy=False).limit(1, copy=False), "value_at"
        if op == "list" and plan.aggregate.top is not None:
            return top_concepts(self, plan.aggregate, m.stream), "list"
        if op == "list":
            by_label = m.of in {"concept", "events"}
            item = (_col("lbl", e) if m.column else self._label(e, m.stream)) if by_label else val
            # A label is NULL only when the code is, so test the code rather than evaluating the
            # label lookup a second time.
            present = _col("code", e) if by_label else val
            q = (
                exp.select(item.as_("value"))
                .distinct(copy=False)
                .from_(src, copy=False)
                .where(exp.not_(present.is_(exp.null()), copy=False), copy=False)
            )
            return q.order_by(exp.Ordered(this=exp.column("value")), copy=False), "list"
        if op == "series":
            q = (
                exp.select(
                    f.as_date(_col("t", e), d).as_("date"),
                    val.as_("value"),
                    _col("unit", e).as_("unit"),
                )
                .from_(src, copy=False)
                .where(exp.not_(val.is_(exp.null()), copy=False), copy=False)
            )
            return q.order_by(exp.column("date"), exp.column("value"), copy=False), "rows"
        raise UnsupportedOperationError(f"No translation rule for aggregate {op!r} of {m.of!r}")

    def _patient_ids(self) -> exp.Select:
        """The cohort's patients as the ids a user types (external id when the source has one)."""
        p = self.catalog.patients
        assert p is not None
        return external_ids(p, exp.select(exp.column("pid")).from_("cohort", copy=False))

    def _patient_point(self, plan: QueryPlan, point: PatientAnchor) -> tuple[exp.Select, Shape]:
        """One patient's birth or death date (or another date every patient has)."""
        if plan.patient_id is None or plan.aggregate.op not in {"first", "last"}:
            raise UnsupportedOperationError("a patient's own date is asked of one patient")
        joins = _Joins()
        when = self.cohorts.anchor_date(point, _col("pid", "c"), joins)
        base = joins.apply(
            exp.select(f.as_date(when, self.cohorts.d).as_("value")).from_(
                exp.alias_(exp.to_table("cohort"), "c"), copy=False
            )
        )
        return base.where(exp.not_(when.copy().is_(exp.null())), copy=False).limit(
            1, copy=False
        ), "date"

    def _patient_level(self, plan: QueryPlan) -> tuple[exp.Select, Shape]:
        op, m = plan.aggregate.op, plan.measure
        if plan.group_by:
            return self._grouped(plan, [])
        if m.of == "patients":
            if op == "exists":
                return exp.select(
                    exp.Case()
                    .when(
                        exp.Exists(
                            this=exp.select(exp.Literal.number(1)).from_("cohort", copy=False)
                        ),
                        exp.Literal.number(1),
                    )
                    .else_(exp.Literal.number(0))
                    .as_("value")
                ), "boolean"
            if op == "list":
                return self._patient_ids(), "list"
            if op not in {"count", "count_distinct"}:
                raise UnsupportedOperationError(f"cannot take the {op} of patients")
            q = exp.select(exp.Count(this=exp.Star()).as_("value")).from_("cohort", copy=False)
            if plan.scope is not None:  # the members with a scoped encounter ('current patients')
                q = q.where(
                    _col("pid", "cohort").isin(query=exp.select("pid").from_("scope_enc")),
                    copy=False,
                )
            return q, "scalar"
        if m.point is not None:
            return self._patient_point(plan, m.point)
        if m.of == "attribute":  # the patient's recorded sex, as stored
            return patient_sex(self.catalog, plan), "scalar"
        joins = _Joins()
        pid = _col("pid", "c")
        if m.of == "days_between":
            return self._days_between(plan, pid, joins)
        # age of the cohort members at 'now'
        at = (
            self.cohorts.anchor_date(m.age_at, pid, joins)
            if m.age_at
            else f.date_literal(self.cohorts.now, self.cohorts.d)
        )
        age = self.cohorts.age(pid, at, joins)
        base = joins.apply(
            exp.select(age.as_("val")).from_(exp.alias_(exp.to_table("cohort"), "c"), copy=False)
        )
        if op in {"first", "last"} and plan.patient_id is not None:
            return base.select(exp.column("val").as_("value"), append=False).limit(
                1, copy=False
            ), "scalar"
        if op not in _AGGS and op not in {"median", "count"}:
            raise UnsupportedOperationError(f"cannot take the {op} of ages")
        return self._numeric_aggregate(op, exp.Subquery(this=base), "val")

    def _days_between(
        self, plan: QueryPlan, pid: exp.Expr, joins: _Joins
    ) -> tuple[exp.Select, Shape]:
        """Days from the start anchor to the end anchor, for members whose end is not before
        their start (the same day counts, as 0)."""
        m, op = plan.measure, plan.aggregate.op
        assert m.start_at is not None and m.end_at is not None
        start = self.cohorts.anchor_date(m.start_at, pid, joins)
        end = self.cohorts.anchor_date(m.end_at, pid, joins)
        days = f.days_between(end, start, self.dialect)
        base = joins.apply(
            exp.select(days.as_("val"))
            .from_(exp.alias_(exp.to_table("cohort"), "c"), copy=False)
            .where(exp.GTE(this=days, expression=exp.Literal.number(0)), copy=False)
        )
        if op not in _AGGS and op not in {"median", "count"}:
            raise UnsupportedOperationError(f"cannot take the {op} of days between two events")
        return self._numeric_aggregate(op, exp.Subquery(this=base), "val")

    def _encounter_cost(
        self, plan: QueryPlan, ctes: list[tuple[str, exp.Expr]]
    ) -> tuple[exp.Select, Shape]:
        """The total charge per encounter holding one of the measure's events, aggregated."""
        m, costs = plan.measure, self.catalog.costs
        if costs is None or costs.encounter_column is None or m.stream is None:
            raise UnsupportedOperationError(
                f"source {self.catalog.source!r} records no charges per encounter"
            )
        if plan.scope is not None or plan.group_by or plan.aggregate.op in {"first", "last"}:
            raise UnsupportedOperationError("encounter costs are aggregated over encounters only")
        a = self.cohorts.alias("m")
        rel = self.cohorts.stream_relation(m.stream, m.concepts, m.value)
        holding = (
            exp.select(_col("eid", a))
            .from_(_as_source(rel, a), copy=False)
            .where(
                _col("pid", a).isin(query=exp.select("pid").from_("cohort", copy=False)),
                copy=False,
            )
        )
        c = self.cohorts.alias("ct")
        conds: list[exp.Expr] = [_col(costs.encounter_column, c).isin(query=holding)]
        if plan.window is not None:
            if costs.time_column is None:
                raise UnsupportedOperationError("the source does not time its charges")
            joins = _Joins()
            w = self.cohorts.window_condition(
                plan.window, _col(costs.time_column, c), exp.null(), joins
            )
            if w is not None:
                conds.append(w)
        per = (
            exp.select(
                _col(costs.encounter_column, c).as_("eid"),
                exp.Sum(this=_col(costs.amount_column, c)).as_("val"),
            )
            .from_(exp.alias_(exp.to_table(costs.table), c), copy=False)
            .where(exp.and_(*conds, copy=False), copy=False)
            .group_by(_col(costs.encounter_column, c), copy=False)
        )
        ctes.append(("per_encounter", per))
        return self._numeric_aggregate(plan.aggregate.op, exp.to_table("per_encounter"), "val")

    def _numeric_aggregate(
        self, op: str, source: exp.Expr, column: str
    ) -> tuple[exp.Select, Shape]:
        a = self.cohorts.alias("n")
        src = _as_source(source, a)
        v = _col(column, a)
        if op == "median":
            return self._median(source, column), "scalar"
        if op == "count":
            return exp.select(exp.Count(this=v).as_("value")).from_(src, copy=False), "scalar"
        if op not in _AGGS:
            raise UnsupportedOperationError(f"No translation rule for numeric aggregate {op!r}")
        agg = _AGGS[op](exp.cast(v, "DOUBLE") if op in {"mean", "stddev"} else v)
        return exp.select(agg.as_("value")).from_(src, copy=False), "scalar"

    def _median(self, source: exp.Expr, column: str) -> exp.Select:
        """Median with window functions only, so every dialect computes it the same way."""
        a, b = self.cohorts.alias("md"), self.cohorts.alias("md")
        v = _col(column, a)
        ranked = (
            exp.select(
                v.as_("v"),
                exp.Window(
                    this=exp.RowNumber(), order=exp.Order(expressions=[exp.Ordered(this=v)])
                ).as_("rn"),
                exp.Window(this=exp.Count(this=exp.Star())).as_("cnt"),
            )
            .from_(_as_source(source, a), copy=False)
            .where(exp.not_(v.is_(exp.null()), copy=False), copy=False)
        )
        rn, cnt = _col("rn", b), _col("cnt", b)
        two_rn = exp.Mul(this=rn, expression=exp.Literal.number(2))
        middle = exp.and_(
            exp.GTE(this=two_rn, expression=cnt),
            exp.LTE(this=two_rn, expression=exp.Add(this=cnt, expression=exp.Literal.number(2))),
            copy=False,
        )
        return (
            exp.select(exp.Avg(this=exp.cast(_col("v", b), "DOUBLE")).as_("value"))
            .from_(exp.alias_(exp.Subquery(this=ranked), b), copy=False)
            .where(middle, copy=False)
        )

    def _label(self, e: str, stream: str | None, *, record: bool = True) -> exp.Expr:
        """The concept's name: the record's own display text where every stream keeps one
        (``record``), else the stream's dictionary's (falls back to the code)."""
        streams = streams_for(self.catalog, stream) if stream else ()
        kinds = {s.dictionary for s in streams if s.dictionary}
        code = _col("code", e)
        # A code may be displayed differently across records (FHIR CVX 113): a list prints
        # what the records say, not one name the dictionary kept for the code.
        names: list[exp.Expr] = (
            [_col("lbl", e)] if record and streams and all(s.label_column for s in streams) else []
        )
        if len(kinds) > 1 and not names:
            # streams whose codes different dictionaries explain (MIMIC prescriptions' drug
            # names and inputevents' itemids): a code is not a name, and codes could collide
            raise UnsupportedOperationError(
                f"the concepts of {stream!r} are named by {len(kinds)} different dictionaries; "
                "ask about one of its streams"
            )
        if len(kinds) != 1:
            return (
                exp.Coalesce(this=names[0], expressions=[exp.cast(code, "TEXT")])
                if names
                else (exp.cast(code, "TEXT"))
            )
        d = self.catalog.dictionary(next(iter(kinds)))
        a = self.cohorts.alias("dl")
        cond: exp.Expr = _col(d.code_column, a).eq(code)
        # Match on the system only when the stream stores one per row (FHIR); OMOP concept ids
        # are unique across vocabularies.
        if d.system_column and all(s.system_column for s in streams):
            cond = exp.and_(cond, _col(d.system_column, a).eq(_col("sys", e)), copy=False)
        sub = exp.Subquery(
            this=exp.select(exp.Max(this=_col(d.label_column, a)))
            .from_(exp.alias_(exp.to_table(d.table), a), copy=False)
            .where(cond, copy=False)
        )
        names.append(sub)
        return exp.Coalesce(this=names[0], expressions=[*names[1:], exp.cast(code, "TEXT")])

    def _grouped(
        self, plan: QueryPlan, ctes: list[tuple[str, exp.Expr]]
    ) -> tuple[exp.Select, Shape]:
        op, m = plan.aggregate.op, plan.measure
        p = self.catalog.patients
        assert p is not None
        patient_level = (
            m.of in {"patients", "age"} and m.stream is None and not _dated_by_encounters(m)
        )
        e = "e"
        src = exp.alias_(exp.to_table("cohort" if patient_level else "ev"), e)
        joins = _Joins()
        keys: list[exp.Expr] = []
        for g in plan.group_by:
            if g.key == "sex":
                if not p.sex_column:
                    raise SchemaMismatchError("no sex column to group by")
                case = exp.Case()
                ctype = self.cohorts.column_type(p.table, p.sex_column)
                for code, sex in p.sex_values.items():
                    case = case.when(
                        self.cohorts.patient_col(_col("pid", e), p.sex_column, joins).eq(
                            _lit(code, ctype)
                        ),
                        exp.Literal.string(sex),
                    )
                keys.append(case.else_(exp.Literal.string("unknown")).as_("sex"))
            elif g.key in {"race", "ethnicity", "city", "state"}:
                value = attribute_value(self.cohorts, _col("pid", e), g.key, joins, group=True)
                keys.append(
                    exp.Coalesce(this=value, expressions=[exp.Literal.string("unknown")]).as_(g.key)
                )
            elif g.key == "year":
                if patient_level:
                    raise UnsupportedOperationError("group by year needs events")
                keys.append(f.year(_col("t", e), self.cohorts.d).as_("year"))
            elif g.key in {"month", "day"}:  # one group per calendar month / day of the events
                keys.append(period_key(_col("t", e), g.key, self.cohorts.d).as_(g.key))
            elif g.key == "age_group":
                age = self.cohorts.age(
                    _col("pid", e), f.date_literal(self.cohorts.now, self.cohorts.d), joins
                )
                keys.append(
                    exp.Mul(
                        this=exp.Floor(
                            this=exp.Div(
                                this=exp.cast(age, "DOUBLE"),
                                expression=exp.Literal.number(g.age_bin),
                            )
                        ),
                        expression=exp.Literal.number(g.age_bin),
                    ).as_("age_group")
                )
            elif g.key == "concept":
                if patient_level:
                    raise UnsupportedOperationError("group by concept needs events")
                # one group per concept: the dictionary's name, not each record's own text
                keys.append(self._label(e, m.stream, record=False).as_("concept"))
            elif g.key == "patient":  # 'X orders per patient': the id a user types
                if patient_level:
                    raise UnsupportedOperationError("group by patient needs events")
                pid = _col("pid", e)
                if p.external_id_column and p.external_id_column != p.id_column:
                    pid = self.cohorts.patient_col(pid, p.external_id_column, joins)
                keys.append(pid.as_("patient"))
            elif g.key == "encounter_type":
                if m.of not in {"encounters", "length_of_stay"}:
                    raise UnsupportedOperationError(
                        "group by encounter type needs an encounter measure"
                    )
                keys.append(_col("etype", e).as_("encounter_type"))
        if op in {"count", "count_distinct"}:
            if patient_level or m.of == "patients":
                target: exp.Expr = exp.Count(this=exp.Distinct(expressions=[_col("pid", e)]))
            elif m.of == "encounters":
                target = exp.Count(this=exp.Distinct(expressions=[_col("eid", e)]))
            elif m.of == "concept" or op == "count_distinct":
                target = exp.Count(this=exp.Distinct(expressions=[_col("code", e)]))
            else:
                target = exp.Count(this=exp.Star())
        elif op in _AGGS:
            val = (
                self.cohorts.age(
                    _col("pid", e), f.date_literal(self.cohorts.now, self.cohorts.d), joins
                )
                if m.of == "age"
                else _col("val", e)
            )
            target = _AGGS[op](exp.cast(val, "DOUBLE") if op in {"mean", "stddev"} else val)
        else:
            raise UnsupportedOperationError(f"cannot group the aggregate {op!r}")
        names = [k.alias for k in keys]
        q = joins.apply(exp.select(*keys, target.as_("value")).from_(src, copy=False)).group_by(
            *[exp.column(n) for n in names], copy=False
        )
        return q.order_by(*[exp.Ordered(this=exp.column(n)) for n in names], copy=False), "rows"


def _dated_by_encounters(m: Measure) -> bool:
    """Patients counted by their encounters of one type ('patients admitted each year'): the
    encounters are the events that date them (``Measure.encounter_type`` without a stream)."""
    return m.of == "patients" and m.stream is None and m.encounter_type is not None
