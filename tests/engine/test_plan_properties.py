"""Property tests: plan → JSON → plan, and plan → SQL → parse, for generated plans."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlglot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlglot import exp

from clinbridge.adapters import describe
from clinbridge.db import Database
from clinbridge.engine.compile import compile_plan
from clinbridge.engine.plan import (
    AgeFilter,
    Aggregate,
    CalendarWindow,
    ConceptRef,
    ConceptSet,
    EncounterFilter,
    EncounterScope,
    EventAnchor,
    EventFilter,
    FixedAnchor,
    GroupBy,
    Measure,
    PatientAnchor,
    QueryPlan,
    RelativeWindow,
    SexFilter,
    ValueFilter,
)
from clinbridge.engine.resolve import Resolver

STREAMS = ("condition", "drug", "measurement", "procedure", "observation")
CONCEPTS = {
    "condition": (192671, 40481087, 4112343),
    "drug": (1118084, 1124300, 1127433),
    "measurement": (3006322, 4024958),
    "procedure": (4107731, 4043071),
    "observation": (4323208, 4304110),
}
ENC = st.sampled_from(["inpatient", "emergency", "outpatient", None])


@st.composite
def concept_sets(draw, stream):
    ids = draw(st.lists(st.sampled_from(CONCEPTS[stream]), min_size=1, max_size=2, unique=True))
    return ConceptSet(
        concepts=tuple(ConceptRef(concept_id=i) for i in ids),
        include_descendants=draw(st.booleans()),
    )


@st.composite
def windows(draw):
    if draw(st.booleans()):
        start = draw(st.dates(dt.date(1950, 1, 1), dt.date(2019, 1, 1)))
        return CalendarWindow(
            start=start, end=start + dt.timedelta(days=draw(st.integers(0, 3650)))
        )
    anchor = draw(
        st.one_of(
            st.builds(
                PatientAnchor,
                point=st.sampled_from(["observation_start", "first_encounter", "birth"]),
            ),
            st.just(FixedAnchor()),
            st.sampled_from(STREAMS).flatmap(
                lambda s: concept_sets(s).map(lambda cs: EventAnchor(stream=s, concepts=cs))
            ),
        )
    )
    lo = draw(st.integers(-3650, 3650))
    return RelativeWindow(anchor=anchor, start_days=lo, end_days=lo + draw(st.integers(0, 3650)))


@st.composite
def filters(draw):
    kind = draw(st.sampled_from(["sex", "age", "event", "encounter"]))
    if kind == "sex":
        return SexFilter(sex=draw(st.sampled_from(["male", "female"])))
    if kind == "age":
        return AgeFilter(
            op=draw(st.sampled_from([">", ">=", "<", "<="])), value=draw(st.integers(0, 100))
        )
    if kind == "encounter":
        return EncounterFilter(
            type=draw(ENC), min_count=draw(st.integers(1, 3)), negate=draw(st.booleans())
        )
    stream = draw(st.sampled_from(STREAMS))
    value = None
    if stream == "measurement" and draw(st.booleans()):
        value = ValueFilter(op=">", value=draw(st.floats(0, 500, allow_nan=False)))
    return EventFilter(
        stream=stream,
        concepts=draw(concept_sets(stream)),
        value=value,
        window=draw(st.none() | windows()),
        min_count=draw(st.integers(1, 3)),
        negate=draw(st.booleans()),
    )


@st.composite
def plans(draw):
    flt = tuple(draw(st.lists(filters(), max_size=3)))
    choice = draw(
        st.sampled_from(["count", "value", "los", "list", "proportion", "grouped", "patient"])
    )
    if choice == "count":
        return QueryPlan(filters=flt)
    if choice == "value":
        return QueryPlan(
            filters=flt,
            measure=Measure(
                of="value", stream="measurement", concepts=draw(concept_sets("measurement"))
            ),
            aggregate=Aggregate(op=draw(st.sampled_from(["mean", "median", "min", "max", "sum"]))),
            window=draw(st.none() | windows()),
        )
    if choice == "los":
        return QueryPlan(
            filters=flt,
            measure=Measure(of="length_of_stay", encounter_type=draw(ENC)),
            aggregate=Aggregate(op=draw(st.sampled_from(["mean", "max", "median"]))),
        )
    if choice == "list":
        stream = draw(st.sampled_from(STREAMS))
        return QueryPlan(
            filters=flt,
            measure=Measure(of="concept", stream=stream),
            aggregate=Aggregate(op="list"),
            scope=draw(
                st.none()
                | st.builds(
                    EncounterScope, which=st.sampled_from(["first", "last", "all"]), type=ENC
                )
            ),
        )
    if choice == "proportion":
        return QueryPlan(
            filters=flt, aggregate=Aggregate(op="proportion", numerator=(draw(filters()),))
        )
    if choice == "grouped":
        return QueryPlan(
            filters=flt, group_by=(GroupBy(key=draw(st.sampled_from(["sex", "age_group"]))),)
        )
    return QueryPlan(
        patient_id=str(draw(st.integers(1, 3000))),
        measure=Measure(of="date", stream="condition"),
        aggregate=Aggregate(op=draw(st.sampled_from(["first", "last"]))),
    )


@given(plans())
@settings(max_examples=150, deadline=None)
def test_plan_json_round_trip(plan):
    again = QueryPlan.from_json(plan.to_json())
    assert again == plan and hash(again) == hash(plan)


@pytest.fixture(scope="module")
def eunomia(eunomia_duckdb):
    with Database.open(f"duckdb:///{eunomia_duckdb}") as db:
        catalog = describe(db)
        yield db, catalog, Resolver(db, catalog)


@given(plan=plans())
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_compiled_sql_parses_back_in_every_dialect(plan, eunomia):
    db, catalog, resolver = eunomia
    for dialect in (
        "duckdb",
        "sqlite",
        "postgres",
        "spark",
        "bigquery",
        "snowflake",
        "trino",
        "redshift",
    ):
        sql = compile_plan(
            plan, catalog, resolver.resolve, dialect=dialect, now=dt.date(2019, 7, 1)
        ).sql
        parsed = sqlglot.parse(sql, read=dialect)
        assert len(parsed) == 1 and isinstance(parsed[0], exp.Query), (dialect, sql)
    # and DuckDB runs it
    db.execute(compile_plan(plan, catalog, resolver.resolve, now=dt.date(2019, 7, 1)).sql)
