"""Read one patient's change between two measurements of the same thing.

'How much did patient P's heart rate change, last measured on the first ICU visit compared to
the first value measured on the first ICU visit?': two positions, each a first or last value
within a first / last encounter (hospital or ICU), joined by 'compared to'. What is left names
the measurement; it must be one concept with numeric values in one stream of the source,
matched by its whole name or the same words. The plan is the first position's value
(``first`` / ``last`` in its encounter scope) with ``minus`` the second's; anything else left
over leaves the question to the general reader (None). 'second' and 'second to last' are the
values at the second distinct time from either end.
"""

from __future__ import annotations

import datetime as dt
import re

from clinbridge.catalog import Catalog
from clinbridge.engine.plan import (
    Aggregate,
    ConceptSet,
    EncounterScope,
    Measure,
    QueryPlan,
)
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._reading import Reading
from clinbridge.engine.understand._span_read import (
    concept_span,
    found_concept,
    loose_span,
    named_patient,
    shape_reading,
)

__all__ = ["read_change"]

_POSITION = re.compile(
    r"\b(?:the\s+)?(?:value\s+)?(second\s+to\s+last|second|first|last)\s+(?:value\s+)?measured\s+"
    r"(?:on|in|during|at)\s+(?:the\s+|their\s+|this\s+)?(first|last|current)\s+(hospital|icu)\s+"
    r"(?:visit|encounter|stay)\b"
)
_AT = re.compile(r"\b(?:the\s+)?(?:value\s+)?measured\s+at\s+(\d{4}-\d\d-\d\d\s+\d\d:\d\d:\d\d)\b")
_ASKS = re.compile(r"\b(?:change[sd]?|difference|shifts?|differ)\b")
_COMPARED = re.compile(r"\bcompared\s+(?:to|with)\b")
_FILLER = frozenset(
    [
        "how",
        "much",
        "does",
        "do",
        "did",
        "is",
        "was",
        "were",
        "what",
        "the",
        "of",
        "in",
        "a",
        "an",
        "patient",
        "s",
        "change",
        "changes",
        "changed",
        "difference",
        "differ",
        "shift",
        "shifts",
        "from",
        "tell",
        "me",
        "show",
        "please",
        "value",
        "values",
        "between",
        "there",
        "has",
        "have",
        "been",
        "body",
        "measured",
        "are",
        "level",
        "levels",
        "among",
        "for",
    ]
)


def read_change(
    question: str,
    lex: Lexicon,
    catalog: Catalog | None,
    *,
    now: dt.datetime | None = None,
    patient_id: str | None = None,
) -> Reading | None:
    """A reading of a two-measurement change question; None when it is not one."""
    if catalog is None or catalog.encounters is None:
        return None
    named = named_patient(question, patient_id)
    if named is None or not _ASKS.search(named[0]):
        return None
    text, pid = named
    positions = list(_POSITION.finditer(text)) or list(_AT.finditer(text))
    cm = _COMPARED.search(text)
    if (
        len(positions) != 2
        or cm is None
        or not positions[0].end() <= cm.start() < positions[1].start()
    ):
        return None
    rest = text[: positions[0].start()] + " " + text[positions[0].end() : cm.start()]
    rest += " " + text[cm.end() : positions[1].start()] + " " + text[positions[1].end() :]
    words = re.findall(r"[a-z0-9]+(?:[./%,-][a-z0-9]+)*%?|\([^)]*\)", rest.replace("?", " "))
    found = concept_span(words, lex, _FILLER, lambda e: e.values > 0)
    found = found or loose_span(words, lex, _FILLER, lambda e: e.values > 0)
    if found is None:
        return None
    name = {words[k] for k in found[0]}
    if any(w not in _FILLER and w not in name for w in words):
        return None
    if (
        any(p.re is _POSITION and p[3] == "icu" for p in positions)
        and catalog.nested_encounter("icu") is None
    ):
        return None
    _, concepts, grounding = found_concept(words, found)
    stream = found[1]
    plans = [_plan(p, question, pid, stream, concepts, now) for p in positions]
    plan = plans[0].model_copy(update={"minus": plans[1]})
    return shape_reading(
        question, plan, (grounding,), "read as the change between two measurements"
    )


def _plan(
    p: re.Match[str],
    question: str,
    pid: str,
    stream: str,
    concepts: ConceptSet,
    now: dt.datetime | None,
) -> QueryPlan:
    """One position's plan: the value at an exact time, or a first / last (nth) value in a
    first / last / current hospital or ICU stay."""
    if p.re is _AT:
        at = dt.datetime.fromisoformat(p[1])
        measure = Measure(of="value", stream=stream, concepts=concepts, at=at)
        return QueryPlan(
            question=question,
            patient_id=pid,
            measure=measure,
            aggregate=Aggregate(op="first"),
            now=now,
        )
    scope = EncounterScope(which=p[2], type=None if p[3] == "hospital" else "icu")  # type: ignore[arg-type]
    measure = Measure(of="value", stream=stream, concepts=concepts)
    return QueryPlan(
        question=question,
        patient_id=pid,
        measure=measure,
        aggregate=_position(p[1]),
        scope=scope,
        now=now,
    )


def _position(word: str) -> Aggregate:
    """'first', 'second', 'last', 'second to last' as a first / last (nth) value."""
    if word == "second":
        return Aggregate(op="first", nth=2)
    if word == "second to last":
        return Aggregate(op="last", nth=2)
    return Aggregate(op=word)  # type: ignore[arg-type]
