"""Filter assembly: cohort predicates, their time windows and anchors, proportion splits.

Which concepts filter the cohort, where a negation, a count, a value or a window belongs, and
where a proportion's numerator starts are decided from the order of the pieces and from what
the source stores (the lexicon), never from the wording of particular questions.
"""

from __future__ import annotations

import re
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
from clinbridge.engine.understand._age_at import hold_age, place_pending_age, unplaced_age
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
from clinbridge.engine.understand._exclusion import check_exclusion
from clinbridge.engine.understand._ground import Concept, Word
from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._slots import Slot
from clinbridge.engine.understand._time import TimeSpec, resolve_relative_year
from clinbridge.engine.understand._window_restate import restated_windows

__all__ = ["Pred"]

LATER_WORDS = frozenset({"later", "subsequently", "afterwards", "afterward", "thereafter"})
_TODAY_ONLY = re.compile(r"(?:(?:as\s+of|on|since)\s+)?(?:today|now)", re.I)
_COPULA = frozenset({"was", "were", "is", "are"})
_NOW_WORDS = re.compile(
    r"\b(?:now|today|currently|current(?:ly)?|at\s+present|presently|still)\b", re.I
)
_EXCEPT_PEOPLE = re.compile(
    r"\b(?:except(?:\s+for)?|excluding|other\s+than|but\s+not|not\s+counting)\s+(?:any\s+|all\s+|the\s+|every\s+|each\s+)?"
    r"(?:patients?|persons?|people|those|anyone|individuals|subjects)\b",
    re.I,
)
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
            # a recorded death: the age at death exists (>= 0), or is in the bound tied to it
            a = self.age or {"op": ">=", "value": 0}
            at = PatientAnchor(point="death")
            return AgeFilter(
                op=a["op"],
                value=a["value"],
                value2=a.get("value2"),
                at=at,
                negate=True if self.negate else None,
                window=self.window,
            )
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
"""Measures over events: a window before the first predicate may belong to the measure."""


@dataclass
class _Walk:
    """The state of one left-to-right walk over the pieces: what is pending for the next one."""

    items: list[Item]
    ctx: Ctx
    measure: Measure
    measure_pos: int | None
    preds: list[Pred] = field(default_factory=list)
    plan_window: Any = None
    confidence: float = 1.0
    neg: bool = False
    neg_text: str = ""
    count: int | None = None
    last_event: Pred | None = None
    pending_or: bool = False
    pending_first: Slot | None = None
    pending_after: Pred | None = None
    pending_age: tuple[Any, Pred | None, str] | None = None
    windows: list[tuple[int, Slot]] = field(default_factory=list)

    def ground(self, phrase: str, kind: str, target: str) -> None:
        """Record what a phrase was read as."""
        self.ctx.groundings.append(Grounding(phrase=phrase, kind=kind, target=target))

    def add(self, p: Pred) -> None:
        """A new negatable predicate: the pending negation and count were its."""
        self.preds.append(p)
        self.last_event, self.neg, self.count = p, False, None

    def last_event_in(self, stream: str) -> Pred | None:
        """The last predicate when it is an event of ``stream`` with a concept set."""
        p = self.last_event
        if p is not None and p.kind == "event" and p.stream == stream and p.concept_set:
            return p
        return None


def _predicates(
    items: list[Item], ctx: Ctx, used: set[int], measure: Measure, patient_id: str | None
) -> tuple[list[Pred], Any, float]:
    w = _Walk(items, ctx, measure, min(used) if used else None)
    for k, item in enumerate(items):
        if isinstance(item, Slot):
            rule = _SLOT_RULES.get(item.kind)
            if rule is not None:
                rule(w, k, item)
        elif isinstance(item, Word):
            _on_word(w, item)
        elif k not in used:
            _on_concept(w, k, item)
    unplaced_age(w)
    _any_stream_event(w)
    _trailing_negation(w, patient_id)
    _check_day0(w)
    _place_windows(w)
    return w.preds, w.plan_window, w.confidence


