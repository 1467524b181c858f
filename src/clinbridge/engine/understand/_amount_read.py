"""Read one patient's total, maximum, minimum or average of recorded values over a time or a
stay, optionally per day / month / year: 'the total volume of input of patient P since
12/14/2100', 'patient P's maximum heart rate on their first ICU stay', 'the monthly average
dextrose 5% input of patient P since 09/2100', 'the difference between the total input and
output of patient P on 11/23/this year'.

The stream is the one a question's word names ('input(s)', 'output': a word a stream's name
begins with, whose records carry values), else the stream of the item named; the item is one
concept of it with numeric values, matched by its whole name (or the same words) — a total may
name none (every record of the stream), the other aggregates must name one. The time is a
calendar day, month or year ('on', 'in', 'since' it; 'this year', a day or month read against
'now'), or one first / last / current hospital or ICU stay. Anything else left over leaves the
question to the general reader (None).
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
    GroupBy,
    Measure,
    QueryPlan,
)
from clinbridge.engine.understand._lexicon import ConceptEntry, Lexicon
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._span_read import (
    concept_span,
    found_concept,
    loose_span,
    named_patient,
    shape_reading,
)

__all__ = ["read_amount"]

_OPS = (
    (re.compile(r"\b(?:total|overall|accumulated|cumulative|sum)\b"), "sum"),
    (re.compile(r"\b(?:maximum|max|highest|peak)\b"), "max"),
    (re.compile(r"\b(?:minimum|min|lowest)\b"), "min"),
    (re.compile(r"\b(?:average|mean)\b"), "mean"),
)
_PERIOD = re.compile(r"\b(daily|monthly|yearly)\b")
_DAY = re.compile(
    r"\b(?P<prep>on|since|in|during)\s+(?:(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?:(?P<y>\d{4})|this\s+year)"
    r"|(?P<rel>this|last)\s+month/(?P<d2>\d{1,2})"
    r"|(?P<mm>\d{1,2})/(?:(?P<my>\d{4})|this\s+year)"
    r"|(?P<yy>\d{4})|(?P<ty>this)\s+year)(?![\d/])"
)
_STAY = re.compile(
    r"\b(?:in|during|on|for|at)\s+(?:the\s+|their\s+|his\s+|her\s+)?(first|last|current|this)\s+"
    r"(hospital|icu|intensive\s+care(?:\s+unit)?)\s+(?:visit|stay|encounter|admission)\b"
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
        "maximum",
        "max",
        "highest",
        "peak",
        "minimum",
        "min",
        "lowest",
        "average",
        "mean",
        "daily",
        "monthly",
        "yearly",
        "value",
        "values",
        "level",
        "levels",
        "reading",
        "readings",
        "body",
        "dose",
        "doses",
        "hey",
        "retrieve",
        "indicate",
        "list",
        "is",
        "getting",
        "throughout",
        "taken",
        "taking",
    ]
)
_STREAM_WORDS = frozenset(["input", "output", "intake", "inputs", "outputs", "intakes"])
_DIFF = re.compile(r"\bdifference\s+between\b")


def read_amount(
    question: str,
    lexicon: Lexicon,
    catalog: Catalog | None,
    *,
    patient_id: str | None = None,
    now: dt.datetime | None = None,
) -> Reading | None:
    """A reading of a one-patient aggregate of recorded values; None when it is not one."""
    named = named_patient(question, patient_id)
    if catalog is None or now is None or named is None:
        return None
    text, pid = named
    found_ops = [(op, m) for rx, op in _OPS for m in rx.finditer(text)]
    in_names = {m[0] for _, m in found_ops if _in_name(text, m, lexicon)}
    ops = {op for op, m in found_ops if m[0] not in in_names}
    filler = _FILLER - in_names  # 'mean' in 'mean blood pressure' is part of the name
    periods = set(_PERIOD.findall(text))
    if len(ops) != 1 or len(periods) > 1:
        return None
    op = ops.pop()
    common: dict[str, Any] = {"question": question, "patient_id": pid, "now": now}
    if periods:
        key = {"daily": "day", "monthly": "month", "yearly": "year"}[periods.pop()]
        common["group_by"] = (GroupBy(key=key),)  # type: ignore[arg-type]
    dm = _DAY.search(text)
    if dm is not None:
        common["window"] = _window(dm, now.date())
        if common["window"] is None:
            return None
        text = text[: dm.start()] + " " + text[dm.end() :]
    sm = _STAY.search(text)
    if sm is not None:
        icu = sm[2] != "hospital"
        if icu and catalog.nested_encounter("icu") is None:
            return None
        which = "current" if sm[1] == "this" else sm[1]
        common["scope"] = EncounterScope(which=which, type="icu" if icu else None)  # type: ignore[arg-type]
        text = text[: sm.start()] + " " + text[sm.end() :]
    words = re.findall(r"[a-z0-9#]+(?:[./%,-][a-z0-9#]+)*%?|\([^)]*\)", text.replace("?", " "))
    streams = _named_streams(words, catalog, lexicon)
    if len(streams) == 2 and op == "sum" and _DIFF.search(text) and not periods:
        # 'the difference between the total input and output'
        if any(w not in _FILLER | _STREAM_WORDS | {"and", "difference", "between"} for w in words):
            return None
        first, second = (_plan(common, op, name, None) for name in streams)
        plan = first.model_copy(update={"minus": second})
        return shape_reading(question, plan, (), "read as the difference of two totals")
    if len(streams) > 1:
        return None
    if op == "sum" and streams and re.search(r"\bnumber\s+of\b", text):
        return Reading(  # 'the total number of inputs': how many records, or how much in all?
            question=question,
            abstain_reason=f"'number of' {streams[0]} may be the count of its records or their "
            "total amount: ask for 'how many' records or 'the total amount'",
        )
    amounts = {s.name for s in catalog.streams if s.kind in {"drug", "observation"}}

    def keep(e: ConceptEntry) -> bool:
        named = e.stream_name in streams if streams else op != "sum" or e.stream_name in amounts
        return e.values > 0 and named

    found = concept_span(words, lexicon, filler, keep)
    found = found or loose_span(words, lexicon, filler | _STREAM_WORDS, keep)
    if found is None and (not streams or op != "sum"):
        return None
    inside = found[0] if found is not None else set()
    outside = [w for k, w in enumerate(words) if k not in inside]
    if any(w not in filler | _STREAM_WORDS or re.search(r"\d", w) for w in outside):
        return None  # a word (or a day) not read
    concepts: ConceptSet | None = None
    groundings: tuple[Grounding, ...] = ()
    if found is not None:
        _, concepts, g = found_concept(words, found)
        groundings = (g,)
    stream = streams[0] if streams else found[1]  # type: ignore[index]
    plan = _plan(common, op, stream, concepts)
    return shape_reading(question, plan, groundings, f"read as one patient's {op} of values")


def _in_name(text: str, m: re.Match[str], lex: Lexicon) -> bool:
    """Whether an aggregate word begins a measurement's name ('mean blood pressure')."""
    after = re.findall(r"[a-z0-9]+", text[m.end() :])[:3]
    while after:
        phrase = " ".join([m[0], *after])
        if any(
            x.score >= 0.8 and set(phrase.split()) <= set(re.findall(r"[a-z0-9]+", x.label))
            for x in lex.match(phrase)
        ):
            return True
        after.pop()
    return False


