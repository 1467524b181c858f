"""'All of their readings under N': a threshold every value must meet, not one value.

'patients whose SBP readings were all under 130', 'every A1c below 7': the patients have such
values and none on the other side of the threshold. Read as a plain threshold filter ('had a
reading under 130') the plan counts everyone with one low reading — a different, larger cohort.

* :func:`universal_threshold` repairs such a plan: the event filter with the threshold becomes
  two filters — has a value of the measure, and has no value on the other side (the
  complementary comparison, negated).
* :func:`drop_restated_universal` drops a parenthesis that says a negated threshold again in
  the universal form: 'never had SBP >= 130 (all readings under 130)' — the same cohort, said
  twice — before the rules read the question.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinbridge.engine.plan import QueryPlan

__all__ = ["drop_restated_universal", "universal_threshold"]

_VALUES = r"(?:readings?|values?|measurements?|results?|levels?|tests?|bps?|pressures?)"
# words between 'all' and 'readings' name the measure, never a person or a quantity
_MIDDLE = r"(?:(?!(?:pts?|patients?|persons?|people|with|who|whose|had|has|have|a|an|any|one|at|least)\b)[\w/+-]+\s+)"
_UNIVERSAL = re.compile(
    rf"\b(?:all|every|each)\s+(?:(?:of\s+)?(?:their|his|her|the|its)\s+)?{_MIDDLE}{{0,3}}?{_VALUES}\b"
    rf"|\b{_VALUES}\s+(?:(?:were|was|are|is|have\s+been|stayed|remained)\s+)?(?:all|always|consistently)\s+"
    rf"(?=under|below|less|over|above|more|greater|at|<|>|≤|≥)",
    re.I,
)
_COMPLEMENT = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_WORD_OP = [
    (r"<=|≤|at\s+most|no\s+more\s+than", "<="),
    (r">=|≥|at\s+least|no\s+less\s+than", ">="),
    (r"<|under|below|less\s+than|lower\s+than", "<"),
    (r">|over|above|more\s+than|greater\s+than|higher\s+than|exceed(?:ed|ing|s)?", ">"),
]
_NUM = r"(?P<n>\d+(?:\.\d+)?)"


def _op_of(word: str) -> str | None:
    for pattern, op in _WORD_OP:
        if re.fullmatch(pattern, word.strip(), re.I):
            return op
    return None


_OPS = "|".join(p for p, _ in _WORD_OP)
_PAREN_UNIVERSAL = re.compile(
    rf"\s*\(\s*(?:i\.?e\.?,?\s*|that\s+is,?\s*)?(?:all|every|each)\s+{_MIDDLE}{{0,3}}?{_VALUES}?\s*"
    rf"(?:were\s+|was\s+|are\s+)?(?P<op>{_OPS})\s*{_NUM}\s*\)",
    re.I,
)
_NEGATED = re.compile(
    rf"\b(?:never|no|not|without)\b[^()]*?(?:(?P<op>{_OPS})\s*{_NUM}"
    rf"|(?P<n2>\d+(?:\.\d+)?)\s*(?:[a-z%/\[\]]+\s+)?or\s+(?P<post>higher|more|above|greater|over|lower|less|below|under|fewer))",
    re.I,
)
_POST = {
    **dict.fromkeys(("higher", "more", "above", "greater", "over"), ">="),
    **dict.fromkeys(("lower", "less", "below", "under", "fewer"), "<="),
}
"""'N or higher' / 'N or lower': the comparison a word after the number makes."""


def drop_restated_universal(text: str) -> str:
    """``text`` without a '(all readings under N)' that restates a 'never ... >= N' before it."""

    def restated(m: re.Match[str]) -> str:
        before = _NEGATED.search(text[: m.start()])
        if before is None:
            return m[0]
        inner = _op_of(m["op"])
        if before["post"]:
            outer, n = _POST[before["post"].lower()], before["n2"]
        else:
            outer, n = _op_of(before["op"]), before["n"]
        if (
            inner is None
            or outer is None
            or float(n) != float(m["n"])
            or _COMPLEMENT.get(outer) != inner
        ):
            return m[0]
        return " "

    return _PAREN_UNIVERSAL.sub(restated, text)


def universal_threshold(question: str, plan: QueryPlan) -> QueryPlan | None:
    """The plan with its one thresholded event filter read universally, or None (no 'all ...
    readings' in the question, no such filter, or more than one)."""
    from clinbridge.engine.plan import EventFilter, ValueFilter

    if not _UNIVERSAL.search(question) or re.search(
        r"\b(?:never|no|not|without)\b", question, re.I
    ):
        return None
    hits = [
        f
        for f in plan.filters
        if isinstance(f, EventFilter)
        and not f.negate
        and f.value is not None
        and f.value.op in _COMPLEMENT
        and f.concepts is not None
    ]
    if len(hits) != 1:
        return None
    f: Any = hits[0]
    has = f.model_copy(update={"value": None})
    other = ValueFilter(op=_COMPLEMENT[f.value.op], value=f.value.value, unit=f.value.unit)
    none_other = f.model_copy(update={"value": other, "negate": True})
    rest = [g for g in plan.filters if g is not f]
    return plan.model_copy(update={"filters": (*rest, has, none_other)})
