"""Assembly: ordered slots and grounded concepts → QueryPlan readings (or an abstention).

Every decision here is structural — which concept is measured, which ones filter the cohort,
where a window or a value belongs, where a proportion's numerator starts — and is made from
the order of the pieces and from what the source stores (the lexicon), never from the wording
of particular questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from clinbridge.engine.plan import (
    Aggregate,
    EncounterScope,
    GroupBy,
    Measure,
    PatientAnchor,
    QueryPlan,
)
from clinbridge.engine.understand._anchored import (
    age_at_event,
    days_between,
    linked_event,
    patient_point,
)
from clinbridge.engine.understand._context import (
    VALUE_STREAMS,
    Abstain,
    Ctx,
    Item,
    _concept_set,
    _kind_of,
    _ps,
    _slots,
    _stream_for,
    check_named_kind,
    expand,
)
from clinbridge.engine.understand._death_age import age_at_death
from clinbridge.engine.understand._facts import special_plan
from clinbridge.engine.understand._filters import _predicates
from clinbridge.engine.understand._ground import Concept, Word
from clinbridge.engine.understand._ground_words import DOSE_NOUNS, STREAM_NOUNS
from clinbridge.engine.understand._list_guard import amount_word, check_list_wording
from clinbridge.engine.understand._orlists import fold_or_list
from clinbridge.engine.understand._people import (
    _followed_by_person,
    _is_person,
    _next_significant,
    _which_people,
)
from clinbridge.engine.understand._per_patient import per_patient_group, value_per_patient
from clinbridge.engine.understand._proportion_split import split_proportion
from clinbridge.engine.understand._ranking import apply_rank, rank_choices
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._slots import Slot
from clinbridge.engine.understand._status import apply_status, without_status
from clinbridge.engine.understand._text import stem

__all__ = ["Abstain", "Ctx", "assemble", "expand"]

NUMERIC_OPS = {"mean", "median", "min", "max", "sum", "stddev", "range"}
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
        bare = without_status(items)  # the plan as if 'currently' were not said, then the status
        plan, confidence = special_plan(bare, ctx) or _plan(bare, ctx)
        plan = apply_status(fold_or_list(apply_rank(plan, items, ctx.lex), ctx.question), items)
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
        choices=(ranked := rank_choices(plan, items)),  # 'the top 3 drugs': records or patients
        answer_when_agreed=bool(ranked),
    )


# -- the plan ----------------------------------------------------------------------------------


def _plan(items: list[Item], ctx: Ctx) -> tuple[QueryPlan, float]:
    unresolved = [w.text for w in items if isinstance(w, Word) and w.role == "unresolved"]
    if unresolved:
        names = ", ".join(repr(u) for u in unresolved)
        raise Abstain(
            f"could not ground {names} in this source's catalog or vocabulary", *unresolved
        )
    for s in _slots(items, "los_definition"):
        if not any(m.data.get("of") == "length_of_stay" for m in _slots(items, "measure")):
            raise Abstain(f"could not tell what {s.text!r} defines", s.text)
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
    check_named_kind(items, measure_concept_pos, measure.stream, ctx.lex)
    used = {measure_concept_pos} if measure_concept_pos is not None else set()
    used |= ctx.measure_positions
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
    group_by += per_patient_group(
        op, measure, patient_id, group_by, bool(_slots(items, "per_patient"))
    )
    if ctx.value_per_patient and not group_by:
        group_by = (GroupBy(key="patient"),)
    if any(g.key == "concept" for g in group_by) and measure.stream is None:
        noun = next(
            (s.data.get("noun") for s in _slots(items, "group") if s.data["key"] == "concept"), None
        )
        # 'how many patients per vaccine': the patients of each concept of the stream the
        # grouping noun names (only where it names exactly one stream of this source)
        named = _group_stream(str(noun or ""), ctx) if measure.of == "patients" else None
        if named is None:
            raise Abstain(f"grouping by {noun!r} needs the events to group; name them")
        measure = measure.model_copy(update={"stream": named})
        ctx.groundings.append(Grounding(phrase=str(noun), kind="stream", target=named))

    if any(g.key == "year" for g in group_by) and measure.of == "patients" and not measure.stream:
        measure, preds, plan_window = _patients_per_year(measure, preds, plan_window)

    if ctx.measure_value is not None:
        measure = measure.model_copy(update={"value": ctx.measure_value})
    if ctx.unit is not None:
        if measure.of == "value":
            measure = measure.model_copy(update={"unit": ctx.unit})
        elif not any(p.value is not None and p.value.unit == ctx.unit for p in preds):
            raise Abstain(f"could not tell what the unit {ctx.unit!r} applies to", ctx.unit)
    numerator: tuple[Any, ...] = ()
    filters = age_at_death(list(preds), ctx.question)
    if op == "proportion":
        denominator, numer = split_proportion(items, filters, intent_pos)
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


def _patients_per_year(
    measure: Measure, preds: list[Any], window: Any
) -> tuple[Measure, list[Any], Any]:
    """'patients with a GI bleed per year': the patients with such an event in each calendar
    year — the one event filter becomes the measure's events (its window the plan's)."""
    events = [p for p in preds if p.kind == "event"]
    visits = [p for p in preds if p.kind == "encounter"]
    if not events and len(visits) == 1 and visits[0].enc_type:  # 'patients admitted each year'
        (v,) = visits
        if v.negate or v.min_count != 1 or (v.window is not None and window is not None):
            raise Abstain("patients per year are counted from one plain encounter filter only")
        enc = Measure(of="patients", encounter_type=v.enc_type)  # type: ignore[arg-type]
        return enc, [q for q in preds if q is not v], v.window if v.window is not None else window
    if len(events) != 1:
        raise Abstain("patients per year need exactly one kind of event to date them by")
    (p,) = events
    plain = (
        not p.negate
        and p.value is None
        and p.age_at_event is None
        and p.min_count == 1
        and p.enc_type is None
        and not p.first_only
        and p.concept_set is not None
    )
    if not plain or (p.window is not None and window is not None):
        raise Abstain("patients per year are counted from one plain event filter only")
    rest = [q for q in preds if q is not p]
    measure = Measure(of="patients", stream=p.plan_stream or p.stream, concepts=p.concept_set)
    return measure, rest, p.window if p.window is not None else window


def _intent(items: list[Item], patient_id: str | None) -> tuple[str, int, Slot | None]:
    intents = [(k, i) for k, i in enumerate(items) if isinstance(i, Slot) and i.kind == "intent"]
    if any(s.data.get("at_event") or s.data.get("at_death") for s in _slots(items, "measure")):
        # "how old was she when first diagnosed": the 'when' names the event, not a date asked
        intents = [(k, i) for k, i in intents if i.data["op"] != "date"]
    ops = [i.data["op"] for _, i in intents]
    order = _slots(items, "order")

    def pos(op: str) -> tuple[int, Slot]:
        return next((k, i) for k, i in intents if i.data["op"] == op)

    ranks = [s for s in _slots(items, "rank") if s.data.get("of") != "patients"]
    if ranks and set(ops) <= {"list"}:  # 'top 3 dx', 'which three vaccines ... most often'
        return "list", next(k for k, i in enumerate(items) if i is ranks[0]), ranks[0]

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
        # a cohort's age with no summary said: the oldest, checked against the other summaries
        # once executed (engine/_age_summary.py: answered only where they agree)
        k = next(k for k, i in enumerate(items) if i is at_event[0])
        return "max", k, at_event[0]
    wh_person = _which_people(items)
    if wh_person is not None and not patient_id:  # "which patients had X": their ids
        return "list", wh_person, items[wh_person]  # type: ignore[return-value]
    if "date" in ops:
        k, s = pos("date")
        return ("last" if order and order[0].data["which"] == "last" else "first"), k, s
    if "series" in ops:
        return ("series", *pos("series"))
    if "list" in ops:
        k, s = next(((k, i) for k, i in intents if i.data.get("target") == "patients"), pos("list"))
        return "list", k, s
    if order:
        k = next(k for k, i in enumerate(items) if i is order[0])
        return order[0].data["which"], k, order[0]
    if "exists" in ops:
        words = {" ".join(str(i.data.get("word", "")).split()) for _, i in intents}
        if words <= {"ever"} and _headless(items, patient_id):
            # "M pts w DBP >= 90 ever": 'ever' is a time word; the phrase names patients
            return "count", -1, None
        return ("exists", *pos("exists"))
    if _slots(items, "group"):
        return "count", -1, None
    ms = _slots(items, "measure")
    if ms and patient_id:  # "how old is the patient", "the patient's age"
        k = next(k for k, i in enumerate(items) if i is ms[0])
        return "max", k, ms[0]
    if _headless(items, patient_id):
        return "count", -1, None
    if patient_id and any(isinstance(i, Concept) for i in items) and not _slots(items, "wh"):
        # "pt 1088 on warfarin?": does the patient have it
        return "exists", -1, None
    wh = _slots(items, "wh")
    if wh and (
        any(isinstance(i, Word) and i.role in {"stream_noun", "event_noun"} for i in items)
        or (patient_id and not _concepts(items) and _verb_stream(items))
    ):  # "which drugs ...", "what was patient 19 diagnosed with"
        k = next(k for k, i in enumerate(items) if i is wh[0])
        return "list", k, wh[0]
    raise Abstain(
        "could not tell what to compute (a count, a proportion, an average, a date, a list...)"
    )


def _headless(items: list[Item], patient_id: str | None) -> bool:
    """A headless noun phrase about patients or encounters: "pts with osteoarthritis", "ER
    visits in 2022", "covid pts in 2021" — how many."""
    if patient_id:
        return False
    first = _next_significant(items)
    if first is not None and (
        _is_person(first) or (isinstance(first, Slot) and first.kind == "encounter")
    ):
        return True
    return (
        isinstance(first, Concept) and not _slots(items, "wh") and _followed_by_person(items, first)
    )


