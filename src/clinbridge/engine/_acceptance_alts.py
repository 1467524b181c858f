"""The readings an ``ambiguous`` acceptance rule leaves open, each as an :class:`Alternative`.

A rule of :mod:`clinbridge.engine._acceptance_data` that abstains because the question leaves a
choice open (the first or the last date, which cholesterol, currently or ever on a drug, one
condition or two) names the readings that remain; here each becomes a plan the user (or a page)
can pick and run, with the value it gives on this source where running it is cheap (one query).
Nothing here decides: the abstention stands whatever the readings give.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from clinbridge.engine.answer import Alternative, jsonable
from clinbridge.engine.plan import Aggregate, ConceptRef, ConceptSet, EventAnchor, EventFilter
from clinbridge.errors import ClinbridgeError

if TYPE_CHECKING:
    from clinbridge.engine._checks import _Ctx
    from clinbridge.engine.plan import QueryPlan

logger = logging.getLogger(__name__)

_UNSET = object()


def run_variant(ctx: _Ctx, plan: QueryPlan) -> Any:
    """The value of a variant of the plan on the same source, or None when it does not run."""
    from clinbridge.engine.run import run_plan

    try:
        answer = run_plan(ctx.db, ctx.catalog, plan)
    except ClinbridgeError as exc:
        logger.debug("variant plan did not run: %s", exc)
        return None
    return answer.value if answer.decision == "accept" else None


def reading(ctx: _Ctx, description: str, plan: QueryPlan, value: Any = _UNSET) -> Alternative:
    """One reading: its description, plan and value (run here unless ``value`` is given)."""
    got = run_variant(ctx, plan) if value is _UNSET else value
    return Alternative(
        description=description,
        plan=plan.to_dict(),
        value=jsonable(got),
        decision="accept" if got is not None else "abstain",
        reason=None if got is not None else "this reading gives no value on this source",
    )


def first_last_all(ctx: _Ctx, plan: QueryPlan, found: list[Any]) -> list[Alternative]:
    """The first, the most recent and every one of a patient's dates (or values)."""
    what = "date" if plan.measure.of == "date" else "value"
    out = []
    for op, said in (("first", f"the first {what}"), ("last", f"the most recent {what}")):
        variant = plan.model_copy(update={"aggregate": Aggregate(op=op)})
        same = op == plan.aggregate.op
        out.append(reading(ctx, said, variant, ctx.value) if same else reading(ctx, said, variant))
    listed = plan.model_copy(update={"aggregate": Aggregate(op="list")})
    out.append(reading(ctx, f"every {what} ({len(found)} records)", listed, found))
    return out


def per_quantity(
    ctx: _Ctx, plan: QueryPlan, kinds: Iterable[str], names: Iterable[str], component: Any
) -> list[Alternative]:
    """One reading per measured quantity: the plan's value of that quantity's concepts alone."""
    by_kind: dict[str, list[str]] = {}
    for name in dict.fromkeys(str(n) for n in names):
        by_kind.setdefault(component(name), []).append(name)
    out = []
    for kind in kinds:
        refs = tuple(ConceptRef(name=n) for n in by_kind.get(kind, ()))
        if not refs:
            continue
        concepts = ConceptSet(concepts=refs, include_descendants=False, label=kind)
        measure = plan.measure.model_copy(update={"concepts": concepts})
        out.append(reading(ctx, kind, plan.model_copy(update={"measure": measure})))
    return out


def current_or_ever(ctx: _Ctx, plan: QueryPlan, drug: str) -> list[Alternative]:
    """Patients currently on the drug (an exposure spanning today), and patients ever on it."""
    f = plan.filters[0]
    assert isinstance(f, EventFilter)
    current = plan.model_copy(update={"filters": (f.model_copy(update={"status": "active"}),)})
    return [
        reading(ctx, f"currently on {drug} (an exposure spanning today)", current),
        reading(ctx, f"ever exposed to {drug}", plan, ctx.value),
    ]


def one_or_two(ctx: _Ctx, plan: QueryPlan, wide: str, narrow: str) -> list[Alternative]:
    """The cohort with ``narrow`` read as part of ``wide`` (one condition), and with both."""
    kept = tuple(
        f
        for f in plan.filters
        if not (
            isinstance(f, EventFilter)
            and f.concepts is not None
            and not f.negate
            and f.concepts.describe().lower() == narrow
        )
    )
    one = plan.model_copy(update={"filters": kept})
    return [
        reading(ctx, f"one condition: {wide!r} (with {narrow!r} counted in it)", one),
        reading(ctx, f"two conditions: {wide!r} and {narrow!r}", plan, ctx.value),
    ]


_STAY_SUMMARIES = (
    ("last", "the last stay"),
    ("max", "the longest stay"),
    ("mean", "the mean stay"),
    ("sum", "the total of the stays"),
)


def stay_summaries(ctx: _Ctx, plan: QueryPlan) -> list[Alternative]:
    """One patient's length of stay as the last, the longest, the mean and the total."""
    out = []
    for op, said in _STAY_SUMMARIES:
        variant = plan.model_copy(update={"aggregate": Aggregate(op=op)})
        same = op == plan.aggregate.op
        out.append(reading(ctx, said, variant, ctx.value) if same else reading(ctx, said, variant))
    return out


