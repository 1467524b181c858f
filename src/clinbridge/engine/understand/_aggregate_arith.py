"""Arithmetic between two aggregates: 'max minus min' is a range, any other one abstains.

'the range of X (max minus min)', 'the spread of X, i.e. the highest minus the lowest value',
'max(value_num) - min(value_num)', 'the difference between the highest and lowest X': the
spread of one measurement's values, ``Aggregate(op="range")``. :func:`range_words` rewrites
the definition into the words every reader takes for that aggregate ('maximum minus minimum');
two different fields ('max(a) - min(b)') are left as they are.

:func:`guard_arith` makes a reading abstain when the question adds or subtracts two aggregates
('mean minus median', 'max(x) - min(x)' read as the max alone) and its plan holds no such
arithmetic: the reading took one aggregate and dropped the other. A plan that subtracts one
value from another (``QueryPlan.minus``: 'the last minus the first') holds it; a range holds
a maximum minus a minimum. Ratios are checked elsewhere (``_plan_guards._RATIO_OF``).
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._pieces import Slot
from clinbridge.engine.understand._reading import Reading

__all__ = ["RANGE_RULE", "RANGE_WORDS", "guard_arith", "range_words"]

RANGE_WORDS = "maximum minus minimum"
"""What :func:`range_words` writes for a range: the slot rules read it as ``op="range"``."""
RANGE_RULE = (
    r"\bmaximum\s+minus\s+minimum\b",
    lambda m: Slot("intent", {"op": "range", "word": m[0]}),
)
"""The slot rule (``_slots``) that reads :data:`RANGE_WORDS` as the range aggregate."""

_MAX = r"(?:max(?:imum)?|highest|largest|greatest|oldest|longest)"
_MIN = r"(?:min(?:imum)?|lowest|smallest|youngest|shortest)"
_VAL = r"(?:\s+(?:values?|readings?|results?|measurements?))?"
_FIELD = r"(?:\s*\(\s*(?P<{0}>[\w.]+)\s*\))?"
_DEF = re.compile(
    rf"(?<![\w.])(?:the\s+)?{_MAX}{_FIELD.format('f1')}{_VAL}\s*(?:-|−|–|\bminus\b)\s*"
    rf"(?:the\s+)?{_MIN}{_FIELD.format('f2')}{_VAL}(?![\w(])"
    rf"|\b(?:the\s+)?difference\s+between\s+(?:the\s+)?{_MAX}{_VAL}\s+and\s+(?:the\s+)?{_MIN}"
    rf"{_VAL}(?![\w(])",
    re.I,
)
# the word the definition explains: 'the range of X (max minus min)', 'the spread of X, i.e. ...'
_RANGE = re.compile(r"\b(?:the\s+)?(?:range|spread)\b(?=\s+of\b|\s*\()", re.I)
_BEFORE = re.compile(
    r"(?:\(\s*|,?\s*\b(?:i\.?\s?e\.?|that\s+is|meaning|namely|defined\s+as|computed\s+as|"
    r"calculated\s+as)\s*,?\s*)$",
    re.I,
)
_AFTER = re.compile(r"^\s*[),]?")


def range_words(question: str) -> str:
    """The question with a maximum-minus-minimum definition written as :data:`RANGE_WORDS`."""
    m = _DEF.search(question)
    if m is None or (m["f1"] and m["f2"] and m["f1"].lower() != m["f2"].lower()):
        return question
    field = m["f1"] or m["f2"]
    word = next((r for r in _RANGE.finditer(question[: m.start()])), None)
    if word is None:
        said = RANGE_WORDS + (f" {field}" if field else "")
        return f"{question[: m.start()]}{said}{question[m.end() :]}"
    head = _BEFORE.sub("", question[: m.start()])
    tail = question[m.end() :]
    if question[: m.start()].rstrip().endswith("("):
        tail = _AFTER.sub("", tail, count=1)
    head = f"{head[: word.start()]}the {RANGE_WORDS}{head[word.end() :]}"
    return re.sub(r"\s+", " ", f"{head.rstrip()} {tail.lstrip()}").strip()


_AGG = (
    r"(?:max(?:imum)?|min(?:imum)?|highest|lowest|largest|smallest|mean|average|avg|median|"
    r"sum|total|count|stddev|std|first|last|latest|earliest)"
)
_ARITH = re.compile(
    rf"\b(?P<a>{_AGG})(?:\s*\((?P<fa>[^()]*)\)\s*(?:-|−|–|\+|minus|plus)"
    rf"|\s+(?:-|−|–|\+)\s+|\s+(?:minus|plus)\s+)\s*(?:the\s+)?(?P<b>{_AGG})\b",
    re.I,
)
_MAXES = frozenset({"max", "maximum", "highest", "largest", "oldest", "longest"})
_MINS = frozenset({"min", "minimum", "lowest", "smallest", "youngest", "shortest"})


def guard_arith(question: str, reading: Reading) -> Reading:
    """The reading, or an abstention when the question adds or subtracts two aggregates and
    the plan holds no such arithmetic."""
    plan = reading.plan
    if plan is None:
        return reading
    m = _ARITH.search(question)
    if m is None or plan.minus is not None:
        return reading
    a, b = m["a"].lower(), m["b"].lower()
    if plan.aggregate.op == "range" and a in _MAXES and b in _MINS:
        return reading
    return Reading(
        question=reading.question,
        abstain_reason=(
            f"the question computes with two aggregates ({m[0]!r}); the plan takes only one "
            f"({plan.aggregate.op}), so the other would be dropped"
        ),
        unresolved=(m[0],),
    )