# -- the measure -------------------------------------------------------------------------------


def _concepts(items: list[Item]) -> list[tuple[int, Concept]]:
    return [(k, i) for k, i in enumerate(items) if isinstance(i, Concept)]


def _group_stream(noun: str, ctx: Ctx) -> str | None:
    """The one stream of this source a grouping noun ('vaccine', 'condition') names, if one."""
    word = noun.split()[-1] if noun else ""
    names = {ctx.lex.stream_words[w] for w in (word, stem(word)) if w in ctx.lex.stream_words}
    kind = STREAM_NOUNS.get(word)
    if kind is not None:
        names.update(ctx.lex.kind_streams.get(kind, ()))
    return next(iter(names)) if len(names) == 1 else None


def _verb_stream(items: list[Item]) -> str | None:
    """The stream a verb names ('diagnosed' → condition, 'prescribed' → drug), if one does."""
    for i in items:
        if isinstance(i, Word) and i.role == "hint" and i.value and i.text.endswith("ed"):
            return i.value
    return None


def _noun_stream(items: list[Item], start: int = 0) -> str | None:
    for i in items[start:]:
        if isinstance(i, Word) and i.role in {"stream_noun", "event_noun"} and i.value:
            return i.value
    return None


_Found = tuple[Measure, int | None, float]
"""A measure, where its concept stands among the items (None: no concept of its own), confidence."""


