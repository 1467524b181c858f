"""Read one patient's time questions: the time since an event and the length of one stay.

Two general shapes, each read whole or not at all (None: the general reader takes over):

* **time since** — 'how many hours / days (have passed) since patient P's first / last X
  (during the current hospital / ICU visit)?', and 'since patient P was admitted to the ICU /
  hospital' (the encounter still open). The unit, the patient, first or last, and the scope
  are read from their words; what is left names the event, and it must be one concept the
  source records, matched by its whole name (or the same words) in the one stream the words
  point at ('lab test', 'diagnosed', 'careunit', 'input' ... through the catalog's own stream
  kinds and code column names). Any other word left over means the question is not this shape.
* **length of one stay** — 'the length of stay (in days) of patient P's first / last ICU (or
  hospital) stay': the calendar days of that one stay.

The plan is an ordinary QueryPlan: ``date`` measured ``first`` / ``last`` with
``Measure.elapsed``, or ``length_of_stay`` of one encounter; it compiles, runs and is
validated like any other.
"""

from __future__ import annotations

import datetime as dt
import re

from clinbridge.catalog import Catalog
from clinbridge.engine.plan import (
    Aggregate,
    EncounterFilter,
    EncounterScope,
    Measure,
    QueryPlan,
)
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._reading import Reading
from clinbridge.engine.understand._since_seen import read_since_seen
from clinbridge.engine.understand._span_read import (
    concept_span,
    found_concept,
    named_patient,
    shape_reading,
)

__all__ = ["read_elapsed"]

_NOTE = "read as a time-since or stay-length question"
_UNIT = re.compile(
    r"\b(?:how\s+many|what\s+(?:is\s+the\s+)?number\s+of|the\s+(?:total\s+)?number\s+of|"
    r"(?:what\s+is\s+)?the\s+count\s+of|count\s+(?:of\s+)?the)\s+(hours|days)\b"
)
_SINCE = re.compile(r"\bsince\b|\bfrom\s+the\s+time\s+(?:when|that)?\b")
_SCOPE = re.compile(
    r"\b(?:(?:on|in|during|at)\s+)?(?:the\s+|their\s+|his\s+|her\s+)?(?:current|this|present)\s+"
    r"(hospital|icu|intensive\s+care(?:\s+unit)?)\s+(?:visit|encounter|stay|admission)\b"
)
_WHICH = re.compile(
    r"\b(?:for\s+the\s+)?(first|last)(?:\s+(?:time|instance|occasion))?\b|\bmost\s+recent(?:ly)?\b"
)
_ADMITTED = re.compile(
    r"\b(?:was\s+|were\s+|got\s+)?(?:admitted|admission)\s+(?:to|in|into)\s+(?:the\s+)?"
    r"(icu|intensive\s+care(?:\s+unit)?|hospital)\b"
)
# the words of the shape itself (never part of an event's name)
_FILLER = frozenset(
    [
        "so",
        "how",
        "many",
        "what",
        "number",
        "of",
        "hours",
        "days",
        "have",
        "has",
        "had",
        "it",
        "been",
        "is",
        "was",
        "were",
        "elapsed",
        "passed",
        "gone",
        "by",
        "go",
        "since",
        "the",
        "a",
        "an",
        "that",
        "received",
        "receive",
        "got",
        "get",
        "given",
        "give",
        "took",
        "take",
        "for",
        "in",
        "on",
        "at",
        "during",
        "time",
        "their",
        "his",
        "her",
        "patient",
        "s",
        "from",
        "when",
        "be",
        "did",
        "does",
        "do",
        "there",
        "tell",
        "me",
        "please",
        "show",
        "calculate",
        "compute",
    ]
)
# words that point at the kind of record the event is (a hint, dropped from the name)
_KIND_WORDS: dict[str, tuple[str, ...]] = {
    "lab": ("measurement",),
    "laboratory": ("measurement",),
    "test": ("measurement",),
    "tests": ("measurement",),
    "diagnosed": ("condition",),
    "diagnosis": ("condition",),
    "diagnoses": ("condition",),
    "with": (),
    "prescribed": ("drug",),
    "prescription": ("drug",),
    "procedure": ("procedure",),
    "underwent": ("procedure",),
    "input": ("drug",),
    "intake": ("drug",),
    "output": ("observation",),
    "stayed": ("visit_detail",),
    "stay": ("visit_detail",),
    "visited": ("visit_detail",),
    "ward": ("visit_detail",),
    "unit": ("visit_detail",),
}
_LOS = re.compile(r"\b(?:length|duration|how\s+many\s+days|stay\s+in\s+days)\b")
_ICU = re.compile(r"\b(?:icu|intensive\s+care(?:\s+unit)?)\b")
_LOS_WORDS = frozenset(
    [
        "what",
        "is",
        "was",
        "the",
        "of",
        "length",
        "duration",
        "stay",
        "stays",
        "visit",
        "visits",
        "encounter",
        "in",
        "days",
        "day",
        "how",
        "many",
        "for",
        "from",
        "patient",
        "s",
        "calculate",
        "compute",
        "give",
        "me",
        "show",
        "tell",
        "can",
        "you",
        "could",
        "please",
        "get",
        "first",
        "last",
        "icu",
        "intensive",
        "care",
        "unit",
        "their",
        "on",
        "time",
        "was",
        "were",
        "during",
        "stayed",
        "provide",
    ]
)


