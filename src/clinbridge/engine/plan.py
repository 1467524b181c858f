"""The QueryPlan: a typed, JSON-serialisable description of a clinical question.

A plan speaks in clinical terms — cohorts, concept sets, event streams, encounters, time windows,
aggregates — and never names a source's tables. ``clinbridge.engine.compile`` turns a plan into one
SQL statement for a catalogued source in any dialect.

Example — "How many women had a gastrointestinal hemorrhage within 30 days after their first
celecoxib exposure?" (a doctest, run by tests/test_docs.py)::

    >>> from clinbridge.engine.plan import (
    ...     Aggregate, ConceptRef, ConceptSet, EventAnchor, EventFilter, QueryPlan,
    ...     RelativeWindow, SexFilter,
    ... )
    >>> celecoxib = ConceptSet(concepts=(ConceptRef(name="celecoxib"),))
    >>> plan = QueryPlan(
    ...     filters=(
    ...         SexFilter(sex="female"),
    ...         EventFilter(
    ...             stream="condition",
    ...             concepts=ConceptSet(concepts=(ConceptRef(name="Gastrointestinal hemorrhage"),)),
    ...             window=RelativeWindow(
    ...                 anchor=EventAnchor(stream="drug", concepts=celecoxib, which="first"),
    ...                 start_days=0, end_days=30,
    ...             ),
    ...         ),
    ...     ),
    ...     aggregate=Aggregate(op="count"),
    ... )
    >>> plan.measure.of, plan.aggregate.op
    ('patients', 'count')

Grouping takes :class:`GroupBy` objects, not bare names::

    >>> from clinbridge.engine.plan import GroupBy
    >>> QueryPlan(group_by=(GroupBy(key="sex"), GroupBy(key="age_group", age_bin=20))).group_by
    (GroupBy(key='sex', age_bin=10, variable=None), GroupBy(key='age_group', age_bin=20, variable=None))
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "AgeFilter",
    "Aggregate",
    "Anchor",
    "CalendarWindow",
    "ConceptRef",
    "ConceptSet",
    "EncounterFilter",
    "EncounterScope",
    "EventAnchor",
    "EventFilter",
    "EventStatus",
    "Filter",
    "FixedAnchor",
    "GroupBy",
    "Measure",
    "PatientAnchor",
    "PatientFilter",
    "QueryPlan",
    "RelativeWindow",
    "SexFilter",
    "TimeWindow",
    "ValueFilter",
    "VariableFilter",
]

Comparison = Literal[">", ">=", "<", "<=", "=", "!=", "between"]
EncounterType = Literal["inpatient", "emergency", "icu", "outpatient", "other"]
EventStatus = Literal["active", "ended"]
"""Whether an event is going on at the plan's 'now'. Where the stream records a status
(FHIR clinicalStatus, MedicationRequest.status), ``active`` is a status the source calls active
for an event started on or before now, ``ended`` one it calls over; otherwise, by the dates,
``active`` is started on or before now with no end or an end after now, ``ended`` an end on or
before now. A stream with neither a status nor an end date cannot tell, and the plan is refused."""
_COUNTED_MEASURES = frozenset(
    ("patients", "events", "encounters", "date", "concept", "end_date", "attribute")
)
"""The measures without a number per row (every other ``Measure.of`` has one): they are counted,
never averaged or summed."""


_ONE_VALUE = frozenset(("first", "last", "sum", "mean", "median", "count"))
"""The aggregates of one value each that ``QueryPlan.minus`` subtracts."""
_COUNTS = frozenset(("count",))
"""The aggregates ``QueryPlan.over`` divides: one count by another."""


class _Node(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# -- concepts -----------------------------------------------------------------------------------


class ConceptRef(_Node):
    """One concept, by stored id, by code (with its vocabulary/system), or by name."""

    concept_id: int | str | None = None
    code: str | None = None
    system: str | None = None
    """Vocabulary (OMOP vocabulary_id such as 'SNOMED') or FHIR code system URI."""
    name: str | None = None

    @model_validator(mode="after")
    def _one_key(self) -> ConceptRef:
        if self.concept_id is None and self.code is None and self.name is None:
            raise ValueError("a ConceptRef needs concept_id, code or name")
        return self

    def label(self) -> str:
        """A short name for the concept reference."""
        if self.name:
            return self.name
        if self.code is not None:
            return f"{self.system + ':' if self.system else ''}{self.code}"
        return str(self.concept_id)


class ConceptSet(_Node):
    """Concepts to match, with their descendants by default (OMOP concept_ancestor)."""

    concepts: tuple[ConceptRef, ...]
    include_descendants: bool = True
    exclude: tuple[ConceptRef, ...] = ()
    exclude_must_cut: bool | None = None
    """The asker named the exclusion ('except X'): each excluded concept must remove one of the
    set's concepts, else the set is not what was asked (an exclusion read wrongly)."""
    label: str | None = None

    @model_validator(mode="after")
    def _non_empty(self) -> ConceptSet:
        if not self.concepts:
            raise ValueError("a ConceptSet needs at least one concept")
        return self

    def describe(self) -> str:
        """The concept set in words."""
        return self.label or " or ".join(c.label() for c in self.concepts)