@dataclass
class _Asked:
    """What the measure is read from: the items, the aggregate asked for and where it was asked."""

    items: list[Item]
    ctx: Ctx
    op: str
    intent_pos: int
    intent: Slot | None
    patient_id: str | None

    def __post_init__(self) -> None:
        self.lex = self.ctx.lex
        self.concepts = _concepts(self.items)
        mslots = _slots(self.items, "measure")
        self.mslot: Slot | None = mslots[0] if mslots else None
        self.enc = _slots(self.items, "encounter")
        self.after = self.items[self.intent_pos + 1 :]

    def first_concept(
        self, streams: Sequence[str] | None = None, *, with_values: bool = False
    ) -> tuple[int, Concept, str] | None:
        """The first concept after the intent (then before it) stored in one of ``streams``."""
        ordered = [c for c in self.concepts if c[0] > self.intent_pos] + [
            c for c in self.concepts if c[0] <= self.intent_pos
        ]
        for k, c in ordered:
            st = _stream_for(c, self.lex, prefer=streams, with_values=with_values)
            if st is not None and (streams is None or st in streams):
                return k, c, st
        return None

    def of_concept(self, of: str, found: tuple[int, Concept, str], score: float) -> _Found:
        """A measure ``of`` the found concept's events (values for 'value')."""
        k, c, st = found
        cs = _concept_set(c, st, self.lex, self.ctx, values=of == "value")
        return Measure(of=of, stream=_ps(c, st, self.lex), concepts=cs), k, score  # type: ignore[arg-type]


