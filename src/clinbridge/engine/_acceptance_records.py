"""Acceptance rules that hold a reading against the records it counts and the words it was given.

Each rule looks at the executed plan, the question and (a query or two) the data, and fails the
reading where the answer would silently rest on a choice the question did not make:

* **records or visits**: one patient's encounters counted where two records share the same start
  ('5 home visits', two of them the same visit recorded twice): records or distinct visits?
* **a finding named by a threshold**: the reading counts a recorded finding whose own name holds
  a measurement's threshold ('Body mass index 30+ - obesity') for a word that names neither
  ('obese') while that measurement is stored with values: the finding or the measured value?
* **examples outside the reading**: a parenthesised list of examples beside a class ('plain
  X-ray of any body part (ankle, chest, knee, upper arm)') where some example is recorded in the
  class's stream with the class's head word ('Ankle X-ray') yet outside the concepts read: the
  reading is narrower than the question (abstains, naming the examples left out);
* **a value asked, records counted**: 'mean value of X per patient' read as the mean number of
  X records per patient: the answer is not of the type asked.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from clinbridge.engine import _acceptance_alts as alts
from clinbridge.engine._acceptance_alts import run_variant as _run
from clinbridge.engine._checks import _streams_for, failed
from clinbridge.engine.plan import (
    Aggregate,
    ConceptRef,
    ConceptSet,
    EventFilter,
    Measure,
    ValueFilter,
)

if TYPE_CHECKING:
    from clinbridge.engine._checks import Check, _Ctx
    from clinbridge.engine.plan import QueryPlan

__all__ = ["check_records"]

_WORD = re.compile(r"[a-z0-9]+")
# function words, and the words that introduce or close a list of examples
_FUNCTION = {"a", "an", "the", "of", "in", "on", "at", "to", "for", "by", "with", "and", "or"}
_EXAMPLES = {"any", "other", "e", "g", "eg", "i", "ie", "etc", "such", "as", "like", "incl"}
_STOP = frozenset(_FUNCTION | _EXAMPLES | {"including", "include", "includes"})


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def _same(a: str, b: str) -> bool:
    """The same word, give or take an inflection ('knees' / 'knee', 'x-rays' / 'x-ray')."""
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 4 and long_.startswith(short) and len(long_) - len(short) <= 2


def _has(words: list[str], name: str) -> bool:
    have = _words(name)
    return all(any(_same(w, h) for h in have) for w in words)


# -- records or visits ---------------------------------------------------------------------------
def _same_time_visits(ctx: _Ctx, plan: QueryPlan) -> list[Check]:
    """One patient's encounters counted where some records share their start time."""
    m = plan.measure
    if not plan.patient_id or m.of != "encounters" or plan.aggregate.op != "count":
        return []
    if plan.group_by or not isinstance(ctx.value, int) or ctx.value < 2:
        return []
    listed = plan.model_copy(
        update={"measure": m.model_copy(update={"of": "date"}), "aggregate": Aggregate(op="list")}
    )
    found = _run(ctx, listed)
    if not isinstance(found, list):
        return []
    times = len({str(t) for t in found})
    if times >= ctx.value:
        return []
    return [
        failed(
            "visits_distinct",
            "ambiguous",
            f"{ctx.value} encounter records but {times} distinct start times: some visits are "
            "recorded more than once. Records or distinct visits? say which",
            [
                alts.reading(ctx, f"every encounter record ({ctx.value})", plan, ctx.value),
                alts.reading(ctx, f"distinct visits by start time ({times})", listed, times),
            ],
        )
    ]


# -- a finding named by a measurement's threshold ------------------------------------------------
_THRESHOLD_NAME = re.compile(r"^(?P<what>[a-z][a-z .'-]*?[a-z])\s+(?P<n>\d+(?:\.\d+)?)\s*\+", re.I)


def _concept_sets(plan: QueryPlan) -> list[tuple[str, ConceptSet]]:
    out = [
        (f.stream, f.concepts)
        for f in plan.filters
        if isinstance(f, EventFilter) and f.concepts is not None and f.value is None
    ]
    m = plan.measure
    if m.concepts is not None and m.stream is not None and m.of != "value":
        out.append((m.stream, m.concepts))
    return out


def _said(what: str, question: str) -> bool:
    """The question names the measurement: its words, or its initials ('bmi')."""
    q = _words(question)
    words = _words(what)
    initials = "".join(w[0] for w in words)
    long_ = [w for w in words if len(w) > 3]
    return initials in q or any(any(_same(w, x) for x in q) for w in long_)


def _finding_by_threshold(ctx: _Ctx, plan: QueryPlan, question: str) -> list[Check]:
    """A finding whose name holds a stored measurement's threshold, asked by neither."""
    if re.search(r"\b(?:finding|flag\w*|coded?|diagnos\w*)\b", question, re.I):
        return []
    for stream, cs in _concept_sets(plan):
        for ref in cs.concepts:
            m = _THRESHOLD_NAME.match(str(ref.name or ""))
            if m is None or _said(m["what"], question) or m["n"] in question:
                continue
            want = [w for w in _words(m["what"]) if len(w) > 2]
            for ms in {s.name for s in _streams_for(ctx.catalog, "measurement")}:
                if ms == stream:
                    continue
                names = _run(
                    ctx,
                    plan.model_copy(
                        update={
                            "patient_id": None,
                            "filters": (),
                            "measure": Measure(of="concept", stream=ms),
                            "aggregate": Aggregate(op="list"),
                        }
                    ),
                )
                hits = [str(n) for n in names or [] if want and _has(want, str(n))]
                if not hits:
                    continue
                measured = ConceptSet(
                    concepts=tuple(ConceptRef(name=n) for n in hits[:20]),
                    include_descendants=False,
                    label=m["what"].lower(),
                )
                valued = _run(
                    ctx,
                    plan.model_copy(
                        update={
                            "patient_id": None,
                            "filters": (),
                            "measure": Measure(of="value", stream=ms, concepts=measured),
                            "aggregate": Aggregate(op="count"),
                        }
                    ),
                )
                if not valued:
                    continue  # the measurement is there without values: the finding it is
                return [_threshold_ambiguous(ctx, plan, cs, str(ref.name), ms, measured, m)]
    return []