# -- values, windows, anchors -------------------------------------------------------------------


class ValueFilter(_Node):
    """A predicate on an event's numeric value, optionally with its unit (converted when known)."""

    op: Comparison
    value: float
    value2: float | None = None
    """Upper bound for 'between' (inclusive)."""
    unit: str | None = None

    @model_validator(mode="after")
    def _between(self) -> ValueFilter:
        if self.op == "between" and self.value2 is None:
            raise ValueError("'between' needs value2")
        return self


class EventAnchor(_Node):
    """The date of a patient's first/last event of a kind: 'after the first exposure to X'.

    ``each``: relative to any of the patient's events of that kind ('within 2 days after a
    bronchoscopy', where there were several), compared at the source's own time precision and
    strictly after the event for a window that starts at it."""

    kind: Literal["event"] = "event"
    stream: str
    concepts: ConceptSet | None = None
    which: Literal["first", "last", "each"] = "first"
    same: Literal["encounter", "month"] | None = None
    """For ``each``: the event must also share the anchor event's encounter ('later in the same
    hospital stay') or calendar month ('later in the same month')."""
    dates: CalendarWindow | None = None
    """For ``each``: only the anchor events in these dates count ('after a bronchoscopy in 2100')."""
    nth: int | None = None
    """For ``first``: the date of the nth event counted from the first (2: the second dose)."""


class PatientAnchor(_Node):
    """A date every patient has: birth, start/end of observation, first/last encounter, death."""

    kind: Literal["patient"] = "patient"
    point: Literal[
        "birth",
        "observation_start",
        "observation_end",
        "death",
        "first_encounter",
        "last_encounter",
    ]
    encounter_type: EncounterType | None = None
    """For first/last_encounter: only encounters of this canonical type ('within 7 days of admission')."""


class FixedAnchor(_Node):
    """A calendar date, or 'now' (the plan's ``now``)."""

    kind: Literal["fixed"] = "fixed"
    date: dt.date | None = None
    """None means the plan's 'now'."""


Anchor = Annotated[EventAnchor | PatientAnchor | FixedAnchor, Field(discriminator="kind")]


class CalendarWindow(_Node):
    """Events on or after ``start`` and on or before ``end`` (either open)."""

    kind: Literal["calendar"] = "calendar"
    start: dt.date | None = None
    end: dt.date | None = None
    start_at: dt.datetime | None = None
    """The start to the minute ('since 3 days ago' from a 'now' with a time of day); when set,
    events are compared to it, not to ``start``'s day."""