# -- slot rules: one function per slot kind ----------------------------------------------------


def _on_neg(w: _Walk, k: int, s: Slot) -> None:
    w.neg, w.neg_text = True, s.text


def _on_order(w: _Walk, k: int, s: Slot) -> None:
    if s.data["which"] == "first" and w.measure.of in {"patients", "age"}:
        w.pending_first = s


def _on_count(w: _Walk, k: int, s: Slot) -> None:
    w.count = s.data["min"]
    last = w.last_event
    if last is not None and last.pos == k - 1 and last.min_count == 1:
        last.min_count, w.count = w.count, None


def _on_sex(w: _Walk, k: int, s: Slot) -> None:
    if not w.ctx.lex.has_sex:
        raise Abstain("this source stores no sex for patients", s.text)
    w.preds.append(Pred(k, "sex", sex=s.data["sex"]))
    w.ground(s.text, "sex", s.data["sex"])
    w.neg = False


def _on_age(w: _Walk, k: int, s: Slot) -> None:
    if not w.ctx.lex.has_birth:
        raise Abstain("this source stores no birth dates, so ages are unknown", s.text)
    w.ground(s.text, "age", f"{s.data['op']} {s.data['value']}")
    if hold_age(w, s, s.data):
        return
    prev = w.items[k - 1] if k > 0 else None
    after_verb = (
        isinstance(prev, Word)
        and prev.role in {"hint", "boundary"}
        and bool(prev.value)
        and prev.text.endswith("ed")
    )
    last = w.last_event
    # 'pts w first MI under 60': an age right after a first event is the age at it (the age
    # today is said so: 'now', 'currently', 'today')
    at_first = (
        last is not None
        and last.first_only
        and last.pos == k - 1
        and not _NOW_WORDS.search(w.ctx.question)
    )
    if not ((s.data.get("at_event") or after_verb or at_first) and last is not None):
        w.preds.append(Pred(k, "age", age=s.data))
        return
    if w.pending_first is not None and last.kind == "event":
        # "X patients whose first diagnosis came at age < 40": the age at their first X
        last.first_only = True
        w.ctx.consumed.add(id(w.pending_first))
        w.pending_first = None
    last.age_at_event = AgeFilter(
        op=s.data["op"], value=s.data["value"], value2=s.data.get("value2")
    )


def _on_death(w: _Walk, k: int, s: Slot) -> None:
    if not w.ctx.lex.deaths:
        raise Abstain("this source records no deaths", s.text)
    alive = bool(s.data.get("alive")) != bool(w.neg)  # 'living', 'not deceased', 'never died'
    windows = [i for i in w.items if isinstance(i, Slot) and i.kind == "window"]
    if alive:  # 'still alive ... as of today': alive is today's state; today is no window
        today = [i for i in windows if _TODAY_ONLY.fullmatch(i.text.strip())]
        w.ctx.consumed.update(id(i) for i in today)  # (nor a window of the death date)
        windows = [i for i in windows if i not in today]
    if windows and alive:  # (a death in a window is the death date in it, placed as events' are)
        raise Abstain(f"being alive is not counted inside a time window ({s.text!r})", s.text)
    w.preds.append(Pred(k, "death", negate=alive))
    w.neg = False
    w.ground(s.text, "death", "no recorded death" if alive else "a recorded death date")


def _on_unit(w: _Walk, k: int, s: Slot) -> None:
    w.ctx.unit = s.data["unit"]
    w.ground(s.text, "unit", s.data["unit"])


def _add_age(w: _Walk, k: int, text: str, op: str, value: float) -> None:
    """An age threshold read from a bare number after a person word ('patients over 65')."""
    w.preds.append(Pred(k, "age", age={"op": op, "value": int(value)}))
    w.ground(text, "age", f"{op} {value:g}")


