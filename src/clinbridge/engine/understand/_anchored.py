"""Measures taken at a patient's anchor: days between two events, age at an event, a patient's
own dates (birth, death). Split from ``_assemble`` (which picks the measure)."""

from __future__ import annotations

from typing import Any

from clinbridge.engine.plan import Measure, PatientAnchor
from clinbridge.engine.understand._context import (
    Abstain,
    Ctx,
    Item,
    _concept_set,
    _ps,
    _slots,
    _stream_for,
)
from clinbridge.engine.understand._ground import Concept
from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._slots import Slot

__all__ = ["age_at_event", "days_between", "linked_event", "patient_point"]


def days_between(items: list[Item], ctx: Ctx, mslot: Slot) -> Measure:
    """'median days from the first X to the first Y': per patient, days from the first (or
    last, when the question says so) X to the first Y; the two concepts follow the words."""
    from clinbridge.engine.plan import EventAnchor

    k = next(k for k, i in enumerate(items) if i is mslot)
    if mslot.data.get("span"):
        return _span(items, ctx, mslot, k)
    after = [(j, i) for j, i in enumerate(items) if j > k and isinstance(i, Concept)][:2]
    if len(after) < 2:
        nth = _nth_of_one(items, ctx, mslot, k)  # 'from the first dose to the second dose'
        if nth is not None:
            return nth
        raise Abstain("could not tell which two events the time is between", mslot.text)
    anchors = []
    prev = k
    for j, c in after:
        st = _stream_for(c, ctx.lex)
        if st is None:
            raise Abstain(f"{c.label!r} is not recorded in this source", c.phrase)
        which = "first"
        for o in _slots(items[prev:j], "order"):
            ctx.consumed.add(id(o))
            which = o.data["which"]
        prev = j
        anchors.append(
            EventAnchor(
                stream=_ps(c, st, ctx.lex), concepts=_concept_set(c, st, ctx.lex, ctx), which=which
            )  # type: ignore[arg-type]
        )
        ctx.measure_positions.add(j)
    ctx.groundings.append(
        Grounding(
            phrase=mslot.text,
            kind="aggregate",
            target=f"days from the {anchors[0].which} {after[0][1].phrase} to the {anchors[1].which} {after[1][1].phrase} (when later)",
        )
    )
    return Measure(of="days_between", start_at=anchors[0], end_at=anchors[1])


def _nth_of_one(items: list[Item], ctx: Ctx, mslot: Slot, k: int) -> Measure | None:
    """Days from one occurrence of the question's one concept to a later one ('the first dose
    to the second dose', 'dose 1 and dose 2'): two order slots after the measure, one of them an
    nth (``._nth_event``), and one concept in the question; None otherwise."""
    from clinbridge.engine.plan import EventAnchor

    orders = list(_slots(items[k + 1 :], "order"))
    concepts = [i for i in items if isinstance(i, Concept)]
    if len(orders) != 2 or len(concepts) != 1 or not any("nth" in o.data for o in orders):
        return None
    keys = [(o.data["which"], o.data.get("nth", 1)) for o in orders]
    if keys[0] == keys[1] or any(w != "first" for w, _ in keys) or keys[0][1] > keys[1][1]:
        return None
    c = concepts[0]
    st = _stream_for(c, ctx.lex)
    if st is None:
        raise Abstain(f"{c.label!r} is not recorded in this source", c.phrase)
    stream, cs = _ps(c, st, ctx.lex), _concept_set(c, st, ctx.lex, ctx)
    anchors = []
    for o, (_w, n) in zip(orders, keys, strict=True):
        ctx.consumed.add(id(o))
        anchors.append(
            EventAnchor(stream=stream, concepts=cs, which="first", nth=n if n > 1 else None)
        )
    ctx.groundings.append(
        Grounding(
            phrase=mslot.text,
            kind="aggregate",
            target=f"days from event {keys[0][1]} to event {keys[1][1]} of {c.phrase} (when later)",
        )
    )
    return Measure(of="days_between", start_at=anchors[0], end_at=anchors[1])


def age_at_event(items: list[Item], ctx: Ctx, mslot: Slot) -> Measure:
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