class RelativeWindow(_Node):
    """Events from ``start_days`` to ``end_days`` (inclusive) relative to an anchor date.

    ``start_days=0, end_days=30`` is 'within 30 days after'; ``start_days=-365, end_days=-1`` is
    'in the year before'; ``None`` leaves a side open ('any time after' is ``start_days=0``).
    """

    kind: Literal["relative"] = "relative"
    anchor: Anchor
    start_days: int | None = None
    end_days: int | None = None
    unit: Literal["day", "month"] = "day"
    """What ``start_days`` / ``end_days`` count: days, or calendar months ('within 2 months')."""
    dates: CalendarWindow | None = None
    """The events must also fall in these dates ('in 2100, within 2 months after X')."""
    per_anchor: bool = False
    """For an ``each`` anchor: an event counts once per anchor event whose window holds it (how
    often Y followed an X), not once."""


TimeWindow = Annotated[CalendarWindow | RelativeWindow, Field(discriminator="kind")]


# -- encounter scope ----------------------------------------------------------------------------


class EncounterScope(_Node):
    """Restrict events to a patient's first/last/nth/all encounters of a canonical type."""

    which: Literal["first", "last", "nth", "all", "current"] = "all"
    """``first``/``last``/``nth`` count the encounters that have ended (where the source records
    ends, an open encounter is the ``current`` one, not the 'last visit'); ``current`` is the
    encounter still open (no end) that started by 'now'."""
    type: EncounterType | None = None
    n: int | None = None
    """1-based position for 'nth' (counted from the first)."""
    age: AgeFilter | None = None
    """Only the encounters at which the patient's age, as the source records it per
    encounter, satisfies this ('patients in their 40s': each admission's own age)."""

    @model_validator(mode="after")
    def _nth(self) -> EncounterScope:
        if self.which == "nth" and (self.n is None or self.n < 1):
            raise ValueError("'nth' scope needs n >= 1")
        return self


# -- cohort filters -----------------------------------------------------------------------------


class SexFilter(_Node):
    """Patients of one sex."""

    kind: Literal["sex"] = "sex"
    sex: Literal["male", "female"]


PatientAttributeName = Literal["race", "ethnicity", "city", "state"]
"""The demographic facts recorded once per patient besides sex and birth (the catalog's
``PatientTable.attributes`` says which a source has)."""


class PatientFilter(_Node):
    """Patients whose recorded ``attribute`` is one of ``values`` (as the catalog names them:
    'Asian', 'Hispanic or Latino'), or with ``negate`` is not (unrecorded ones included)."""

    kind: Literal["patient"] = "patient"
    attribute: PatientAttributeName
    values: tuple[str, ...]
    negate: bool = False

    @model_validator(mode="after")
    def _values(self) -> PatientFilter:
        if not self.values:
            raise ValueError("a patient attribute filter needs the stored values it matches")
        return self


class AgeFilter(_Node):
    """Age in whole years at a point: now, an anchor, or the time of the filtered event."""

    kind: Literal["age"] = "age"
    op: Comparison
    value: int
    value2: int | None = None
    at: Anchor | None = None
    """None means the plan's 'now'."""
    negate: bool | None = None
    """True: the patients for whom the condition does not hold, those without the anchor's date
    included — with a death anchor ('age at death >= 0'), the patients with no recorded death
    (None, the default, is left out of the plan's JSON)."""
    window: TimeWindow | None = None
    """The anchor's date must also fall in this window: with a death anchor, the patients who
    died in it ('died before 1990', 'deaths in the last 5 years')."""