def age_now_or_at(ctx: _Ctx, plan: QueryPlan) -> list[Alternative]:
    """The age today (the reading taken) and the age at the first event of each event filter."""
    out = [reading(ctx, "the age today", plan, ctx.value)]
    for f in plan.filters:
        if not isinstance(f, EventFilter) or f.negate:
            continue
        at = EventAnchor(stream=f.stream, concepts=f.concepts, which="first")
        measure = plan.measure.model_copy(update={"age_at": at})
        named = f.concepts.describe() if f.concepts is not None else f.stream
        variant = plan.model_copy(update={"measure": measure})
        out.append(reading(ctx, f"the age at the first {named}", variant))
    return out


def _with_filter(plan: QueryPlan, f: Any) -> QueryPlan:
    return plan.model_copy(update={"filters": (*plan.filters, f)})


def deaths_in_cohort(ctx: _Ctx, plan: QueryPlan) -> int:
    """How many of the plan's patients have a recorded death (0 when it cannot be told)."""
    from clinbridge.engine.plan import AgeFilter, Measure, PatientAnchor

    died = AgeFilter(op=">=", value=0, at=PatientAnchor(point="death"))
    counted = _with_filter(plan, died).model_copy(
        update={
            "measure": Measure(of="patients"),
            "aggregate": Aggregate(op="count"),
            "group_by": (),
        }
    )
    got = run_variant(ctx, counted)
    return int(got) if isinstance(got, (int, float)) else 0


def age_of_the_dead(ctx: _Ctx, plan: QueryPlan) -> list[Alternative]:
    """Today's age counted for every patient (the reading taken), the age at death for those who
    died (today's age for the living), and the living only."""
    from clinbridge.engine.plan import AgeFilter, PatientAnchor

    out = [reading(ctx, "years since birth today, the dead included", plan, ctx.value)]
    at_death = plan.measure.model_copy(update={"age_at": PatientAnchor(point="death")})
    dead = AgeFilter(op=">=", value=0, at=PatientAnchor(point="death"))
    if plan.patient_id:
        out.append(reading(ctx, "the age at death", plan.model_copy(update={"measure": at_death})))
        return out
    living = AgeFilter(op=">=", value=0, at=PatientAnchor(point="death"), negate=True)
    out.append(reading(ctx, "the living patients only, age today", _with_filter(plan, living)))
    out.append(
        reading(
            ctx,
            "the patients who died, age at death",
            _with_filter(plan, dead).model_copy(update={"measure": at_death}),
        )
    )
    return out


def decade_or_age(ctx: _Ctx, plan: QueryPlan, decade: int) -> list[Alternative]:
    """'in the 90s' read as the calendar decade (the reading taken), and as an age in that
    decade at the event (each event filter windowed to exactly that decade is moved to it)."""
    from clinbridge.engine.plan import AgeFilter

    out = [
        reading(ctx, f"in the calendar years 19{decade:02d}-19{decade + 9:02d}", plan, ctx.value)
    ]
    moved = []
    for f in plan.filters:
        if isinstance(f, EventFilter) and f.window is not None and _decade_window(f.window, decade):
            age = AgeFilter(op="between", value=decade, value2=decade + 9)
            f = f.model_copy(update={"window": None, "age_at_event": age})
        moved.append(f)
    variant = plan.model_copy(update={"filters": tuple(moved)})
    if variant != plan:
        out.append(reading(ctx, f"aged {decade}-{decade + 9} at the event", variant))
    return out


def _decade_window(window: Any, decade: int) -> bool:
    start, end = str(getattr(window, "start", "") or ""), str(getattr(window, "end", "") or "")
    return start.startswith(f"19{decade:02d}-01-01") and end.startswith(f"19{decade + 9:02d}-12-31")


def per_patient_means(ctx: _Ctx) -> dict[str, float]:
    """The mean over patients, each patient once — of each patient's own mean, and of each
    patient's latest value — from the draft's own SQL (its ``ev`` step of events). Empty when
    the draft's SQL is not of the compiled shape."""
    import sqlglot
    from sqlglot import exp

    from clinbridge.engine._checks import _guard, _run

    sql = getattr(ctx.draft, "sql", None)
    if not sql:
        return {}
    try:
        tree = sqlglot.parse_one(sql, read=ctx.db.dialect)
        ctes = list(tree.ctes)
        names = [c.alias_or_name for c in ctes]
        if "ev" not in names:
            return {}
        kept = ctes[: names.index("ev") + 1]
        inner = (
            exp.select(
                "e.pid",
                "CAST(e.val AS DOUBLE) AS v",
                "AVG(CAST(e.val AS DOUBLE)) OVER (PARTITION BY e.pid) AS pm",
                "ROW_NUMBER() OVER (PARTITION BY e.pid ORDER BY e.t DESC) AS rn",
            )
            .from_("ev AS e")
            .where("NOT e.val IS NULL")
        )
        outer = (
            exp.select("AVG(p.pm) AS each_mean", "AVG(p.v) AS each_latest")
            .from_(inner.subquery("p"))
            .where("p.rn = 1")
        )
        for c in kept:
            outer = outer.with_(c.alias_or_name, as_=c.this)
        rows = _run(ctx.db, _guard(outer.sql(dialect=ctx.db.dialect), ctx.catalog, ctx.db))
    except (sqlglot.errors.SqlglotError, ClinbridgeError) as exc:
        logger.debug("per-patient means did not run: %s", exc)
        return {}
    if not rows:
        return {}
    out = {}
    for key, got in zip(
        ("each patient's mean", "each patient's latest value"), rows[0], strict=False
    ):
        if isinstance(got, (int, float)):
            out[key] = float(got)
    return out
