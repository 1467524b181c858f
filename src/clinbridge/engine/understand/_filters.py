"""Filter assembly: cohort predicates, their time windows and anchors, proportion splits.

Which concepts filter the cohort, where a negation, a count, a value or a window belongs, and
where a proportion's numerator starts are decided from the order of the pieces and from what
the source stores (the lexicon), never from the wording of particular questions.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    pending_first: Slot | None = None
    pending_after: Pred | None = None
    neg_text = ""
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
                neg_text = item.text
            elif kind == "order":
                if item.data["which"] == "first" and measure.of in {"patients", "age"}:
                    pending_first = item
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
                prev = items[k - 1] if k > 0 else None
                after_verb = (
                    isinstance(prev, Word)
                    and prev.role in {"hint", "boundary"}
                    and bool(prev.value)
                    and prev.text.endswith("ed")
                )
                if (item.data.get("at_event") or after_verb) and last_event is not None:
                    if pending_first is not None and last_event.kind == "event":
                        # "X patients whose first diagnosis came at age < 40": the age at
                        # their first X
                        last_event.first_only = True
                        ctx.consumed.add(id(pending_first))
                        pending_first = None
                    last_event.age_at_event = AgeFilter(
                        op=item.data["op"], value=item.data["value"], value2=item.data.get("value2")
                    )
                else:
                    preds.append(Pred(k, "age", age=item.data))
            elif kind == "death":
                if not lex.deaths:
                    raise Abstain("this source records no deaths", item.text)
                if neg or any(isinstance(i, Slot) and i.kind == "window" for i in items):
                    raise Abstain(
                        "deaths can be counted, but not negated or inside a time window "
                        f"({item.text!r})",
                        item.text,
                    )
                preds.append(Pred(k, "death"))
                ctx.groundings.append(
                    Grounding(phrase=item.text, kind="death", target="a recorded death date")
                )
            elif kind == "unit":
                ctx.unit = item.data["unit"]
                ctx.groundings.append(Grounding(phrase=item.text, kind="unit", target=ctx.unit))
            elif kind == "number":
                bound = _bind_number(items, k, item, preds, last_event, measure, ctx)
                if bound == "age":
                    preds.append(
                        Pred(
                            k, "age", age={"op": item.data["op"], "value": int(item.data["value"])}
                        )
                    )
                    ctx.groundings.append(
                        Grounding(
                            phrase=item.text,
                            kind="age",
                            target=f"{item.data['op']} {int(item.data['value'])}",
                        )
                    )
                continue
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
                    if (
                        _after_person(items, k)
                        and vf.unit is None
                        and vf.op in {">", ">=", "<", "<="}
                        and 0 <= vf.value <= 120
                        and float(vf.value).is_integer()
                        and lex.has_birth
                    ):
                        # "how many patients are over 65": an age
                        preds.append(Pred(k, "age", age={"op": vf.op, "value": int(vf.value)}))
                        ctx.groundings.append(
                            Grounding(phrase=item.text, kind="age", target=f"{vf.op} {vf.value:g}")
                        )
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
                _one_measurement(target, lex, ctx)
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
                if (
                    item.data.get("located")
                    and item.data.get("type")
                    and measure.of in {"patients", "age"}
                    and last_event is not None
                    and last_event.kind == "event"
                    and last_event.enc_type is None
                ):
                    # "patients with a hemoglobin test in the ER": the cohort's events happened
                    # during encounters of that type
                    last_event.enc_type = item.data["type"]
                    ctx.groundings.append(
                        Grounding(phrase=item.text, kind="encounter_type", target=item.data["type"])
                    )
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
            if item.text in LATER_WORDS and measure.of == "days_between":
                continue  # 'the first later Y': the end of a time between is later by definition
            if item.text in LATER_WORDS:
                # "on celecoxib ... later developed a GI bleed": after the first earlier event
                if (
                    last_event is None
                    or last_event.kind != "event"
                    or last_event.concept_set is None
                ):
                    raise Abstain(f"could not tell what {item.text!r} comes after", item.text)
                pending_after = last_event
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
        if (
            neg
            and last_event is not None
            and last_event.kind == "event"
            and last_event.stream == st
            and last_event.concept is not None
            and last_event.concept_set is not None
            and not last_event.negate
            and _variant_of(item, last_event.concept)
        ):
            # "COVID-19 (not suspected)": a qualifier of the concept, not of the patient — the
            # variant is cut out of the concept set (a no-op when the set never held it)
            extra = _concept_set(item, st, lex, ctx)
            last_event.concept_set = last_event.concept_set.model_copy(
                update={
                    "exclude": last_event.concept_set.exclude + extra.concepts,
                    "label": f"{last_event.concept_set.label} except {extra.label}",
                }
            )
            neg = False
            continue
        if (
            neg
            and " ".join(neg_text.split()) in EXCEPT_WORDS
            and last_event is not None
            and last_event.kind == "event"
            and last_event.stream == st
            and last_event.concept_set is not None
            and not last_event.negate
        ):
            # "any statin except simvastatin": the second concept is cut out of the first set
            extra = _concept_set(item, st, lex, ctx)
            last_event.concept_set = last_event.concept_set.model_copy(
                update={
                    "exclude": last_event.concept_set.exclude + extra.concepts,
                    "label": f"{last_event.concept_set.label} except {extra.label}",
                }
            )
            neg = False
            continue
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
        if pending_after is not None:
            p.window = RelativeWindow(
                anchor=EventAnchor(
                    stream=pending_after.plan_stream or pending_after.stream or "",
                    concepts=pending_after.concept_set,
                    which="first",
                ),
                start_days=0,
            )
            ctx.groundings.append(
                Grounding(phrase="later", kind="time", target="after the first earlier event")
            )
            pending_after = None
        if pending_first is not None:
            # "patients whose first GI bleed was after 2010": only each patient's first event
            p.first_only = True
            ctx.consumed.add(id(pending_first))
            pending_first = None
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
            # "COVID-19, suspected COVID-19 not counted": the variant is cut out of the set
            assert base.concept_set is not None
            base.concept_set = base.concept_set.model_copy(
                update={
                    "exclude": base.concept_set.exclude + last.concept_set.concepts,
                    "label": f"{base.concept_set.label} except {last.concept_set.label}",
                }
            )
            preds.remove(last)
        elif negatable and not patient_id:
            negatable[-1].negate = True
    for s in (i for i in items if isinstance(i, Slot) and i.kind == "day0"):
        if not any(w.data["spec"].kind in {"event", "patient"} for _, w in windows):
            raise Abstain(f"could not tell which window {s.text!r} is about", s.text)
        ctx.groundings.append(
            Grounding(phrase=s.text, kind="time", target="days counted from the anchor's day (0)")
        )
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
            spec = resolve_relative_year(spec, ctx.now or ctx.today)
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