def _measure(
    items: list[Item],
    ctx: Ctx,
    op: str,
    intent_pos: int,
    intent: Slot | None,
    patient_id: str | None,
) -> _Found:
    a = _Asked(items, ctx, op, intent_pos, intent, patient_id)
    if op in NUMERIC_OPS or (
        op in {"first", "last"} and a.mslot is not None and a.mslot.data["of"] != "age"
    ):
        return _numeric(a)
    if op in {"first", "last", "series"}:
        return _first_last(a)
    if op in {"list", "count_distinct"}:
        return _listed(a)
    if op == "exists":
        return _exists(a)
    if op in {"count", "proportion"}:
        return _counted(a)
    raise Abstain(f"cannot compute {op!r}")


def _numeric(a: _Asked) -> _Found:
    of = a.mslot.data["of"] if a.mslot else None
    if of == "length_of_stay":
        return _length_of_stay(a)
    if of == "days_between":
        assert a.mslot is not None
        return days_between(a.items, a.ctx, a.mslot), None, 0.9
    if of in {"days_supply", "quantity"}:
        return _drug_amount(a, of)
    if of == "age":
        return _age(a)
    per_patient = bool(_slots(a.items, "per_patient")) or any(
        isinstance(i, Slot) and i.kind == "intent" and i.data.get("target") == "events"
        for i in a.items
    )
    valued = value_per_patient(a, per_patient)
    if valued is not None:  # 'mean chloride per pt': each patient's mean of their values
        a.ctx.value_per_patient = True
        return a.of_concept("value", valued, valued[1].score)
    if per_patient and a.op in NUMERIC_OPS:
        found = a.first_concept()
        if found is None and not a.patient_id:
            # 'median number of visits per patient', 'mean # of diagnoses per pt': every
            # encounter (of a type) or every record of a stream, counted for each patient
            if a.enc and len(a.enc) == 1:
                etype = a.enc[0].data.get("type")
                return Measure(of="events_per_patient", encounter_type=etype), None, 0.9
            noun = _noun_stream(a.items)
            if noun and len(a.lex.kind_streams.get(noun, [noun])) == 1:
                return Measure(of="events_per_patient", stream=noun), None, 0.9
        if found is None:
            raise Abstain("could not tell which events to count per patient")
        measure, _, score = a.of_concept("events_per_patient", found, 1.0)
        return measure, None, score
    found = a.first_concept(VALUE_STREAMS, with_values=True) or a.first_concept(VALUE_STREAMS)
    if found is None:
        if a.concepts:
            c = a.concepts[0][1]
            raise Abstain(f"{c.label!r} has no numeric values to compute a {a.op} of", c.phrase)
        noun = _noun_stream(a.items) if a.patient_id else None
        if noun and noun not in a.lex.kind_streams and _kind_of(noun, a.lex) in VALUE_STREAMS:
            # "patient 7's total output since May": every value of the one stream named
            return Measure(of="value", stream=noun), None, 0.9
        raise Abstain(f"could not tell what quantity to compute the {a.op} of")
    unit = next((s.data.get("unit") for s in _slots(a.items, "value") if s.data.get("unit")), None)
    return a.of_concept("value", found, found[1].score * (1.0 if unit is None else 0.95))


