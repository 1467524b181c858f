"""Stays counted by how long they lasted: 'how many admissions lasted more than 1 day', '# of
admissions w LOS > 1 day', 'count of visit_occurrence rows with visit_concept_id 9201 and
visit_end_date - visit_start_date > 1'.

The length clause — 'lasted / lasting more (less) than N days', 'with a LOS / length of stay
over N days', the encounter table's own end column minus its start column compared to N — is
taken out (with a definition beside it that says the same: '(discharge date minus admission
date greater than 1)'), and the rest is asked on its own; it must read as a plain count of
encounters. The plan is that count with ``Measure.value`` on each stay's length in days (end
minus start). Anything else leaves the question to the other readers (None).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from clinbridge.engine.plan import ValueFilter
from clinbridge.engine.understand._reading import Grounding, Reading

__all__ = ["read_stay_filter"]

_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "seven": 7, "ten": 10}
_N = r"(?P<n>\d+|one|two|three|four|five|seven|ten)"
_CMP = {
    "more than": ">",
    "longer than": ">",
    "over": ">",
    "above": ">",
    "greater than": ">",
    ">": ">",
    "at least": ">=",
    ">=": ">=",
    "less than": "<",
    "shorter than": "<",
    "under": "<",
    "fewer than": "<",
    "<": "<",
    "at most": "<=",
    "<=": "<=",
}
_WORDS = r"(?P<cmp>more\s+than|longer\s+than|over|above|greater\s+than|at\s+least|less\s+than|shorter\s+than|under|fewer\s+than|at\s+most|>=|<=|>|<)"
_LASTED = re.compile(
    rf"\s*\b(?:that\s+|which\s+|who\s+)?(?:lasted|lasting|last)\s+{_WORDS}\s*{_N}\s+days?\b", re.I
)
_LOS = re.compile(
    rf"\s*\b(?:with|w/?|having)\s+(?:an?\s+|the\s+)?(?:los|length\s+of\s+stay|stay)\s*"
    rf"(?:of\s+)?{_WORDS}\s*{_N}\s*(?:days?)?(?=\s|$|[?.,])",
    re.I,
)
_DEFINED = re.compile(
    rf"\s*\(\s*(?:the\s+)?discharge\s+date\s+minus\s+(?:the\s+)?admission\s+date\s+"
    rf"(?:is\s+)?{_WORDS}\s*{_N}\s*(?:days?)?\s*\)",
    re.I,
)


def read_stay_filter(
    question: str, ctx: Any, ask: Callable[[str], list[Reading]]
) -> Reading | None:
    """A reading of a count of stays by their length; None when the question is not one.
    ``ctx`` is the reader's ``UnderstandContext``; ``ask`` reads a sub-question whole."""
    catalog = ctx.catalog
    enc = catalog.encounters if catalog is not None else None
    if enc is None or not enc.end_column:
        return None
    text = question.strip().rstrip("?").strip()
    sql = re.compile(
        rf"\s*\band\s+(?:\w+\.)?{re.escape(enc.end_column)}\s*-\s*(?:\w+\.)?"
        rf"{re.escape(enc.start_column)}\s*{_WORDS}\s*{_N}\b",
        re.I,
    )
    found = [m for p in (_LASTED, _LOS, sql) for m in p.finditer(text)]
    if len(found) != 1:
        return None
    m = found[0]
    op, n = _CMP[re.sub(r"\s+", " ", m["cmp"].lower())], _number(m["n"])
    rest = text[: m.start()] + text[m.end() :]
    defined = _DEFINED.search(rest)
    if defined is not None:
        if (_CMP[re.sub(r"\s+", " ", defined["cmp"].lower())], _number(defined["n"])) != (op, n):
            return None
        rest = rest[: defined.start()] + rest[defined.end() :]
    readings = ask(rest.strip())
    if not readings or readings[0].plan is None or readings[0].choices:
        return None
    first = readings[0]
    plan = first.plan
    assert plan is not None
    if (
        plan.measure.of != "encounters"
        or plan.aggregate.op != "count"
        or plan.measure.value is not None
        or plan.measure.stream is not None
        or plan.group_by
        or plan.minus is not None
        or plan.over is not None
    ):
        return None
    value = ValueFilter(op=op, value=n)  # type: ignore[arg-type]
    plan = plan.model_copy(
        update={"question": question, "measure": plan.measure.model_copy(update={"value": value})}
    )
    grounding = Grounding(
        phrase=m[0].strip(), kind="value", target=f"length of stay (end minus start) {op} {n} days"
    )
    return first.model_copy(
        update={
            "question": question,
            "plan": plan,
            "groundings": (*first.groundings, grounding),
            "notes": (*first.notes, "stays counted by their length"),
        }
    )


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word.lower()]