def _plan(common: dict[str, Any], op: str, stream: str, concepts: ConceptSet | None) -> QueryPlan:
    """The patient's aggregate of a stream's values (of the concepts, if any) in the window /
    scope, per period when grouped."""
    measure = Measure(of="value", stream=stream, concepts=concepts)
    return QueryPlan(measure=measure, aggregate=Aggregate(op=op), **common)  # type: ignore[arg-type]


def _named_streams(words: list[str], cat: Catalog, lex: Lexicon) -> list[str]:
    """Streams with values whose name a question's word begins ('input(s)' → inputevents), in
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
    """The calendar window of a day, month or year ('on' / 'in' it, or 'since' it)."""
    year = int(m["y"] or m["my"] or m["yy"] or today.year)
    try:
        if m["d2"]:
            month = dt.date(today.year, today.month, 1)
            if m["rel"] == "last":
                month = (month - dt.timedelta(days=1)).replace(day=1)
            start = end = month.replace(day=int(m["d2"]))
        elif m["d"]:
            start = end = dt.date(year, int(m["m"]), int(m["d"]))
        elif m["mm"]:
            start = dt.date(year, int(m["mm"]), 1)
            end = (start + dt.timedelta(days=32)).replace(day=1) - dt.timedelta(days=1)
        else:
            start, end = dt.date(year, 1, 1), dt.date(year, 12, 31)
    except ValueError:
        return None
    if m["prep"] == "since":
        return CalendarWindow(start=start)
    if m["prep"] in {"in", "during"} and m["d"]:
        return None  # 'in 03/04/2100': not a way a day is said here
    return CalendarWindow(start=start, end=end)
