"""The dual-reader check (CLEAR-Med's second opinion, without an LLM).

The rule reader's plan must agree with what the learned reader
(:mod:`clinbridge.engine.understand.learned`) read in the same question:

* **intent**: the plan's aggregate (count, mean, first/last value, a date, yes/no, a list, ...) is
  the learned intent, or compatible with it ('when was the first ...' is a date and a first);
* **content**: every confident CONCEPT span of the learned reading shares a word with a phrase
  the rule reader grounded or means the same as one of them or as what they were grounded to
  (embedding similarity, when a similarity is given: the rule reader rewrites lay terms and
  shorthand, 'heart attack' → myocardial infarction), every confident VALUE is a number the plan
  uses, and a confident identifier is the plan's patient.

Only confident learned readings can veto (``min_intent`` / ``min_span``): the learned reader is
a check on the plan, not a second source of answers. A failed check carries code
``readings_disagree`` and names both readings, so the validator's one repair (the next reading)
or abstention shows what each reader understood.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from clinbridge.engine.answer import Check

if TYPE_CHECKING:
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.engine.understand import Grounding
    from clinbridge.engine.understand.learned import LearnedReading

__all__ = ["check_readers", "plan_intent"]

_COMPATIBLE = frozenset(
    {
        frozenset({"date", "first"}),
        frozenset({"date", "last"}),
        frozenset({"date", "min"}),
        frozenset({"date", "max"}),
    }
)
"""Intent pairs that are one question read two ways ('the earliest date' is a min and a date)."""

_NEVER_VETO = frozenset({"unanswerable"})
"""Learned intents that say nothing about a plan here (EHRSQL's 'unanswerable' is schema-bound)."""

_GENERIC = frozenset(
    {
        "patient",
        "patients",
        "pts",
        "pt",
        "people",
        "person",
        "persons",
        "subjects",
        "women",
        "men",
        "woman",
        "man",
        "value",
        "values",
        "level",
        "levels",
        "result",
        "results",
        "test",
        "tests",
        "record",
        "records",
        "the",
        "a",
        "an",
        "of",
        "in",
        "with",
        "and",
        "or",
    }
)
_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def plan_intent(plan: QueryPlan) -> str | None:
    """The question shape a plan answers, in the learned reader's intent names."""
    op, of = plan.aggregate.op, plan.measure.of
    if op in {"count", "count_distinct"}:
        return "count"
    if of in {"date", "end_date"} and op in {"first", "last", "min", "max"}:
        return "date"
    if op in {"list", "series"}:
        return "list"
    if op in {"stddev", "range"}:
        return None
    return op


def _words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in _GENERIC}


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") else word


def _numbers(value: Any, out: set[float]) -> set[float]:
    """Every number a plan holds (values, ages, windows, counts, dates' years)."""
    if isinstance(value, bool):
        return out
    if isinstance(value, int | float):
        out.add(float(value))
    elif isinstance(value, str):
        out.update(float(m) for m in _NUMBER.findall(value))
    elif isinstance(value, dict):
        for v in value.values():
            _numbers(v, out)
    elif isinstance(value, list | tuple):
        for v in value:
            _numbers(v, out)
    return out


def check_readers(
    plan: QueryPlan,
    groundings: Sequence[Grounding],
    learned: LearnedReading,
    *,
    min_intent: float = 0.9,
    min_span: float = 0.8,
    similarity: Callable[[str, Sequence[str]], list[float]] | None = None,
    min_similarity: float = 0.5,
) -> list[Check]:
    """Whether the plan and the learned reading of its question agree (one check).

    Args:
        plan: The rule reader's plan.
        groundings: The phrases the rule reader grounded for that plan.
        learned: The learned reader's reading of the question.
        min_intent: Least intent probability that may veto a plan.
        min_span: Least span confidence that may veto a plan.
        similarity: Scores of a phrase against texts in [0, 1] (the embedding service's
            ``scores``); without it, content is compared by words only.
        min_similarity: Least similarity for a span to count as a grounded phrase.
    """
    problems: list[str] = []
    mine = plan_intent(plan)
    theirs = learned.intent
    if (
        mine is not None
        and theirs != mine
        and theirs not in _NEVER_VETO
        and learned.confidence >= min_intent
        and frozenset({mine, theirs}) not in _COMPATIBLE
    ):
        problems.append(f"the plan answers a {mine}, the learned reader reads a {theirs}")
    grounded = set().union(*(_words(g.phrase) for g in groundings)) if groundings else set()
    texts = [g.phrase for g in groundings] + [
        g.target.partition(": ")[2] or g.target for g in groundings
    ]
    for span in learned.of_kind("CONCEPT", min_confidence=min_span):
        words = _words(span.text)
        if not words or words & grounded:
            continue
        if similarity is not None and texts and max(similarity(span.text, texts)) >= min_similarity:
            continue
        problems.append(f"{span.text!r} is not in the plan")
    numbers = _numbers(plan.to_dict(), set())
    for span in learned.of_kind("VALUE", min_confidence=min_span):
        found = [float(x) for x in _NUMBER.findall(span.text)]
        if found and not any(x in numbers for x in found):
            problems.append(f"the value {span.text!r} is not in the plan")
    for span in learned.of_kind("ID", min_confidence=min_span):
        if plan.patient_id is None or str(plan.patient_id).lower() != span.text.lower():
            problems.append(f"the identifier {span.text!r} is not the plan's patient")
    if not problems:
        return [
            Check(
                name="readers_agree",
                passed=True,
                detail=f"rule reader: {mine}; learned reader: {learned.describe()}",
            )
        ]
    concepts = ", ".join(repr(g.phrase) for g in groundings if g.kind == "concept") or "none"
    return [
        Check(
            name="readers_agree",
            passed=False,
            code="readings_disagree",
            detail=(
                "the two readers disagree: "
                + "; ".join(problems)
                + f" (rule reader: {mine} over {concepts}; learned reader: {learned.describe()})"
            ),
        )
    ]