def _on_number(w: _Walk, k: int, s: Slot) -> None:
    bound = _bind_number(w.items, k, s, w.preds, w.last_event, w.measure, w.ctx)
    if bound == "age" and not hold_age(w, s, s.data):
        _add_age(w, k, s.text, s.data["op"], int(s.data["value"]))


def _on_value(w: _Walk, k: int, s: Slot) -> None:
    lex, ctx = w.ctx.lex, w.ctx
    target = w.last_event
    if target is None or target.stream not in VALUE_STREAMS:
        target = next(
            (p for p in reversed(w.preds) if p.kind == "event" and p.stream in VALUE_STREAMS),
            None,
        )
    d = s.data
    vf = ValueFilter(op=d["op"], value=d["value"], value2=d.get("value2"), unit=d.get("unit"))
    if target is None:
        _unbound_value(w, k, s, vf)
        return
    if target.concept is not None and not sum(
        lex.entries[e].values for e in target.concept.entries
    ):
        raise Abstain(
            f"no numeric values are stored for {target.concept.label!r}", target.concept.phrase
        )
    target.value = vf
    _one_measurement(target, lex, ctx)
    w.ground(s.text, "value", f"{vf.op} {vf.value}{' ' + vf.unit if vf.unit else ''}")


def _unbound_value(w: _Walk, k: int, s: Slot, vf: ValueFilter) -> None:
    """A value with no measurement predicate before it: the measure's, an age, or unknown."""
    m, ctx = w.measure, w.ctx
    if (
        m.of in {"value", "events", "date"}
        and m.stream in VALUE_STREAMS
        and ctx.measure_value is None
    ):
        ctx.measure_value = vf
        return
    if (
        _after_person(w.items, k)
        and vf.unit is None
        and vf.op in {">", ">=", "<", "<="}
        and 0 <= vf.value <= 120
        and float(vf.value).is_integer()
        and ctx.lex.has_birth
    ):
        # "how many patients are over 65": an age
        if not hold_age(w, s, {"op": vf.op, "value": vf.value}):
            _add_age(w, k, s.text, vf.op, vf.value)
        return
    raise Abstain(f"could not tell which measurement {s.text!r} applies to", s.text)


def _on_window(w: _Walk, k: int, s: Slot) -> None:
    w.windows.append((k, s))


def _on_encounter(w: _Walk, k: int, s: Slot) -> None:
    of, last, etype = w.measure.of, w.last_event, s.data.get("type")
    if of in {"encounters", "length_of_stay"} and k == _first_pos(w.items, "encounter"):
        return
    if (
        s.data.get("located")
        and etype
        and of in {"patients", "age"}
        and last is not None
        and last.kind == "event"
        and last.enc_type is None
    ):
        # "patients with a hemoglobin test in the ER": the cohort's events happened during
        # encounters of that type
        last.enc_type = etype
        w.ground(s.text, "encounter_type", etype)
        return
    if s.data.get("located") and (last is not None or w.measure_pos is not None):
        # "hemoglobin in the ER": events inside encounters of a type, an encounter scope
        w.ctx.located_scope = s
        return
    p = Pred(k, "encounter", enc_type=etype, negate=w.neg, min_count=w.count or 1)
    if etype:
        w.ground(s.text, "encounter_type", etype)
    w.add(p)


_SLOT_RULES: dict[str, Callable[[_Walk, int, Slot], None]] = {
    "neg": _on_neg,
    "order": _on_order,
    "count": _on_count,
    "sex": _on_sex,
    "age": _on_age,
    "death": _on_death,
    "unit": _on_unit,
    "number": _on_number,
    "value": _on_value,
    "window": _on_window,
    "encounter": _on_encounter,
}
"""Slot kind → what the slot does to the walk (other kinds are read elsewhere)."""


# -- words and concepts ------------------------------------------------------------------------


