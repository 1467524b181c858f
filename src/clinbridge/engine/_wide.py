"""Plans over a wide (trial) table → one sqlglot SELECT.

A wide table holds one row per subject and one column per variable (``Catalog.variables``). The
cohort is the subjects whose row meets every :class:`~clinbridge.engine.plan.VariableFilter`;
the measure is a variable (or the change between two of them); groups are a categorical
variable's codes, shown with their labels. Missing codes are turned into NULL in the SQL itself
(``CASE WHEN col IN (-99, -88, -77) THEN NULL ELSE col END``), so they never enter a mean, a
median, a count of values or a denominator, and the statement says so to anyone who reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from sqlglot import exp

from clinbridge.engine.plan import GroupBy, QueryPlan, VariableFilter
from clinbridge.engine.sqlfuncs import COMPARISONS
from clinbridge.errors import SchemaMismatchError, UnsupportedOperationError

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog, Variable

__all__ = ["compile_wide", "is_wide", "plan_variables"]

WideShape = Literal["scalar", "proportion", "rows", "list"]


def is_wide(plan: QueryPlan, catalog: Catalog) -> bool:
    """Whether the plan is over the catalog's wide table (trial variables), not event streams."""
    if any(isinstance(f, VariableFilter) for f in (*plan.filters, *plan.aggregate.numerator)):
        return True
    if plan.measure.of in {"variable", "change"}:
        return True
    if any(g.key == "variable" for g in plan.group_by):
        return True
    return bool(catalog.variables) and not catalog.streams


def plan_variables(plan: QueryPlan) -> list[str]:
    """Every variable the plan names (filters, numerator, measure, groups), in order."""
    names: list[str] = []
    for f in (*plan.filters, *plan.aggregate.numerator):
        if isinstance(f, VariableFilter):
            names.append(f.variable)
    for n in (plan.measure.variable, plan.measure.baseline):
        if n:
            names.append(n)
    names += [g.variable for g in plan.group_by if g.variable]
    return list(dict.fromkeys(names))


def _lit(text: str, numeric: bool) -> exp.Expr:
    return exp.Literal.number(text) if numeric else exp.Literal.string(text)


def _numeric_code(code: str) -> bool:
    try:
        float(code)
    except ValueError:
        return False
    return True


