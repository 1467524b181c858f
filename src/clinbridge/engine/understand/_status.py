"""'Currently on lisinopril', 'an active sepsis', 'conditions that resolved': an event's status.

The slot reader marks status words (``Slot("status")``: currently, still, active, ongoing →
``active``; resolved, inactive, no longer active → ``ended``). Here the plan built without them
gets the status on the one set of events it is about: the one event filter with concepts (not
negated, without a time window), else a measure of events or concepts. What 'active' means at
'now' — by the source's recorded status, else by the dates — is the compiler's
(``engine/_status.py``), which refuses a stream with neither. A status on a patient's filter
that ``ended`` also asks that none of the patient's such events is still active ('is her
sinusitis resolved': not while another episode is active).

Where no set of events, or more than one, could carry the status, or the question also has a
time window ('active in 2015' is another question), the reading abstains naming the words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from clinbridge.engine.plan import EventFilter, QueryPlan
from clinbridge.engine.understand._context import Abstain, _slots
from clinbridge.engine.understand._ground import Concept
from clinbridge.engine.understand._pieces import Slot

__all__ = ["apply_status", "without_status"]

_MEASURED = frozenset(("concept", "events"))


def without_status(items: Sequence[Any]) -> list[Any]:
    """The items without their status slots: the plan is first built as if they were not said
    ('how many active conditions' counts conditions, as 'how many conditions' does)."""
    return [i for i in items if not (isinstance(i, Slot) and i.kind == "status")]


def apply_status(plan: QueryPlan, items: Sequence[Any]) -> QueryPlan:
    """``plan`` with the question's status words applied; raises Abstain where they cannot be."""
    slots = _slots(items, "status")
    if not slots:
        return plan
    words = ", ".join(repr(s.text) for s in slots)
    states = {s.data["state"] for s in slots}
    if len(states) > 1:
        raise Abstain(f"the question asks both whether events are active and ended ({words})")
    state = states.pop()
    what = "current status" if state == "active" else "whether events have ended"
    if plan.window is not None or plan.group_by or plan.scope is not None:
        raise Abstain(
            f"the question asks about {what} ({words}) together with a time window, scope or "
            "grouping, which is not read here"
        )
    where = [
        k
        for k, flt in enumerate(plan.filters)
        if isinstance(flt, EventFilter) and flt.concepts is not None and not flt.negate
    ]
    m = plan.measure
    if len(where) > 1:
        where = _named(plan, where, items)
    if len(where) == 1:
        flt = plan.filters[where[0]]
        assert isinstance(flt, EventFilter)
        if flt.window is not None or flt.first_only:
            raise Abstain(
                f"the question asks about {what} ({words}) of events in a time window, "
                "which is not read here"
            )
        return _status_filters(plan, where[0], state)
    if not where and m.of == "events" and m.stream and plan.aggregate.op == "exists":
        # 'is her sinusitis resolved': an ended episode and none still active
        flt = EventFilter(stream=m.stream, concepts=m.concepts, value=m.value)
        return _status_filters(plan.model_copy(update={"filters": (flt,)}), 0, state)
    if not where and m.of in _MEASURED and m.stream is not None:
        return plan.model_copy(update={"measure": m.model_copy(update={"status": state})})
    raise Abstain(
        f"the question asks about {what} ({words}) but could not tell which events it is about"
    )


def _named(plan: QueryPlan, where: list[int], items: Sequence[Any]) -> list[int]:
    """Of several event filters, the one the status words are about: the concept named first
    after them ('with hypertension are currently on lisinopril'), or the one named last before
    them where none follows or they open a clause of their own ('sepsis that resolved')."""
    k = next(n for n, i in enumerate(items) if isinstance(i, Slot) and i.kind == "status")
    after = [i.phrase for i in items[k + 1 :] if isinstance(i, Concept)]
    before = [n for n, i in enumerate(items[:k]) if isinstance(i, Concept)]
    between = (
        [str(getattr(i, "text", "")).lower() for i in items[before[-1] : k + 1]] if before else []
    )
    postposed = any(w.startswith(("that", "which")) for w in between)
    phrase = [items[before[-1]].phrase] if before and (postposed or not after) else after[:1]
    hits = [
        n
        for n in where
        if isinstance(f := plan.filters[n], EventFilter)
        and f.concepts is not None
        and phrase
        and phrase[0] in (f.concepts.label or "").split(" or ")
    ]
    return hits if len(hits) == 1 else where


def _status_filters(plan: QueryPlan, k: int, state: str) -> QueryPlan:
    """The plan with its ``k``-th filter given the status (an ``ended`` one: and no such event
    still active); a yes/no question then asks whether the patient is in that cohort."""
    flt = plan.filters[k]
    assert isinstance(flt, EventFilter)
    kept = flt.model_copy(update={"status": state})
    extra: tuple[EventFilter, ...] = ()
    if state == "ended":
        extra = (flt.model_copy(update={"status": "active", "negate": True}),)
    filters = (*plan.filters[:k], kept, *extra, *plan.filters[k + 1 :])
    update: dict[str, Any] = {"filters": filters}
    if plan.aggregate.op == "exists" and plan.measure.of == "events":
        update["measure"] = plan.measure.model_copy(
            update={"of": "patients", "stream": None, "concepts": None, "value": None}
        )
    return plan.model_copy(update=update)