def _threshold_ambiguous(
    ctx: _Ctx,
    plan: QueryPlan,
    cs: ConceptSet,
    name: str,
    ms: str,
    measured: ConceptSet,
    m: re.Match[str],
) -> Check:
    by_value = EventFilter(
        stream=ms, concepts=measured, value=ValueFilter(op=">=", value=float(m["n"]))
    )
    swapped = tuple(
        by_value if isinstance(f, EventFilter) and f.concepts == cs else f for f in plan.filters
    )
    readings = [alts.reading(ctx, f"the recorded finding {name!r}", plan, ctx.value)]
    if swapped != plan.filters:
        variant = plan.model_copy(update={"filters": swapped})
        readings.append(alts.reading(ctx, f"{m['what'].lower()} >= {m['n']} measured", variant))
    return failed(
        "finding_or_value",
        "ambiguous",
        f"{cs.describe()!r} is recorded as the finding {name!r} and can be read from the "
        f"measured {m['what'].lower()} (>= {m['n']}): the finding or the measured value? say which",
        readings,
    )


# -- examples outside the reading ----------------------------------------------------------------
_PAREN = re.compile(r"\(([^()]{3,120})\)")
_SPLIT = re.compile(r"\s*(?:,|;|/|\bor\b|\band\b|\.\.\.|…)\s*")


def _examples(question: str) -> list[list[str]]:
    """Parenthesised example lists ('(ankle, chest, knee, upper arm...)'): each item's words."""
    out: list[list[str]] = []
    for m in _PAREN.finditer(question):
        body = m[1]
        if re.search(r"\d|['\"=<>%]", body):
            continue  # codes, values or quoted names: not a list of examples
        body = re.sub(
            r"^\s*(?:e\.?\s?g\.?|such as|like|including|incl\.?|i\.?e\.?)[:,]?\s+", "", body
        )
        items = [_words(x) for x in _SPLIT.split(body) if x.strip()]
        items = [x for x in items if 1 <= len(x) <= 3]
        if len(items) >= 2 and len(items) == len([x for x in _SPLIT.split(body) if x.strip()]):
            out.append([" ".join(x) for x in items])
    return out


def _examples_outside(ctx: _Ctx, plan: QueryPlan, question: str) -> list[Check]:
    """A class read narrower than the examples the question gives of it."""
    lists = _examples(question)
    if not lists:
        return []
    for stream, cs in _concept_sets(plan):
        head = _words(cs.label or "")
        if not head:
            continue
        listing = plan.model_copy(
            update={
                "patient_id": None,
                "filters": (),
                "measure": Measure(of="concept", stream=stream, concepts=cs),
                "aggregate": Aggregate(op="list"),
            }
        )
        inside = [str(n) for n in _run(ctx, listing) or []]
        every = listing.model_copy(update={"measure": Measure(of="concept", stream=stream)})
        recorded = None
        for items in lists:
            covered = [x for x in items if any(_has(x.split(), n) for n in inside)]
            if not covered:
                continue  # the list is about something else
            if recorded is None:
                recorded = [str(n) for n in _run(ctx, every) or []]
            missing = [
                x
                for x in items
                if x not in covered
                and any(_has(x.split() + head[-1:], n) and n not in inside for n in recorded)
            ]
            if missing:
                return [
                    failed(
                        "examples_covered",
                        "question_not_covered",
                        f"the question's examples {', '.join(map(repr, missing))} are recorded "
                        f"as {head[-1]!r} {stream} concepts outside the ones read for "
                        f"{cs.describe()!r}: the class is read narrower than the question",
                    )
                ]
    return []


# -- a value asked, records counted --------------------------------------------------------------
_VALUE_ASKED = re.compile(
    r"\b(?:mean|average|avg|median)\s+(?:\w+\s+)?(?:value|result|reading|level|score)s?\b", re.I
)
_COUNTS = frozenset({"events_per_patient", "events", "patients", "encounters"})


def _value_asked(plan: QueryPlan, question: str) -> list[Check]:
    if plan.measure.of not in _COUNTS or not _VALUE_ASKED.search(question):
        return []
    return [
        failed(
            "answer_type_matches",
            "question_not_covered",
            f"the question asks for a value; the reading counts {plan.measure.of.replace('_', ' ')}"
            " (no value of it is read)",
        )
    ]


def check_records(ctx: _Ctx) -> list[Check]:
    """Failed checks of a reading held against its records and the question's words."""
    plan, question = ctx.plan, ctx.question
    if plan is None or not question:
        return []
    out: list[Any] = _value_asked(plan, question)
    out = out or _same_time_visits(ctx, plan)
    out = out or _examples_outside(ctx, plan, question)
    return out or _finding_by_threshold(ctx, plan, question)
