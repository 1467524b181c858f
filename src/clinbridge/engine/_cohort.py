"""Relations, cohorts, anchors, windows and encounter scope: the part of compilation that
decides *which* events and patients a plan is about.

Every stream is normalised into the relation ``(pid, eid, t, t_end, code, sys, val, unit,
days_supply, quantity)`` and encounters into ``(eid, pid, t, t_end, etype)``; cohort filters
compile to self-contained ``pid IN (SELECT ...)`` semi-joins, and per-patient values (birth
dates, anchor dates) to LEFT JOINs keyed on the patient id. :mod:`clinbridge.engine.compile`
adds the measures and aggregates on top, through a :class:`CohortBuilder` it holds.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from clinbridge.catalog import Catalog, EventStream
from clinbridge.engine import sqlfuncs as f
from clinbridge.engine._analytes import analyte_of_set
from clinbridge.engine._elapsed_sql import nth_event_dates
from clinbridge.engine._fields import field_conditions
from clinbridge.engine._follow import anchor_tie, each_anchor_window
from clinbridge.engine._patient_attrs import attribute_value
from clinbridge.engine._status import StatusProbe, status_condition
from clinbridge.engine._units import in_unit
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
    PatientFilter,
    QueryPlan,
    RelativeWindow,
    SexFilter,
    ValueFilter,
)
from clinbridge.engine.resolve import ResolvedConceptSet, streams_for
from clinbridge.errors import SchemaMismatchError, UnsupportedOperationError

__all__ = ["EXECUTED_DIALECTS", "CohortBuilder", "ResolveFn"]

ResolveFn = Callable[[ConceptSet, EventStream], ResolvedConceptSet]

# Dialects we execute on get tailored date functions; others get sqlglot's generic nodes.
EXECUTED_DIALECTS = {"duckdb", "sqlite", "postgres"}


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
class CohortBuilder:
    """Builds the relations and cohort conditions a plan needs (one instance per compilation).

    The :class:`~clinbridge.engine.compile.Compiler` holds one and asks it for the cohort, the
    scope, event relations, windows and ages; it adds the measure and aggregate itself.
    """

    catalog: Catalog
    resolve: ResolveFn
    now: dt.date
    """What 'today' is for windows relative to now."""
    dialect: str = "duckdb"
    used: list[ResolvedConceptSet] = field(default_factory=list)
    """Every concept set resolved so far (for the compiled plan's record)."""
    status_rules: list[str] = field(default_factory=list)
    """How 'active' / 'ended' was read for each stream a status applied to."""
    status_probes: list[StatusProbe] = field(default_factory=list)
    """Queries that the streams a status applied to record it (run before the plan)."""
    _aliases: itertools.count[int] = field(default_factory=itertools.count)

    def alias(self, prefix: str) -> str:
        return f"{prefix}{next(self._aliases)}"

    def column_type(self, table: str, column: str) -> str | None:
        info = self.catalog.table(table)
        col = info.column(column) if info else None
        return col.type if col else None

    # -- relations -------------------------------------------------------------------------
    def stream_relation(
        self,
        stream_name: str,
        concepts: ConceptSet | None,
        value: ValueFilter | None = None,
        *,
        nested: bool = False,
        cost: bool = False,
        status: str | None = None,
        label: str | None = None,
        matches: tuple[tuple[str, tuple[str, ...]], ...] = (),
    ) -> exp.Expr:
        """The union of a kind's streams, normalised to (pid, eid, t, t_end, code, sys, val, unit, days_supply, quantity, lbl) and filtered by concept/value.

        With ``nested``, ``eid`` is the event's nested encounter (its ICU stay); a stream that
        does not record one cannot be scoped to those encounters. With ``cost``, ``val`` is the
        charge the source's cost table records for the event (events without one are left out)."""
        parts: list[exp.Select] = []
        for s in streams_for(self.catalog, stream_name):
            a = self.alias("s")
            if nested and not s.nested_encounter_column:
                raise UnsupportedOperationError(
                    f"stream {s.name!r} does not record the nested encounter (e.g. the ICU "
                    "stay) of its events"
                )

            def c(name: str | None, a: str = a) -> exp.Expr:
                return _col(name, a) if name else exp.null()

            unit = s.unit_label_column or s.unit_column
            costs = self.catalog.costs
            ca = self.alias("ct") if cost else ""
            if cost and (
                costs is None or s.name not in costs.event_types or s.row_id_column is None
            ):
                raise UnsupportedOperationError(
                    f"source {self.catalog.source!r} records no costs for {s.name!r} events"
                )
            q = exp.select(
                c(s.patient_column).as_("pid"),
                c(s.nested_encounter_column if nested else s.encounter_column).as_("eid"),
                c(s.time_column).as_("t"),
                c(s.end_time_column).as_("t_end"),
                c(s.code_column).as_("code"),
                (
                    c(s.system_column)
                    if s.system_column
                    else (exp.Literal.string(s.code_system) if s.code_system else exp.null())
                ).as_("sys"),
                (_col(costs.amount_column, ca) if cost and costs else c(s.value_column)).as_("val"),
                c(unit).as_("unit"),
                c(s.days_supply_column).as_("days_supply"),
                c(s.quantity_column).as_("quantity"),
                c(label or s.label_column).as_("lbl"),
            ).from_(exp.alias_(exp.to_table(s.table), a), copy=False)
            if cost:
                assert costs is not None and s.row_id_column is not None
                q = q.join(
                    exp.alias_(exp.to_table(costs.table), ca),
                    on=exp.and_(
                        _col(costs.event_type_column, ca).eq(
                            exp.Literal.string(costs.event_types[s.name])
                        ),
                        _col(costs.event_id_column, ca).eq(_col(s.row_id_column, a)),
                        copy=False,
                    ),
                    copy=False,
                )
            conds: list[exp.Expr] = []
            if concepts is not None:
                if s.code_column is None:
                    raise SchemaMismatchError(
                        f"stream {s.name!r} has no code column to filter concepts"
                    )
                resolved = self.resolve(concepts, s)
                self.used.append(resolved)
                conds.append(self._concept_condition(resolved, s, a))
            if value is not None:
                if s.value_column is None:
                    raise SchemaMismatchError(f"stream {s.name!r} stores no numeric values")
                unit_col = s.unit_label_column or s.unit_column
                column = in_unit(
                    _col(s.value_column, a),
                    _col(unit_col, a) if unit_col else None,
                    value.unit,
                    analyte_of_set(concepts),
                )
                conds.append(self._value_condition(column, value))
            if status is not None:  # active / ended at 'now' (engine/_status.py)
                cond, rule, probe = status_condition(s, a, status, self.now, self.d)
                conds.append(cond)
                self.status_rules.append(rule)
                self.status_probes.append(probe)
            conds += field_conditions(self.catalog, s, a, label, matches)
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
        ctype = self.column_type(s.table, s.code_column)
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
        return f.COMPARISONS[v.op](this=column, expression=exp.Literal.number(v.value))

    def encounter_relation(
        self, etype: str | None, attribute: str | None = None, *, age: bool = False
    ) -> exp.Select:
        """Encounters (of canonical type ``etype``) as (eid, pid, t, t_end, etype), with the
        encounter fact ``attribute`` as ``attr`` when asked, and the age recorded at each
        encounter as ``age`` with ``age``."""
        q = self._encounter_relation(etype)
        if age:
            q = self._with_column(q, etype, "age", "the patient's age at each encounter", "age")
        if attribute is None:
            return q
        return self._with_column(q, etype, attribute, repr(attribute), "attr")

    def _with_column(
        self, q: exp.Select, etype: str | None, name: str, what: str, as_: str
    ) -> exp.Select:
        enc = self.catalog.encounters
        column = (
            (enc.age_column if name == "age" else enc.attributes.get(name))
            if enc is not None
            else None
        )
        if enc is None or column is None or self.catalog.nested_encounter(etype) is not None:
            raise SchemaMismatchError(
                f"source {self.catalog.source!r} records no {what} for its encounters"
            )
        source = q.args.get("from") or q.args.get("from_")
        assert source is not None
        alias = source.this.alias_or_name
        return q.select(_col(column, alias).as_(as_), copy=False)

    def _encounter_relation(self, etype: str | None) -> exp.Select:
        nested = self.catalog.nested_encounter(etype)
        if nested is not None:  # ICU stays kept in their own table: every row is of the type
            a = self.alias("v")
            return exp.select(
                _col(nested.id_column, a).as_("eid"),
                _col(nested.patient_column, a).as_("pid"),
                _col(nested.start_column, a).as_("t"),
                _col(nested.end_column or nested.start_column, a).as_("t_end"),
                exp.Literal.string(nested.fixed_type or "other").as_("etype"),
            ).from_(exp.alias_(exp.to_table(nested.table), a), copy=False)
        enc = self.catalog.encounters
        if enc is None:
            raise SchemaMismatchError(f"source {self.catalog.source!r} has no encounter table")
        a = self.alias("v")
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
        ctype = self.column_type(enc.table, type_column)
        case = exp.Case()
        for code, canon in enc.type_map.items():
            case = case.when(_col(type_column, a).eq(_lit(code, ctype)), exp.Literal.string(canon))
        return case.else_(exp.Literal.string("other"))

    def _type_condition(self, etype: str, a: str) -> exp.Expr:
        enc = self.catalog.encounters
        assert enc is not None
        if enc.type_column is None:
            return exp.true() if etype == "other" else exp.false()
        ctype = self.column_type(enc.table, enc.type_column)
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
    def patient_col(self, pid: exp.Expr, column: str, joins: _Joins) -> exp.Expr:
        p = self.catalog.patients
        assert p is not None
        if isinstance(pid, exp.Column) and pid.table == "p" and pid.name == p.id_column:
            return _col(column, "p")
        alias = joins.add(
            ("patient", pid.sql()),
            exp.to_table(p.table),
            self.alias("b"),
            lambda a: _col(p.id_column, a).eq(pid),
        )
        return _col(column, alias)

    def _birth_date(self, pid: exp.Expr, joins: _Joins) -> tuple[exp.Expr, bool]:
        """(birth date expression, exact) for the patient ``pid``."""
        p = self.catalog.patients
        assert p is not None
        if p.birth_date_column:
            return f.as_date(self.patient_col(pid, p.birth_date_column, joins), self.d), True
        if p.birth_year_column:
            return self.patient_col(pid, p.birth_year_column, joins), False
        raise SchemaMismatchError(f"source {self.catalog.source!r} stores no birth dates")

    @property
    def d(self) -> str:
        return self.dialect if self.dialect in EXECUTED_DIALECTS else "generic"

    def age(self, pid: exp.Expr, at: exp.Expr, joins: _Joins) -> exp.Expr:
        """Age in whole years at ``at`` (birthday not yet reached that year counts one less)."""
        birth, exact = self._birth_date(pid, joins)
        d = self.d
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
        a = self.alias("r")
        agg = exp.Min if first else exp.Max
        return (
            exp.select(
                _col(pid_col, a).as_("pid"),
                agg(this=f.as_date(_col(date_col, a), self.d)).as_("d"),
            )
            .from_(_as_source(rel, a), copy=False)
            .group_by(_col(pid_col, a), copy=False)
        )

    def anchor_date(
        self, anchor: EventAnchor | PatientAnchor | FixedAnchor, pid: exp.Expr, joins: _Joins
    ) -> exp.Expr:
        d = self.d
        if isinstance(anchor, FixedAnchor):
            return f.date_literal(anchor.date or self.now, d)
        if isinstance(anchor, EventAnchor):
            if anchor.which == "each":
                raise UnsupportedOperationError("an 'each event' anchor gives no single date")
            rel = self.stream_relation(anchor.stream, anchor.concepts)
            dates: exp.Select | None = (
                nth_event_dates(rel, anchor.nth, self.alias("r"), d)
                if anchor.nth and anchor.nth > 1 and anchor.which == "first"
                else self._per_patient_date(rel, "pid", "t", anchor.which == "first")
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
            self.alias("a"),
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
            self.encounter_relation(anchor.encounter_type), "pid", "t", point == "first_encounter"
        )

    def window_condition(
        self,
        window: CalendarWindow | RelativeWindow | None,
        t: exp.Expr,
        pid: exp.Expr,
        joins: _Joins,
        eid: exp.Expr | None = None,
    ) -> exp.Expr | None:
        if window is None:
            return None
        d = self.d
        day = f.as_date(t, d)
        conds: list[exp.Expr] = []
        if isinstance(window, CalendarWindow):
            if window.start_at:
                conds.append(f.at_or_after(t, window.start_at, d))
            elif window.start:
                conds.append(exp.GTE(this=day, expression=f.date_literal(window.start, d)))
            if window.end:
                conds.append(exp.LTE(this=day, expression=f.date_literal(window.end, d)))
        elif each_anchor_window(window) is not None:
            conds.append(self._each_anchor(window, t, pid, eid))
            if window.dates is not None:
                conds.append(self.window_condition(window.dates, t, pid, joins))  # type: ignore[arg-type]
        else:
            if window.unit != "day" or window.dates is not None or window.per_anchor:
                raise UnsupportedOperationError("months, dates and pairs need an 'each' anchor")
            anchor = self.anchor_date(window.anchor, pid, joins)
            if window.start_days is None and window.end_days is None:
                conds.append(exp.not_(anchor.is_(exp.null()), copy=False))
            if window.start_days is not None:
                conds.append(exp.GTE(this=day, expression=f.add_days(anchor, window.start_days, d)))
            if window.end_days is not None:
                conds.append(
                    exp.LTE(this=day, expression=f.add_days(anchor.copy(), window.end_days, d))
                )
        return exp.and_(*conds, copy=False) if conds else None

    def _each_anchor(
        self, window: RelativeWindow, t: exp.Expr, pid: exp.Expr, eid: exp.Expr | None
    ) -> exp.Expr:
        """EXISTS an anchor event of the patient's that ``t`` falls in the window of."""
        source, tie = anchor_tie(self, window, t, pid, eid)
        sub = exp.select(exp.Literal.number(1)).from_(source, copy=False).where(tie, copy=False)
        return exp.Exists(this=sub)

    # -- cohort ----------------------------------------------------------------------------
    # Every filter compiles to ``pid IN (SELECT pid ...)``: a self-contained semi-join that
    # reads its stream once, whatever the number of patients. A negated filter compiles to
    # ``NOT EXISTS (... WHERE member = pid)`` rather than ``NOT IN``: PostgreSQL cannot turn
    # ``NOT IN (subquery)`` into an anti-join (NULL semantics), and once the subquery's hash
    # outgrows ``work_mem`` it probes the subquery once per patient (30 s at 100k patients).
    # The member queries never yield NULL ids, so the two forms answer alike.
    def cohort(self, plan: QueryPlan) -> exp.Select:
        p = self.catalog.patients
        assert p is not None
        pid = _col(p.id_column, "p")
        conds: list[exp.Expr] = []
        if plan.patient_id is not None:
            column = p.external_id_column or p.id_column
            conds.append(
                _col(column, "p").eq(_lit(plan.patient_id, self.column_type(p.table, column)))
            )
        conds.extend(self.filter(flt, pid) for flt in plan.filters)
        q = exp.select(pid.as_("pid")).from_(exp.alias_(exp.to_table(p.table), "p"), copy=False)
        return q.where(exp.and_(*conds, copy=False), copy=False) if conds else q

    def filter(self, flt: Any, pid: exp.Expr) -> exp.Expr:
        visit = getattr(self, f"_visit_{type(flt).__name__}", None)
        if visit is None:
            raise UnsupportedOperationError(f"No translation rule for {type(flt).__name__}")
        members, negate = visit(flt)
        if negate:
            return self._anti_join(members, pid)
        return pid.isin(query=members)

    def _anti_join(self, members: exp.Select, pid: exp.Expr) -> exp.Expr:
        """``NOT EXISTS (SELECT 1 FROM (members) AS nx WHERE nx.<id> = pid)``."""
        name = members.selects[0].alias_or_name if members.selects else ""
        if not name:
            return exp.not_(pid.isin(query=members), copy=False)
        alias = self.alias("nx")
        probe = (
            exp.select("1")
            .from_(exp.alias_(members.subquery(), alias), copy=False)
            .where(_col(name, alias).eq(pid.copy()), copy=False)
        )
        return exp.not_(exp.Exists(this=probe), copy=False)

    def _patients_where(self, build: Callable[[exp.Expr, _Joins], exp.Expr]) -> exp.Select:
        p = self.catalog.patients
        assert p is not None
        a = self.alias("q")
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
        ctype = self.column_type(p.table, p.sex_column)
        column = p.sex_column
        return self._patients_where(
            lambda pid, joins: self.patient_col(pid, column, joins).isin(
                *[_lit(c, ctype) for c in codes]
            )
        ), False

    def _visit_PatientFilter(self, flt: PatientFilter) -> tuple[exp.Select, bool]:
        def build(pid: exp.Expr, joins: _Joins) -> exp.Expr:
            value = attribute_value(self, pid, flt.attribute, joins)
            return value.isin(*[exp.Literal.string(v) for v in flt.values])

        return self._patients_where(build), flt.negate

    def _visit_AgeFilter(self, flt: AgeFilter) -> tuple[exp.Select, bool]:
        def build(pid: exp.Expr, joins: _Joins) -> exp.Expr:
            at = (
                self.anchor_date(flt.at, pid, joins)
                if flt.at is not None
                else f.date_literal(self.now, self.d)
            )
            cond = self._age_condition(self.age(pid, at, joins), flt)
            if flt.window is None:
                return cond
            if flt.at is None:
                raise UnsupportedOperationError("a window on an age needs the date it is taken at")
            inside = self.window_condition(flt.window, at.copy(), pid, joins)  # died in W
            return exp.and_(cond, inside, copy=False) if inside is not None else cond

        return self._patients_where(build), bool(flt.negate)

    def _age_condition(self, age: exp.Expr, flt: AgeFilter) -> exp.Expr:
        if flt.op == "between":
            if flt.value2 is None:
                raise UnsupportedOperationError("an age range needs value2")
            return exp.Between(
                this=age, low=exp.Literal.number(flt.value), high=exp.Literal.number(flt.value2)
            )
        return f.COMPARISONS[flt.op](this=age, expression=exp.Literal.number(flt.value))

    def _visit_EventFilter(self, flt: EventFilter) -> tuple[exp.Select, bool]:
        rel = self.stream_relation(
            flt.stream, flt.concepts, flt.value, status=flt.status, matches=flt.matches
        )
        a = self.alias("e")
        pid = _col("pid", a)
        joins = _Joins()
        conds: list[exp.Expr] = []
        window = self.window_condition(flt.window, _col("t", a), pid, joins, _col("eid", a))
        if window is not None:
            conds.append(window)
        if flt.age_at_event is not None:
            age = self.age(pid, f.as_date(_col("t", a), self.d), joins)
            conds.append(self._age_condition(age, flt.age_at_event))
        if flt.encounter_type is not None:
            if self.catalog.nested_encounter(flt.encounter_type) is not None:
                raise UnsupportedOperationError(
                    f"events during {flt.encounter_type} encounters kept in their own table "
                    "are read only as an encounter scope"
                )
            conds.append(
                self._encounter_condition(
                    a, exp.Subquery(this=self.encounter_relation(flt.encounter_type))
                )
            )
        if flt.first_only:
            first = EventAnchor(stream=flt.stream, concepts=flt.concepts, which="first")
            conds.append(f.as_date(_col("t", a), self.d).eq(self.anchor_date(first, pid, joins)))
        return self._members(rel, a, joins, conds, flt.min_count), flt.negate

    def _visit_EncounterFilter(self, flt: EncounterFilter) -> tuple[exp.Select, bool]:
        rel = self.encounter_relation(flt.type)
        a = self.alias("e")
        joins = _Joins()
        window = self.window_condition(flt.window, _col("t", a), _col("pid", a), joins)
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
    def scope(self, scope: EncounterScope) -> exp.Expr:
        rel = self.encounter_relation(scope.type, age=scope.age is not None)
        a = self.alias("v")
        inner = (
            exp.select(_col("eid", a), _col("pid", a), _col("t", a), _col("t_end", a))
            .from_(_as_source(rel, a), copy=False)
            .where(
                _col("pid", a).isin(query=exp.select("pid").from_("cohort", copy=False)), copy=False
            )
        )
        if scope.age is not None:  # the age recorded at each encounter
            inner = inner.where(self._age_condition(_col("age", a), scope.age), copy=False)
        if scope.which == "all":
            return inner
        enc = self.catalog.nested_encounter(scope.type) or self.catalog.encounters
        end = enc.end_column if enc is not None else None
        if scope.which == "current":
            if end is None:
                raise SchemaMismatchError(
                    f"source {self.catalog.source!r} records no encounter ends, so no encounter "
                    "is known to be open now"
                )
            now = f.date_literal(self.now, self.d)
            return inner.where(
                exp.and_(
                    _col("t_end", a).is_(exp.null()),
                    exp.LTE(this=f.as_date(_col("t", a), self.d), expression=now),
                    copy=False,
                ),
                copy=False,
            )
        if end is not None:  # the first/last visit is one that has ended
            inner = inner.where(exp.not_(_col("t_end", a).is_(exp.null())), copy=False)
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
        b = self.alias("w")
        return (
            exp.select(_col("eid", b), _col("pid", b), _col("t", b), _col("t_end", b))
            .from_(exp.alias_(exp.Subquery(this=inner), b), copy=False)
            .where(_col("rn", b).eq(exp.Literal.number(n)), copy=False)
        )

    def scope_condition(self, a: str, by_encounter: bool, *, nested: bool = False) -> exp.Expr:
        """Events of alias ``a`` that belong to a scoped encounter (by id, else by time); a
        nested encounter (an ICU stay) by its id only."""
        if nested:
            b = self.alias("se")
            return _col("eid", a).isin(
                query=exp.select(_col("eid", b)).from_(
                    exp.alias_(exp.to_table("scope_enc"), b), copy=False
                )
            )
        return self._encounter_condition(a, exp.to_table("scope_enc"), by_encounter=by_encounter)

    def _encounter_condition(
        self, a: str, encounters: exp.Expr, *, by_encounter: bool = True
    ) -> exp.Expr:
        """Events of alias ``a`` inside one of ``encounters`` (eid, pid, t, t_end): by id, else by time."""
        d = self.d
        s = self.alias("sc")
        in_time = exp.Exists(
            this=exp.select(exp.Literal.number(1))
            .from_(exp.alias_(encounters.copy(), s), copy=False)
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
        b = self.alias("se")
        by_id = _col("eid", a).isin(
            query=exp.select(_col("eid", b)).from_(exp.alias_(encounters.copy(), b), copy=False)
        )
        return exp.or_(
            by_id, exp.and_(_col("eid", a).is_(exp.null()), in_time, copy=False), copy=False
        )


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