def _length_of_stay(a: _Asked) -> _Found:
    if not a.lex.has_encounter_end:
        raise Abstain(
            "this source does not record when encounters end, so lengths of stay are unknown"
        )
    etype = a.mslot.data.get("type") if a.mslot else None
    etype = etype or next((s.data.get("type") for s in a.enc if s.data.get("type")), None)
    etype = etype or next(
        (s.data.get("type") for s in _slots(a.items, "scope") if s.data.get("type")), None
    )
    a.ctx.groundings.append(
        Grounding(phrase=a.mslot.text if a.mslot else "", kind="aggregate", target="length_of_stay")
    )
    mpos = next((k for k, i in enumerate(a.items) if i is a.mslot), None)
    linked = linked_event(a.items, a.ctx, mpos)
    if linked is not None:
        k, stream, cs = linked
        return (
            Measure(of="length_of_stay", encounter_type=etype, stream=stream, concepts=cs),
            k,
            1.0,
        )
    return Measure(of="length_of_stay", encounter_type=etype), None, 1.0


def _drug_amount(a: _Asked, of: str) -> _Found:
    stats = a.lex.streams.get("drug")
    have = stats.days_supply if of == "days_supply" and stats else (stats.quantity if stats else 0)
    if not have:
        raise Abstain(f"this source stores no {of.replace('_', ' ')} for drugs")
    found = a.first_concept(["drug"])
    cs, k = (None, None)
    if found:
        k, c, _ = found
        cs = _concept_set(c, "drug", a.lex, a.ctx)
    return Measure(of=of, stream="drug", concepts=cs), k, 1.0  # type: ignore[arg-type]


def _age(a: _Asked) -> _Found:
    if not a.lex.has_birth:
        raise Abstain("this source stores no birth dates, so ages are unknown")
    mslot = a.mslot
    if mslot is not None and mslot.data.get("at_death"):
        if not a.lex.deaths:
            raise Abstain("this source records no deaths", mslot.text)
        a.ctx.groundings.append(
            Grounding(phrase=mslot.text, kind="aggregate", target="age at death")
        )
        return Measure(of="age", age_at=PatientAnchor(point="death")), None, 0.95
    if mslot is not None and mslot.data.get("at_event"):
        return age_at_event(a.items, a.ctx, mslot), None, 0.95
    return Measure(of="age"), None, 1.0


def _first_last(a: _Asked) -> _Found:
    if a.intent is not None and a.intent.data.get("op") == "date":
        point = patient_point(a.items, a.patient_id)
        if point is not None:
            return point, None, 1.0
        found = a.first_concept()
        etypes = [s.data.get("type") for s in a.enc + _slots(a.items, "scope")]
        noun = _noun_stream(a.items)
        if found is None and noun:
            # "when was patient 7's first microbiology test": a record of that stream, any concept
            # (with no patient: the source's first or last record of it)
            return Measure(of="date", stream=noun), None, 0.9
        if found is None and etypes and a.patient_id:
            # "patient 7's last inpatient admission date": the encounter's start
            a.ctx.groundings.append(
                Grounding(phrase=a.intent.text, kind="aggregate", target="encounter date")
            )
            etype = next((t for t in etypes if t), None)
            return Measure(of="date", encounter_type=etype), None, 0.9
        if found is None:
            raise Abstain("could not tell which event's date is asked for")
        return a.of_concept("date", found, found[1].score)
    found = a.first_concept(VALUE_STREAMS, with_values=True)
    if found is not None:
        return a.of_concept("value", found, found[1].score)
    noun = _noun_stream(a.items, a.intent_pos + 1)
    if noun is None and not a.concepts and a.ctx.question.lower().startswith(("which ", "what ")):
        noun = _noun_stream(a.items)  # 'which vaccine was given first': the kind asked about
    if noun and not any(k > a.intent_pos for k, _ in a.concepts):
        if a.concepts:
            # 'the senna dose that was last prescribed': an attribute of the named thing's
            # record, not which thing was recorded last
            c = a.concepts[0][1]
            raise Abstain(f"could not tell what of {c.label!r} the first/last asks", c.phrase)
        return Measure(of="concept", stream=noun), None, 0.9
    found = a.first_concept()
    if found is None:
        raise Abstain("could not tell what the first/last refers to")
    _, c, st = found
    vals = sum(a.lex.entries[e].values for e in c.entries)
    if st in VALUE_STREAMS and not vals:
        # asked for a measurement's value that is not stored: never its date instead
        raise Abstain(
            f"no numeric values are stored for {c.label!r} (only when it was recorded)",
            c.phrase,
        )
    return a.of_concept("date", found, c.score * 0.9)


