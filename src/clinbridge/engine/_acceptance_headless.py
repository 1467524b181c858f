"""A headless question about patients ('pts w tree nut allergy?'): how many, or which?

A noun phrase typed as a question names a group and asks something of it without saying what:
'pts w a measured BMI of 30+?' was asked for the number (devset5, devset6), 'pts w tree nut
allergy?' for the patients' ids (devset9). The reading counts them (``_assemble._headless``);
with the question mark and no word of counting or listing, the count is a guess, and the
answer is reported ``ambiguous`` with the number and the ids. The same phrase without the
question mark ('pts with osteoarthritis', '# F pts w afib') is a heading: how many.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine import _acceptance_alts as alts
from clinbridge.engine._checks import failed
from clinbridge.engine.plan import Aggregate

if TYPE_CHECKING:
    from clinbridge.engine._checks import Check, _Ctx

# the person word the phrase starts with, a concept before it at most ('covid pts?')
_HEAD = re.compile(
    r"^\s*(?:[\w-]+\s+){0,2}?(?:pts|patients|people|persons|women|men|females|males|kids|"
    r"children|adults|subjects)\b",
    re.I,
)
# anything that says what is asked: a count, a list, a question word, a verb of asking
_SAYS = re.compile(
    r"#|\b(?:how|many|number|count|counts|total|tally|n|which|who|whom|what|list|ids?|"
    r"names?|show|give|any|is|are|was|were|do|does|did|has|have|had)\b",
    re.I,
)


def count_or_ids(ctx: _Ctx) -> list[Check]:
    """Failed check for a patient count read from a headless question ending in '?'."""
    plan, question = ctx.plan, (ctx.question or "").strip()
    if plan is None or plan.patient_id or plan.group_by:
        return []
    if plan.measure.of != "patients" or plan.aggregate.op != "count":
        return []
    if not question.endswith("?") or not _HEAD.match(question) or _SAYS.search(question):
        return []
    listed = plan.model_copy(update={"aggregate": Aggregate(op="list")})
    return [
        failed(
            "asked_unique",
            "ambiguous",
            f"'{question}' names a group of patients but not what is asked of it: their "
            f"number ({ctx.value}) or which they are? say 'how many' or 'which'",
            [
                alts.reading(ctx, "how many patients", plan, ctx.value),
                alts.reading(ctx, "which patients (their ids)", listed),
            ],
        )
    ]
