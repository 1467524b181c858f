"""Filter assembly: cohort predicates, their time windows and anchors, proportion splits.

Which concepts filter the cohort, where a negation, a count, a value or a window belongs, and
where a proportion's numerator starts are decided from the order of the pieces and from what
the source stores (the lexicon), never from the wording of particular questions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from clinbridge.engine.plan import (
    AgeFilter,
    CalendarWindow,
    ConceptSet,
    EncounterFilter,
    EventAnchor,
    EventFilter,
    FixedAnchor,
    Measure,
    PatientAnchor,
    RelativeWindow,
    SexFilter,
    ValueFilter,
)
from clinbridge.engine.understand._context import (
    VALUE_STREAMS,
    Abstain,
    Ctx,
    Item,
    _concept_set,
    _ps,
    _stream_for,
    expand,
)
from clinbridge.engine.understand._ground import Concept, Word
from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._slots import Slot
from clinbridge.engine.understand._time import TimeSpec, resolve_relative_year

__all__ = ["Pred"]

LATER_WORDS = frozenset({"later", "subsequently", "afterwards", "afterward", "thereafter"})
EXCEPT_WORDS = frozenset({"except", "except for", "other than", "excluding", "but not"})


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
    first_only: bool = False

    def build(self) -> Any:
        if self.kind == "sex":
            return SexFilter(sex=self.sex)  # type: ignore[arg-type]
        if self.kind == "age":
            a = self.age or {}
            return AgeFilter(op=a["op"], value=a["value"], value2=a.get("value2"))
        if self.kind == "death":
            # a recorded death: the patient's age at death exists (is at least 0)
            return AgeFilter(op=">=", value=0, at=PatientAnchor(point="death"))
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
            encounter_type=self.enc_type,  # type: ignore[arg-type]
            first_only=self.first_only,
        )


# -- predicates --------------------------------------------------------------------------------

_EVENT_MEASURES = frozenset(
    {
        "events",
        "value",
        "date",
        "concept",
        "days_supply",
        "quantity",
        "encounters",
        "length_of_stay",
    }
)


@dataclass
class _Scan:
    """The running state of one left-to-right pass over a question's pieces: the predicates so
    far and what the next concept inherits (a negation, a count, an 'or', a 'first', a 'later')."""

    items: list[Item]
    ctx: Ctx
    measure: Measure
    patient_id: str | None
    measure_pos: int | None
    preds: list[Pred] = field(default_factory=list)
    confidence: float = 1.0
    neg: bool = False
    neg_text: str = ""
    count: int | None = None
    last_event: Pred | None = None
    pending_or: bool = False
    pending_first: Slot | None = None
    pending_after: Pred | None = None
    windows: list[tuple[int, Slot]] = field(default_factory=list)

    def ground(self, phrase: str, kind: str, target: str) -> None:
        self.ctx.groundings.append(Grounding(phrase=phrase, kind=kind, target=target))


def _predicates(
    items: list[Item], ctx: Ctx, used: set[int], measure: Measure, patient_id: str | None
) -> tuple[list[Pred], Any, float]:
    """The cohort predicates of a reading, the plan-level window (if any) and a confidence."""
    s = _Scan(items, ctx, measure, patient_id, min(used) if used else None)
    for k, item in enumerate(items):
        if isinstance(item, Slot):
            reader = _SLOT_READERS.get(item.kind)
            if reader is not None:
                reader(s, k, item)
        elif isinstance(item, Word):
            _word(s, item)
        elif k not in used:
            _concept(s, k, item)
    if measure.of == "patients" and not any(isinstance(i, Concept) for i in items):
        _stream_pred(s)
    if s.neg and not any(p.negate for p in s.preds):
        _trailing_negation(s)
    return s.preds, _place_windows(s), s.confidence


def _slot_neg(s: _Scan, k: int, item: Slot) -> None:
    s.neg, s.neg_text = True, item.text


def _slot_order(s: _Scan, k: int, item: Slot) -> None:
    if item.data["which"] == "first" and s.measure.of in {"patients", "age"}:
        s.pending_first = item


def _slot_count(s: _Scan, k: int, item: Slot) -> None:
    s.count = item.data["min"]
    last = s.last_event
    if last is not None and last.pos == k - 1 and last.min_count == 1:
        last.min_count, s.count = s.count, None


def _slot_sex(s: _Scan, k: int, item: Slot) -> None:
    if not s.ctx.lex.has_sex:
        raise Abstain("this source stores no sex for patients", item.text)
    s.preds.append(Pred(k, "sex", sex=item.data["sex"]))
    s.ground(item.text, "sex", item.data["sex"])
    s.neg = False


def _slot_age(s: _Scan, k: int, item: Slot) -> None:
    if not s.ctx.lex.has_birth:
        raise Abstain("this source stores no birth dates, so ages are unknown", item.text)
    s.ground(item.text, "age", f"{item.data['op']} {item.data['value']}")
    prev = s.items[k - 1] if k > 0 else None
    after_verb = (
        isinstance(prev, Word)
        and prev.role in {"hint", "boundary"}
        and bool(prev.value)
        and prev.text.endswith("ed")
    )
    if (item.data.get("at_event") or after_verb) and s.last_event is not None:
        s.last_event.age_at_event = AgeFilter(
            op=item.data["op"], value=item.data["value"], value2=item.data.get("value2")
        )
    else:
        s.preds.append(Pred(k, "age", age=item.data))


def _slot_death(s: _Scan, k: int, item: Slot) -> None:
    if not s.ctx.lex.deaths:
        raise Abstain("this source records no deaths", item.text)
    if s.neg or any(isinstance(i, Slot) and i.kind == "window" for i in s.items):
        raise Abstain(
            f"deaths can be counted, but not negated or inside a time window ({item.text!r})",
            item.text,
        )
    s.preds.append(Pred(k, "death"))
    s.ground(item.text, "death", "a recorded death date")


def _slot_unit(s: _Scan, k: int, item: Slot) -> None:
    s.ctx.unit = item.data["unit"]
    s.ground(item.text, "unit", s.ctx.unit)


def _slot_number(s: _Scan, k: int, item: Slot) -> None:
    bound = _bind_number(s.items, k, item, s.preds, s.last_event, s.measure, s.ctx)
    if bound == "age":
        value = int(item.data["value"])
        s.preds.append(Pred(k, "age", age={"op": item.data["op"], "value": value}))
        s.ground(item.text, "age", f"{item.data['op']} {value}")


def _slot_value(s: _Scan, k: int, item: Slot) -> None:
    lex, ctx = s.ctx.lex, s.ctx
    target = s.last_event
    if target is None or target.stream not in VALUE_STREAMS:
        target = next(
            (p for p in reversed(s.preds) if p.kind == "event" and p.stream in VALUE_STREAMS),
            None,
        )
    vf = ValueFilter(
        op=item.data["op"],
        value=item.data["value"],
        value2=item.data.get("value2"),
        unit=item.data.get("unit"),
    )
    if target is None:
        _unbound_value(s, k, item, vf)
        return
    if target.concept is not None and not sum(
        lex.entries[e].values for e in target.concept.entries
    ):
        raise Abstain(
            f"no numeric values are stored for {target.concept.label!r}", target.concept.phrase
        )
    target.value = vf
    _one_measurement(target, lex, ctx)
    s.ground(item.text, "value", f"{vf.op} {vf.value}{' ' + vf.unit if vf.unit else ''}")


def _unbound_value(s: _Scan, k: int, item: Slot, vf: ValueFilter) -> None:
    """A value no cohort measurement before it takes: the measure's, an age, or abstain."""
    measure, ctx = s.measure, s.ctx
    if (
        measure.of in {"value", "events", "date"}
        and measure.stream in VALUE_STREAMS
        and ctx.measure_value is None
    ):
        ctx.measure_value = vf
        return
    if (
        _after_person(s.items, k)
        and vf.unit is None
        and vf.op in {">", ">=", "<", "<="}
        and 0 <= vf.value <= 120
        and float(vf.value).is_integer()
        and ctx.lex.has_birth
    ):
        # "how many patients are over 65": an age
        s.preds.append(Pred(k, "age", age={"op": vf.op, "value": int(vf.value)}))
        s.ground(item.text, "age", f"{vf.op} {vf.value:g}")
        return
    raise Abstain(f"could not tell which measurement {item.text!r} applies to", item.text)


