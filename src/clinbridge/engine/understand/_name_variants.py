"""Checks of a reading's concept names against the question's own words.

* **written variants of one name**: a concept set of several concepts whose stored names differ
  only by hyphens, spaces or a plural 's' ('long term use' / 'long-term use', 'mesothelial
  cell' / 'mesothelial cells') are distinct records; when the question writes exactly one of
  them, the set is narrowed to it (the others are another record the question did not name).
* **a stored name cut**: a concept grounded from a fragment ('pre') of a stored name that
  the question writes whole with a hyphen ('pre-admission') had the rest of the name read as
  something else ('admission' as a hospital stay): the reading abstains.
* **a counted concept**: 'how many operating rooms' read as how many patients had a concept
  named by those words counts another thing: the reading abstains.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.engine.plan import ConceptSet, QueryPlan

__all__ = ["counted_concept", "hyphen_cut", "narrow_variants"]


def _key(name: str) -> str:
    words = re.findall(r"[a-z0-9]+", name.lower())
    return "".join(w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words)


def _written(name: str, question: str) -> bool:
    pat = r"(?<![\w-])" + re.escape(name.lower()) + r"(?![\w-])"
    return re.search(pat, question.lower()) is not None


def _narrowed(cs: ConceptSet | None, question: str) -> ConceptSet | None:
    if cs is None or len(cs.concepts) < 2:
        return None
    names = [str(c.name or "") for c in cs.concepts]
    if not all(names) or len({_key(n) for n in names}) != 1 or len(set(names)) < 2:
        return None
    exact = [c for c, n in zip(cs.concepts, names, strict=True) if _written(n, question)]
    if len(exact) != 1:
        return None
    return cs.model_copy(update={"concepts": tuple(exact)})


def narrow_variants(question: str, plan: QueryPlan) -> QueryPlan:
    """``plan`` with each concept set of written variants narrowed to the one the question writes."""
    from clinbridge.engine.plan import EventFilter

    m = plan.measure
    new = _narrowed(m.concepts, question)
    if new is not None:
        plan = plan.model_copy(update={"measure": m.model_copy(update={"concepts": new})})
    filters = []
    changed = False
    for f in plan.filters:
        cs = _narrowed(f.concepts, question) if isinstance(f, EventFilter) else None
        changed = changed or cs is not None
        filters.append(f.model_copy(update={"concepts": cs}) if cs is not None else f)
    return plan.model_copy(update={"filters": tuple(filters)}) if changed else plan


def hyphen_cut(question: str, plan: QueryPlan) -> str | None:
    """The stored name the question writes whole but the reading grounded a concept from a
    fragment of (the rest read as something else), or None. A fragment of its own concept's
    name ('calcium' of 'calcium, total') counts only when cut at a hyphen ('pre' of
    'pre-admission'); of another concept's name, wherever it is cut."""
    from clinbridge.engine.plan import EventFilter

    sets = [plan.measure.concepts]
    sets += [f.concepts for f in plan.filters if isinstance(f, EventFilter)]
    sets = [cs for cs in sets if cs is not None]
    q = question.lower()
    for cs in sets:
        label = (cs.label or "").lower().strip()
        own = {str(c.name or "").lower() for c in cs.concepts}
        for other in sets if label else ():
            for name in {str(c.name or "").lower() for c in other.concepts}:
                if not name or _key(label) == _key(name) or label not in name:
                    continue
                at_hyphen = re.search(rf"{re.escape(label)}-|-{re.escape(label)}", name)
                if name in own and not at_hyphen:
                    continue
                if _written(name, q) and not _written(label, q.replace(name, " ")):
                    return name
    return None


_PEOPLE = r"patients?|people|persons?|subjects?|individuals?|men|women|children|adults?"


def counted_concept(question: str, plan: QueryPlan) -> str | None:
    """The concept phrase a 'how many <phrase>' question counts when the plan counts patients
    having it instead ('how many operating rooms' is not how many patients had an
    operating-room diagnosis), or None."""
    from clinbridge.engine.plan import EventFilter

    if plan.measure.of != "patients" or plan.aggregate.op not in {"count", "count_distinct"}:
        return None
    for f in plan.filters:
        label = (f.concepts.label or "") if isinstance(f, EventFilter) and f.concepts else ""
        if label and re.search(
            rf"\bhow\s+many\s+{re.escape(label.lower())}\b(?!\s+(?:{_PEOPLE})\b)", question.lower()
        ):
            return label
    return None
