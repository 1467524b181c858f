"""Read one patient's 'how many days between two events' whole, or hand the question on.

The shape: a unit of time asked for ('how many days', 'number of days', 'in days'), one
patient, and two events joined by one of the constructions that order them:

* 'between A and B', 'from A to B' (until, till), 'A separate(s) from B' — from A to B;
* 'B minus A' (the later first, as arithmetic writes it), 'A -> B'.

Each event is one concept the source records, optionally with the occurrence meant ('first',
'1st', 'earliest', 'starting', 'onset' — the first; 'last', 'latest', 'most recent' — the
last; 'second', '2nd' ... — that one, counted from the first) and the kind of record ('diagnosis',
'exposure', 'condition_start_date' — which stream it must be in), or the patient's first or
last encounter of a type ('her first inpatient admission'), or death. An event that says no
occurrence is the first. 'the first two X' / 'her 1st and 2nd X' name the same concept twice.

The plan is ``days_between`` (``Measure.start_at`` → ``end_at``): the days from A to B, only
when B falls on a later day (else no answer, which the validator refuses); any unit other than
days abstains, naming it. Any word outside the shape leaves the question to the general reader
(None), so a cohort condition, a window or a second patient is never dropped.
"""

from __future__ import annotations

import re
from typing import Any

from clinbridge.catalog import Catalog
from clinbridge.engine.plan import (
    Aggregate,
    ConceptRef,
    ConceptSet,
    EventAnchor,
    Measure,
    PatientAnchor,
    QueryPlan,
)
from clinbridge.engine.understand._ground import Concept, Word, ground_text
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._shorthand import expand_words
from clinbridge.engine.understand._text import normalize

__all__ = ["patient_in", "read_between", "time_counted"]

_NOTE = "read as the days between two events of one patient"
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_PATIENT = re.compile(
    rf"\b(?:for\s+|of\s+)?(?:(?:patient|person)(?:\s*_?\s*id)?\s+(?P<id>{_UUID}|\d+)|(?P<uuid>{_UUID}))"
    r"(?:\s*'\s*s\b)?"
)
_UNIT = re.compile(
    r"(?:^\s*|\b(?:how\s+many|(?:the\s+)?number\s+of|count\s+of|difference\s+in|in)\s+)"
    r"(?P<u>days|weeks|months|years)\b"
)
_FIRST_TWO = re.compile(
    r"\bbetween\s+(?:the\s+|her\s+|his\s+|their\s+)?(?:first|1st)\s+(?:two|2)\s+"
)
"""'between the first two X': between the first X and the second X."""
_SPLITS = (  # (pattern, whether the first group is the earlier event)
    (re.compile(r"\bbetween\s+(?P<a>.+?)\s+and\s+(?P<b>.+)$"), True),
    (re.compile(r"\bfrom\s+(?P<a>.+?)\s+(?:to|until|till)\s+(?P<b>.+)$"), True),
    (re.compile(r"\bseparates?\s+(?P<a>.+?)\s+from\s+(?P<b>.+)$"), True),
    (re.compile(r"^(?P<b>.+?)\s+minus\s+(?P<a>.+)$"), False),
    (re.compile(r"^(?P<a>.+?)\s*-+>\s*(?P<b>.+)$"), True),
)
_SHAPE_WORDS_TEXT = """how many number of count difference in days passed elapsed gone went by have has had is was
    were it did does do the a an what for patient s separate separates between from to until
    till and minus there lapsed intervened calculate compute give me tell please first of each"""
_SHAPE_WORDS = frozenset(_SHAPE_WORDS_TEXT.split())
_FIRST = frozenset(["first", "1st", "earliest", "initial", "index"])
_START_TEXT = """starting start started onset began beginning"""
_START = frozenset(_START_TEXT.split())
"""Words of an event's start: the first occurrence, unless an occurrence is said ('the start
of her last admission')."""
_LAST = frozenset(["last", "latest", "final", "recent"])
_NTH = {"second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_KINDS = {
    "condition": ("condition",),
    "diagnosis": ("condition",),
    "diagnoses": ("condition",),
    "diagnosed": ("condition",),
    "dx": ("condition",),
    "exposure": ("drug",),
    "exposures": ("drug",),
    "prescription": ("drug",),
    "prescribed": ("drug",),
    "drug": ("drug",),
    "procedure": ("procedure",),
    "measurement": ("measurement",),
}
_EVENT_WORDS_TEXT = """the a an her his their its patient s of most date dates start occurrence occurrences record
    records event events time times value on one ones dose doses calendar"""
_EVENT_WORDS = frozenset(_EVENT_WORDS_TEXT.split())
"""Words around an event that name no event ('her death (calendar dates)': the days are
counted between calendar dates, which is how ``days_between`` counts them)."""
_ENCOUNTER = re.compile(
    r"^(?P<t>inpatient|hospital|emergency|er|ed|outpatient|icu)?\s*"
    r"(?:(?P<admit>admissions?|admits?|hospitali[sz]ations?)|visits?|encounters?|stays?)$"
)
_ETYPE = {"hospital": "inpatient", "er": "emergency", "ed": "emergency"}


