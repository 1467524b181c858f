"""'Was patient 7 given X, Y, or Z?', 'X or Y', 'X / Y': one list of alternatives, split by the walk.

The first item of a comma list becomes the measure's concepts and the 'Y or Z' that follows a
filter on the same stream, which would ask for X *and* (Y or Z). When the filter is exactly
such an or-list on the measure's own stream — not negated, no value or count of its own, and
the only filter — it is folded back into the measure: X or Y or Z. A calendar window the walk
gave the last item ('X or Y diagnoses in 2018') is the whole list's: it becomes the plan's
window when the plan has none of its own.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from clinbridge.engine.plan import CalendarWindow, ConceptSet, EventFilter, QueryPlan

__all__ = ["fold_or_list"]


def fold_or_list(plan: QueryPlan, question: str) -> QueryPlan:
    """The plan with a split 'X, Y, or Z' list folded into its measure (else unchanged)."""
    m = plan.measure
    if len(plan.filters) != 1 or m.concepts is None or m.stream is None:
        return plan
    flt = plan.filters[0]
    if not isinstance(flt, EventFilter) or flt.concepts is None:
        return plan
    simple = not (flt.negate or flt.value or flt.age_at_event or flt.first_only)
    # 'X or Y in 2018': the calendar window said after the list holds for all of it
    dated = flt.window is None or (isinstance(flt.window, CalendarWindow) and plan.window is None)
    if not (simple and dated) or flt.min_count != 1 or flt.stream != m.stream or flt.encounter_type:
        return plan
    label = flt.concepts.label or ""
    first = _plain(m.concepts.label or "")
    text = _plain(question)
    # the list as written: 'X, Y(,) or Z' — X right before a comma, the filter's set an or-list;
    # or 'X or Y', 'X / Y': X right before an 'or' or a slash and the filter's words after it
    listed = " or " in label and first and f"{first}," in text
    said = _plain(label)
    paired = bool(first and said) and _paired(first, said, _slashed(question))
    if not (listed or paired):
        return plan
    merged = ConceptSet(
        concepts=m.concepts.concepts + flt.concepts.concepts,
        include_descendants=m.concepts.include_descendants and flt.concepts.include_descendants,
        exclude=m.concepts.exclude + flt.concepts.exclude,
        label=f"{m.concepts.label}, {label}",
    )
    update: dict[str, object] = {
        "filters": (),
        "measure": m.model_copy(update={"concepts": merged}),
    }
    if flt.window is not None:
        update["window"] = flt.window
    return plan.model_copy(update=update)


def _paired(first: str, said: str, text: str) -> bool:
    """'X or Y' / 'X / Y' in the text, X as the measure's label or a misspelling of it
    ('donepazil / aricept' where the reading corrected it to donepezil)."""
    if re.search(rf"\b{re.escape(first)}\s*(?:\bor\b|/)\s*{re.escape(said)}\b", text):
        return True
    n = len(first.split())
    words = r"\w+" + r"\s+\w+" * (n - 1)
    for m in re.finditer(rf"\b({words})\s*(?:\bor\b|/)\s*{re.escape(said)}\b", text):
        if SequenceMatcher(None, m[1], first).ratio() >= 0.8:
            return True
    return False


def _slashed(text: str) -> str:
    """``_plain`` keeping slashes ('donepezil / aricept' → 'donepezil / aricept')."""
    words = re.sub(r"[^\w\s,/]", " ", text.lower())
    return re.sub(r"\s+", " ", words).strip()


def _plain(text: str) -> str:
    """Lower case, words and commas only, single spaces ('X (regular), Y' → 'x regular, y')."""
    words = re.sub(r"[^\w\s,]", " ", text.lower())
    return re.sub(r"\s+", " ", re.sub(r"\s+,", ",", words)).strip()
