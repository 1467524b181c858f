"""Groups kept by their count: 'which sites recruited more than 40 infants', 'which values of
Centre have more than 40 rows', 'which TOBY centres enrolled fewer than 20 babies'.

The question is read as the grouped count it filters ('number of infants in TOBY by centre'),
on its own and through the whole reader; only a count of subjects grouped by exactly one
variable is kept, and the answer is the list of that variable's groups whose count meets the
comparison. Anything else returns None and the question is read as usual.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from clinbridge.engine.plan import ValueFilter
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._trial_model import Abstain

__all__ = ["read_having"]

_ASK = re.compile(
    r"^\s*(?:which|what)\s+(?:(?:values|levels|categories)\s+of\s+)?(?:the\s+)?(?P<pre>.*?)"
    r"(?P<g>\b[\w-]+)\s+(?:have|has|had|recruited|enrolled|contributed|randomi[sz]ed|included)"
    r"\s+(?P<cmp>more\s+than|over|fewer\s+than|less\s+than|under|at\s+least|at\s+most)\s+"
    r"(?P<n>\d+)\s*(?:rows|records|infants|babies|patients|subjects|participants|children|"
    r"neonates|cases)?\b\s*(?P<post>[^?]*?)\s*\??\s*$",
    re.I,
)
_LIST = re.compile(
    r"^\s*(?:list|give|show|name|return)\s+(?:me\s+)?(?:all\s+)?(?:the\s+)?(?P<pre>.*?)"
    r"(?P<g>\b[\w-]+)\s+(?:values?\s+|codes?\s+|levels?\s+)?(?:with|having|that\s+have)\s+"
    r"(?P<cmp>more\s+than|over|fewer\s+than|less\s+than|under|at\s+least|at\s+most)\s+"
    r"(?P<n>\d+)\s*(?:rows|records|infants|babies|patients|subjects|participants|children|"
    r"neonates|cases)\b\s*(?P<post>[^?.]*?)\s*[?.]?\s*$",
    re.I,
)
"""'List the SITE values with at least 15 rows where ARM = 1': the same, as a data manager asks."""
_OPS = {
    "more than": ">",
    "over": ">",
    "fewer than": "<",
    "less than": "<",
    "under": "<",
    "at least": ">=",
    "at most": "<=",
}


def read_having(read: Callable[[str], Reading], question: str) -> Reading | None:
    """The groups whose count meets the question's comparison, or None."""
    m = _ASK.match(question) or _LIST.match(question)
    if not m:
        return None
    op = _OPS[re.sub(r"\s+", " ", m.group("cmp").lower())]
    pre, post = m.group("pre").strip(), m.group("post").strip()
    counted = "number of infants" + (f" in {pre}" if pre else "") + f" by {m.group('g')}"
    counted += f" {post}" if post else ""
    try:
        r = read(counted)
    except (Abstain, AssertionError, ValueError):
        return None
    p = r.plan
    if p is None or p.aggregate.op != "count" or p.measure.of != "patients" or p.patient_id:
        return None
    if len(p.group_by) != 1 or p.group_by[0].key != "variable" or p.minus is not None:
        return None
    having = ValueFilter(op=op, value=float(m.group("n")))  # type: ignore[arg-type]
    plan = p.model_copy(
        update={
            "question": question,
            "aggregate": p.aggregate.model_copy(update={"having": having}),
        }
    )
    said = f"{m.group('cmp')} {m.group('n')}"
    return Reading(
        question=question,
        plan=plan,
        confidence=0.85,
        groundings=(
            *r.groundings,
            Grounding(phrase=said, kind="aggregate", target=f"count {op} {m.group('n')}"),
        ),
        notes=r.notes,
    )
