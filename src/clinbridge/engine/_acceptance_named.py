"""Acceptance rule: one patient's count of a name that more concepts of the record answer to.

'How many kidney transplant procedures did the patient have' was read as the concept *Transplant
of kidney* (1 record) while the same patient's record also holds *Transplantation of kidney
regime* (18 records): both answer to every word of 'kidney transplant', and which one the
asker counts is theirs to say (devset10, written blind: the pick was scored wrong). The rule
lists the concepts recorded for the patient in the plan's stream, keeps those whose name holds
every word of the plan's label (a word's stem: 'transplant' in 'transplantation') and that the
plan's concept set leaves out; when some are left out, the count is ``ambiguous``, with the
count as read and the count with them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine import _acceptance_alts as alts
from clinbridge.engine._checks import failed
from clinbridge.engine.plan import Aggregate, ConceptRef, ConceptSet, Measure

if TYPE_CHECKING:
    from clinbridge.engine._checks import Check, _Ctx

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    {"in", "of", "by", "the", "a", "an", "and", "or", "for", "to", "with", "at", "on", "any"}
)
_STEM = 6


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    if min(len(a), len(b)) < 4:
        return False
    n = min(_STEM, len(a), len(b))
    return a[:n] == b[:n]


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _answers_to(label: list[str], name: str) -> bool:
    words = [_singular(n) for n in _words(name)]
    return all(any(_same(_singular(w), n) for n in words) for w in label)


def named_elsewhere(ctx: _Ctx) -> list[Check]:
    """A failed check when the patient has records of other concepts the label names too."""
    plan = ctx.plan
    if plan is None or not plan.patient_id or plan.filters or plan.group_by:
        return []
    m = plan.measure
    if plan.aggregate.op != "count" or m.of != "events" or m.stream is None:
        return []
    if m.concepts is None or not m.concepts.label:
        return []
    label = _words(m.concepts.label)
    if not label:
        return []
    listed = plan.model_copy(
        update={
            "measure": Measure(of="concept", stream=m.stream),
            "aggregate": Aggregate(op="list"),
        }
    )
    every = alts.run_variant(ctx, listed)
    read = alts.run_variant(
        ctx,
        listed.model_copy(
            update={"measure": Measure(of="concept", stream=m.stream, concepts=m.concepts)}
        ),
    )
    if not isinstance(every, list) or not isinstance(read, list):
        return []
    taken = {str(n) for n in read}
    others = sorted({str(n) for n in every} - taken)
    others = [n for n in others if _answers_to(label, n)]
    if not others or not taken:
        return []
    wider = plan.model_copy(
        update={
            "measure": m.model_copy(
                update={
                    "concepts": ConceptSet(
                        concepts=(
                            *m.concepts.concepts,
                            *(ConceptRef(name=n) for n in others),
                        ),
                        include_descendants=m.concepts.include_descendants,
                        label=m.concepts.label,
                    )
                }
            )
        }
    )
    more = alts.run_variant(ctx, wider)
    if more is None or more == ctx.value:
        return []
    said = ", ".join(repr(n) for n in others[:3])
    return [
        failed(
            "name_unique",
            "ambiguous",
            f"{m.concepts.label!r} was read as {', '.join(sorted(taken)[:3])} ({ctx.value}); "
            f"the patient's record also has {said}, which the words name too ({more} with "
            "them): say which to count",
            [
                alts.reading(ctx, f"{', '.join(sorted(taken)[:3])} only", plan, ctx.value),
                alts.reading(ctx, f"also {said}", wider, more),
            ],
        )
    ]