def _on_word(w: _Walk, item: Word) -> None:
    if item.role == "connector" and item.value == "or":
        w.pending_or = True
    if item.text not in LATER_WORDS or w.measure.of == "days_between":
        return  # 'the first later Y': the end of a time between is later by definition
    # "on celecoxib ... later developed a GI bleed": after the first earlier event
    last = w.last_event
    if last is None or last.kind != "event" or last.concept_set is None:
        raise Abstain(f"could not tell what {item.text!r} comes after", item.text)
    w.pending_after = last


def _exclude(p: Pred, extra: ConceptSet, *, strict: bool = False) -> None:
    """Cut ``extra``'s concepts out of ``p``'s concept set ('any statin except simvastatin');
    ``strict``: the asker named the exclusion, so it must cut something (the resolver checks)."""
    assert p.concept_set is not None
    update: dict[str, Any] = {
        "exclude": p.concept_set.exclude + extra.concepts,
        "label": f"{p.concept_set.label} except {extra.label}",
    }
    if strict:
        update["exclude_must_cut"] = True
    p.concept_set = p.concept_set.model_copy(update=update)


def _merges_into_last(w: _Walk, item: Concept, st: str) -> bool:
    """'X or Y' joins the last event's set; a negated variant or an 'except' cuts out of it."""
    last = w.last_event_in(st)
    if last is None:
        other = w.last_event
        if w.pending_or and other is not None and other.concept_set is not None:
            # 'ibuprofen, naproxen or aspirin' where aspirin is only an allergy here: an 'or'
            # across two tables is not one set, and never the 'and' of two filters
            raise Abstain(
                f"'{other.concept_set.label} or {item.phrase}': {item.label!r} is recorded as"
                f" {st}, not {other.stream}; ask for each",
                item.phrase,
            )
        w.pending_or = False
        return False
    assert last.concept_set is not None
    if w.pending_or:
        extra = _concept_set(item, st, w.ctx.lex, w.ctx)
        last.concept_set = ConceptSet(
            concepts=last.concept_set.concepts + extra.concepts,
            label=f"{last.concept_set.label} or {extra.label}",
        )
        w.pending_or = False
        return True
    if not w.neg or last.negate:
        return False
    # "COVID-19 (not suspected)": a qualifier of the concept, not of the patient — the variant
    # is cut out of the concept set (a no-op when the set never held it); "any statin except
    # simvastatin": the second concept is cut out of the first set
    variant = last.concept is not None and _variant_of(item, last.concept)
    # 'excluding patients who ever had X': the patients are left out, not X from the set
    named = " ".join(w.neg_text.split()) in EXCEPT_WORDS and not _EXCEPT_PEOPLE.search(
        w.ctx.question
    )
    if variant or named:
        extra = _concept_set(item, st, w.ctx.lex, w.ctx)
        strict = named and check_exclusion(w, item, extra, last, st, variant=variant)
        _exclude(last, extra, strict=strict)
        w.neg = False
        return True
    return False


def _on_concept(w: _Walk, k: int, item: Concept) -> None:
    lex, ctx = w.ctx.lex, w.ctx
    st = _stream_for(item, lex)
    if st is None:
        raise Abstain(f"{item.label!r} is not recorded in this source", item.phrase)
    if place_pending_age(w, item, None):
        return
    if _merges_into_last(w, item, st):
        return
    p = Pred(
        k,
        "event",
        concept=item,
        stream=st,
        plan_stream=_ps(item, st, lex),
        concept_set=_concept_set(item, st, lex, ctx),
        negate=w.neg,
        min_count=w.count or 1,
    )
    w.confidence *= item.score if item.how != "exact" else 1.0
    after = w.pending_after
    if after is not None:
        p.window = RelativeWindow(
            anchor=EventAnchor(
                stream=after.plan_stream or after.stream or "",
                concepts=after.concept_set,
                which="first",
            ),
            start_days=0,
        )
        w.ground("later", "time", "after the first earlier event")
        w.pending_after = None
    if w.pending_first is not None:
        # "patients whose first GI bleed was after 2010": only each patient's first event
        p.first_only = True
        ctx.consumed.add(id(w.pending_first))
        w.pending_first = None
    place_pending_age(w, item, p)
    w.add(p)


