"""Read one patient's total of a recorded amount: 'the total (amount / volume of) input / output
(of X) of patient P since 12/14/2100 / on 11/23/this year / in the last ICU stay'.

The stream is the one the question's word names ('input', 'output': a word a stream's name
begins with, and whose records carry amounts); an item named is one concept of that stream,
matched by its whole name (or the same words). The time is one calendar day, a day onwards,
or one first / last / current ICU stay; months and days are read against 'now'. Anything
else left over leaves the question to the general reader (None). The plan sums the stream's
values for the patient: ``value`` ``sum`` with a calendar window or an ICU-stay scope.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from clinbridge.catalog import Catalog
from clinbridge.engine.plan import (
    Aggregate,
    CalendarWindow,
    ConceptSet,
    EncounterScope,
    Measure,
    QueryPlan,
)
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._span_read import (
    concept_span,
    found_concept,
    named_patient,
    shape_reading,
)

__all__ = ["read_total"]

_TOTAL = re.compile(r"\b(?:total|overall|accumulated|cumulative|sum)\b")
_DAY = re.compile(
    r"\b(?P<prep>on|since)\s+(?:(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?:(?P<y>\d{4})|(?P<ty>this)\s+year)"
    r"|(?P<rel>this|last)\s+month/(?P<d2>\d{1,2}))(?![\d/])"
)
_STAY = re.compile(
    r"\b(?:in|during|on|for)\s+(?:the\s+|their\s+|his\s+|her\s+)?(first|last|current)\s+"
    r"(?:icu|intensive\s+care(?:\s+unit)?)\s+(?:visit|stay|encounter|admission)\b"
)
_FILLER = frozenset(
    [
        "what",
        "was",
        "is",
        "were",
        "the",
        "a",
        "an",
        "of",
        "total",
        "overall",
        "accumulated",
        "cumulative",
        "sum",
        "amount",
        "amounts",
        "volume",
        "quantity",
        "that",
        "patient",
        "s",
        "had",
        "has",
        "have",
        "received",
        "receive",
        "given",
        "get",
        "got",
        "give",
        "me",
        "tell",
        "show",
        "calculate",
        "compute",
        "figure",
        "out",
        "find",
        "report",
        "can",
        "could",
        "you",
        "please",
        "i",
        "want",
        "to",
        "know",
        "let",
        "for",
        "in",
        "from",
        "by",
        "did",
        "does",
        "do",
        "during",
        "on",
        "provide",
        "inform",
        "work",
        "aggregate",
        "need",
        "about",
        "display",
        "gather",
        "help",
    ]
)
_STREAM_WORDS = frozenset(["input", "output", "intake", "inputs", "outputs", "intakes"])
_DIFF = re.compile(r"\bdifference\s+between\b")


def read_total(
    question: str,
    lexicon: Lexicon,
    catalog: Catalog | None,
    *,
    patient_id: str | None = None,
    now: dt.datetime | None = None,
) -> Reading | None:
    """A reading of a one-patient total of an input or output amount; None when not one."""
    named = named_patient(question, patient_id)
    if catalog is None or now is None or named is None or not _TOTAL.search(named[0]):
        return None
    text, pid = named
    window, scope = None, None
    dm = _DAY.search(text)
    if dm is not None:
        window = _window(dm, now.date())
        if window is None:
            return None
        text = text[: dm.start()] + " " + text[dm.end() :]
    sm = _STAY.search(text)
    if sm is not None:
        if catalog.nested_encounter("icu") is None:
            return None
        scope = EncounterScope(which=sm[1], type="icu")  # type: ignore[arg-type]
        text = text[: sm.start()] + " " + text[sm.end() :]
    words = re.findall(r"[a-z0-9#]+(?:[./%,-][a-z0-9#]+)*%?|\([^)]*\)", text.replace("?", " "))
    streams = _named_streams(words, catalog, lexicon)
    sums: dict[str, Any] = {
        "question": question,
        "patient_id": pid,
        "window": window,
        "scope": scope,
        "now": now,
    }
    if len(streams) == 2 and _DIFF.search(text):  # 'the difference between total input and output'
        if any(w not in _FILLER | _STREAM_WORDS | {"and", "difference", "between"} for w in words):
            return None
        first, second = (_sum(sums, name, None) for name in streams)
        plan = first.model_copy(update={"minus": second})
        return shape_reading(question, plan, (), "read as the difference of two totals")
    if len(streams) > 1:
        return None
    amounts = {s.name for s in catalog.streams if s.kind in {"drug", "observation"}}
    found = concept_span(
        words,
        lexicon,
        _FILLER,
        lambda e: (
            e.values > 0 and (e.stream_name in streams if streams else e.stream_name in amounts)
        ),
    )
    if found is None and not streams:
        return None
    inside = found[0] if found is not None else set()
    outside = [w for k, w in enumerate(words) if k not in inside]
    if any(w not in _FILLER | _STREAM_WORDS or re.search(r"\d", w) for w in outside):
        return None  # a word (or a day) not read
    concepts: ConceptSet | None = None
    groundings: tuple[Grounding, ...] = ()
    if found is not None:
        _, concepts, g = found_concept(words, found)
        groundings = (g,)
    stream = streams[0] if streams else found[1]  # type: ignore[index]
    plan = _sum(sums, stream, concepts)
    return shape_reading(question, plan, groundings, "read as one patient's total amount")


def _sum(common: dict[str, Any], stream: str, concepts: ConceptSet | None) -> QueryPlan:
    """The patient's total of a stream's values (of the concepts, if any) in the window/scope."""
    measure = Measure(of="value", stream=stream, concepts=concepts)
    return QueryPlan(measure=measure, aggregate=Aggregate(op="sum"), **common)


def _named_streams(words: list[str], cat: Catalog, lex: Lexicon) -> list[str]:
    """Streams with amounts whose name a question's word begins ('input(s)' → inputevents), in
    the order the question names them."""
    with_values = {e.stream_name for e in lex.entries if e.values}
    out: list[str] = []
    for w in words:
        if len(w) < 5:
            continue
        for s in cat.streams:
            name = s.name.lower()
            if (name.startswith(w) or (name.startswith(w[:-1]) and w.endswith("s"))) and (
                s.value_column and s.name in with_values and s.name not in out
            ):
                out.append(s.name)
    return out


def _window(m: re.Match[str], today: dt.date) -> CalendarWindow | None:
    try:
        if m["d2"]:
            month = dt.date(today.year, today.month, 1)
            if m["rel"] == "last":
                month = (month - dt.timedelta(days=1)).replace(day=1)
            day = month.replace(day=int(m["d2"]))
        else:
            day = dt.date(int(m["y"]) if m["y"] else today.year, int(m["m"]), int(m["d"]))
    except ValueError:
        return None
    if m["prep"] == "since":
        return CalendarWindow(start=day)
    return CalendarWindow(start=day, end=day)
