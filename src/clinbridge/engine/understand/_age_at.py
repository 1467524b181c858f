"""An age threshold taken at an event named after it: 'patients aged 65+ at their first hip
fracture', 'hip fx pts 65+ at time of fracture'.

The words 'at (the time of) (their first) ...' after an age mark it as the age at that event;
the walk then holds the age until the event's concept arrives and puts it on that event (or on
the event named before the age, when the later phrase names the same thing again). An age
marked so that no event takes is an abstention, never an age 'now'.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from clinbridge.engine.plan import AgeFilter
from clinbridge.engine.understand._pieces import Piece, Slot

if TYPE_CHECKING:
    from clinbridge.engine.understand._ground import Concept

__all__ = ["hold_age", "mark_age_at_event", "place_pending_age", "unplaced_age"]

_AT_EVENT = re.compile(
    r"^\s*(?:at|when|on)\s+(?:the\s+)?(?:time\s+of\s+)?(?:(?:their|his|her|the)\s+)?"
    r"(?=(?:first|earliest|initial|index|last|latest|[a-z]{3,}))"
)
_NOT_EVENT = re.compile(r"^\s*(?:at|on)\s+(?:the\s+)?(?:present|now|today|least|most|baseline)\b")


def mark_age_at_event(pieces: list[Piece]) -> list[Piece]:
    """An age (or a bare threshold) followed by 'at (the time of) (their) ...' is the age at
    the event named next: the slot is marked and the linking words are consumed."""
    out = list(pieces)
    for k, p in enumerate(out[:-1]):
        if not (isinstance(p, Slot) and p.kind in {"age", "number", "value"}):
            continue
        if p.kind == "value" and not _age_like(p.data):
            continue
        nxt = out[k + 1]
        if (
            isinstance(nxt, Slot)
            and nxt.kind == "intent"
            and nxt.data.get("op") == "date"
            and nxt.text.strip() == "when"
        ):  # "65 or older when they first had X": the 'when' names the event, not a date
            p.data["at_event"] = True
            p.data["event_after"] = True
            out[k + 1] = " "
            continue
        if not isinstance(nxt, str) or _NOT_EVENT.match(nxt):
            continue
        m = _AT_EVENT.match(nxt)
        if m is None:
            continue
        p.data["at_event"] = True
        p.data["event_after"] = True
        out[k + 1] = " " + nxt[m.end() :]
    return out


def _age_like(d: dict[str, Any]) -> bool:
    v = d.get("value")
    return (
        d.get("unit") is None
        and d.get("value2") is None
        and isinstance(v, int | float)
        and 0 <= v <= 120
        and float(v).is_integer()
    )


def hold_age(w: Any, s: Slot, data: dict[str, Any]) -> bool:
    """Hold an age marked 'at the event named next' for that event; True when held."""
    if not s.data.get("event_after"):
        return False
    from clinbridge.engine.understand._context import Abstain

    if w.pending_age is not None:
        raise Abstain("two ages at events; ask one at a time", s.text)
    age = AgeFilter(op=data["op"], value=int(data["value"]), value2=data.get("value2"))
    w.pending_age = (age, w.last_event, s.text)
    return True


def place_pending_age(w: Any, item: Concept, pred: Any | None) -> bool:
    """Put the held age on the event of ``item``: on the earlier event when ``item`` names it
    again ('hip fx ... at time of fracture'; True: the concept adds no predicate), else on
    ``pred`` (the new event). Ages at events count each patient's first event."""
    if w.pending_age is None:
        return False
    age, before, _ = w.pending_age
    target = pred
    again = (
        before is not None
        and before.kind == "event"
        and before.concept is not None
        and bool(set(item.entries) & set(before.concept.entries))
    )
    if again:
        target = before
    if target is None:
        return False
    target.age_at_event = age
    target.first_only = True
    w.pending_age = None
    return again


def unplaced_age(w: Any) -> None:
    """An age marked as taken at an event that no later concept took: the event named before
    it ('their first hip fracture at age 65 or older (... at the diagnosis date)'), else
    abstain — never an age 'now'."""
    from clinbridge.engine.understand._context import Abstain

    if w.pending_age is None:
        return
    age, before, text = w.pending_age
    if before is not None and before.kind == "event" and before.age_at_event is None:
        before.age_at_event = age
        if w.pending_first is not None:
            before.first_only = True
            w.ctx.consumed.add(id(w.pending_first))
            w.pending_first = None
        w.pending_age = None
        return
    raise Abstain(f"could not tell which event the age {text!r} is taken at", text)