def _slot_window(s: _Scan, k: int, item: Slot) -> None:
    s.windows.append((k, item))


def _slot_encounter(s: _Scan, k: int, item: Slot) -> None:
    measure, last = s.measure, s.last_event
    if measure.of in {"encounters", "length_of_stay"} and k == _first_pos(s.items, "encounter"):
        return
    if (
        item.data.get("located")
        and item.data.get("type")
        and measure.of in {"patients", "age"}
        and last is not None
        and last.kind == "event"
        and last.enc_type is None
    ):
        # "patients with a hemoglobin test in the ER": the cohort's events happened during
        # encounters of that type
        last.enc_type = item.data["type"]
        s.ground(item.text, "encounter_type", item.data["type"])
        return
    if item.data.get("located") and (last is not None or s.measure_pos is not None):
        # "hemoglobin in the ER": events inside encounters of a type, an encounter scope
        s.ctx.located_scope = item
        return
    p = Pred(k, "encounter", enc_type=item.data.get("type"), negate=s.neg, min_count=s.count or 1)
    if item.data.get("type"):
        s.ground(item.text, "encounter_type", item.data["type"])
    s.preds.append(p)
    s.last_event, s.neg, s.count = p, False, None


_SLOT_READERS: dict[str, Callable[[_Scan, int, Slot], None]] = {
    "neg": _slot_neg,
    "order": _slot_order,
    "count": _slot_count,
    "sex": _slot_sex,
    "age": _slot_age,
    "death": _slot_death,
    "unit": _slot_unit,
    "number": _slot_number,
    "value": _slot_value,
    "window": _slot_window,
    "encounter": _slot_encounter,
}


