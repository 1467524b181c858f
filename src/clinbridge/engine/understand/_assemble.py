"""Assembly: ordered slots and grounded concepts → QueryPlan readings (or an abstention).

Every decision here is structural — which concept is measured, which ones filter the cohort,
where a window or a value belongs, where a proportion's numerator starts — and is made from
the order of the pieces and from what the source stores (the lexicon), never from the wording
of particular questions.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

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
from clinbridge.engine.understand._ground import Concept, Word, ground_text
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._slots import Slot
from clinbridge.engine.understand._time import TimeSpec, resolve_relative_year

__all__ = ["Abstain", "assemble"]

Item = Slot | Concept | Word
NUMERIC_OPS = {"mean", "median", "min", "max", "sum", "stddev"}
VALUE_STREAMS = ("measurement", "observation", "vital")
ENCOUNTER_WORDS = {
    "inpatient": "inpatient",
    "emergency": "emergency",
    "icu": "ICU",
    "outpatient": "outpatient",
    "other": "other",
}


class Abstain(Exception):
    def __init__(self, reason: str, *unresolved: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.unresolved = unresolved


@dataclass
class Ctx:
    question: str
    lex: Lexicon
    patient_id: str | None
    now: dt.datetime | None
    today: dt.date
    embeddings: bool = True
    groundings: list[Grounding] = field(default_factory=list)
    choice: dict[int, int] = field(default_factory=dict)
    measure_value: ValueFilter | None = None
    located_scope: Slot | None = None
    patient_id_from_question: bool = False
    """Alternative label chosen per concept position (for ranked readings)."""


@dataclass
class Pred:
    """A cohort predicate under construction, with its position in the question."""

    pos: int
    kind: str  # event | sex | age | encounter
    concept: Concept | None = None
    stream: str | None = None
    concept_set: ConceptSet | None = None
    negate: bool = False
    min_count: int = 1
    value: ValueFilter | None = None
    age_at_event: AgeFilter | None = None
    window: Any = None
    sex: str | None = None
    age: dict[str, Any] | None = None
    enc_type: str | None = None
    plan_stream: str | None = None

    def build(self) -> Any:
        if self.kind == "sex":
            return SexFilter(sex=self.sex)  # type: ignore[arg-type]
        if self.kind == "age":
            a = self.age or {}
            return AgeFilter(op=a["op"], value=a["value"], value2=a.get("value2"))
        if self.kind == "encounter":
            return EncounterFilter(
                type=self.enc_type,
                window=self.window,
                min_count=self.min_count,  # type: ignore[arg-type]
                negate=self.negate,
            )
        assert self.stream is not None
        return EventFilter(
            stream=self.plan_stream or self.stream,
            concepts=self.concept_set,
            value=self.value,
            window=self.window,
            min_count=self.min_count,
            negate=self.negate,
            age_at_event=self.age_at_event,
        )


# -- entry points ------------------------------------------------------------------------------


def expand(pieces: Sequence[str | Slot], ctx: Ctx) -> list[Item]:
    items: list[Item] = []
    for piece in pieces:
        if isinstance(piece, Slot):
            items.append(piece)
        else:
            items.extend(ground_text(piece, ctx.lex, embeddings=ctx.embeddings))
    return items


def assemble(items: list[Item], ctx: Ctx) -> Reading:
    try:
        plan, confidence = _plan(items, ctx)
    except Abstain as exc:
        return Reading(
            question=ctx.question,
            abstain_reason=exc.reason,
            unresolved=tuple(exc.unresolved),
            groundings=tuple(ctx.groundings),
        )
    return Reading(
        question=ctx.question,
        plan=plan,
        confidence=round(confidence, 4),
        groundings=tuple(ctx.groundings),
    )


# -- the plan ----------------------------------------------------------------------------------


def _plan(items: list[Item], ctx: Ctx) -> tuple[QueryPlan, float]:
    unresolved = [w.text for w in items if isinstance(w, Word) and w.role == "unresolved"]
    if unresolved:
        names = ", ".join(repr(u) for u in unresolved)
        raise Abstain(
            f"could not ground {names} in this source's catalog or vocabulary", *unresolved
        )
    for s in _slots(items, "unsupported"):
        raise Abstain(
            f"the question asks about {s.data['what']} ({s.text!r}), which this source or plan cannot answer",
            s.text,
        )
    lex = ctx.lex
    for s in _slots(items, "encounter", "scope"):
        etype = s.data.get("type")
        if etype and not lex.encounter_types.get(etype):
            raise Abstain(
                f"this source records no {ENCOUNTER_WORDS.get(etype, etype)} encounters ({s.text!r})",
                s.text,
            )
        if not lex.encounter_types:
            raise Abstain(f"this source records no encounters ({s.text!r})", s.text)
    patient_id = ctx.patient_id
    for s in _slots(items, "patient_ref"):
        ctx.patient_id_from_question = True
        patient_id = patient_id or s.data["id"]
        ctx.groundings.append(Grounding(phrase=s.text, kind="patient", target=str(s.data["id"])))

    plural = {"patients", "people", "persons", "individuals", "subjects", "cases"}
    if (
        patient_id
        and not ctx.patient_id_from_question
        and any(isinstance(i, Word) and i.role == "subject" and i.text in plural for i in items)
    ):
        # "the average age of patients with X" asks about a cohort even when a patient is selected
        ctx.groundings.append(
            Grounding(phrase="patients", kind="patient", target="cohort (patient ignored)")
        )
        patient_id = None
    op, intent_pos, intent = _intent(items, patient_id)
    if op not in {"first", "last"} and _slots(items, "order"):
        o = _slots(items, "order")[0]
        raise Abstain(f"could not tell what {o.text!r} refers to in this question", o.text)
    if patient_id and op in {"count", "proportion"} and not ctx.patient_id_from_question:
        nxt = _next_significant(items[intent_pos + 1 :])
        if op == "proportion" or (nxt is not None and _is_person(nxt)):
            # "how many patients ..." asks about the cohort even when a patient is selected
            ctx.groundings.append(
                Grounding(phrase="patients", kind="patient", target="cohort (patient ignored)")
            )
            patient_id = None
    measure, measure_concept_pos, confidence = _measure(
        items, ctx, op, intent_pos, intent, patient_id
    )
    used = {measure_concept_pos} if measure_concept_pos is not None else set()
    preds, plan_window, conf2 = _predicates(items, ctx, used, measure, patient_id)
    confidence *= conf2
    if op == "count" and measure.of == "patients" and patient_id and not preds:
        raise Abstain("a patient-level question needs something to count")

    scope = None
    scope_slots = _slots(items, "scope") + ([ctx.located_scope] if ctx.located_scope else [])
    for s in scope_slots:
        if s.kind == "encounter":
            scope = EncounterScope(which="all", type=s.data.get("type"))
            ctx.groundings.append(
                Grounding(
                    phrase=s.text, kind="scope", target=f"all {scope.type or 'any'} encounters"
                )
            )
            continue
        scope = EncounterScope(which=s.data["which"], type=s.data.get("type"), n=s.data.get("n"))
        ctx.groundings.append(
            Grounding(
                phrase=s.text, kind="scope", target=f"{scope.which} {scope.type or 'any'} encounter"
            )
        )
    if scope is not None and measure.of in {"patients", "age"}:
        raise Abstain(
            "the plan cannot restrict a cohort's events to those inside one kind of encounter; "
            "ask for the events (how many ... during ...) or for one patient"
        )
    group_by = tuple(GroupBy(key=s.data["key"]) for s in _slots(items, "group"))
    if any(g.key == "concept" for g in group_by) and measure.stream is None:
        noun = next(
            (s.data.get("noun") for s in _slots(items, "group") if s.data["key"] == "concept"), None
        )
        raise Abstain(f"grouping by {noun!r} needs the events to group; name them")

    if ctx.measure_value is not None:
        measure = measure.model_copy(update={"value": ctx.measure_value})
    numerator: tuple[Any, ...] = ()
    filters = list(preds)
    if op == "proportion":
        denominator, numer = _split_proportion(items, filters, intent_pos)
        if not numer:
            raise Abstain("could not tell which patients the proportion counts (its numerator)")
        filters, numerator = denominator, tuple(p.build() for p in numer)
    aggregate = Aggregate(op=op, numerator=numerator)  # type: ignore[arg-type]
    try:
        plan = QueryPlan(
            question=ctx.question,
            patient_id=patient_id,
            filters=tuple(p.build() for p in filters),
            measure=measure,
            aggregate=aggregate,
            scope=scope,
            window=plan_window,
            group_by=group_by,
            now=ctx.now,
        )
    except ValueError as exc:
        raise Abstain(f"the question does not make a coherent plan: {exc}") from exc
    return plan, confidence


def _slots(items: Sequence[Item], *kinds: str) -> list[Slot]:
    return [i for i in items if isinstance(i, Slot) and i.kind in kinds]


def _intent(items: list[Item], patient_id: str | None) -> tuple[str, int, Slot | None]:
    intents = [(k, i) for k, i in enumerate(items) if isinstance(i, Slot) and i.kind == "intent"]
    ops = [i.data["op"] for _, i in intents]
    order = _slots(items, "order")

    def pos(op: str) -> tuple[int, Slot]:
        return next((k, i) for k, i in intents if i.data["op"] == op)

    if "proportion" in ops:
        return ("proportion", *pos("proportion"))
    if "count_distinct" in ops:
        k, slot = pos("count_distinct")
        nxt = _next_significant(items[k + 1 :])
        if nxt is not None and _is_person(nxt):  # "how many distinct patients"
            return "count", k, slot
        return "count_distinct", k, slot
    numeric = [o for o in ops if o in NUMERIC_OPS]
    if numeric:
        k, s = pos(numeric[0])
        return numeric[0], k, s
    if "count" in ops:
        return ("count", *pos("count"))
    if "date" in ops:
        k, s = pos("date")
        return ("last" if order and order[0].data["which"] == "last" else "first"), k, s
    if "series" in ops:
        return ("series", *pos("series"))
    if "list" in ops:
        return ("list", *pos("list"))
    if order:
        k = next(k for k, i in enumerate(items) if i is order[0])
        return order[0].data["which"], k, order[0]
    if "exists" in ops:
        return ("exists", *pos("exists"))
    if _slots(items, "group"):
        return "count", -1, None
    ms = _slots(items, "measure")
    if ms and patient_id:  # "how old is the patient", "the patient's age"
        k = next(k for k, i in enumerate(items) if i is ms[0])
        return "max", k, ms[0]
    wh = _slots(items, "wh")
    if wh and any(isinstance(i, Word) and i.role in {"stream_noun", "event_noun"} for i in items):
        k = next(k for k, i in enumerate(items) if i is wh[0])
        return "list", k, wh[0]
    raise Abstain(
        "could not tell what to compute (a count, a proportion, an average, a date, a list...)"
    )


# -- the measure -------------------------------------------------------------------------------


def _concepts(items: list[Item]) -> list[tuple[int, Concept]]:
    return [(k, i) for k, i in enumerate(items) if isinstance(i, Concept)]


def _noun_stream(items: list[Item], start: int = 0) -> str | None:
    for i in items[start:]:
        if isinstance(i, Word) and i.role in {"stream_noun", "event_noun"} and i.value:
            return i.value
    return None


def _measure(
    items: list[Item],
    ctx: Ctx,
    op: str,
    intent_pos: int,
    intent: Slot | None,
    patient_id: str | None,
) -> tuple[Measure, int | None, float]:
    lex = ctx.lex
    concepts = _concepts(items)
    mslots = _slots(items, "measure")
    mslot = mslots[0] if mslots else None
    enc = _slots(items, "encounter")
    after = items[intent_pos + 1 :]

    def first_concept(
        streams: Sequence[str] | None = None, *, with_values: bool = False
    ) -> tuple[int, Concept, str] | None:
        ordered = [c for c in concepts if c[0] > intent_pos] + [
            c for c in concepts if c[0] <= intent_pos
        ]
        for k, c in ordered:
            st = _stream_for(c, lex, prefer=streams, with_values=with_values)
            if st is not None and (streams is None or st in streams):
                return k, c, st
        return None

    if op in NUMERIC_OPS or (
        op in {"first", "last"} and mslot is not None and mslot.data["of"] != "age"
    ):
        of = mslot.data["of"] if mslot else None
        if of == "length_of_stay":
            if not lex.has_encounter_end:
                raise Abstain(
                    "this source does not record when encounters end, so lengths of stay are unknown"
                )
            etype = mslot.data.get("type") if mslot else None
            etype = etype or next((s.data.get("type") for s in enc if s.data.get("type")), None)
            etype = etype or next(
                (s.data.get("type") for s in _slots(items, "scope") if s.data.get("type")), None
            )
            ctx.groundings.append(
                Grounding(
                    phrase=mslot.text if mslot else "", kind="aggregate", target="length_of_stay"
                )
            )
            return Measure(of="length_of_stay", encounter_type=etype), None, 1.0  # type: ignore[arg-type]
        if of in {"days_supply", "quantity"}:
            stats = lex.streams.get("drug")
            have = (
                stats.days_supply
                if of == "days_supply" and stats
                else (stats.quantity if stats else 0)
            )
            if not have:
                raise Abstain(f"this source stores no {of.replace('_', ' ')} for drugs")
            found = first_concept(["drug"])
            cs, k = (None, None)
            if found:
                k, c, _ = found
                cs = _concept_set(c, "drug", lex, ctx)
            return Measure(of=of, stream="drug", concepts=cs), k, 1.0  # type: ignore[arg-type]
        if of == "age":
            if not lex.has_birth:
                raise Abstain("this source stores no birth dates, so ages are unknown")
            return Measure(of="age"), None, 1.0
        per_patient = bool(_slots(items, "per_patient")) or any(
            isinstance(i, Slot) and i.kind == "intent" and i.data.get("target") == "events"
            for i in items
        )
        if per_patient and op in NUMERIC_OPS:
            found = first_concept()
            if found is None:
                raise Abstain("could not tell which events to count per patient")
            k, c, st = found
            return (
                Measure(
                    of="events_per_patient",
                    stream=_ps(c, st, lex),
                    concepts=_concept_set(c, st, lex, ctx),
                ),
                None,
                1.0,
            )
        found = first_concept(VALUE_STREAMS, with_values=True) or first_concept(VALUE_STREAMS)
        if found is None:
            if concepts:
                c = concepts[0][1]
                raise Abstain(f"{c.label!r} has no numeric values to compute a {op} of", c.phrase)
            raise Abstain(f"could not tell what quantity to compute the {op} of")
        k, c, st = found
        cs = _concept_set(c, st, lex, ctx, values=True)
        unit = next(
            (s.data.get("unit") for s in _slots(items, "value") if s.data.get("unit")), None
        )
        return (
            Measure(of="value", stream=_ps(c, st, lex), concepts=cs),
            k,
            c.score * (1.0 if unit is None else 0.95),
        )

    if op in {"first", "last", "series"}:
        wants_date = intent is not None and intent.data.get("op") == "date"
        noun = _noun_stream(items, intent_pos + 1)
        if wants_date:
            found = first_concept()
            if found is None:
                raise Abstain("could not tell which event's date is asked for")
            k, c, st = found
            return (
                Measure(of="date", stream=_ps(c, st, lex), concepts=_concept_set(c, st, lex, ctx)),
                k,
                c.score,
            )
        found = first_concept(VALUE_STREAMS, with_values=True)
        if found is not None:
            k, c, st = found
            return (
                Measure(
                    of="value",
                    stream=_ps(c, st, lex),
                    concepts=_concept_set(c, st, lex, ctx, values=True),
                ),
                k,
                c.score,
            )
        if noun and not any(k > intent_pos for k, _ in concepts):
            return Measure(of="concept", stream=noun), None, 0.9
        found = first_concept()
        if found is None:
            raise Abstain("could not tell what the first/last refers to")
        k, c, st = found
        vals = sum(lex.entries[e].values for e in c.entries)
        if st in VALUE_STREAMS and not vals and op == "series":
            raise Abstain(f"no numeric values are stored for {c.label!r}", c.phrase)
        return (
            Measure(of="date", stream=_ps(c, st, lex), concepts=_concept_set(c, st, lex, ctx)),
            k,
            c.score * 0.9,
        )

    if op in {"list", "count_distinct"}:
        noun = _noun_stream(items, intent_pos + 1) or _noun_stream(items)
        if noun is None:
            found = first_concept(VALUE_STREAMS, with_values=True)
            if op == "list" and found is not None:
                raise Abstain("listing values is a series; ask for 'all values' or a trend")
            raise Abstain(
                "could not tell what kind of things to list (drugs, conditions, procedures...)"
            )
        if noun not in lex.streams:
            raise Abstain(f"this source stores no {noun} events")
        found = first_concept([noun])
        cs, k = None, None
        if found is not None and found[0] > intent_pos and op == "list":
            k, c, _ = found
            cs = _concept_set(c, noun, lex, ctx)
        return Measure(of="concept", stream=noun, concepts=cs), k, 0.95

    if op == "exists":
        found = first_concept()
        if found is None:
            if enc:
                return Measure(of="encounters", encounter_type=enc[0].data.get("type")), None, 0.9
            raise Abstain("could not tell what to look for")
        k, c, st = found
        return (
            Measure(of="events", stream=_ps(c, st, lex), concepts=_concept_set(c, st, lex, ctx)),
            k,
            c.score,
        )

    if op in {"count", "proportion"}:
        if op == "proportion":
            return Measure(of="patients"), None, 1.0
        target = intent.data.get("target") if intent else None
        nxt = _next_significant(after)
        if target != "events" and (nxt is None or _is_person(nxt)):
            return Measure(of="patients"), None, 1.0
        if target != "events" and isinstance(nxt, Slot) and nxt.kind == "encounter":
            return Measure(of="encounters", encounter_type=nxt.data.get("type")), None, 1.0
        if (
            not patient_id
            and not concepts
            and isinstance(nxt, Word)
            and nxt.role in {"stream_noun", "event_noun"}
            and nxt.value
        ):  # "how many procedures were performed in 2019"
            return Measure(of="events", stream=nxt.value), None, 0.85
        if (
            target != "events"
            and isinstance(nxt, Word)
            and nxt.role == "stream_noun"
            and nxt.value
            and nxt.value != "condition"
        ) or (
            target != "events"
            and isinstance(nxt, Word)
            and nxt.role == "stream_noun"
            and patient_id
        ):
            assert isinstance(nxt, Word)
            if not patient_id and not concepts:  # "how many procedures were performed in 2019"
                return Measure(of="events", stream=nxt.value), None, 0.85
            return Measure(of="concept", stream=nxt.value), None, 0.8
        found = first_concept()
        event_noun = any(isinstance(i, Word) and i.role == "event_noun" for i in after[:6])
        concept_first = isinstance(nxt, Concept) and not _followed_by_person(after, nxt)
        if found is not None and (target == "events" or event_noun or patient_id or concept_first):
            k, c, st = found
            return (
                Measure(
                    of="events", stream=_ps(c, st, lex), concepts=_concept_set(c, st, lex, ctx)
                ),
                k,
                c.score,
            )
        if patient_id and enc:
            return Measure(of="encounters", encounter_type=enc[0].data.get("type")), None, 0.9
        return Measure(of="patients"), None, 0.9
    raise Abstain(f"cannot compute {op!r}")


def _next_significant(items: Sequence[Item]) -> Item | None:
    for i in items:
        if isinstance(i, Word) and i.role in {"hint", "connector"} and not i.value:
            continue
        if isinstance(i, Slot) and i.kind in {"order", "wh", "neg"}:
            continue
        return i
    return None


def _followed_by_person(items: Sequence[Item], concept: Concept) -> bool:
    """'atrial fibrillation patients', 'celecoxib users': the concept qualifies people."""
    k = next(k for k, i in enumerate(items) if i is concept)
    nxt = _next_significant(items[k + 1 :])
    if nxt is None:
        return False
    if (
        isinstance(nxt, Word)
        and nxt.role == "hint"
        and nxt.value == "drug"
        and nxt.text.startswith("user")
    ):
        return True
    return isinstance(nxt, Word) and nxt.role == "subject"


def _is_person(i: Item) -> bool:
    if isinstance(i, Word) and i.role == "subject":
        return True
    return isinstance(i, Slot) and i.kind in {"sex", "age"}


def _ps(c: Concept, kind: str, lex: Lexicon) -> str:
    """The stream a plan names: the kind, or the one catalog stream of that kind holding the
    concept when several streams share the kind (FHIR allergies vs observations)."""
    if len(lex.kind_streams.get(kind, ())) <= 1:
        return kind
    names = {lex.entries[e].stream_name for e in c.entries if lex.entries[e].stream == kind}
    return names.pop() if len(names) == 1 and "" not in names else kind


def _stream_for(
    c: Concept, lex: Lexicon, *, prefer: Sequence[str] | None = None, with_values: bool = False
) -> str | None:
    by_stream: dict[str, int] = {}
    for e in c.entries:
        entry = lex.entries[e]
        if with_values and not entry.values:
            continue
        by_stream[entry.stream] = by_stream.get(entry.stream, 0) + entry.events
    if not by_stream:
        return None
    for hint in c.hints:
        if hint in by_stream:
            return hint
    if prefer:
        for p in prefer:
            if p in by_stream:
                return p
    return max(by_stream, key=lambda s: by_stream[s])


def _concept_set(
    c: Concept, stream: str, lex: Lexicon, ctx: Ctx, *, values: bool = False
) -> ConceptSet:
    entries = [lex.entries[e] for e in c.entries if lex.entries[e].stream == stream]
    if values:
        primary = [lex.entries[e] for e in c.primary if lex.entries[e].stream == stream]
        with_values = [e for e in primary if e.values] or [e for e in entries if e.values]
        if not with_values:
            raise Abstain(f"no numeric values are stored for {c.label!r}", c.phrase)
        entries = [max(with_values, key=lambda e: e.values)]
    if not entries:
        raise Abstain(f"{c.label!r} has no {stream} records in this source", c.phrase)
    seen: dict[Any, Any] = {}
    for e in entries:
        seen.setdefault(e.code, e)
    refs = tuple(ConceptRef(concept_id=e.code, name=e.name) for e in seen.values())
    ctx.groundings.append(
        Grounding(
            phrase=c.phrase,
            kind="concept",
            target=f"{stream}: {'; '.join(e.name for e in list(seen.values())[:5])}",
            how=c.how,
            score=c.score,
            codes=tuple(str(e.code) for e in seen.values())[:50],
        )
    )
    return ConceptSet(concepts=refs, label=c.phrase)


# -- predicates --------------------------------------------------------------------------------


def _predicates(
    items: list[Item], ctx: Ctx, used: set[int], measure: Measure, patient_id: str | None
) -> tuple[list[Pred], Any, float]:
    lex = ctx.lex
    preds: list[Pred] = []
    plan_window: Any = None
    confidence = 1.0
    neg = False
    count: int | None = None
    last_event: Pred | None = None
    measure_pos = min(used) if used else None
    pending_or = False
    windows: list[tuple[int, Slot]] = []
    measure_is_events = measure.of in {
        "events",
        "value",
        "date",
        "concept",
        "days_supply",
        "quantity",
        "encounters",
        "length_of_stay",
    }

    for k, item in enumerate(items):
        if isinstance(item, Slot):
            kind = item.kind
            if kind == "neg":
                neg = True
            elif kind == "count":
                count = item.data["min"]
                if last_event is not None and last_event.pos == k - 1 and last_event.min_count == 1:
                    last_event.min_count, count = count, None
            elif kind == "sex":
                if not lex.has_sex:
                    raise Abstain("this source stores no sex for patients", item.text)
                preds.append(Pred(k, "sex", sex=item.data["sex"]))
                ctx.groundings.append(
                    Grounding(phrase=item.text, kind="sex", target=item.data["sex"])
                )
                neg = False
            elif kind == "age":
                if not lex.has_birth:
                    raise Abstain(
                        "this source stores no birth dates, so ages are unknown", item.text
                    )
                ctx.groundings.append(
                    Grounding(
                        phrase=item.text,
                        kind="age",
                        target=f"{item.data['op']} {item.data['value']}",
                    )
                )
                if item.data.get("at_event") and last_event is not None:
                    last_event.age_at_event = AgeFilter(
                        op=item.data["op"], value=item.data["value"], value2=item.data.get("value2")
                    )
                else:
                    preds.append(Pred(k, "age", age=item.data))
            elif kind == "value":
                target = last_event
                if target is None or target.stream not in VALUE_STREAMS:
                    target = next(
                        (
                            p
                            for p in reversed(preds)
                            if p.kind == "event" and p.stream in VALUE_STREAMS
                        ),
                        None,
                    )
                vf = ValueFilter(
                    op=item.data["op"],
                    value=item.data["value"],
                    value2=item.data.get("value2"),
                    unit=item.data.get("unit"),
                )
                if target is None:
                    if (
                        measure.of in {"value", "events", "date"}
                        and measure.stream in VALUE_STREAMS
                        and ctx.measure_value is None
                    ):
                        ctx.measure_value = vf
                        continue
                    raise Abstain(
                        f"could not tell which measurement {item.text!r} applies to", item.text
                    )
                if target.concept is not None and not sum(
                    lex.entries[e].values for e in target.concept.entries
                ):
                    raise Abstain(
                        f"no numeric values are stored for {target.concept.label!r}",
                        target.concept.phrase,
                    )
                target.value = vf
                ctx.groundings.append(
                    Grounding(
                        phrase=item.text,
                        kind="value",
                        target=f"{vf.op} {vf.value}{' ' + vf.unit if vf.unit else ''}",
                    )
                )
            elif kind == "window":
                windows.append((k, item))
            elif kind == "encounter":
                if measure.of in {"encounters", "length_of_stay"} and k == _first_pos(
                    items, "encounter"
                ):
                    continue
                if item.data.get("located") and (last_event is not None or measure_pos is not None):
                    # "hemoglobin in the ER": events inside encounters of a type, an encounter scope
                    ctx.located_scope = item
                    continue
                p = Pred(
                    k, "encounter", enc_type=item.data.get("type"), negate=neg, min_count=count or 1
                )
                if item.data.get("type"):
                    ctx.groundings.append(
                        Grounding(phrase=item.text, kind="encounter_type", target=item.data["type"])
                    )
                preds.append(p)
                last_event, neg, count = p, False, None
            continue
        if isinstance(item, Word):
            if item.role == "connector" and item.value == "or":
                pending_or = True
            continue
        # a concept
        if k in used:
            continue
        st = _stream_for(item, lex)
        if st is None:
            raise Abstain(f"{item.label!r} is not recorded in this source", item.phrase)
        if (
            pending_or
            and last_event is not None
            and last_event.kind == "event"
            and last_event.stream == st
            and last_event.concept_set
        ):
            extra = _concept_set(item, st, lex, ctx)
            last_event.concept_set = ConceptSet(
                concepts=last_event.concept_set.concepts + extra.concepts,
                label=f"{last_event.concept_set.label} or {extra.label}",
            )
            pending_or = False
            continue
        pending_or = False
        p = Pred(
            k,
            "event",
            concept=item,
            stream=st,
            plan_stream=_ps(item, st, lex),
            concept_set=_concept_set(item, st, lex, ctx),
            negate=neg,
            min_count=count or 1,
        )
        confidence *= item.score if item.how != "exact" else 1.0
        preds.append(p)
        last_event, neg, count = p, False, None

    if measure.of == "patients" and not any(isinstance(i, Concept) for i in items):
        # "patients who had a procedure in 2019": any event of a stream named in the catalog
        for k, item in enumerate(items):
            if isinstance(item, Word) and item.role in {"stream_noun", "event_noun"} and item.value:
                if item.value not in lex.streams and item.value not in lex.stream_words.values():
                    raise Abstain(f"this source stores no {item.value} events", item.text)
                p = Pred(k, "event", stream=item.value, negate=neg)
                preds.append(p)
                ctx.groundings.append(Grounding(phrase=item.text, kind="stream", target=item.value))
                neg = False
                break
    if neg and not any(p.negate for p in preds):
        negatable = [p for p in preds if p.kind in {"event", "encounter"}]
        if negatable and not patient_id:
            negatable[-1].negate = True
    for k, slot in windows:
        window = _window(slot.data["spec"], ctx, items, preds)
        target = _window_target(k, preds, measure_pos, measure_is_events, measure.of)
        if target is None:
            if plan_window is not None:
                raise Abstain("two time windows for the same events; ask one at a time", slot.text)
            plan_window = window
        else:
            if target.window is not None:
                raise Abstain("two time windows for the same events; ask one at a time", slot.text)
            target.window = window
    return preds, plan_window, confidence


def _first_pos(items: list[Item], kind: str) -> int:
    return next(k for k, i in enumerate(items) if isinstance(i, Slot) and i.kind == kind)


def _window_target(
    k: int, preds: list[Pred], measure_pos: int | None, measure_is_events: bool, of: str
) -> Pred | None:
    events = [p for p in preds if p.kind in {"event", "encounter"}]
    candidates: list[tuple[int, Pred | None]] = [(p.pos, p) for p in events]
    if measure_is_events:
        candidates.append((measure_pos if measure_pos is not None else -1, None))
    if not candidates:
        return None
    before = [c for c in candidates if c[0] < k]
    if before:
        return max(before, key=lambda c: c[0])[1]
    return min(candidates, key=lambda c: c[0])[1]


def _window(spec: TimeSpec, ctx: Ctx, items: list[Item], preds: list[Pred]) -> Any:
    ctx.groundings.append(
        Grounding(phrase=spec.anchor_text or spec.kind, kind="time", target=repr(spec))
    )
    if spec.kind == "calendar":
        if spec.relative_year is not None:
            spec = resolve_relative_year(spec, ctx.today)
        return CalendarWindow(start=spec.start, end=spec.end)
    if spec.kind == "now":
        return RelativeWindow(
            anchor=FixedAnchor(), start_days=spec.start_days, end_days=spec.end_days
        )
    if spec.kind == "patient":
        if (
            not ctx.lex.has_observation_period
            and spec.point
            and spec.point.startswith("observation")
        ):
            raise Abstain("this source stores no observation periods")
        return RelativeWindow(
            anchor=PatientAnchor(point=spec.point),
            start_days=spec.start_days,  # type: ignore[arg-type]
            end_days=spec.end_days,
        )
    anchor = _anchor(spec, ctx, preds)
    return RelativeWindow(anchor=anchor, start_days=spec.start_days, end_days=spec.end_days)


def _anchor(spec: TimeSpec, ctx: Ctx, preds: list[Pred]) -> Any:
    text = spec.anchor_text or ""
    from clinbridge.engine.understand._slots import extract

    pieces = extract(text)
    for s in pieces:
        if isinstance(s, Slot) and s.kind == "encounter" and not s.data.get("type"):
            return PatientAnchor(
                point="first_encounter" if spec.which == "first" else "last_encounter"
            )
        if isinstance(s, Slot) and s.kind == "encounter":
            raise Abstain(
                f"windows anchored on a typed encounter ({text!r}) are not supported", text
            )
    items = expand([p for p in pieces if isinstance(p, str)], ctx)
    unresolved = [w.text for w in items if isinstance(w, Word) and w.role == "unresolved"]
    if unresolved:
        raise Abstain(
            f"could not ground {', '.join(repr(u) for u in unresolved)} (the time anchor)",
            *unresolved,
        )
    concepts = [i for i in items if isinstance(i, Concept)]
    if not concepts:
        hints = [w.value for w in items if isinstance(w, Word) and w.value]
        ref = next(
            (p for p in preds if p.kind == "event" and (not hints or p.stream in hints)), None
        )
        if ref is None or ref.concept_set is None:
            if "birth" in text:
                return PatientAnchor(point="birth")
            raise Abstain(f"could not tell what {text!r} refers to", text)
        return EventAnchor(
            stream=ref.plan_stream or ref.stream or "", concepts=ref.concept_set, which=spec.which
        )  # type: ignore[arg-type]
    c = concepts[0]
    st = _stream_for(c, ctx.lex)
    if st is None:
        raise Abstain(f"{c.label!r} is not recorded in this source", c.phrase)
    cs = _concept_set(c, st, ctx.lex, ctx)
    for other in concepts[1:]:
        if _stream_for(other, ctx.lex) == st:
            cs = ConceptSet(
                concepts=cs.concepts + _concept_set(other, st, ctx.lex, ctx).concepts,
                label=f"{cs.label} or {other.phrase}",
            )
    return EventAnchor(stream=_ps(c, st, ctx.lex), concepts=cs, which=spec.which)  # type: ignore[arg-type]


def _split_proportion(
    items: list[Item], preds: list[Pred], intent_pos: int
) -> tuple[list[Pred], list[Pred]]:
    """Denominator (the cohort) and numerator filters of 'what proportion of X had Y'."""
    before = [p for p in preds if p.pos < intent_pos]
    after = [p for p in preds if p.pos > intent_pos]
    if before:
        return before, after
    among = next(
        (
            k
            for k, i in enumerate(items)
            if k > intent_pos and isinstance(i, Word) and i.role == "among"
        ),
        None,
    )
    if among is not None:  # "proportion of women among celecoxib users"
        return [p for p in after if p.pos > among], [p for p in after if p.pos < among]
    boundaries = [
        k
        for k, i in enumerate(items)
        if k > intent_pos and isinstance(i, Word) and i.role == "boundary"
    ]
    for b in boundaries:
        den = [p for p in after if p.pos < b]
        num = [p for p in after if p.pos > b]
        if den and num:
            return den, num
    for b in boundaries:
        num = [p for p in after if p.pos > b]
        if num:
            return [p for p in after if p.pos < b], num
    return [], after