class _NotRead(Exception):
    """The question is not this shape (the general reader takes it)."""


def patient_in(text: str, patient_id: str | None) -> tuple[str, str | None] | None:
    """(the text with the patient named in it written 'patient', the patient's id or None);
    None when two different patients are named (or another than the one asked about)."""
    ids = {m["id"] or m["uuid"] for m in _PATIENT.finditer(text)}
    if patient_id is not None:
        ids.add(patient_id)
    if len(ids) > 1:
        return None
    return _PATIENT.sub(" patient ", text), (ids.pop() if ids else None)


def _patient(text: str, patient_id: str | None) -> tuple[str, str]:
    found = patient_in(text, patient_id)
    if found is None or found[1] is None:
        raise _NotRead
    return found[0], found[1]


def _occurrence(words: list[str]) -> tuple[str, int | None, list[str]]:
    """(first | last, nth counted from the first, the words left) of one event's words."""
    which: set[str] = set()
    nth: int | None = None
    rest: list[str] = []
    for k, w in enumerate(words):
        if w in _START:  # the default occurrence already
            continue
        if w in _FIRST:
            which.add("first")
        elif w in _LAST and not (w == "recent" and (k == 0 or words[k - 1] != "most")):
            which.add("last")
        elif w in _NTH:
            nth = _NTH[w]
        else:
            rest.append(w)
    if len(which) > 1 or (nth and which):
        raise _NotRead
    return (which.pop() if which else "first"), nth, rest


def _kinds(words: list[str]) -> tuple[set[str], list[str]]:
    kinds: set[str] = set()
    rest: list[str] = []
    for w in words:
        parts = w.split("_")
        named = {k for p in parts for k in _KINDS.get(p, ())}
        if named or w in _KINDS:
            kinds |= named
        else:
            rest.append(w)
    return kinds, rest


def _concept(words: list[str], kinds: set[str], lex: Lexicon) -> tuple[str, ConceptSet, Grounding]:
    """The one concept the event's remaining words name (every word read)."""
    phrase = " ".join(words)
    if not phrase:
        raise _NotRead
    items = ground_text(phrase, lex, embeddings=False)
    concepts = [i for i in items if isinstance(i, Concept)]
    loose = [i for i in items if isinstance(i, Word) and i.text not in _EVENT_WORDS]
    # labels tied for best that name one and the same concept are no choice
    if len(concepts) != 1 or loose or len({frozenset(t) for t in concepts[0].tied}) > 1:
        raise _NotRead
    c = concepts[0]
    entries = [lex.entries[e] for e in (c.primary or c.entries)]
    if kinds:
        entries = [e for e in entries if e.stream in kinds]
    streams = {e.stream_name for e in entries}
    if len(streams) != 1:
        raise _NotRead  # none of the named kind, or two streams: not this reader's to choose
    refs = tuple(dict.fromkeys(ConceptRef(concept_id=e.code, name=e.name) for e in entries))
    grounding = Grounding(
        phrase=c.phrase,
        kind="concept",
        target=f"{entries[0].stream}: {'; '.join(e.name for e in entries[:5])}",
        how=c.how,
        score=c.score,
        codes=tuple(str(e.code) for e in entries)[:50],
    )
    return streams.pop(), ConceptSet(concepts=refs, label=c.phrase), grounding


def _parse(words: list[str]) -> tuple[str, int | None, set[str], list[str]]:
    """(first | last, nth, kinds of record named, the words naming the event) of one event."""
    which, nth, rest = _occurrence(words)
    kinds, rest = _kinds(rest)
    return which, nth, kinds, [w for w in rest if w not in _EVENT_WORDS]


def _event(
    which: str, nth: int | None, kinds: set[str], core: list[str], lex: Lexicon, cat: Catalog
) -> tuple[Any, Grounding | None, str]:
    """(the anchor of one event, its grounding, how it reads)."""
    enc = _ENCOUNTER.match(" ".join(core))
    if enc is not None:
        if nth is not None or cat.encounters is None or kinds:
            raise _NotRead
        etype = _ETYPE.get(enc["t"], enc["t"]) if enc["t"] else None
        etype = etype or ("inpatient" if enc["admit"] else None)  # an admission: to hospital
        point = "first_encounter" if which == "first" else "last_encounter"
        said = f"{which} {etype + ' ' if etype else ''}encounter"
        return PatientAnchor(point=point, encounter_type=etype), None, said  # type: ignore[arg-type]
    if core == ["death"]:
        if nth is not None or kinds:
            raise _NotRead
        return PatientAnchor(point="death"), None, "death"
    stream, concepts, grounding = _concept(core, kinds, lex)
    if nth is not None and nth > 1:
        anchor = EventAnchor(stream=stream, concepts=concepts, which="first", nth=nth)
        return anchor, grounding, f"event {nth} of {grounding.phrase}"
    anchor = EventAnchor(stream=stream, concepts=concepts, which=which)  # type: ignore[arg-type]
    return anchor, grounding, f"the {which} {grounding.phrase}"


