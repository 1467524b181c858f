"""What a patient-level question asks of the notes: a value or a yes/no finding, its target
phrase, and the encounter scope and time window it stays inside.

The scope and window come from the structured plan when the tables produced one (the
structured evidence already found), else from the parser's own slot reader (``at the last
emergency visit``, ``in 2015``) plus calendar days (``on 2015-08-15``). The target is what is
left of the question once the question words, the patient and the scope are taken out.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["NoteQuestion", "read_question"]

_YESNO = re.compile(
    r"^\s*(does|did|do|is|was|were|are|has|have|had|any|can|could)\b|\bor not\b", re.I
)
_VALUE = re.compile(
    r"^\s*(what|which|how (much|high|low|many|fast|long|heavy|tall)|give|report|tell|show|list)\b",
    re.I,
)
_NOTES_WORDS = re.compile(r"\b(notes?|documented|charted|written|narrative|report(ed|s)?)\b", re.I)
_LEAD = re.compile(
    r"^\s*(what|which|how much|how high|how low|how fast|how heavy|how tall|give me|give|tell me|"
    r"report|show me|show|list|does|did|do|is|was|were|are|has|have|had|any|can|could)\b"
    r"(\s+(was|is|were|are|the|a|an|there|it)\b)*",
    re.I,
)
_PATIENT = re.compile(
    r"\b(the\s+)?(patient|pt|subject|person|woman|man|she|he)('s|s)?\b|\b(his|her|their)\b", re.I
)
_FILLER = re.compile(
    r"\b(according to|in|on|from|per|as)\s+(the\s+)?(clinical\s+)?(notes?|chart|records?|documentation)\b"
    r"|(?<!previously )\b(documented|mentioned|noted|recorded|charted|written|reported|stated|described)\b"
    r"|\b(report|reports|have|has|had|show|shows|showed|present with|presented with|"
    r"experience|experienced|suffer from|suffered from|complain of|complained of|complaining of|"
    r"any|a|an|the|value|level|result|reading|measurement|recorded|measured|there|evidence of|"
    r"signs of|sign of|or not|ever|currently|now|at all|found)\b",
    re.I,
)
_DAY = re.compile(r"\b(on|dated)\s+(\d{4}-\d{2}-\d{2})\b", re.I)
_UNIT = re.compile(
    r"\b(?:in|as)\s+(mg/dl|g/dl|mmol/l|µmol/l|umol/l|meq/l|kg|lbs?|cm|%|bpm|mmhg)\b", re.I
)
_ORDER = {
    "last": re.compile(r"\b(last|latest|most recent|final|current)\b", re.I),
    "first": re.compile(r"\b(first|initial|earliest|on admission|at admission|admission)\b", re.I),
}


@dataclass
class NoteQuestion:
    """The notes' view of one question."""

    kind: Literal["value", "yesno"]
    target: str
    unit: str | None = None
    scope: dict[str, Any] | None = None
    """Encounter scope (``which``: first/last/nth/all, ``type``, ``n``) or None."""
    start: dt.date | None = None
    end: dt.date | None = None
    order: str | None = None
    """'first' or 'last' when the question picks one of several values by time."""
    asks_notes: bool = False
    notes: list[str] = field(default_factory=list)


def _kind(question: str, plan: dict[str, Any] | None) -> Literal["value", "yesno"] | None:
    op = ((plan or {}).get("aggregate") or {}).get("op")
    if op == "exists":
        return "yesno"
    if op in {"first", "last", "min", "max", "mean", "median"}:
        return "value"
    if _YESNO.search(question):
        return "yesno"
    if _VALUE.search(question):
        return "value"
    return None


def _from_plan(nq: NoteQuestion, plan: dict[str, Any]) -> None:
    scope = plan.get("scope")
    if scope:
        nq.scope = {k: scope.get(k) for k in ("which", "type", "n")}
    window = plan.get("window") or {}
    if window.get("kind") == "calendar":
        nq.start = _date(window.get("start"))
        nq.end = _date(window.get("end"))


def _date(v: Any) -> dt.date | None:
    if isinstance(v, dt.date):
        return v
    try:
        return dt.date.fromisoformat(str(v)[:10]) if v else None
    except ValueError:
        return None


_APPLIED = {"scope", "encounter", "patient"}


def _kept(p: Any) -> str:
    """A piece's words for the target: text as is, a slot's own words unless the notes apply
    the slot themselves (an encounter scope, a calendar window)."""
    if isinstance(p, str):
        return p
    if p.kind in _APPLIED:
        return " "
    if p.kind == "window" and getattr(p.data.get("spec"), "kind", None) == "calendar":
        return " "
    return f" {p.text} "


def _target(pieces: list[Any]) -> str:
    text = "".join(_kept(p) for p in pieces)
    text = _DAY.sub(" ", text)
    text = _UNIT.sub(" ", text)
    text = _LEAD.sub(" ", text)
    text = _PATIENT.sub(" ", text)
    for _ in range(2):
        text = _FILLER.sub(" ", text)
    for pat in _ORDER.values():
        text = pat.sub(" ", text)
    text = re.sub(r"[?!.,;:]+", " ", text)
    text = re.sub(r"\b(of|at|during|for|with|in|on|to|by|and)\s*$", " ", " ".join(text.split()))
    return re.sub(r"^\s*(of|for|with|to)\b", " ", text).strip()


def read_question(question: str, plan: dict[str, Any] | None = None) -> NoteQuestion | None:
    """The notes' reading of ``question`` (None: not a value or yes/no question).

    Args:
        question: The question as asked.
        plan: The structured answer's plan (JSON), when the tables produced one: its encounter
            scope and calendar window are kept.
    """
    from clinbridge.engine.understand._slots import Slot, extract

    kind = _kind(question, plan)
    if kind is None:
        return None
    pieces = extract(question)
    nq = NoteQuestion(kind=kind, target=_target(pieces))
    nq.asks_notes = bool(_NOTES_WORDS.search(question))
    unit = _UNIT.search(question)
    nq.unit = unit.group(1) if unit else None
    for word, pat in _ORDER.items():
        if pat.search(question) and nq.order is None:
            nq.order = word
    if plan:
        _from_plan(nq, plan)
    for p in pieces:
        if not isinstance(p, Slot):
            continue
        if p.kind == "scope" and nq.scope is None:
            nq.scope = dict(p.data)
        elif p.kind == "window" and nq.start is None and nq.end is None:
            spec = p.data.get("spec")
            if spec is not None and getattr(spec, "kind", None) == "calendar":
                nq.start, nq.end = spec.start, spec.end
            else:
                nq.notes.append("a relative time window is not applied to notes")
    day = _DAY.search(question)
    if day and nq.start is None:
        nq.start = nq.end = dt.date.fromisoformat(day.group(2))
    if nq.scope is not None:
        nq.order = None  # the scope picks the encounter; 'first'/'last' were about it
    return nq if nq.target else None