def _word(s: _Scan, item: Word) -> None:
    if item.role == "connector" and item.value == "or":
        s.pending_or = True
    if item.text in LATER_WORDS:
        # "on celecoxib ... later developed a GI bleed": after the first earlier event
        last = s.last_event
        if last is None or last.kind != "event" or last.concept_set is None:
            raise Abstain(f"could not tell what {item.text!r} comes after", item.text)
        s.pending_after = last


def _same_stream_event(s: _Scan, st: str) -> Pred | None:
    """The last predicate when it is an event of stream ``st`` with a concept set."""
    last = s.last_event
    if last is not None and last.kind == "event" and last.stream == st and last.concept_set:
        return last
    return None


def _cut_out(pred: Pred, extra: ConceptSet) -> None:
    """Cut a concept set out of a predicate's set ('X except Y', 'X (not suspected)')."""
    assert pred.concept_set is not None
    pred.concept_set = pred.concept_set.model_copy(
        update={
            "exclude": pred.concept_set.exclude + extra.concepts,
            "label": f"{pred.concept_set.label} except {extra.label}",
        }
    )


def _joins_last(s: _Scan, item: Concept, st: str) -> bool:
    """'X or Y', 'X (not suspected)', 'any X except Y': the concept changes the last
    predicate's set instead of adding a predicate; True when it did."""
    lex, ctx = s.ctx.lex, s.ctx
    last = _same_stream_event(s, st)
    if s.pending_or and last is not None:
        assert last.concept_set is not None
        extra = _concept_set(item, st, lex, ctx)
        last.concept_set = ConceptSet(
            concepts=last.concept_set.concepts + extra.concepts,
            label=f"{last.concept_set.label} or {extra.label}",
        )
        s.pending_or = False
        return True
    s.pending_or = False
    if not s.neg or last is None or last.negate:
        return False
    variant = last.concept is not None and _variant_of(item, last.concept)
    # "COVID-19 (not suspected)": a qualifier of the concept, not of the patient — the variant
    # is cut out of the concept set (a no-op when the set never held it); "any statin except
    # simvastatin": the second concept is cut out of the first set
    if variant or " ".join(s.neg_text.split()) in EXCEPT_WORDS:
        _cut_out(last, _concept_set(item, st, lex, ctx))
        s.neg = False
        return True
    return False