class EventFilter(_Node):
    """The patient has (or, with ``negate``, has not) events of a stream matching the concepts."""

    kind: Literal["event"] = "event"
    stream: str
    """Stream kind ('condition', 'drug', 'measurement', ...) or a stream name from the catalog."""
    concepts: ConceptSet | None = None
    value: ValueFilter | None = None
    window: TimeWindow | None = None
    min_count: int = 1
    negate: bool = False
    age_at_event: AgeFilter | None = None
    """Age of the patient at the matching event (e.g. 'diagnosed before age 50')."""
    encounter_type: EncounterType | None = None
    """Only events during encounters of this canonical type ('a hemoglobin test in the ER')."""
    first_only: bool = False
    """Only the patient's first event of these concepts counts ('their first GI bleed was after 2010')."""
    status: EventStatus | None = None
    """Only events active (or ended) at the plan's 'now' ('currently on lisinopril'); see
    :data:`EventStatus`."""
    matches: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(column, stored values): only events whose column holds one of the values ('medication
    requests with status active'), as :attr:`Measure.matches`."""


class EncounterFilter(_Node):
    """The patient has at least ``min_count`` encounters of a type (optionally in a window)."""

    kind: Literal["encounter"] = "encounter"
    type: EncounterType | None = None
    window: TimeWindow | None = None
    min_count: int = 1
    negate: bool = False


class VariableFilter(_Node):
    """A condition on one variable of a wide (trial) table: ``Rand_Arm in (1)``, ``BWT_g < 2500``.

    Missing codes never satisfy a condition (not even a negated one): an infant whose arm is
    unknown is neither cooled nor not cooled.
    """

    kind: Literal["variable"] = "variable"
    variable: str
    """The catalog variable's name (as the dictionary writes it)."""
    op: Comparison | Literal["in", "known"] = "in"
    value: float | None = None
    value2: float | None = None
    codes: tuple[str, ...] = ()
    """Stored codes for ``in`` (categorical variables)."""
    negate: bool = False

    @model_validator(mode="after")
    def _operands(self) -> VariableFilter:
        if self.op == "in" and not self.codes:
            raise ValueError("'in' needs codes")
        if self.op not in {"in", "known"} and self.value is None:
            raise ValueError(f"{self.op!r} needs a value")
        if self.op == "between" and self.value2 is None:
            raise ValueError("'between' needs value2")
        return self


Filter = Annotated[
    SexFilter | AgeFilter | EventFilter | EncounterFilter | VariableFilter | PatientFilter,
    Field(discriminator="kind"),
]


# -- what is measured and how it is aggregated -------------------------------------------------


class Measure(_Node):
    """The quantity an aggregate works on.

    ``of`` names what is counted or summarised:

    * ``patients`` / ``events`` / ``encounters``: things to count;
    * ``value``: the numeric value of events of ``stream`` (measurement value, observation value);
    * ``days_supply`` / ``quantity``: drug exposure fields;
    * ``length_of_stay``: encounter length in days (end - start);
    * ``duration``: an event's length in whole days, its recorded end minus its start
      (a condition episode, a drug exposure), over the events of ``stream`` with an end;
    * ``events_per_patient``: number of matching events per patient in the cohort (with no
      ``stream``: of encounters, of ``encounter_type`` when set);
    * ``age``: patient age in years at ``age_at`` (default now), e.g. age at first diagnosis;
    * ``days_between``: days from ``start_at`` to ``end_at`` per patient (both anchors), for
      the patients whose ``end_at`` is not before their ``start_at`` (the same day is 0);
    * ``date``: the event (or encounter) date;
    * ``concept``: the event's concept (for lists of distinct drugs/conditions);
    * ``variable``: a variable of a wide (trial) table, missing codes excluded unless
      ``include_missing``;
    * ``change``: ``variable`` minus ``baseline`` per subject (subjects with both known);
    * ``cost``: the charge the source's cost table records for each event of ``stream``;
    * ``end_date``: when an encounter ended (a discharge), as stored;
    * ``encounter_cost``: the total charge of each encounter holding an event of ``stream``
      matching ``concepts`` (the window, if any, selects the charges by their time);
    * ``attribute``: a fact recorded per encounter (``variable`` names it: 'insurance').
    """

    of: Literal[
        "patients",
        "events",
        "encounters",
        "value",
        "days_supply",
        "quantity",
        "length_of_stay",
        "duration",
        "events_per_patient",
        "age",
        "date",
        "concept",
        "variable",
        "change",
        "days_between",
        "cost",
        "end_date",
        "attribute",
        "encounter_cost",
    ] = "patients"
    stream: str | None = None
    """The events measured; for ``length_of_stay`` / ``encounters``: with ``concepts``, only
    the encounters during which such an event is recorded (the same encounter id)."""
    concepts: ConceptSet | None = None
    value: ValueFilter | None = None
    """Only the events whose value meets it; for ``encounters``: only the encounters whose
    length of stay in days (end minus start) meets it ('admissions that lasted over 1 day')."""
    unit: str | None = None
    """Unit the answer should be in (values in other known units are converted or rejected)."""
    encounter_type: EncounterType | None = None
    """For length_of_stay / encounters / encounter dates: restrict to a canonical encounter type."""
    age_at: Anchor | None = None
    """For ``age``: the date the age is taken at (e.g. the first diagnosis); default 'now'."""
    point: PatientAnchor | None = None
    """For ``date`` without a stream: a date every patient has (birth, death) instead of an
    encounter's date."""
    start_at: Anchor | None = None
    """For ``days_between``: the earlier date (e.g. the first exposure)."""
    end_at: Anchor | None = None
    """For ``days_between``: the later date (e.g. the first diagnosis)."""
    variable: str | None = None
    """For ``variable`` / ``change``: the wide table's variable (the later time point for change)."""
    baseline: str | None = None
    """For ``change``: the variable at the earlier time point."""
    include_missing: bool = False
    """Count missing codes as values (only when the question asks about them)."""
    status: EventStatus | None = None
    """Only the measured events active (or ended) at 'now' ('which conditions are still active')."""
    at: dt.datetime | None = None
    """Only the events recorded at this exact time ('the weight measured at 2100-06-07 05:00')."""
    elapsed: Literal["days", "hours"] | None = None
    """For ``date`` (first / last): the time from that event to 'now' (the plan's timestamp)
    instead of its date, in days or hours with their fraction."""
    part: Literal["year"] | None = None
    """For ``date`` / ``end_date`` (first, last, min, max): only the calendar year of that date
    ('in which year did she have her first hearing exam')."""
    column: str | None = None
    """A text column of ``stream``'s table reported instead of the concept's name (the
    organism of a microbiology record); events where it is empty are left out."""
    matches: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(column, stored values): events of ``stream`` whose column holds one of the values
    (a drug given by route 'po/ng')."""


class Aggregate(_Node):
    """How to reduce the measure to an answer.

    ``count`` · ``count_distinct`` (of concepts) · ``mean`` · ``median`` · ``min`` · ``max`` ·
    ``sum`` · ``stddev`` · ``range`` (the highest minus the lowest value) · ``first`` / ``last``
    (value or date by time) · ``list`` (distinct
    values/concepts) · ``exists`` (yes/no) · ``proportion`` (cohort members meeting ``numerator``
    over the cohort) · ``series`` (time-ordered values).
    """

    op: Literal[
        "count",
        "count_distinct",
        "mean",
        "median",
        "min",
        "max",
        "sum",
        "stddev",
        "range",
        "first",
        "last",
        "list",
        "exists",
        "proportion",
        "series",
    ]
    numerator: tuple[Filter, ...] = ()
    round_to: int | None = None
    nth: int | None = None
    """For ``first`` / ``last`` values: the value at the nth distinct time from that end (2: the
    second, or the second to last, measured)."""
    having: ValueFilter | None = None
    """For a ``count`` grouped by one variable: the answer is the list of the groups whose
    count meets it ('which sites recruited more than 40 infants')."""
    top: int | None = None
    """For ``list`` of concepts: only the concepts ranked in the first ``top`` places by how many
    events record them ('the five most common diagnoses'); ties share a place (dense rank), so
    more than ``top`` concepts can come back. For ``list`` of patients: the patients ranked in
    the first ``top`` places by their number of events or encounters (``rank_by``)."""
    rank_by: Literal["events", "patients", "encounters", "lowest", "highest"] | None = None
    """For ``top``: what each place is counted in. Concepts: their events (None, the default:
    every record) or the distinct patients with one ('top 3 drugs by number of patients').
    Patients (required): their ``events`` of the measure's stream and concepts ('the 3
    patients with the most diagnoses') or their ``encounters`` (of the measure's encounter
    type: 'the 3 patients with the most visits'), or their ``lowest`` / ``highest`` value of
    the measure's concepts ('which patient had the lowest hemoglobin': the patient whose
    lowest value is the least of all)."""

    @model_validator(mode="after")
    def _top(self) -> Aggregate:
        if self.top is not None and (self.op != "list" or self.top < 1):
            raise ValueError("'top' ranks a list: it needs op 'list' and top >= 1")
        if self.rank_by is not None and self.top is None:
            raise ValueError("'rank_by' says how a ranking counts: it needs 'top'")
        if self.having is not None and self.op != "count":
            raise ValueError("'having' keeps the groups whose count meets it: it needs op 'count'")
        if self.nth is not None and (self.op not in {"first", "last"} or self.nth < 1):
            raise ValueError("'nth' counts first or last values: it needs op first/last, nth >= 1")
        return self


class GroupBy(_Node):
    """Group the answer by one dimension (sex, age band, year, concept...)."""

    key: Literal[
        "sex",
        "year",
        "month",
        "day",
        "age_group",
        "concept",
        "encounter_type",
        "variable",
        "race",
        "ethnicity",
        "city",
        "state",
        "patient",
    ]
    """``race`` / ``ethnicity`` / ``city`` / ``state``: the patient's recorded attribute, as
    :class:`PatientFilter` reads it (patients without one are a group of their own).
    ``patient``: one group per patient with a matching event, named by the id a user types
    ('lisinopril orders per patient')."""
    age_bin: int = 10
    variable: str | None = None
    """For ``variable``: the wide table's (categorical) variable to group by, e.g. the arm."""

    @model_validator(mode="after")
    def _variable(self) -> GroupBy:
        if (self.key == "variable") != (self.variable is not None):
            raise ValueError("group by 'variable' needs (only then) a variable name")
        return self