class _WideCompiler:
    def __init__(self, catalog: Catalog, dialect: str) -> None:
        self.catalog = catalog
        self.dialect = dialect
        self.by_name = {v.name: v for v in catalog.variables}
        self.by_lower = {v.name.lower(): v for v in catalog.variables}

    def var(self, name: str) -> Variable:
        v = self.by_name.get(name) or self.by_lower.get(name.lower())
        if v is None:
            raise SchemaMismatchError(
                f"the trial table has no variable {name!r}",
                variable=name,
            )
        return v

    def raw(self, v: Variable, table: str = "c") -> exp.Column:
        return exp.column(v.column, table=table, quoted=True)

    def clean(self, v: Variable, table: str = "c", *, include_missing: bool = False) -> exp.Expr:
        col = self.raw(v, table)
        numeric = v.type in {"integer", "float"} or all(_numeric_code(c) for c in v.codes)
        codes = [c for c in v.missing_codes if _numeric_code(c) or not numeric]
        if not codes or include_missing:
            return col
        return (
            exp.Case()
            .when(col.isin(*[_lit(c, numeric) for c in codes]), exp.null())
            .else_(col.copy())
        )

    def label(self, v: Variable, table: str = "c") -> exp.Expr:
        """The code's label (the code itself when the dictionary gives none)."""
        value = self.clean(v, table)
        if not v.codes:
            return value
        numeric = all(_numeric_code(c) for c in v.codes)
        case = exp.Case()
        for code, text in v.codes.items():
            case = case.when(value.copy().eq(_lit(code, numeric)), exp.Literal.string(text or code))
        return case.else_(exp.cast(value.copy(), "VARCHAR"))

    def condition(self, f: VariableFilter, table: str = "c") -> exp.Expr:
        v = self.var(f.variable)
        value = self.clean(v, table)
        cond: exp.Expr
        if f.op == "in":
            numeric = all(_numeric_code(c) for c in f.codes) and v.type != "string"
            unknown = [c for c in f.codes if v.codes and c not in v.codes]
            if unknown:
                raise SchemaMismatchError(
                    f"{v.name} has no code {unknown[0]!r} (codes: {', '.join(v.codes)})",
                    variable=v.name,
                )
            cond = value.isin(*[_lit(c, numeric) for c in f.codes])
        elif f.op == "known":
            cond = exp.not_(value.is_(exp.null()))
        else:
            assert f.value is not None
            num = exp.Literal.number(repr(float(f.value)))
            if f.op == "between":
                assert f.value2 is not None
                cond = exp.Between(
                    this=value, low=num, high=exp.Literal.number(repr(float(f.value2)))
                )
            else:
                cond = COMPARISONS[f.op](this=value, expression=num)
        if f.negate:
            # unknown (missing) is neither the condition nor its negation
            cond = exp.and_(
                exp.not_(exp.paren(cond)),
                exp.not_(self.clean(v, table).is_(exp.null())),
            )
        return cond

    # -- the statement -----------------------------------------------------------------------
    def compile(self, plan: QueryPlan) -> tuple[exp.Select, WideShape]:
        if plan.minus is not None:  # one group's mean minus another's ('cooled minus control')
            return self._difference(plan, plan.minus)
        if plan.aggregate.having is not None:  # the groups whose count meets it
            return self._having(plan)
        base, groups = self._cohort(plan)
        op = plan.aggregate.op
        m = plan.measure
        if op == "proportion":
            return self._proportion(plan, base, groups)
        return self._over(plan, base, groups, op, m)

    def _having(self, plan: QueryPlan) -> tuple[exp.Select, WideShape]:
        having = plan.aggregate.having
        if having is None or len(plan.group_by) != 1 or plan.measure.of != "patients":
            raise UnsupportedOperationError("'having' keeps groups of one grouped count")
        counted, shape = self.compile(
            plan.model_copy(
                update={"aggregate": plan.aggregate.model_copy(update={"having": None})}
            )
        )
        if shape != "rows" or having.op not in COMPARISONS:
            raise UnsupportedOperationError("'having' keeps groups of one grouped count")
        label = self._group(plan.group_by[0]).column
        keep = COMPARISONS[having.op](
            this=exp.column("value", "k"), expression=exp.Literal.number(having.value)
        )
        q = (
            exp.select(exp.column(label, "k").as_("value"))
            .from_(exp.Subquery(this=counted).as_("k"), copy=False)
            .where(keep, copy=False)
        )
        return q.order_by(exp.Ordered(this=exp.column("value")), copy=False), "list"

    def _difference(self, first: QueryPlan, second: QueryPlan) -> tuple[exp.Select, WideShape]:
        a, sa = self.compile(first.model_copy(update={"minus": None}))
        b, sb = self.compile(second)
        if sa != "scalar" or sb != "scalar" or first.group_by or second.group_by:
            raise UnsupportedOperationError("a difference takes one value from another")
        value = exp.Sub(this=exp.column("value", "a"), expression=exp.column("value", "b"))
        q = exp.select(
            value.as_("value"),
            exp.column("value", "a").as_("first"),
            exp.column("value", "b").as_("second"),
            exp.column("n", "a").as_("n_first"),
            exp.column("n", "b").as_("n_second"),
        ).from_(exp.Subquery(this=a).as_("a"), copy=False)
        return q.join(exp.Subquery(this=b).as_("b"), join_type="cross", copy=False), "scalar"

    def values_of(self, plan: QueryPlan) -> tuple[exp.Select, list[Variable]]:
        """(g0, g1, v) per cohort subject of a plan that measures a variable, and the groups."""
        base, groups = self._cohort(plan)
        return self._values(base, groups, self._measure_value(plan)), groups

    def _cohort(self, plan: QueryPlan) -> tuple[exp.Select, list[Variable]]:
        patients = self.catalog.patients
        if patients is None:
            raise SchemaMismatchError("the wide table has no subject column")
        table = patients.table
        if len(plan.group_by) > 2:
            raise UnsupportedOperationError("at most two groupings over a trial table")
        groups = [self._group(g) for g in plan.group_by]
        conds = [self.condition(f) for f in plan.filters if isinstance(f, VariableFilter)]
        other = [f for f in plan.filters if not isinstance(f, VariableFilter)]
        if other:
            raise UnsupportedOperationError(
                f"a {other[0].kind!r} filter has no meaning over a trial table; "
                "name the variable instead"
            )
        if plan.patient_id is not None:
            sid = exp.cast(exp.column(patients.id_column, table="c", quoted=True), "VARCHAR")
            # subject ids are typed in any case ('ht-16-0125' for HT-16-0125)
            conds.append(exp.Upper(this=sid).eq(exp.Literal.string(plan.patient_id.upper())))
        for g in groups:
            conds.append(exp.not_(self.clean(g).is_(exp.null())))
        base = exp.select(exp.Star()).from_(exp.alias_(exp.to_table(table), "c"), copy=False)
        if conds:
            base = base.where(exp.and_(*conds, copy=False), copy=False)
        return base, groups

    def _over(
        self, plan: QueryPlan, base: exp.Select, groups: list[Variable], op: str, m: Any
    ) -> tuple[exp.Select, WideShape]:
        if m.of == "patients":
            if op not in {"count", "count_distinct"}:
                raise UnsupportedOperationError(f"cannot take the {op} of subjects")
            return self._aggregate(
                self._values(base, groups, exp.Literal.number(1)),
                groups,
                exp.Count(this=exp.Star()),
                None,
            )
        vals = self._values(base, groups, self._measure_value(plan))
        if op == "list":
            v = self.var(m.variable or "")
            label = self.label(v)
            q = (
                exp.select(label.as_("value"))
                .distinct(copy=False)
                .from_(exp.Subquery(this=base).as_("c"), copy=False)
                .where(exp.not_(self.clean(v).is_(exp.null())), copy=False)
            )
            return q.order_by(exp.Ordered(this=exp.column("value")), copy=False), "list"
        if op in {"count", "count_distinct"}:
            target: exp.Expr = exp.Count(
                this=exp.Distinct(expressions=[exp.column("v", table="w")])
                if op == "count_distinct"
                else exp.column("v", table="w")
            )
            return self._aggregate(vals, groups, target, None)
        if op == "median":
            return self._median(vals, groups)
        aggs: dict[str, Callable[[exp.Expr], exp.Expr]] = {
            "mean": lambda e: exp.Avg(this=exp.cast(e, "DOUBLE")),
            "min": lambda e: exp.Min(this=e),
            "max": lambda e: exp.Max(this=e),
            "sum": lambda e: exp.Sum(this=e),
            "stddev": lambda e: exp.StddevSamp(this=exp.cast(e, "DOUBLE")),
        }
        if op not in aggs:
            raise UnsupportedOperationError(f"No translation rule for {op!r} over a trial table")
        return self._aggregate(vals, groups, aggs[op](exp.column("v", table="w")), self._n())

    def _group(self, g: GroupBy) -> Variable:
        if g.key != "variable" or g.variable is None:
            raise UnsupportedOperationError(
                f"group by {g.key!r} has no meaning over a trial table; group by a variable"
            )
        v = self.var(g.variable)
        if v.type != "categorical":
            raise UnsupportedOperationError(
                f"cannot group by {v.name} ({v.type}); grouping needs a coded variable"
            )
        return v

    def _measure_value(self, plan: QueryPlan) -> exp.Expr:
        m = plan.measure
        if m.variable is None:
            raise UnsupportedOperationError(f"measure {m.of!r} needs a variable")
        v = self.var(m.variable)
        if plan.aggregate.op in {"mean", "median", "sum", "stddev"} and v.type not in {
            "integer",
            "float",
        }:
            raise UnsupportedOperationError(
                f"{v.name} is {v.type}; a {plan.aggregate.op} needs a numeric variable "
                "(ask for a percentage of a category instead)"
            )
        value = self.clean(v, include_missing=m.include_missing)
        if m.of == "change":
            b = self.var(m.baseline or "")
            return exp.Sub(this=exp.paren(value), expression=exp.paren(self.clean(b)))
        return value

    def _n(self) -> exp.Expr:
        return exp.Count(this=exp.column("v", table="w"))

    def _aggregate(
        self,
        vals: exp.Select,
        groups: list[Variable],
        target: exp.Expr,
        n: exp.Expr | None,
    ) -> tuple[exp.Select, WideShape]:
        cols: list[exp.Expr] = [self._group_label(g, i) for i, g in enumerate(groups)]
        cols.append(target.as_("value"))
        if n is not None:
            cols.append(n.as_("n"))
            cols.append(exp.Count(this=exp.Star()).as_("subjects"))
        q = exp.select(*cols).from_(exp.Subquery(this=vals).as_("w"), copy=False)
        return _per_group(q, groups, "scalar")

    def _group_label(self, g: Variable, i: int) -> exp.Expr:
        col = exp.column(f"g{i}", table="w")
        if not g.codes:  # no codes to label (a dictionary that declares none): the value itself
            return exp.Max(this=exp.cast(col.copy(), "VARCHAR")).as_(g.column)
        numeric = all(_numeric_code(c) for c in g.codes)
        case = exp.Case()
        for code, text in g.codes.items():
            case = case.when(col.copy().eq(_lit(code, numeric)), exp.Literal.string(text or code))
        return exp.Max(this=case.else_(exp.cast(col.copy(), "VARCHAR"))).as_(g.column)

    def _values(self, base: exp.Select, groups: list[Variable], value: exp.Expr) -> exp.Select:
        """(g0, g1, v) per cohort subject."""
        return exp.select(
            *[self.raw(g).as_(f"g{i}") for i, g in enumerate(groups)], value.as_("v")
        ).from_(exp.Subquery(this=base).as_("c"), copy=False)

    def _median(self, vals: exp.Select, groups: list[Variable]) -> tuple[exp.Select, WideShape]:
        """Median with window functions only (every dialect computes it the same way)."""
        part = [exp.column(f"g{i}", table="w") for i in range(len(groups))]
        v = exp.column("v", table="w")
        ranked = exp.select(
            *[p.copy().as_(f"g{i}") for i, p in enumerate(part)],
            v.copy().as_("v"),
            exp.Window(
                this=exp.RowNumber(),
                partition_by=[p.copy() for p in part] or None,
                order=exp.Order(expressions=[exp.Ordered(this=v.copy())]),
            ).as_("rn"),
            exp.Window(
                this=exp.Count(this=exp.Star()), partition_by=[p.copy() for p in part] or None
            ).as_("cnt"),
        ).from_(exp.Subquery(this=vals).as_("w"), copy=False)
        ranked = ranked.where(exp.not_(v.copy().is_(exp.null())), copy=False)
        r = "w"
        two_rn = exp.Mul(this=exp.column("rn", table=r), expression=exp.Literal.number(2))
        cnt = exp.column("cnt", table=r)
        middle = two_rn.isin(
            cnt.copy(),
            exp.Add(this=cnt.copy(), expression=exp.Literal.number(1)),
            exp.Add(this=cnt.copy(), expression=exp.Literal.number(2)),
        )
        cols: list[exp.Expr] = [self._group_label(g, i) for i, g in enumerate(groups)]
        cols += [
            exp.Avg(this=exp.cast(exp.column("v", table=r), "DOUBLE")).as_("value"),
            exp.Max(this=cnt.copy()).as_("n"),
        ]
        q = (
            exp.select(*cols)
            .from_(exp.Subquery(this=ranked).as_(r), copy=False)
            .where(middle, copy=False)
        )
        if not groups:
            return q, "scalar"
        names = [exp.column(f"g{i}", table=r) for i in range(len(groups))]
        q = q.group_by(*names, copy=False)
        return q.order_by(*[exp.Ordered(this=c.copy()) for c in names], copy=False), "rows"

    def _proportion(
        self, plan: QueryPlan, base: exp.Select, groups: list[Variable]
    ) -> tuple[exp.Select, WideShape]:
        if not plan.aggregate.numerator and groups:
            return self._distribution(base, groups)
        num = [f for f in plan.aggregate.numerator if isinstance(f, VariableFilter)]
        if len(num) != len(plan.aggregate.numerator):
            raise UnsupportedOperationError("a trial-table proportion needs variable conditions")
        hit = exp.and_(*[self.condition(f) for f in num], copy=False)
        # the denominator: subjects whose numerator variables are all known (missing codes
        # and blanks — not collected — are left out, and the answer states the count)
        known = [exp.not_(self.clean(self.var(f.variable)).is_(exp.null())) for f in num]
        rows = base.where(exp.and_(*known, copy=False), copy=False)
        flag = exp.Case().when(hit, exp.Literal.number(1)).else_(exp.Literal.number(0))
        inner = exp.select(
            *[self.raw(g).as_(f"g{i}") for i, g in enumerate(groups)], flag.as_("hit")
        ).from_(exp.Subquery(this=rows).as_("c"), copy=False)
        cols: list[exp.Expr] = [self._group_label(g, i) for i, g in enumerate(groups)]
        numerator = exp.Sum(this=exp.column("hit", table="w"))
        cols += [numerator.as_("numerator"), exp.Count(this=exp.Star()).as_("denominator")]
        if groups:
            cols.append(
                exp.Div(
                    this=exp.cast(numerator.copy(), "DOUBLE"),
                    expression=exp.Count(this=exp.Star()),
                ).as_("value")
            )
        q = exp.select(*cols).from_(exp.Subquery(this=inner).as_("w"), copy=False)
        return _per_group(q, groups, "proportion")

    def _distribution(
        self, base: exp.Select, groups: list[Variable]
    ) -> tuple[exp.Select, WideShape]:
        """Each category of the last group: its count (numerator) over the subjects of the
        groups before it (denominator), among those whose every group value is known."""
        known = [exp.not_(self.clean(g).is_(exp.null())) for g in groups]
        rows = base.where(exp.and_(*known, copy=False), copy=False)
        inner = exp.select(*[self.raw(g).as_(f"g{i}") for i, g in enumerate(groups)]).from_(
            exp.Subquery(this=rows).as_("c"), copy=False
        )
        outer = [exp.column(f"g{i}", table="w") for i in range(len(groups) - 1)]
        total = exp.Window(
            this=exp.Sum(this=exp.Count(this=exp.Star())), partition_by=outer or None
        )
        cols: list[exp.Expr] = [self._group_label(g, i) for i, g in enumerate(groups)]
        cols += [
            exp.Count(this=exp.Star()).as_("numerator"),
            total.as_("denominator"),
            exp.Div(
                this=exp.cast(exp.Count(this=exp.Star()), "DOUBLE"), expression=total.copy()
            ).as_("value"),
        ]
        q = exp.select(*cols).from_(exp.Subquery(this=inner).as_("w"), copy=False)
        return _per_group(q, groups, "proportion")


def compile_wide(plan: QueryPlan, catalog: Catalog, *, dialect: str) -> tuple[exp.Select, str]:
    """The SELECT and the answer's shape ('scalar', 'proportion', 'rows', 'list')."""
    return _WideCompiler(catalog, dialect).compile(plan)


def _per_group(
    q: exp.Select, groups: list[Variable], ungrouped: WideShape
) -> tuple[exp.Select, WideShape]:
    """``q`` over the subquery ``w``: one row (shape ``ungrouped``) without groups, else grouped
    and ordered by the group columns ``g0``, ``g1``... (shape 'rows')."""
    if not groups:
        return q, ungrouped
    names = [exp.column(f"g{i}", table="w") for i in range(len(groups))]
    q = q.group_by(*names, copy=False)
    return q.order_by(*[exp.Ordered(this=c.copy()) for c in names], copy=False), "rows"
