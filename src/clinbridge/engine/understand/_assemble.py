"""Assembly: ordered slots and grounded concepts → QueryPlan readings (or an abstention).

Every decision here is structural — which concept is measured, which ones filter the cohort,
where a window or a value belongs, where a proportion's numerator starts — and is made from
the order of the pieces and from what the source stores (the lexicon), never from the wording
of particular questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from clinbridge.engine.plan import Aggregate, EncounterScope, GroupBy, Measure, QueryPlan
from clinbridge.engine.understand._context import (
    VALUE_STREAMS,
    Abstain,
    Ctx,
    Item,
    _concept_set,
    _ps,
    _slots,
    _stream_for,
    expand,
)
from clinbridge.engine.understand._filters import _predicates, _split_proportion
from clinbridge.engine.understand._ground import Concept, Word
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._slots import Slot

__all__ = ["Abstain", "Ctx", "assemble", "expand"]

NUMERIC_OPS = {"mean", "median", "min", "max", "sum", "stddev"}
ENCOUNTER_WORDS = {
    "inpatient": "inpatient",
    "emergency": "emergency",
    "icu": "ICU",
    "outpatient": "outpatient",
    "other": "other",
}


# -- entry points ------------------------------------------------------------------------------


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
    if op not in {"first", "last"}:
        for o in _slots(items, "order"):
            if id(o) not in ctx.consumed:
                raise Abstain(f"could not tell what {o.text!r} refers to in this question", o.text)
    if op == "count" and measure.of == "patients" and patient_id and not preds:
        raise Abstain("a patient-level question needs something to count")

    scope = None
    scope_slots = _slots(items, "scope") + ([ctx.located_scope] if ctx.located_scope else [])
    if measure.of in {"patients", "age"}:
        # "patients with a hemoglobin test during an emergency visit": a cohort's events inside
        # encounters of a type are an encounter-typed event filter
        kept = []
        for s in scope_slots:
            pos = next((k for k, i in enumerate(items) if i is s), -1)
            target = next(
                (
                    p
                    for p in reversed(preds)
                    if p.kind == "event" and p.pos < pos and p.enc_type is None
                ),
                None,
            )
            if s.data.get("type") and s.data.get("which", "all") == "all" and target is not None:
                target.enc_type = s.data["type"]
                ctx.groundings.append(
                    Grounding(phrase=s.text, kind="encounter_type", target=s.data["type"])
                )
            else:
                kept.append(s)
        scope_slots = kept
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
    if ctx.unit is not None:
        if measure.of == "value":
            measure = measure.model_copy(update={"unit": ctx.unit})
        elif not any(p.value is not None and p.value.unit == ctx.unit for p in preds):
            raise Abstain(f"could not tell what the unit {ctx.unit!r} applies to", ctx.unit)
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


def _intent(items: list[Item], patient_id: str | None) -> tuple[str, int, Slot | None]:
    intents = [(k, i) for k, i in enumerate(items) if isinstance(i, Slot) and i.kind == "intent"]
    if any(s.data.get("at_event") or s.data.get("at_death") for s in _slots(items, "measure")):
        # "how old was she when first diagnosed": the 'when' names the event, not a date asked
        intents = [(k, i) for k, i in intents if i.data["op"] != "date"]
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
    at_event = [
        m for m in _slots(items, "measure") if m.data.get("at_event") or m.data.get("at_death")
    ]
    if at_event:
        if not patient_id:
            raise Abstain(
                "say which summary of the ages is wanted (average, median, youngest, oldest)",
                at_event[0].text,
            )
        k = next(k for k, i in enumerate(items) if i is at_event[0])
        return "max", k, at_event[0]
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
    first = _next_significant(items)
    if (
        first is not None
        and (_is_person(first) or (isinstance(first, Slot) and first.kind == "encounter"))
        and not patient_id
    ):
        # a headless noun phrase: "pts with osteoarthritis", "ER visits in 2022" — how many
        return "count", -1, None
    if patient_id and any(isinstance(i, Concept) for i in items) and not _slots(items, "wh"):
        # "pt 1088 on warfarin?": does the patient have it
        return "exists", -1, None
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
            if mslot is not None and mslot.data.get("at_death"):
                from clinbridge.engine.plan import PatientAnchor

                if not lex.deaths:
                    raise Abstain("this source records no deaths", mslot.text)
                ctx.groundings.append(
                    Grounding(phrase=mslot.text, kind="aggregate", target="age at death")
                )
                return Measure(of="age", age_at=PatientAnchor(point="death")), None, 0.95
            if mslot is not None and mslot.data.get("at_event"):
                return _age_at_event(items, ctx, mslot), None, 0.95
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
        if st in VALUE_STREAMS and not vals:
            # asked for a measurement's value that is not stored: never its date instead
            raise Abstain(
                f"no numeric values are stored for {c.label!r} (only when it was recorded)",
                c.phrase,
            )
        return (
            Measure(of="date", stream=_ps(c, st, lex), concepts=_concept_set(c, st, lex, ctx)),
            k,
            c.score * 0.9,
        )

    if op in {"list", "count_distinct"}:
        nxt = _next_significant(after)
        if op == "list" and nxt is not None and _is_person(nxt):
            raise Abstain("the plan cannot list patients (their ids); ask how many")
        noun = _noun_stream(items, intent_pos + 1) or _noun_stream(items)
        if noun is None:
            found = first_concept(VALUE_STREAMS, with_values=True)
            if op == "list" and found is not None:
                raise Abstain("listing values is a series; ask for 'all values' or a trend")
            raise Abstain(
                "could not tell what kind of things to list (drugs, conditions, procedures...)"
            )
        named = op == "count_distinct" and noun in lex.stream_words.values()
        if noun not in lex.streams and not named:  # a named stream: only to count its kinds
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
        concept_first = (
            isinstance(nxt, Concept)
            and not _followed_by_person(after, nxt)
            and not _negated(after, nxt)
        )
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


def _age_at_event(items: list[Item], ctx: Ctx, mslot: Slot) -> Measure:
    """'age at (first) diagnosis of X', 'how old was the patient when first given Y': the age
    at the patient's first (or last) event of the concept named after the age words."""
    from clinbridge.engine.plan import EventAnchor

    k = next(k for k, i in enumerate(items) if i is mslot)
    after = [(j, i) for j, i in enumerate(items) if j > k and isinstance(i, Concept)]
    if not after:
        raise Abstain("could not tell which event the age is taken at", mslot.text)
    _, c = after[0]
    st = _stream_for(c, ctx.lex)
    if st is None:
        raise Abstain(f"{c.label!r} is not recorded in this source", c.phrase)
    which = "first"
    for o in _slots(items, "order"):
        ctx.consumed.add(id(o))
        which = o.data["which"]
    anchor = EventAnchor(
        stream=_ps(c, st, ctx.lex), concepts=_concept_set(c, st, ctx.lex, ctx), which=which
    )  # type: ignore[arg-type]
    ctx.groundings.append(
        Grounding(phrase=mslot.text, kind="aggregate", target=f"age at the {which} {c.phrase}")
    )
    return Measure(of="age", age_at=anchor)


def _next_significant(items: Sequence[Item]) -> Item | None:
    for i in items:
        if isinstance(i, Word) and i.role in {"hint", "connector"} and not i.value:
            continue
        if isinstance(i, Slot) and i.kind in {"order", "wh", "neg"}:
            continue
        return i
    return None


def _negated(items: Sequence[Item], concept: Concept) -> bool:
    """A negation stands right before the concept ('(not suspected)'): a filter, not a measure."""
    k = next(k for k, i in enumerate(items) if i is concept)
    prev = items[k - 1] if k > 0 else None
    return isinstance(prev, Slot) and prev.kind == "neg"


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