def patient_point(items: list[Item], patient_id: str | None) -> Measure | None:
    """'the date of birth of patient X', 'when did X die': the patient's own date."""
    marks = _slots(items, "patient_date")
    if marks:
        return Measure(of="date", point=PatientAnchor(point=marks[0].data["point"]))
    if patient_id and _slots(items, "death") and not any(isinstance(i, Concept) for i in items):
        return Measure(of="date", point=PatientAnchor(point="death"))
    return None


def linked_event(items: list[Item], ctx: Ctx, after: int | None) -> tuple[int, str, Any] | None:
    """'stays where GI bleed was diagnosed', 'inpatient visits linked to X', 'X admissions':
    the concept right after the encounter words (no person word between, none after it) or
    right before them names what happened during the encounter — (position, stream, concept
    set). None when the concept describes the patients ('visits of patients with X')."""
    from clinbridge.engine.understand._ground import Word

    if after is None:
        return None
    enc = [k for k, i in enumerate(items) if isinstance(i, Slot) and i.kind == "encounter"]
    k0 = enc[0] if enc else after
    for j in range(k0 + 1, len(items)):
        i = items[j]
        if isinstance(i, Word) and i.role == "subject":
            return None
        if isinstance(i, Slot) and i.kind not in {"encounter"}:
            return None
        if isinstance(i, Concept):
            nxt = next((x for x in items[j + 1 :] if not _filler(x)), None)
            if isinstance(nxt, Word) and nxt.role == "subject":
                return None
            return _linked(items, ctx, j, i)
    prev = items[k0 - 1] if k0 > 0 and enc else None
    if isinstance(prev, Concept):
        return _linked(items, ctx, k0 - 1, prev)
    return None


def _filler(i: Item) -> bool:
    from clinbridge.engine.understand._ground import Word

    return isinstance(i, Word) and i.role in {"boundary", "hint", "stream_noun", "connector"}


def _linked(items: list[Item], ctx: Ctx, k: int, c: Concept) -> tuple[int, str, Any]:
    st = _stream_for(c, ctx.lex)
    if st is None:
        raise Abstain(f"{c.label!r} is not recorded in this source", c.phrase)
    ctx.groundings.append(
        Grounding(phrase=c.phrase, kind="concept", target=f"encounters during which {c.label}")
    )
    return k, _ps(c, st, ctx.lex), _concept_set(c, st, ctx.lex, ctx)


def _span(items: list[Item], ctx: Ctx, mslot: Slot, k: int) -> Measure:
    """Days from the first to the last event of the one kind named after the measure: a
    concept's events, or (no concept) the patient's encounters of the type named."""
    from clinbridge.engine.plan import EventAnchor

    after = [(j, i) for j, i in enumerate(items) if j > k and isinstance(i, Concept)]
    enc = [i for i in items[k + 1 :] if isinstance(i, Slot) and i.kind == "encounter"]
    if after:
        j, c = after[0]
        st = _stream_for(c, ctx.lex)
        if st is None:
            raise Abstain(f"{c.label!r} is not recorded in this source", c.phrase)
        cs = _concept_set(c, st, ctx.lex, ctx)
        ps = _ps(c, st, ctx.lex)
        ctx.measure_positions.add(j)
        start: Any = EventAnchor(stream=ps, concepts=cs, which="first")  # type: ignore[arg-type]
        end: Any = EventAnchor(stream=ps, concepts=cs, which="last")  # type: ignore[arg-type]
        what = c.phrase
    elif enc:
        etype = enc[0].data.get("type")
        for e in enc:
            ctx.consumed.add(id(e))
        start = PatientAnchor(point="first_encounter", encounter_type=etype)
        end = PatientAnchor(point="last_encounter", encounter_type=etype)
        what = f"{etype or 'any'} encounter"
    else:
        raise Abstain("could not tell which events the first and last are of", mslot.text)
    ctx.groundings.append(
        Grounding(
            phrase=mslot.text,
            kind="aggregate",
            target=f"days from the first to the last {what}",
        )
    )
    return Measure(of="days_between", start_at=start, end_at=end)