def _events(a: list[str], b: list[str], lex: Lexicon, cat: Catalog) -> tuple[Any, ...]:
    """Both events; one that names no event ('her 1st and 2nd X', 'her last one') is the
    other's event at its own occurrence; 'between the first two X' is the first and second X."""
    pa, pb = _parse(a), _parse(b)
    if not pa[3] and pb[3]:
        pa = (pa[0], pa[1], pa[2] or pb[2], pb[3])
    elif not pb[3] and pa[3]:
        pb = (pb[0], pb[1], pb[2] or pa[2], pa[3])
    if pa[:2] == pb[:2] and pa[3] == pb[3]:
        raise _NotRead  # the same occurrence twice
    pb = (*pb[:3], _object_said(pa[3], pb[3]))  # 'insertion of X and its removal'
    pa = (*pa[:3], _object_said(pb[3], pa[3]))
    return _event(*pa, lex, cat) + _event(*pb, lex, cat)


def _object_said(other: list[str], core: list[str]) -> list[str]:
    """A bare action noun ('its removal') takes the other event's object ('insertion of a
    subcutaneous contraceptive' → 'subcutaneous contraceptive removal'): read alone it names
    every removal the source records."""
    from clinbridge.engine.understand._elided_object import ACTIONS

    if len(core) != 1 or core[0] not in ACTIONS:
        return core
    obj = [w for w in other if w not in ACTIONS]
    return [*obj, core[0]] if obj and len(obj) < len(other) else core


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:[_.-][a-z0-9]+)*", text)


def _split(text: str) -> tuple[str, str, str]:
    """(the earlier event's text, the later's, the shape's own words) — one construction."""
    two = _FIRST_TWO.search(text)
    if two is not None:
        rest = text[two.end() :]
        return f"first {rest}", f"second {rest}", text[: two.start()]
    found = [(p.search(text), earlier) for p, earlier in _SPLITS]
    hits = [(m, earlier) for m, earlier in found if m is not None]
    if len(hits) != 1:
        raise _NotRead
    m, _ = hits[0]
    return m["a"], m["b"], text[: m.start()] + " " + text[m.end() :]


def _trailing(words: list[str]) -> tuple[list[str], list[str]]:
    """An event's words without the shape's words trailing it (', in days', 'for patient')."""
    k = len(words)
    while k and words[k - 1] in _SHAPE_WORDS and words[k - 1] not in _FIRST | _LAST:
        k -= 1
    return words[:k], words[k:]


def read_between(question: str, ctx: Any) -> Reading | None:
    """A reading of a days-between-two-events question for one patient; None when it is not one.
    ``ctx`` is the reader's ``UnderstandContext`` (lexicon, catalog, patient id, now)."""
    lex, catalog, patient_id, now = ctx.lexicon, ctx.catalog, ctx.patient_id, ctx.now
    if catalog is None:
        return None
    text = expand_words(normalize(question)).replace("(", " ").replace(")", " ")
    units = {m["u"] for m in _UNIT.finditer(text)}
    if len(units) != 1:
        return None
    try:
        text, pid = _patient(text, patient_id)
        a_text, b_text, outside = _split(_UNIT.sub(" ", text))
        a_words, a_tail = _trailing(_words(a_text))
        b_words, b_tail = _trailing(_words(b_text))
        if any(w not in _SHAPE_WORDS for w in _words(outside) + a_tail + b_tail):
            return None
        start, g1, said1, end, g2, said2 = _events(a_words, b_words, lex, catalog)
    except _NotRead:
        return None
    unit = units.pop()
    if unit != "days":
        return Reading(
            question=question,
            abstain_reason=f"the time between two events is given in days only, not in {unit}",
        )
    plan = QueryPlan(
        question=question,
        patient_id=pid,
        measure=Measure(of="days_between", start_at=start, end_at=end),
        aggregate=Aggregate(op="max"),
        now=now,
    )
    said = Grounding(
        phrase="days between", kind="aggregate", target=f"days from {said1} to {said2}"
    )
    groundings = (*(g for g in (g1, g2) if g is not None), said)
    return Reading(
        question=question, plan=plan, confidence=0.9, groundings=groundings, notes=(_NOTE,)
    )


_HOW_MANY_TIME = re.compile(
    r"\bhow\s+many\s+(hours|days|weeks|months|years)\b(?!\s*'?\s*supply)", re.I
)


def time_counted(question: str, plan: QueryPlan) -> tuple[str, str] | None:
    """(why, phrase) when 'how many days ...' was read as a count of records or patients: the
    question asks for a time, which no count of things is."""
    m = _HOW_MANY_TIME.search(question)
    if m is None or plan.aggregate.op not in {"count", "count_distinct"}:
        return None
    if plan.measure.of not in {"patients", "events", "encounters", "concept"}:
        return None
    return f"'how many {m[1]}' asks for a time, read as a count of {plan.measure.of}", m[0]
