"""QueryPlan → one sqlglot SELECT for a catalogued source, in any dialect.

The compiler knows the catalog, never a source's table names: every stream is first normalised
into the same relation ``(pid, eid, t, t_end, code, sys, val, unit, days_supply, quantity)``,
encounters into ``(eid, pid, t, t_end, etype)``, and cohort filters, time windows and encounter
scope are written against those. Each plan node has a ``_visit_<Node>`` rule; a node without one
raises :class:`~clinbridge.errors.UnsupportedOperationError`.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlglot import exp

from clinbridge.catalog import Catalog, EventStream
from clinbridge.engine import sqlfuncs as f
from clinbridge.engine.plan import (
    AgeFilter,
    CalendarWindow,
    ConceptSet,
    EncounterFilter,
    EncounterScope,
    EventAnchor,
    EventFilter,
    FixedAnchor,
    PatientAnchor,
    QueryPlan,
    RelativeWindow,
    SexFilter,
    ValueFilter,
)
from clinbridge.engine.resolve import ResolvedConceptSet, streams_for
from clinbridge.errors import SchemaMismatchError, UnsupportedOperationError

__all__ = ["CompiledPlan", "Compiler", "Shape", "compile_plan"]

Shape = Literal["scalar", "date", "boolean", "list", "rows", "proportion", "value_at"]
ResolveFn = Callable[[ConceptSet, EventStream], ResolvedConceptSet]

EVENT_COLUMNS = (
    "pid",
    "eid",
    "t",
    "t_end",
    "code",
    "sys",
    "val",
    "unit",
    "days_supply",
    "quantity",
)
_OPS: dict[str, type[exp.Binary]] = {
    ">": exp.GT,
    ">=": exp.GTE,
    "<": exp.LT,
    "<=": exp.LTE,
    "=": exp.EQ,
    "!=": exp.NEQ,
}
_AGGS: dict[str, Callable[[exp.Expr], exp.Expr]] = {
    "mean": lambda e: exp.Avg(this=e),
    "min": lambda e: exp.Min(this=e),
    "max": lambda e: exp.Max(this=e),
    "sum": lambda e: exp.Sum(this=e),
    "stddev": lambda e: exp.StddevSamp(this=e),
}
# Dialects we execute on get tailored date functions; others get sqlglot's generic nodes.
EXECUTED_DIALECTS = {"duckdb", "sqlite", "postgres"}


@dataclass(frozen=True)
class CompiledPlan:
    expression: exp.Expr
    dialect: str
    shape: Shape
    concept_sets: tuple[ResolvedConceptSet, ...]
    now: dt.date
    scope_check: exp.Expr | None = None
    """``SELECT COUNT(*)`` of the scoped encounters, for plans with an encounter scope."""

    @property
    def sql(self) -> str:
        return self.expression.sql(dialect=self.dialect)

    def pretty(self) -> str:
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
    return Compiler(catalog, resolve, dialect=dialect or catalog.dialect, now=now).compile(plan)


def _col(name: str, table: str) -> exp.Column:
    return exp.column(name, table=table)


def _lit(value: Any, column_type: str | None = None) -> exp.Expr:
    if column_type == "integer":
        try:
            return exp.Literal.number(int(value))
        except (TypeError, ValueError):
            return exp.Literal.string(str(value))
    if isinstance(value, bool):
        return exp.Literal.number(int(value))
    if isinstance(value, int | float):
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))


@dataclass
class Compiler:
    catalog: Catalog
    resolve: ResolveFn
    dialect: str = "duckdb"
    now: dt.date | None = None
    _aliases: itertools.count[int] = field(default_factory=itertools.count)
    _used: list[ResolvedConceptSet] = field(default_factory=list)

    # -- entry point -----------------------------------------------------------------------
    def compile(self, plan: QueryPlan) -> CompiledPlan:
        self._used = []
        self._now = self._resolve_now(plan)
        patients = self.catalog.patients
        if patients is None:
            raise SchemaMismatchError(f"source {self.catalog.source!r} has no patient table")
        cohort = self._cohort(plan)
        ctes: list[tuple[str, exp.Expr]] = [("cohort", cohort)]
        if plan.scope is not None:
            ctes.append(("scope_enc", self._scope(plan.scope)))
        select, shape = self._measure_and_aggregate(plan, ctes)
        scope_check: exp.Expr | None = None
        if plan.scope is not None:
            scope_check = exp.select(exp.Count(this=exp.Star()).as_("n")).from_(
                "scope_enc", copy=False
            )
            for name, query in ctes[:2]:
                scope_check = scope_check.with_(name, as_=query.copy(), copy=False)
        for name, query in ctes:
            select = select.with_(name, as_=query, copy=False)
        if plan.limit and shape in {"list", "rows"}:
            select = select.limit(plan.limit, copy=False)
        return CompiledPlan(
            select, self.dialect, shape, tuple(dict.fromkeys(self._used)), self._now, scope_check
        )

    def _resolve_now(self, plan: QueryPlan) -> dt.date:
        if plan.now is not None:
            return plan.now.date()
        if self.now is not None:
            return self.now
        return dt.date.today()

    def _alias(self, prefix: str) -> str:
        return f"{prefix}{next(self._aliases)}"

    def _column_type(self, table: str, column: str) -> str | None:
        info = self.catalog.table(table)
        col = info.column(column) if info else None
        return col.type if col else None

    # -- relations -------------------------------------------------------------------------
    def _stream_relation(
        self, stream_name: str, concepts: ConceptSet | None, value: ValueFilter | None = None
    ) -> exp.Expr:
        """The union of a kind's streams, normalised to EVENT_COLUMNS and filtered by concept/value."""
        parts: list[exp.Select] = []
        for s in streams_for(self.catalog, stream_name):
            a = self._alias("s")

            def c(name: str | None, a: str = a) -> exp.Expr:
                return _col(name, a) if name else exp.null()

            unit = s.unit_label_column or s.unit_column
            q = exp.select(
                c(s.patient_column).as_("pid"),
                c(s.encounter_column).as_("eid"),
                c(s.time_column).as_("t"),
                c(s.end_time_column).as_("t_end"),
                c(s.code_column).as_("code"),
                (
                    c(s.system_column)
                    if s.system_column
                    else (exp.Literal.string(s.code_system) if s.code_system else exp.null())
                ).as_("sys"),
                c(s.value_column).as_("val"),
                c(unit).as_("unit"),
                c(s.days_supply_column).as_("days_supply"),
                c(s.quantity_column).as_("quantity"),
            ).from_(exp.alias_(exp.to_table(s.table), a), copy=False)
            conds: list[exp.Expr] = []
            if concepts is not None:
                if s.code_column is None:
                    raise SchemaMismatchError(
                        f"stream {s.name!r} has no code column to filter concepts"
                    )
                resolved = self.resolve(concepts, s)
                self._used.append(resolved)
                conds.append(self._concept_condition(resolved, s, a))
            if value is not None:
                if s.value_column is None:
                    raise SchemaMismatchError(f"stream {s.name!r} stores no numeric values")
                conds.append(self._value_condition(_col(s.value_column, a), value))
            conds.append(
                exp.not_(exp.column(s.patient_column, table=a).is_(exp.null()), copy=False)
            )
            parts.append(q.where(exp.and_(*conds, copy=False), copy=False))
        rel: exp.Expr = parts[0]
        for p in parts[1:]:
            rel = exp.union(rel, p, distinct=False)
        return exp.Subquery(this=rel) if len(parts) > 1 else rel

    def _concept_condition(self, resolved: ResolvedConceptSet, s: EventStream, a: str) -> exp.Expr:
        assert s.code_column
        ctype = self._column_type(s.table, s.code_column)
        code = _col(s.code_column, a)
        if s.system_column:
            ors = [
                exp.and_(
                    _col(s.system_column, a).eq(exp.Literal.string(system))
                    if system is not None
                    else exp.true(),
                    code.isin(*[_lit(v, ctype) for v in values]),
                    copy=False,
                )
                for system, values in resolved.by_system().items()
            ]
            return exp.or_(*ors, copy=False) if len(ors) > 1 else ors[0]
        return code.isin(*[_lit(v, ctype) for v in resolved.values])

    def _value_condition(self, column: exp.Expr, v: ValueFilter) -> exp.Expr:
        if v.op == "between":
            assert v.value2 is not None
            return exp.Between(
                this=column, low=exp.Literal.number(v.value), high=exp.Literal.number(v.value2)
            )
        return _OPS[v.op](this=column, expression=exp.Literal.number(v.value))

    def _encounter_relation(self, etype: str | None) -> exp.Select:
        enc = self.catalog.encounters
        if enc is None:
            raise SchemaMismatchError(f"source {self.catalog.source!r} has no encounter table")
        a = self._alias("v")
        etype_expr = (
            self._canonical_type(enc.type_column, a)
            if enc.type_column
            else exp.Literal.string("other")
        )
        q = exp.select(
            _col(enc.id_column, a).as_("eid"),
            _col(enc.patient_column, a).as_("pid"),
            _col(enc.start_column, a).as_("t"),
            (_col(enc.end_column, a) if enc.end_column else _col(enc.start_column, a)).as_("t_end"),
            etype_expr.as_("etype"),
        ).from_(exp.alias_(exp.to_table(enc.table), a), copy=False)
        if etype is not None:
            q = q.where(self._type_condition(etype, a), copy=False)
        return q

    def _canonical_type(self, type_column: str, a: str) -> exp.Expr:
        enc = self.catalog.encounters
        assert enc is not None
        ctype = self._column_type(enc.table, type_column)
        case = exp.Case()
        for code, canon in enc.type_map.items():
            case = case.when(_col(type_column, a).eq(_lit(code, ctype)), exp.Literal.string(canon))
        return case.else_(exp.Literal.string("other"))

    def _type_condition(self, etype: str, a: str) -> exp.Expr:
        enc = self.catalog.encounters
        assert enc is not None
        if enc.type_column is None:
            return exp.true() if etype == "other" else exp.false()
        ctype = self._column_type(enc.table, enc.type_column)
        codes = [_lit(code, ctype) for code, canon in enc.type_map.items() if canon == etype]
        column = _col(enc.type_column, a)
        if etype == "other":
            mapped = [_lit(code, ctype) for code, canon in enc.type_map.items() if canon != "other"]
            cond: exp.Expr = (
                exp.or_(
                    column.is_(exp.null()), exp.not_(column.isin(*mapped), copy=False), copy=False
                )
                if mapped
                else exp.true()
            )
            return cond
        if not codes:
            raise SchemaMismatchError(
                f"source {self.catalog.source!r} has no encounters of type {etype!r}",
                encounter_type=etype,
            )
        return column.isin(*codes)

    # -- patients, ages, anchors -----------------------------------------------------------
    # Per-patient values (birth date, sex, anchor dates) come from LEFT JOINs keyed on the
    # patient id of the query being built — set-based, so every backend plans them as hash joins.
    def _patient_col(self, pid: exp.Expr, column: str, joins: _Joins) -> exp.Expr:
        p = self.catalog.patients
        assert p is not None
        if isinstance(pid, exp.Column) and pid.table == "p" and pid.name == p.id_column:
            return _col(column, "p")
        alias = joins.add(
            ("patient", pid.sql()),
            exp.to_table(p.table),
            self._alias("b"),
            lambda a: _col(p.id_column, a).eq(pid),
        )
        return _col(column, alias)

    def _birth_date(self, pid: exp.Expr, joins: _Joins) -> tuple[exp.Expr, bool]:
        """(birth date expression, exact) for the patient ``pid``."""
        p = self.catalog.patients
        assert p is not None
        if p.birth_date_column:
            return f.as_date(self._patient_col(pid, p.birth_date_column, joins), self._d), True
        if p.birth_year_column:
            return self._patient_col(pid, p.birth_year_column, joins), False
        raise SchemaMismatchError(f"source {self.catalog.source!r} stores no birth dates")

    @property
    def _d(self) -> str:
        return self.dialect if self.dialect in EXECUTED_DIALECTS else "generic"

    def _age(self, pid: exp.Expr, at: exp.Expr, joins: _Joins) -> exp.Expr:
        """Age in whole years at ``at`` (birthday not yet reached that year counts one less)."""
        birth, exact = self._birth_date(pid, joins)
        d = self._d
        if not exact:
            return exp.Sub(this=f.year(at, d), expression=birth)

        def month_day(e: exp.Expr) -> exp.Expr:
            return exp.Add(
                this=exp.Mul(this=f.month(e, d), expression=exp.Literal.number(100)),
                expression=f.day(e, d),
            )

        before_birthday = exp.LT(this=month_day(at), expression=month_day(birth))
        return exp.Sub(
            this=exp.Sub(this=f.year(at, d), expression=f.year(birth, d)),
            expression=exp.Case()
            .when(before_birthday, exp.Literal.number(1))
            .else_(exp.Literal.number(0)),
        )

    def _per_patient_date(
        self, rel: exp.Expr, pid_col: str, date_col: str, first: bool
    ) -> exp.Select:
        a = self._alias("r")
        agg = exp.Min if first else exp.Max
        return (
            exp.select(
                _col(pid_col, a).as_("pid"),
                agg(this=f.as_date(_col(date_col, a), self._d)).as_("d"),
            )
            .from_(_as_source(rel, a), copy=False)
            .group_by(_col(pid_col, a), copy=False)
        )

    def _anchor_date(
        self, anchor: EventAnchor | PatientAnchor | FixedAnchor, pid: exp.Expr, joins: _Joins
    ) -> exp.Expr:
        d = self._d
        if isinstance(anchor, FixedAnchor):
            return f.date_literal(anchor.date or self._now, d)
        if isinstance(anchor, EventAnchor):
            rel = self._stream_relation(anchor.stream, anchor.concepts)
            dates: exp.Select | None = self._per_patient_date(
                rel, "pid", "t", anchor.which == "first"
            )
        else:
            dates = self._patient_anchor_dates(anchor)
            if dates is None:  # birth
                birth, exact = self._birth_date(pid, joins)
                if not exact:
                    raise UnsupportedOperationError(
                        "only birth years are stored; a birth date anchor needs dates"
                    )
                return birth
        alias = joins.add(
            ("anchor", anchor, pid.sql()),
            exp.Subquery(this=dates),
            self._alias("a"),
            lambda a: _col("pid", a).eq(pid),
        )
        return _col("d", alias)

    def _patient_anchor_dates(self, anchor: PatientAnchor) -> exp.Select | None:
        p = self.catalog.patients
        assert p is not None
        point = anchor.point
        if point == "birth":
            return None
        if point in {"observation_start", "observation_end"}:
            if not (
                p.observation_table and p.observation_patient_column and p.observation_start_column
            ):
                raise SchemaMismatchError(
                    f"source {self.catalog.source!r} has no observation periods"
                )
            first = point == "observation_start"
            column = (
                p.observation_start_column
                if first
                else (p.observation_end_column or p.observation_start_column)
            )
            return self._per_patient_date(
                exp.to_table(p.observation_table), p.observation_patient_column, column, first
            )
        if point == "death":
            if not (p.death_table and p.death_patient_column and p.death_date_column):
                raise SchemaMismatchError(f"source {self.catalog.source!r} stores no deaths")
            return self._per_patient_date(
                exp.to_table(p.death_table), p.death_patient_column, p.death_date_column, True
            )
        return self._per_patient_date(
            self._encounter_relation(None), "pid", "t", point == "first_encounter"
        )

    def _window_condition(
        self,
        window: CalendarWindow | RelativeWindow | None,
        t: exp.Expr,
        pid: exp.Expr,
        joins: _Joins,
    ) -> exp.Expr | None:
        if window is None:
            return None
        d = self._d
        day = f.as_date(t, d)
        conds: list[exp.Expr] = []
        if isinstance(window, CalendarWindow):
            if window.start:
                conds.append(exp.GTE(this=day, expression=f.date_literal(window.start, d)))
            if window.end:
                conds.append(exp.LTE(this=day, expression=f.date_literal(window.end, d)))
        else:
            anchor = self._anchor_date(window.anchor, pid, joins)
            if window.start_days is None and window.end_days is None:
                conds.append(exp.not_(anchor.is_(exp.null()), copy=False))
            if window.start_days is not None:
                conds.append(exp.GTE(this=day, expression=f.add_days(anchor, window.start_days, d)))
            if window.end_days is not None:
                conds.append(
                    exp.LTE(this=day, expression=f.add_days(anchor.copy(), window.end_days, d))
                )
        return exp.and_(*conds, copy=False) if conds else None

    # -- cohort ----------------------------------------------------------------------------
    # Every filter compiles to ``pid IN (SELECT pid ...)`` (or NOT IN): a self-contained
    # semi-join that reads its stream once, whatever the number of patients.
    def _cohort(self, plan: QueryPlan) -> exp.Select:
        p = self.catalog.patients
        assert p is not None
        pid = _col(p.id_column, "p")
        conds: list[exp.Expr] = []
        if plan.patient_id is not None:
            column = p.external_id_column or p.id_column
            conds.append(
                _col(column, "p").eq(_lit(plan.patient_id, self._column_type(p.table, column)))
            )
        conds.extend(self._filter(flt, pid) for flt in plan.filters)
        q = exp.select(pid.as_("pid")).from_(exp.alias_(exp.to_table(p.table), "p"), copy=False)
        return q.where(exp.and_(*conds, copy=False), copy=False) if conds else q

    def _filter(self, flt: Any, pid: exp.Expr) -> exp.Expr:
        visit = getattr(self, f"_visit_{type(flt).__name__}", None)
        if visit is None:
            raise UnsupportedOperationError(f"No translation rule for {type(flt).__name__}")
        members, negate = visit(flt)
        cond: exp.Expr = pid.isin(query=members)
        return exp.not_(cond, copy=False) if negate else cond

    def _patients_where(self, build: Callable[[exp.Expr, _Joins], exp.Expr]) -> exp.Select:
        p = self.catalog.patients
        assert p is not None
        a = self._alias("q")
        pid = _col(p.id_column, a)
        joins = _Joins()
        cond = build(pid, joins)
        return joins.apply(
            exp.select(pid).from_(exp.alias_(exp.to_table(p.table), a), copy=False)
        ).where(cond, copy=False)

    def _visit_SexFilter(self, flt: SexFilter) -> tuple[exp.Select, bool]:
        p = self.catalog.patients
        assert p is not None
        if not p.sex_column:
            raise SchemaMismatchError(f"source {self.catalog.source!r} stores no sex")
        codes = [code for code, sex in p.sex_values.items() if sex == flt.sex]
        if not codes:
            raise SchemaMismatchError(
                f"source {self.catalog.source!r} has no code for sex {flt.sex!r}"
            )
        ctype = self._column_type(p.table, p.sex_column)
        column = p.sex_column
        return self._patients_where(
            lambda pid, joins: self._patient_col(pid, column, joins).isin(
                *[_lit(c, ctype) for c in codes]
            )
        ), False

    def _visit_AgeFilter(self, flt: AgeFilter) -> tuple[exp.Select, bool]:
        def build(pid: exp.Expr, joins: _Joins) -> exp.Expr:
            at = (
                self._anchor_date(flt.at, pid, joins)
                if flt.at is not None
                else f.date_literal(self._now, self._d)
            )
            return self._age_condition(self._age(pid, at, joins), flt)

        return self._patients_where(build), False

    def _age_condition(self, age: exp.Expr, flt: AgeFilter) -> exp.Expr:
        if flt.op == "between":
            if flt.value2 is None:
                raise UnsupportedOperationError("an age range needs value2")
            return exp.Between(
                this=age, low=exp.Literal.number(flt.value), high=exp.Literal.number(flt.value2)
            )
        return _OPS[flt.op](this=age, expression=exp.Literal.number(flt.value))

    def _visit_EventFilter(self, flt: EventFilter) -> tuple[exp.Select, bool]:
        rel = self._stream_relation(flt.stream, flt.concepts, flt.value)
        a = self._alias("e")
        pid = _col("pid", a)
        joins = _Joins()
        conds: list[exp.Expr] = []
        window = self._window_condition(flt.window, _col("t", a), pid, joins)
        if window is not None:
            conds.append(window)
        if flt.age_at_event is not None:
            age = self._age(pid, f.as_date(_col("t", a), self._d), joins)
            conds.append(self._age_condition(age, flt.age_at_event))
        return self._members(rel, a, joins, conds, flt.min_count), flt.negate

    def _visit_EncounterFilter(self, flt: EncounterFilter) -> tuple[exp.Select, bool]:
        rel = self._encounter_relation(flt.type)
        a = self._alias("e")
        joins = _Joins()
        window = self._window_condition(flt.window, _col("t", a), _col("pid", a), joins)
        return self._members(
            rel, a, joins, [window] if window is not None else [], flt.min_count
        ), flt.negate

    def _members(
        self,
        rel: exp.Expr,
        a: str,
        joins: _Joins,
        conds: list[exp.Expr],
        min_count: int,
    ) -> exp.Select:
        q = joins.apply(exp.select(_col("pid", a)).from_(_as_source(rel, a), copy=False))
        if conds:
            q = q.where(exp.and_(*conds, copy=False), copy=False)
        if min_count > 1:
            q = q.group_by(_col("pid", a), copy=False).having(
                exp.GTE(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(min_count)),
                copy=False,
            )
        return q

    # -- encounter scope -------------------------------------------------------------------
    def _scope(self, scope: EncounterScope) -> exp.Expr:
        rel = self._encounter_relation(scope.type)
        a = self._alias("v")
        inner = (
            exp.select(_col("eid", a), _col("pid", a), _col("t", a), _col("t_end", a))
            .from_(_as_source(rel, a), copy=False)
            .where(
                _col("pid", a).isin(query=exp.select("pid").from_("cohort", copy=False)), copy=False
            )
        )
        if scope.which == "all":
            return inner
        descending = scope.which == "last"
        order = [
            exp.Ordered(this=_col("t", a), desc=descending),
            exp.Ordered(this=_col("eid", a), desc=descending),
        ]
        rn = exp.Window(
            this=exp.RowNumber(), partition_by=[_col("pid", a)], order=exp.Order(expressions=order)
        )
        inner = inner.select(rn.as_("rn"))
        n = 1 if scope.which in {"first", "last"} else (scope.n or 1)
        b = self._alias("w")
        return (
            exp.select(_col("eid", b), _col("pid", b), _col("t", b), _col("t_end", b))
            .from_(exp.alias_(exp.Subquery(this=inner), b), copy=False)
            .where(_col("rn", b).eq(exp.Literal.number(n)), copy=False)
        )

    def _scope_condition(self, a: str, by_encounter: bool) -> exp.Expr:
        """Events of alias ``a`` that belong to a scoped encounter (by id, else by time)."""
        d = self._d
        s = self._alias("sc")
        in_time = exp.Exists(
            this=exp.select(exp.Literal.number(1))
            .from_(exp.alias_(exp.to_table("scope_enc"), s), copy=False)
            .where(
                exp.and_(
                    _col("pid", s).eq(_col("pid", a)),
                    exp.GTE(this=f.as_date(_col("t", a), d), expression=f.as_date(_col("t", s), d)),
                    exp.LTE(
                        this=f.as_date(_col("t", a), d),
                        expression=f.as_date(
                            exp.Coalesce(this=_col("t_end", s), expressions=[_col("t", s)]), d
                        ),
                    ),
                    copy=False,
                ),
                copy=False,
            )
        )
        if not by_encounter:
            return in_time
        by_id = _col("eid", a).isin(query=exp.select("eid").from_("scope_enc", copy=False))
        return exp.or_(
            by_id, exp.and_(_col("eid", a).is_(exp.null()), in_time, copy=False), copy=False
        )

    # -- measure and aggregate -------------------------------------------------------------
    def _events(self, plan: QueryPlan) -> tuple[exp.Select, bool]:
        """ev: the measure's events (or encounters) for cohort members, in window and scope."""
        m = plan.measure
        encounter_level = m.of in {"encounters", "length_of_stay"} or (
            m.of == "date" and m.stream is None
        )
        a = self._alias("m")
        if encounter_level:
            rel: exp.Expr = self._encounter_relation(m.encounter_type)
            cols: list[exp.Expr] = [_col(c, a) for c in ("pid", "eid", "t", "t_end", "etype")]
            cols.append(f.days_between(_col("t_end", a), _col("t", a), self._d).as_("val"))
            cols += [exp.null().as_("code"), exp.null().as_("sys"), exp.null().as_("unit")]
        else:
            if m.stream is None:
                raise UnsupportedOperationError(f"measure {m.of!r} needs a stream")
            rel = self._stream_relation(m.stream, m.concepts, m.value)
            value_col = {"days_supply": "days_supply", "quantity": "quantity"}.get(m.of, "val")
            cols = [_col(c, a) for c in ("pid", "eid", "t", "t_end", "code", "sys", "unit")]
            cols.append(_col(value_col, a).as_("val"))
        conds: list[exp.Expr] = [
            _col("pid", a).isin(query=exp.select("pid").from_("cohort", copy=False))
        ]
        joins = _Joins()
        window = self._window_condition(plan.window, _col("t", a), _col("pid", a), joins)
        if window is not None:
            conds.append(window)
        if plan.scope is not None:
            conds.append(self._scope_condition(a, by_encounter=True))
        q = joins.apply(exp.select(*cols).from_(_as_source(rel, a), copy=False))
        return q.where(exp.and_(*conds, copy=False), copy=False), encounter_level

    def _measure_and_aggregate(
        self, plan: QueryPlan, ctes: list[tuple[str, exp.Expr]]
    ) -> tuple[exp.Select, Shape]:
        m, op = plan.measure, plan.aggregate.op
        d = self._d
        if op == "proportion":
            num = [self._filter(flt, _col("pid", "c")) for flt in plan.aggregate.numerator]
            hit = (
                exp.Case()
                .when(exp.and_(*num, copy=False), exp.Literal.number(1))
                .else_(exp.Literal.number(0))
            )
            q = exp.select(
                exp.Sum(this=hit).as_("numerator"), exp.Count(this=exp.Star()).as_("denominator")
            ).from_(exp.alias_(exp.to_table("cohort"), "c"), copy=False)
            return q, "proportion"
        if m.of in {"patients", "age"} and m.stream is None:
            return self._patient_level(plan)
        ev, _ = self._events(plan)
        ctes.append(("ev", ev))
        e = "e"
        src = exp.alias_(exp.to_table("ev"), e)
        val: exp.Expr = _col("val", e)
        if m.of == "date":
            val = f.as_date(_col("t", e), d)
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
                target = exp.Count(this=exp.Distinct(expressions=[val]))
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
                # Every concept recorded on the first/last day: ties are reported, not broken at random.
                day = f.as_date(_col("t", e), d)
                b = self._alias("x")
                edge = exp.Subquery(
                    this=exp.select(extreme(this=f.as_date(_col("t", b), d))).from_(
                        exp.alias_(exp.to_table("ev"), b), copy=False
                    )
                )
                label = self._label(e, m.stream)
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
            if m.of == "date":
                q = exp.select(val.as_("value")).from_(src, copy=False)
                return q.order_by(*order, copy=False).limit(1, copy=False), "date"
            q = (
                exp.select(
                    val.as_("value"),
                    f.as_date(_col("t", e), d).as_("date"),
                    _col("unit", e).as_("unit"),
                )
                .from_(src, copy=False)
                .where(exp.not_(val.is_(exp.null()), copy=False), copy=False)
            )
            return q.order_by(*order, copy=False).limit(1, copy=False), "value_at"
        if op == "list":
            item = self._label(e, m.stream) if m.of in {"concept", "events"} else val
            q = (
                exp.select(item.as_("value"))
                .distinct(copy=False)
                .from_(src, copy=False)
                .where(exp.not_(item.is_(exp.null()), copy=False), copy=False)
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
            if op not in {"count", "count_distinct"}:
                raise UnsupportedOperationError(f"cannot take the {op} of patients")
            return exp.select(exp.Count(this=exp.Star()).as_("value")).from_(
                "cohort", copy=False
            ), "scalar"
        # age of the cohort members at 'now'
        joins = _Joins()
        age = self._age(_col("pid", "c"), f.date_literal(self._now, self._d), joins)
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

    def _numeric_aggregate(
        self, op: str, source: exp.Expr, column: str
    ) -> tuple[exp.Select, Shape]:
        a = self._alias("n")
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
        a, b = self._alias("md"), self._alias("md")
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

    def _label(self, e: str, stream: str | None) -> exp.Expr:
        """The concept's name from the stream's dictionary (falls back to the code)."""
        streams = streams_for(self.catalog, stream) if stream else ()
        kinds = {s.dictionary for s in streams if s.dictionary}
        code = _col("code", e)
        if len(kinds) != 1:
            return exp.cast(code, "TEXT")
        d = self.catalog.dictionary(next(iter(kinds)))
        a = self._alias("dl")
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
        return exp.Coalesce(this=sub, expressions=[exp.cast(code, "TEXT")])

    def _grouped(
        self, plan: QueryPlan, ctes: list[tuple[str, exp.Expr]]
    ) -> tuple[exp.Select, Shape]:
        op, m = plan.aggregate.op, plan.measure
        p = self.catalog.patients
        assert p is not None
        patient_level = m.of in {"patients", "age"} and m.stream is None
        e = "e"
        src = exp.alias_(exp.to_table("cohort" if patient_level else "ev"), e)
        joins = _Joins()
        keys: list[exp.Expr] = []
        for g in plan.group_by:
            if g.key == "sex":
                if not p.sex_column:
                    raise SchemaMismatchError("no sex column to group by")
                case = exp.Case()
                ctype = self._column_type(p.table, p.sex_column)
                for code, sex in p.sex_values.items():
                    case = case.when(
                        self._patient_col(_col("pid", e), p.sex_column, joins).eq(
                            _lit(code, ctype)
                        ),
                        exp.Literal.string(sex),
                    )
                keys.append(case.else_(exp.Literal.string("unknown")).as_("sex"))
            elif g.key == "year":
                if patient_level:
                    raise UnsupportedOperationError("group by year needs events")
                keys.append(f.year(_col("t", e), self._d).as_("year"))
            elif g.key == "age_group":
                age = self._age(_col("pid", e), f.date_literal(self._now, self._d), joins)
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
                keys.append(self._label(e, m.stream).as_("concept"))
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
                self._age(_col("pid", e), f.date_literal(self._now, self._d), joins)
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


class _Joins:
    """LEFT JOINs a query needs for per-patient values, added once per key."""

    def __init__(self) -> None:
        self._items: list[tuple[exp.Expr, str, exp.Expr]] = []
        self._keys: dict[Any, str] = {}

    def add(self, key: Any, source: exp.Expr, alias: str, on: Callable[[str], exp.Expr]) -> str:
        if key not in self._keys:
            self._keys[key] = alias
            self._items.append((source, alias, on(alias)))
        return self._keys[key]

    def apply(self, query: exp.Select) -> exp.Select:
        for source, alias, on in self._items:
            query = query.join(exp.alias_(source, alias), on=on, join_type="left", copy=False)
        return query


def _as_source(rel: exp.Expr, alias: str) -> exp.Expr:
    if isinstance(rel, exp.Table):
        return exp.alias_(rel, alias)
    if isinstance(rel, exp.Subquery):
        return exp.alias_(rel, alias)
    return exp.alias_(exp.Subquery(this=rel), alias)