class QueryPlan(_Node):
    """A whole question: subject, cohort, measure, aggregate, scope, window, grouping."""

    # Wide (trial) tables: ``VariableFilter`` cohorts, ``variable``/``change`` measures and
    # ``variable`` groupings compile in ``engine/_wide.py``.

    version: Literal[1] = 1
    question: str | None = None
    patient_id: str | None = None
    """Set for a patient-level question; the cohort is then that one patient."""
    filters: tuple[Filter, ...] = ()
    measure: Measure = Measure()
    aggregate: Aggregate = Aggregate(op="count")
    scope: EncounterScope | None = None
    window: TimeWindow | None = None
    group_by: tuple[GroupBy, ...] = ()
    now: dt.datetime | None = None
    limit: int | None = None
    minus: QueryPlan | None = None
    """The answer is this plan's one value minus that plan's one value: the change between two
    measurements ('the last heart rate of the first ICU stay compared to the first'), or one
    count minus another ('how many more patients with X than with Y')."""
    over: QueryPlan | None = None
    """The answer is this plan's count divided by that plan's count, a ratio ('the ratio of men
    to women', 'ER visits divided by inpatient visits'); none when the second count is 0."""

    @model_validator(mode="after")
    def _coherent(self) -> QueryPlan:
        op, of = self.aggregate.op, self.measure.of
        # 'date' without a stream is the date of an encounter (of ``measure.encounter_type``)
        needs_stream = of in {
            "value",
            "days_supply",
            "quantity",
            "events",
            "concept",
            "cost",
            "encounter_cost",
            "duration",
        }
        if self.minus is not None and (
            op not in _ONE_VALUE or self.minus.aggregate.op not in _ONE_VALUE
        ):
            raise ValueError("'minus' takes one value (a first, last, sum or count) from another")
        if self.minus is not None and (op == "count") != (self.minus.aggregate.op == "count"):
            raise ValueError("'minus' takes a count from a count, a value from a value")
        if self.minus is not None and op == "count" and (self.group_by or self.minus.group_by):
            raise ValueError("'minus' takes one count from another, not grouped counts")
        if self.over is not None and (
            op not in _COUNTS
            or self.over.aggregate.op not in _COUNTS
            or self.minus is not None
            or self.group_by
            or self.over.group_by
        ):
            raise ValueError("'over' divides one count by another (no grouping, no 'minus')")
        if of in {"variable", "change"} and self.measure.variable is None:
            raise ValueError(f"measure {of!r} needs a variable")
        if of == "days_between" and (self.measure.start_at is None or self.measure.end_at is None):
            raise ValueError("measure 'days_between' needs start_at and end_at")
        if of == "attribute" and self.measure.variable is None:
            raise ValueError("measure 'attribute' needs the attribute's name in 'variable'")
        if of == "change" and self.measure.baseline is None:
            raise ValueError("measure 'change' needs a baseline variable")
        if needs_stream and self.measure.stream is None:
            raise ValueError(f"measure {of!r} needs a stream")
        rank_by = self.aggregate.rank_by
        if self.aggregate.top is not None and of not in {"concept", "patients"}:
            raise ValueError(
                "'top' ranks concepts or patients: it needs measure 'concept' or 'patients'"
            )
        if (
            self.aggregate.top is not None
            and of == "concept"
            and rank_by in {"encounters", "lowest", "highest"}
        ):
            raise ValueError("concepts are ranked by their events or their patients")
        if self.aggregate.top is not None and of == "patients":
            if rank_by not in {"events", "encounters", "lowest", "highest"}:
                raise ValueError(
                    "patients are ranked by their 'events', 'encounters' or 'lowest' / "
                    "'highest' value (rank_by)"
                )
            if rank_by != "encounters" and self.measure.stream is None:
                raise ValueError("patients ranked by their events need the measure's stream")
            if rank_by in {"lowest", "highest"} and self.measure.concepts is None:
                raise ValueError("patients ranked by a value need the measure's concepts")
            if self.patient_id is not None or self.group_by:
                raise ValueError(
                    "a ranking of patients is over a cohort, not one patient or groups"
                )
        if op == "proportion" and not self.aggregate.numerator and not self.group_by:
            # (grouped, no numerator: a distribution, each last group's share of the groups
            # before it: 'distribution of HIE grade by arm')
            raise ValueError("a proportion needs numerator filters (the denominator is the cohort)")
        if self.measure.part is not None and (
            of not in {"date", "end_date"}
            or op not in {"first", "last", "min", "max"}
            or self.group_by
            or self.measure.elapsed is not None
        ):
            raise ValueError("'part' is the year of one first, last, earliest or latest date")
        if self.measure.elapsed is not None and (of != "date" or op not in {"first", "last"}):
            raise ValueError("'elapsed' is the time since a first or last date")
        if op in {"mean", "median", "sum", "stddev", "range"} and of in _COUNTED_MEASURES:
            raise ValueError(f"{op} needs a numeric measure, not {of!r}")
        return self

    # -- serialisation ---------------------------------------------------------------------
    def to_json(self, *, indent: bool = False) -> str:
        """The plan as JSON."""
        option = orjson.OPT_INDENT_2 if indent else 0
        return orjson.dumps(self.model_dump(mode="json", exclude_none=True), option=option).decode()

    def to_dict(self) -> dict[str, Any]:
        """The plan as plain JSON types."""
        return self.model_dump(mode="json", exclude_none=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> QueryPlan:
        """A plan from its JSON (validated)."""
        return cls.model_validate(orjson.loads(text))

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON schema of a plan."""
        return cls.model_json_schema()


QueryPlan.model_rebuild()