def read_elapsed(
    question: str,
    lex: Lexicon,
    catalog: Catalog | None,
    *,
    patient_id: str | None = None,
    now: dt.datetime | None = None,
) -> Reading | None:
    """A reading of a time-since or one-stay-length question; None when it is not one."""
    if catalog is None or catalog.encounters is None:
        return None
    seen = read_since_seen(question, catalog, patient_id, now)  # 'days since P was last seen'
    if seen is not None:
        return seen
    named = named_patient(question, patient_id)
    if named is None:
        return None
    text, pid = named
    if _UNIT.search(text) and _SINCE.search(text):
        return _since(question, text, pid, lex, catalog, now)
    return _stay_length(question, text, pid, catalog, now)


def _scope(text: str) -> tuple[str, EncounterScope | None]:
    m = _SCOPE.search(text)
    if m is None:
        return text, None
    etype = None if m[1] == "hospital" else "icu"
    return text[: m.start()] + " " + text[m.end() :], EncounterScope(which="current", type=etype)


def _since(
    question: str,
    text: str,
    pid: str,
    lex: Lexicon,
    cat: Catalog,
    now: dt.datetime | None,
) -> Reading | None:
    um = _UNIT.search(text)
    assert um is not None
    unit = um[1]
    text = text[: um.start()] + " " + text[um.end() :]
    text, scope = _scope(text)
    adm = _ADMITTED.search(text)
    if adm is not None:  # 'since patient P was admitted to the ICU': the open encounter's start
        return _since_admitted(question, text, adm, pid, unit, scope, cat, now)
    whiches = list(_WHICH.finditer(text))
    kinds = {("last" if m[1] is None else m[1]) for m in whiches}
    if len(kinds) != 1:
        return None
    which = kinds.pop()
    for m in reversed(whiches):
        text = text[: m.start()] + " " + text[m.end() :]
    words = _words(text)
    named = _column_streams(words, cat)
    found = concept_span(words, lex, _FILLER, lambda e: not named or e.stream_name in named)
    if found is None:
        return None
    outside = [w for k, w in enumerate(words) if k not in found[0]]
    columns = {(c.code_column or "").lower().replace("_", "") for c in cat.streams}
    if any(w not in _FILLER and w not in _KIND_WORDS and w not in columns for w in outside):
        return None
    kinds = {k for w in outside for k in _KIND_WORDS.get(w, ())}
    if kinds and not named and found[2][0].stream not in kinds:
        return None  # 'lab test' named, the name found elsewhere
    _, concepts, grounding = found_concept(words, found)
    plan = QueryPlan(
        question=question,
        patient_id=pid,
        measure=Measure(of="date", stream=found[1], concepts=concepts, elapsed=unit),  # type: ignore[arg-type]
        aggregate=Aggregate(op=which),  # type: ignore[arg-type]
        scope=scope,
        now=now,
    )
    return shape_reading(question, plan, (grounding,), _NOTE)


def _words(text: str) -> list[str]:
    """The question's words; a kind word hyphened to a name ('glucose-lab test') stands apart."""
    out: list[str] = []
    for w in re.findall(r"[a-z0-9]+(?:[./%,-][a-z0-9]+)*%?|\([^)]*\)", text.replace("?", " ")):
        head, _, tail = w.rpartition("-")
        out.extend((head, tail) if head and tail in _KIND_WORDS else (w,))
    return out


def _column_streams(words: list[str], cat: Catalog) -> set[str]:
    """Streams whose code column the question names ('careunit')."""
    out: set[str] = set()
    for s in cat.streams:
        col = (s.code_column or "").lower().replace("_", "")
        if col and col in words:
            out.add(s.name)
    return out


def _since_admitted(
    question: str,
    text: str,
    adm: re.Match[str],
    pid: str,
    unit: str,
    scope: EncounterScope | None,
    cat: Catalog,
    now: dt.datetime | None,
) -> Reading | None:
    etype = None if adm[1] == "hospital" else "icu"
    rest = text[: adm.start()] + " " + text[adm.end() :]
    words = re.findall(r"[a-z0-9]+", rest)
    if any(w not in _FILLER for w in words) or scope is not None:
        return None
    if etype == "icu" and cat.nested_encounter("icu") is None:
        return None
    plan = QueryPlan(
        question=question,
        patient_id=pid,
        filters=(EncounterFilter(type=etype),) if etype else (),
        measure=Measure(of="date", encounter_type=etype, elapsed=unit),  # type: ignore[arg-type]
        aggregate=Aggregate(op="last"),
        scope=EncounterScope(which="current", type=etype),
        now=now,
    )
    return shape_reading(question, plan, (), _NOTE)


def _stay_length(
    question: str, text: str, pid: str, cat: Catalog, now: dt.datetime | None
) -> Reading | None:
    """'the length of stay in days of patient P's first ICU stay': one nested stay's length
    (only where the source records ICU stays inside its encounters)."""
    whiches = set(re.findall(r"\b(first|last)\b", text))
    if not _LOS.search(text) or not _ICU.search(text) or len(whiches) != 1:
        return None
    if "hospital" in text or cat.nested_encounter("icu") is None:
        return None  # 'the first hospital stay ... in the ICU': two encounters named
    words = re.findall(r"[a-z0-9]+", text)
    if any(w not in _LOS_WORDS for w in words):
        return None
    plan = QueryPlan(
        question=question,
        patient_id=pid,
        filters=(EncounterFilter(type="icu"),),
        measure=Measure(of="length_of_stay", encounter_type="icu"),
        aggregate=Aggregate(op=whiches.pop()),  # type: ignore[arg-type]
        now=now,
    )
    return shape_reading(question, plan, (), _NOTE)
