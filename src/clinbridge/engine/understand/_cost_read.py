"""Cost questions that name one concept by its exact dictionary name: 'what is the price of a
drug named X?', 'how much does a procedure called X cost?', 'the maximum total hospital cost
that involves X since 2100'.

The name is spotted word for word (:func:`._follow_read.spot_names`), so a long name with
commas and 'via ... or ...' is one concept. With no statistic and no stay word, the question asks
for the charges recorded for that concept's events (``cost``, ``list``); with a stay word
('total', 'hospital', 'visit') and exactly one statistic (average, minimum, maximum, median), it
asks for that statistic of each stay's total charges over the stays that held such an event
(``encounter_cost``), the charges optionally in one calendar time. Every other word must be a
word of this frame; otherwise the question is left to the general reader (None).
"""

from __future__ import annotations

import datetime as dt

from clinbridge.engine.plan import Aggregate, Measure, QueryPlan
from clinbridge.engine.understand._follow_read import (
    calendar_window,
    concept_of,
    one_name,
    or_none,
    question_words,
)
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._reading import Grounding, Reading

__all__ = ["read_cost"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_COST = _words(
    "cost costs costing price prices priced pricing charge charges charged expense expenses "
    "expensive pay paid bill bills billed expenditure expenditures"
)
_OPS = {
    "average": "mean",
    "mean": "mean",
    "avg": "mean",
    "maximum": "max",
    "max": "max",
    "highest": "max",
    "minimum": "min",
    "min": "min",
    "lowest": "min",
    "median": "median",
}
_STAY = _words(
    "total overall hospital hospitals stay stays visit visits admission encounter encounters"
)
_GLUE = _words(
    """what what's is was are were the a an of for to how much does do did it get getting got be
    will would me i am expected tell can could you please show give s there procedure
    procedures drug drugs medication medicine diagnosis diagnosed diagnostic diagnose called
    named known as referred lab laboratory test tests in including includes include involving
    involves involve involved contains containing contain that which with when done undergo
    receive received treatment prescribed ordered having has have had event events purchase
    diagnosing associated under name"""
)


@or_none
def read_cost(question: str, lex: Lexicon, now: dt.datetime | None) -> Reading | None:
    """The reading of a cost question naming one concept exactly; None when it is not one."""
    words = question_words(question)
    if not _COST & set(words):
        return None
    found = one_name(words, lex)
    if found is None:
        return None
    text, when, span = found
    rest = [w for w in text.split() if w != "@0"]
    if not _COST & set(rest):
        return None  # the cost word is part of the name
    if any(w not in _GLUE and w not in _COST and w not in _OPS and w not in _STAY for w in rest):
        return None
    ops = {_OPS[w] for w in rest if w in _OPS}
    stream, concepts = concept_of(span, lex)
    if _STAY & set(rest):  # a statistic of the stays' totals
        if len(ops) != 1:
            return None
        (op,) = ops
        plan = QueryPlan(
            question=question,
            measure=Measure(of="encounter_cost", stream=stream, concepts=concepts),
            aggregate=Aggregate(op=op),  # type: ignore[arg-type]
            window=calendar_window(when, now),
            now=now,
        )
        target = f"{op} of the total charges of the stays with {concepts.label}"
    else:
        if when is not None or ops:  # 'the average expense for X': per event or per stay?
            return None
        plan = QueryPlan(
            question=question,
            measure=Measure(of="cost", stream=stream, concepts=concepts),
            aggregate=Aggregate(op="list"),
            now=now,
        )
        target = f"the charges recorded for {concepts.label}"
    return Reading(
        question=question,
        plan=plan,
        confidence=0.9,
        groundings=(Grounding(phrase=concepts.label or "", kind="concept", target=target),),
        notes=("read as a cost of one concept named exactly",),
    )