def _listed(a: _Asked) -> _Found:
    if a.op == "list":  # 'tell me the total X output' is never a list
        check_list_wording(list(a.items))
    nxt = _next_significant([i for i in a.after if not _is_slot(i, "intent", "list")])
    intent = a.intent
    if a.op == "list" and (
        (intent is not None and intent.data.get("target") == "patients")
        or (intent is not None and intent.kind == "wh" and _which_people(a.items) is not None)
        or (nxt is not None and _is_person(nxt))
    ):
        if a.patient_id:
            raise Abstain("a list of patients cannot be asked about one patient")
        a.ctx.groundings.append(
            Grounding(phrase=intent.text if intent else "", kind="aggregate", target="patient ids")
        )
        return Measure(of="patients"), None, 0.95
    noun = _noun_stream(a.items, a.intent_pos + 1) or _noun_stream(a.items)
    if noun is None and a.patient_id and not a.concepts:
        noun = _verb_stream(a.items)  # "what was patient 19 diagnosed with"
    ranked_class = a.op == "list" and bool(_slots(a.items, "rank")) and len(a.concepts) == 1
    if noun is None and ranked_class:  # 'the top 3 vaccines': the kinds of one class, ranked
        found = a.first_concept()
        if found is not None and found[2] not in VALUE_STREAMS:
            return a.of_concept("concept", found, found[1].score)
    if noun is None:
        found = a.first_concept(VALUE_STREAMS, with_values=True)
        if a.op == "list" and found is not None:
            raise Abstain("listing values is a series; ask for 'all values' or a trend")
        raise Abstain(
            "could not tell what kind of things to list (drugs, conditions, procedures...)"
        )
    ranked = a.op == "list" and bool(_slots(a.items, "rank"))  # 'the most common prescriptions'
    named = (a.op == "count_distinct" or ranked) and noun in a.lex.stream_words.values()
    # a stream the catalog names inside a kind ('immunization' among observations) is listed
    # as itself
    own = any(noun in names for names in a.lex.kind_streams.values())
    if noun not in a.lex.streams and not named and not own:  # a named stream: only to count
        raise Abstain(f"this source stores no {noun} events")
    found = a.first_concept([noun])
    cs, k = None, None
    if found is not None and found[0] > a.intent_pos and a.op == "list":
        k, c, _ = found
        cs = _concept_set(c, noun, a.lex, a.ctx)
    if cs is None and a.op == "list":
        check_list_wording(list(a.items), noun)  # 'the void output': one, not a list
    return Measure(of="concept", stream=noun, concepts=cs), k, 0.95