def _concept(s: _Scan, k: int, item: Concept) -> None:
    lex, ctx = s.ctx.lex, s.ctx
    st = _stream_for(item, lex)
    if st is None:
        raise Abstain(f"{item.label!r} is not recorded in this source", item.phrase)
    if _joins_last(s, item, st):
        return
    p = Pred(
        k,
        "event",
        concept=item,
        stream=st,
        plan_stream=_ps(item, st, lex),
        concept_set=_concept_set(item, st, lex, ctx),
        negate=s.neg,
        min_count=s.count or 1,
    )
    s.confidence *= item.score if item.how != "exact" else 1.0
    if s.pending_after is not None:
        after = s.pending_after
        p.window = RelativeWindow(
            anchor=EventAnchor(
                stream=after.plan_stream or after.stream or "",
                concepts=after.concept_set,
                which="first",
            ),
            start_days=0,
        )
        s.ground("later", "time", "after the first earlier event")
        s.pending_after = None
    if s.pending_first is not None:
        # "patients whose first GI bleed was after 2010": only each patient's first event
        p.first_only = True
        ctx.consumed.add(id(s.pending_first))
        s.pending_first = None
    s.preds.append(p)
    s.last_event, s.neg, s.count = p, False, None


def _stream_pred(s: _Scan) -> None:
    """'patients who had a procedure in 2019': any event of a stream named in the catalog."""
    lex = s.ctx.lex
    for k, item in enumerate(s.items):
        if isinstance(item, Word) and item.role in {"stream_noun", "event_noun"} and item.value:
            if item.value not in lex.streams and item.value not in lex.stream_words.values():
                raise Abstain(f"this source stores no {item.value} events", item.text)
            s.preds.append(Pred(k, "event", stream=item.value, negate=s.neg))
            s.ground(item.text, "stream", item.value)
            s.neg = False
            return


def _trailing_negation(s: _Scan) -> None:
    """A negation after everything it could apply to: a variant cut out of an earlier set
    ('COVID-19, suspected COVID-19 not counted'), else the last event or encounter negated."""
    negatable = [p for p in s.preds if p.kind in {"event", "encounter"}]
    last = negatable[-1] if negatable else None
    base = next(
        (
            p
            for p in negatable[:-1]
            if last is not None
            and p.kind == "event"
            and p.stream == last.stream
            and p.concept is not None
            and last.concept is not None
            and p.concept_set is not None
            and last.concept_set is not None
            and _variant_of(last.concept, p.concept)
        ),
        None,
    )
    if base is not None and last is not None and last.concept_set is not None:
        _cut_out(base, last.concept_set)
        s.preds.remove(last)
    elif negatable and not s.patient_id:
        negatable[-1].negate = True


def _place_windows(s: _Scan) -> Any:
    """Give each time window to the predicate it belongs to; returns the plan-level window."""
    plan_window: Any = None
    is_events = s.measure.of in _EVENT_MEASURES
    for k, slot in s.windows:
        window = _window(slot.data["spec"], s.ctx, s.items, s.preds)
        target = _window_target(k, s.preds, s.measure_pos, is_events, s.measure.of)
        taken = plan_window if target is None else target.window
        if taken is not None:
            raise Abstain("two time windows for the same events; ask one at a time", slot.text)
        if target is None:
            plan_window = window
        else:
            target.window = window
    return plan_window


def _one_measurement(pred: Pred, lex: Any, ctx: Ctx) -> None:
    """A value threshold applies to one measurement (one unit): the best-matching one, or each
    of several equally good ones in turn (an ambiguity the reader asks about)."""
    if pred.concept is not None and pred.stream is not None:
        pred.concept_set = _concept_set(pred.concept, pred.stream, lex, ctx, values=True)


def _variant_of(c: Concept, base: Concept) -> bool:
    """True when ``c``'s label holds every content word of ``base``'s phrase and more
    ('Suspected COVID-19' of 'COVID-19'): a subtype or qualified form of the same concept."""
    from clinbridge.engine.understand._text import content_tokens

    base_words = set(content_tokens(base.label)) or set(content_tokens(base.phrase))
    words = set(content_tokens(c.label))
    return bool(base_words) and base_words < words