# -- after the walk ----------------------------------------------------------------------------


def _any_stream_event(w: _Walk) -> None:
    """'patients who had a procedure in 2019': any event of a stream named in the catalog."""
    if w.measure.of != "patients" or any(isinstance(i, Concept) for i in w.items):
        return
    lex = w.ctx.lex
    for k, item in enumerate(w.items):
        if isinstance(item, Word) and item.role in {"stream_noun", "event_noun"} and item.value:
            if item.value not in lex.streams and item.value not in lex.stream_words.values():
                raise Abstain(f"this source stores no {item.value} events", item.text)
            w.preds.append(Pred(k, "event", stream=item.value, negate=w.neg))
            w.ground(item.text, "stream", item.value)
            w.neg = False
            return


def _trailing_negation(w: _Walk, patient_id: str | None) -> None:
    """A negation left over at the end negates the last event, or cuts its variant out of an
    earlier set ('COVID-19, suspected COVID-19 not counted')."""
    if not w.neg or any(p.negate for p in w.preds):
        return
    negatable = [p for p in w.preds if p.kind in {"event", "encounter"}]
    if not negatable:
        return
    last = negatable[-1]
    base = next(
        (
            p
            for p in negatable[:-1]
            if p.kind == "event"
            and p.stream == last.stream
            and p.concept is not None
            and last.concept is not None
            and p.concept_set is not None
            and last.concept_set is not None
            and _variant_of(last.concept, p.concept)
        ),
        None,
    )
    if base is not None and last.concept_set is not None:
        _exclude(base, last.concept_set)
        w.preds.remove(last)
    elif not patient_id:
        last.negate = True


def _check_day0(w: _Walk) -> None:
    """'day 0' needs a window counted from an anchor."""
    for s in (i for i in w.items if isinstance(i, Slot) and i.kind == "day0"):
        if not any(x.data["spec"].kind in {"event", "patient"} for _, x in w.windows):
            raise Abstain(f"could not tell which window {s.text!r} is about", s.text)
        w.ground(s.text, "time", "days counted from the anchor's day (0)")


def _place_windows(w: _Walk) -> None:
    """Each time window goes to the nearest event before it (or the plan, for the measure)."""
    is_events = w.measure.of in _EVENT_MEASURES
    # one window said twice ('the six months before today (after D1, up to D2)') made one
    w.windows = restated_windows(w.windows, w.items, w.ctx.now or w.ctx.today)
    for k, slot in w.windows:
        if id(slot) in w.ctx.consumed:
            continue
        window = _window(slot.data["spec"], w.ctx, w.items, w.preds)
        target = _window_target(k, w.preds, w.measure_pos, is_events, w.measure.of)
        if (w.plan_window if target is None else target.window) is not None:
            raise Abstain("two time windows for the same events; ask one at a time", slot.text)
        if target is None:
            w.plan_window = window
        else:
            target.window = window


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
    if isinstance(prev, Word) and prev.role == "boundary" and prev.text in _COPULA:
        # 'how many SBP readings were 130+': the value of the readings the copula follows
        j = max(n for n in range(k) if items[n] is prev)  # this copula, not an earlier twin
        before = next(
            (
                i
                for i in reversed(items[:j])
                if not (isinstance(i, Word) and i.role in {"event_noun", "stream_noun"})
            ),
            None,
        )
        if isinstance(before, Concept) or (isinstance(before, Word) and before.role == "subject"):
            prev = before  # 'pts are 65+': the people's age
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
    events = [p for p in preds if p.kind in {"event", "encounter", "death"}]
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
        return CalendarWindow(start=spec.start, end=spec.end, start_at=spec.start_at)
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
                point="last_encounter" if spec.which == "last" else "first_encounter"
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