def _exists(a: _Asked) -> _Found:
    if amount_word(list(a.items), frozenset(("total",))) is not None:  # not 'total protein'
        raise Abstain("'total' asks for an amount, not whether there is one", "total")
    found = a.first_concept()
    if found is None:
        if a.enc:
            etype = a.enc[0].data.get("type")
            if etype and _slots(a.items, "scope"):
                # 'to the ER during their last hospital visit': a typed visit inside a visit —
                # where the patient went within it, not the type the whole encounter is given
                raise Abstain("an encounter of a type within another encounter", a.enc[0].text)
            return Measure(of="encounters", encounter_type=etype), None, 0.9
        noun = _noun_stream(a.items)
        named = a.lex.kind_streams.get(noun, [noun]) if noun else []
        if noun and len(named) == 1 and a.patient_id:
            # "has patient 7 been diagnosed with any disease": any record of that one stream
            return Measure(of="events", stream=noun), None, 0.9
        raise Abstain("could not tell what to look for")
    if a.intent is None and found[2] in VALUE_STREAMS:
        # "blood type on file for patient X": no yes/no word, and a measurement is named —
        # its value may be what is asked; never answer whether it was recorded instead
        c = found[1]
        raise Abstain(
            f"could not tell whether the value of {c.label!r} or whether one is recorded is asked",
            c.phrase,
        )
    return a.of_concept("events", found, found[1].score)


def _counted(a: _Asked) -> _Found:
    if a.op == "proportion":
        return Measure(of="patients"), None, 1.0
    target = a.intent.data.get("target") if a.intent else None
    nxt = _next_significant(a.after)
    if target != "events" and (nxt is None or _is_person(nxt)):
        return Measure(of="patients"), None, 1.0
    if target != "events" and isinstance(nxt, Slot) and nxt.kind == "encounter":
        etype = nxt.data.get("type")
        pos = next(k for k, i in enumerate(a.items) if i is nxt)
        linked = linked_event(a.items, a.ctx, pos)  # "inpatient visits where X was recorded"
        if linked is not None:
            k, stream, cs = linked
            return (
                Measure(of="encounters", encounter_type=etype, stream=stream, concepts=cs),
                k,
                1.0,
            )
        return Measure(of="encounters", encounter_type=etype), None, 1.0
    stream_noun = isinstance(nxt, Word) and nxt.role == "stream_noun" and bool(nxt.value)
    if (
        not a.patient_id
        and not a.concepts
        and isinstance(nxt, Word)
        and nxt.role in {"stream_noun", "event_noun"}
        and nxt.value
    ):  # "how many procedures were performed in 2019"
        return Measure(of="events", stream=nxt.value), None, 0.85
    if (
        target != "events"
        and isinstance(nxt, Word)
        and nxt.role == "stream_noun"
        and ((stream_noun and nxt.value != "condition") or a.patient_id)
    ):
        of = "events" if DOSE_NOUNS & set(a.ctx.question.lower().split()) else "concept"
        return Measure(of=of, stream=nxt.value), None, 0.8  # type: ignore[arg-type]
    found = a.first_concept()
    event_noun = False
    for i in a.after[:6]:  # "how many diagnoses of X" — not "X patients whose first diagnosis"
        if isinstance(i, Word) and i.role == "subject":
            break
        if isinstance(i, Word) and i.role == "event_noun":
            event_noun = True
            break
    concept_first = (
        isinstance(nxt, Concept)
        and not _followed_by_person(a.after, nxt)
        and not _negated(a.after, nxt)
    )
    if found is not None and (target == "events" or event_noun or a.patient_id or concept_first):
        return a.of_concept("events", found, found[1].score)
    if a.patient_id and a.enc:
        return Measure(of="encounters", encounter_type=a.enc[0].data.get("type")), None, 0.9
    return Measure(of="patients"), None, 0.9


def _is_slot(item: Item, kind: str, op: str) -> bool:
    return isinstance(item, Slot) and item.kind == kind and item.data.get("op") == op


def _negated(items: Sequence[Item], concept: Concept) -> bool:
    """A negation stands right before the concept ('(not suspected)'): a filter, not a measure."""
    k = next(k for k, i in enumerate(items) if i is concept)
    prev = items[k - 1] if k > 0 else None
    return isinstance(prev, Slot) and prev.kind == "neg"