def _after_person(items: list[Item], k: int) -> bool:
    """The slot at ``k`` follows a person word ('patients', 'women'), copulas aside."""
    for i in reversed(items[:k]):
        if isinstance(i, Word):
            if i.role == "subject":
                return True
            if i.role in {"boundary", "connector"} or i.text in {"of", "a", "an", "who"}:
                continue
        return isinstance(i, Slot) and i.kind == "sex"
    return False


def _value_target(pred: Pred | None, lex: Any) -> bool:
    return (
        pred is not None
        and pred.kind == "event"
        and pred.stream in VALUE_STREAMS
        and pred.concept is not None
        and sum(lex.entries[e].values for e in pred.concept.entries) > 0
    )


def _plausible(label: str, value: float, unit: str | None) -> bool:
    from clinbridge.engine._shapes import plausible_range

    rng = plausible_range(label, unit)
    return rng is None or rng[0] <= value <= rng[1]


def _bind_number(
    items: list[Item],
    k: int,
    slot: Slot,
    preds: list[Pred],
    last_event: Pred | None,
    measure: Measure,
    ctx: Ctx,
) -> str:
    """'an LDL of 130 or more', 'SBP 140+', 'patients 65+': a threshold stays with the nearest
    measure before it whose values it fits; after a person word with no measure, it is an age."""
    lex = ctx.lex
    d = slot.data
    vf = ValueFilter(op=d["op"], value=d["value"], unit=d.get("unit"))
    prev = next(
        (
            i
            for i in reversed(items[:k])
            if not (isinstance(i, Word) and i.role in {"connector", "hint"} and not i.value)
            and not (isinstance(i, Word) and i.role in {"event_noun", "stream_noun"})
            and not (isinstance(i, Word) and i.text in {"of", "a", "an"})
        ),
        None,
    )
    if isinstance(prev, Concept) and _value_target(last_event, lex) and last_event is not None:
        assert last_event.concept is not None
        if not _plausible(last_event.concept.label, vf.value, vf.unit):
            raise Abstain(
                f"{slot.text!r} is not a plausible value of {last_event.concept.label!r}",
                slot.text,
            )
        if last_event.value is not None:
            raise Abstain(f"two values for {last_event.concept.label!r}", slot.text)
        last_event.value = vf
        _one_measurement(last_event, lex, ctx)
        ctx.groundings.append(
            Grounding(
                phrase=slot.text,
                kind="value",
                target=f"{vf.op} {vf.value}{' ' + vf.unit if vf.unit else ''}",
            )
        )
        return "value"
    if (
        isinstance(prev, Concept)
        and not preds
        and measure.of in {"value", "events", "date"}
        and measure.stream in VALUE_STREAMS
        and ctx.measure_value is None
    ):
        label = measure.concepts.concepts[0].name if measure.concepts else ""
        if label and not _plausible(label, vf.value, vf.unit):
            raise Abstain(f"{slot.text!r} is not a plausible value of {label!r}", slot.text)
        ctx.measure_value = vf
        return "value"
    person = (isinstance(prev, Word) and prev.role == "subject") or (
        isinstance(prev, Slot) and prev.kind in {"sex"}
    )
    if person and vf.unit is None and 0 <= vf.value <= 120 and float(vf.value).is_integer():
        if not lex.has_birth:
            raise Abstain("this source stores no birth dates, so ages are unknown", slot.text)
        return "age"
    raise Abstain(f"could not tell which measurement {slot.text!r} applies to", slot.text)


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
    subject = next(
        (
            k
            for k, i in enumerate(items)
            if k > intent_pos and isinstance(i, Word) and i.role == "subject"
        ),
        None,
    )
    if (
        among is None
        and subject is not None
        and any(p.pos < subject for p in after)
        and any(p.pos > subject for p in after)
    ):  # "share of LDL-tested patients with an LDL >= 130": the cohort is named before 'patients'
        return [p for p in after if p.pos < subject], [p for p in after if p.pos > subject]
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
