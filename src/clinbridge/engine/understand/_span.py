"""Days between a patient's first and last event of one kind: 'days between pt 24's first and
last visit', 'number of days from earliest to latest HbA1c result for patient X'.

A days-between measure normally names two events ('from the first X to the first Y'). When the
words are 'between the first and the last ...' (or 'from earliest to latest ...') it spans one
kind of event: the measure is marked ``span`` and its two order words consumed; the concept (or
the encounters) named after them is read by :func:`clinbridge.engine.understand._anchored.
days_between`.
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._pieces import Piece, Slot

__all__ = ["mark_span"]

_DAYS = re.compile(
    r"\b(?:(?:the\s+)?(?:number|count)\s+of\s+)?days?\s+(?:(?:have\s+|has\s+)?(?:passed|elapsed|went\s+by|were\s+there)\s+)?"
    r"(?:between|from)\s+(?:(?:the|their|his|her)\s+)?$"
)
_AND = re.compile(r"^\s*(?:and|to|until|through|till)\s+(?:(?:the|their|his|her)\s+)?$")
_REF_GLUE = re.compile(r"^\s*(?:'s|s)?\s*(?:the|their|his|her)?\s*$")


def _order(p: Piece, which: str) -> bool:
    return isinstance(p, Slot) and p.kind == "order" and p.data.get("which") == which


def mark_span(pieces: list[Piece]) -> list[Piece]:
    """Rewrite '(how many) days between [patient X's] first and last ...' into one
    ``days_between`` measure marked ``span`` (the patient reference stays where it was)."""
    out: list[Piece] = []
    for p in pieces:  # ' and ', ' the ': adjacent words are one piece of text
        if isinstance(p, str) and out and isinstance(out[-1], str):
            out[-1] = out[-1] + p
        else:
            out.append(p)
    for k, p in enumerate(out):
        lead: Piece | None = None
        if (isinstance(p, Slot) and p.kind == "measure" and p.data.get("of") == "days_between") or (
            isinstance(p, str) and _DAYS.search(p)
        ):
            lead = p
        if lead is None:
            continue
        j = k + 1
        kept: list[Piece] = []
        while j < len(out) and (
            (isinstance(out[j], Slot) and out[j].kind == "patient_ref")  # type: ignore[union-attr]
            or (isinstance(out[j], str) and _REF_GLUE.match(out[j]))  # type: ignore[arg-type]
        ):
            if isinstance(out[j], Slot):
                kept.append(out[j])
            j += 1
        if not (
            j + 2 < len(out)
            and _order(out[j], "first")
            and isinstance(out[j + 1], str)
            and _AND.match(out[j + 1])  # type: ignore[arg-type]
            and _order(out[j + 2], "last")
        ):
            continue
        head: list[Piece] = []
        if isinstance(lead, str):
            m = _DAYS.search(lead)
            assert m is not None
            text = lead[: m.start()]
            head = [text] if text.strip() else []
        # 'how many days': the days themselves are the answer, not a count of something
        if k > 0 and _is_count(out[k - 1]):
            out[k - 1] = " "
        slot = Slot("measure", {"of": "days_between", "span": True}, "days between first and last")
        _start_dates(out, j + 3)
        out[k : j + 3] = [*head, slot, *kept, " "]
        return out
    return out


def _is_count(p: Piece) -> bool:
    return isinstance(p, Slot) and p.kind == "intent" and p.data.get("op") == "count"


def _start_dates(out: list[Piece], j: int) -> None:
    """'... latest visit start date': the days are counted between the visits' start dates —
    the words 'start date' after the encounter are part of the span, not a date asked."""
    if not (j + 2 < len(out) and isinstance(out[j], Slot) and out[j].kind == "encounter"):  # type: ignore[union-attr]
        return
    text, nxt = out[j + 1], out[j + 2]
    if (
        isinstance(text, str)
        and re.fullmatch(r"\s*start\s*", text)
        and isinstance(nxt, Slot)
        and nxt.kind == "intent"
        and nxt.data.get("op") == "date"
    ):
        out[j + 1 : j + 3] = [" "]
