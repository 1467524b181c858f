"""'pts on <drug>' with no word of time, where the data makes 'currently' a real reading.

The bare 'pts on amlodipine' names a group and is read as ever exposed (devset_parser); on a
source where some of those patients are on the drug today (an exposure spanning now, an active
medication request) and others are not, and the asker gives a today, 'on' reads as either (devset9: 'how many pts on
simvastatin', 3 ever, 2 with an active request). Where nobody is on it today the reading
'currently' gives nothing and the group reading stands. 'are on', 'take' (a present state) are
:func:`clinbridge.engine._acceptance_data._current_or_ever`'s, whatever the data.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine import _acceptance_alts as alts
from clinbridge.engine._checks import failed
from clinbridge.engine.plan import AgeFilter, EventFilter, PatientAnchor

if TYPE_CHECKING:
    from clinbridge.engine._checks import Check, _Ctx
    from clinbridge.engine.plan import QueryPlan

# 'pts on simvastatin', 'patients on simvastatin in fhir_medication_request'
_BARE_ON = re.compile(
    r"\b(?:pts|patients|people|persons|women|men|subjects)\s+on\s+"
    r"(?:an?\s+)?(?!any\b|the\b|their\b|each\b|record\b|file\b|average\b|\d)[a-z][\w-]*",
    re.I,
)


def drug_count_filter(plan: QueryPlan) -> EventFilter | None:
    """The one plain drug filter of a count of patients (no window, status, value, exclusion,
    negation or grouping): the plan a bare 'pts on X' reads to; None for any other plan."""
    if plan.patient_id or plan.measure.of != "patients" or plan.aggregate.op != "count":
        return None
    if len(plan.filters) != 1 or plan.window is not None or plan.group_by:
        return None
    f = plan.filters[0]
    if not isinstance(f, EventFilter) or "drug" not in f.stream.lower():
        return None
    if f.negate or f.window is not None or f.status is not None or f.value is not None:
        return None
    if f.concepts is not None and f.concepts.exclude:
        return None  # 'on acetaminophen excluding the 160 mg tablets': products, i.e. records
    return f


def on_drug_now(ctx: _Ctx, time_frame: re.Pattern[str], present: re.Pattern[str]) -> list[Check]:
    """A count of patients 'on <drug>' (bare) where some, not all, are on it today."""
    plan, question = ctx.plan, ctx.question or ""
    if plan is None or plan.now is None:
        return []  # no today from the asker: the data's last date is no today ('on' = ever)
    f = drug_count_filter(plan)
    if f is None:
        return []
    if present.search(question) or not _BARE_ON.search(question) or time_frame.search(question):
        return []
    if not isinstance(ctx.value, int) or ctx.value < 1:
        return []
    drug = f.concepts.describe() if f.concepts is not None else "the drug"
    # on it today: an exposure (or request) active now, of a patient alive now
    living = AgeFilter(op=">=", value=0, at=PatientAnchor(point="death"), negate=True)
    current = plan.model_copy(
        update={"filters": (f.model_copy(update={"status": "active"}), living)}
    )
    now = alts.run_variant(ctx, current)
    if not isinstance(now, int) or now < 1 or now == ctx.value:
        return []
    readings = [
        alts.reading(ctx, f"currently on {drug} (active today, living patients)", current, now),
        alts.reading(ctx, f"ever given {drug}", plan, ctx.value),
    ]
    return [
        failed(
            "time_frame_unique",
            "ambiguous",
            f"'on {drug}': {now} patients are on it today, {ctx.value} were ever: say "
            "'currently on' or 'ever given'",
            readings,
        )
    ]
