"""A difference of two counts: 'how many more patients with X than with Y', 'by how many
doses does the number of X exceed the number of Y', 'count of X minus count of Y'.

The question is split into its two sides, each read on its own as a count question ('how many
patients with X'); a side said without the words it shares with the other ('than with Y',
'Td than Tdap doses') takes them from it. Only when both sides read as a plain count of the
same thing (patients, events or encounters of one stream) whose plans differ in nothing but
their concepts (or the sex of a sex filter: 'how many more women than men') is the answer the first count minus the second (``QueryPlan.minus``); anything
else returns None and the question is read as usual.

A bare 'persons with X minus persons with Y' is not read here: it is as often the patients with
X who have no Y (a set difference) as a difference of two counts. Only a minus between two
counts said as counts ('count of X minus count of Y', 'the number of X minus the number of Y')
is a difference of counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from clinbridge.engine.plan import QueryPlan
from clinbridge.engine.understand._reading import Grounding, Reading

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["read_count_difference"]

ReadFn = Callable[[str], list[Reading]]

_END = r"\s*[?.]?\s*$"
_MORE = re.compile(
    r"^\s*how\s+many\s+(?P<dir>more|fewer|less)\s+(?P<a>.+?)\s+than\s+(?P<b>.+?)" + _END, re.I
)
_EXCEED = re.compile(
    r"^\s*by\s+how\s+many\s+(?P<unit>[a-z]+)\s+(?:does|do|did)\s+the\s+(?:number|count)\s+"
    r"(?P<a>(?:of|with)\s+.+?)\s+(?P<dir>exceed|fall\s+short\s+of)\s+the\s+(?:number|count)\s+"
    r"(?P<b>(?:of|with)\s+.+?)" + _END,
    re.I,
)
_MINUS = re.compile(
    r"^\s*(?:the\s+)?(?:count|number)\s+(?P<a>of\s+.+?)\s+minus\s+(?:the\s+)?(?:count|number)\s+"
    r"(?P<b>of\s+.+?)" + _END,
    re.I,
)
_ASIDE = re.compile(r"\s*\([^()]*\)\s*$")
_COUNTED = frozenset({"patients", "events", "encounters"})
_LINKS = frozenset({"w", "w/", "with", "on", "who", "having", "of", "in", "that"})


def read_count_difference(
    question: str, read: ReadFn, catalog: Catalog | None = None
) -> Reading | None:
    """The difference of two counts the question asks for, or None when it asks for none."""
    found = _split(question)
    if found is None:
        return None
    a, b, lead = found
    for qa, qb in _side_questions(a, b, lead):
        pa, ra = _count(read, qa)
        pb, rb = _count(read, qb)
        if pa is None or pb is None or ra is None or rb is None:
            continue
        if not _same_but_concepts(pa, pb, catalog):
            continue
        plan = pa.model_copy(update={"question": question, "minus": pb})
        groundings = [g for r in (ra, rb) for g in r.groundings if g.kind != "aggregate"]
        groundings.append(
            Grounding(phrase=f"{qa} / {qb}", kind="aggregate", target="difference of two counts")
        )
        return Reading(
            question=question,
            plan=plan,
            confidence=min(ra.confidence, rb.confidence),
            groundings=tuple(groundings),
            notes=(f"difference of counts: ({qa}) minus ({qb})",),
        )
    return None


def _split(question: str) -> tuple[str, str, str] | None:
    """(first side, second side, how a side is asked) in the order of the subtraction."""
    m = _MORE.match(question)
    if m:
        a, b = m.group("a"), m.group("b")
        if m.group("dir").lower() != "more":
            a, b = b, a
        return a, b, "how many"
    m = _EXCEED.match(question)
    if m:
        a, b = m.group("a"), m.group("b")
        if m.group("dir").lower() != "exceed":
            a, b = b, a
        unit = m.group("unit")
        lead = f"how many {unit}" if a.lower().startswith("with") else "number"
        return a, b, lead
    m = _MINUS.match(question)
    if m:
        return m.group("a"), m.group("b"), "number"
    return None


def _side_questions(a: str, b: str, lead: str) -> list[tuple[str, str]]:
    """The two sides as count questions: as said, then with the words one side leaves to the
    other (its head: 'pts w X than w Y'; its tail: 'Td than Tdap doses')."""
    aside = _ASIDE.search(b)
    if aside and not _ASIDE.search(a):  # '... exceed the number of Y (records)': both sides
        a = a + aside.group(0)
    wa, wb = a.split(), b.split()
    out = [(a, b)]
    # the second side begins with a word said inside the first: it shares the first's head
    low = [w.lower() for w in wa]
    if len(wb) >= 2 and wb[0].lower() in low[1:]:
        i = low.index(wb[0].lower(), 1)
        out.append((a, " ".join(wa[:i] + wb)))
    elif len(wb) >= 2 and wb[0].lower() in {"of", "with"} and wb[1].lower() in low[1:]:
        i = low.index(wb[1].lower(), 1)
        out.append((a, " ".join(wb[:1] + wa[1:i] + wb[1:])))
    # the first side is one word standing for the second's first: it shares the second's tail
    if len(wa) == 1 and len(wb) >= 2 and wb[0].lower() not in _LINKS:
        out.append((" ".join(wa + wb[1:]), b))
    return [(f"{lead} {x}", f"{lead} {y}") for x, y in out]


def _count(read: ReadFn, question: str) -> tuple[QueryPlan | None, Reading | None]:
    """The side's plan when it reads as one plain count, else None."""
    readings = read(question)
    if not readings or readings[0].plan is None or readings[0].choices:
        return None, None
    r = readings[0]
    p = r.plan
    assert p is not None
    if (
        p.aggregate.op != "count"
        or p.aggregate.numerator
        or p.aggregate.having is not None
        or p.measure.of not in _COUNTED
        or p.group_by
        or p.minus is not None
        or p.limit
    ):
        return None, None
    return p, r


def _stream(name: Any, catalog: Catalog | None) -> Any:
    """A stream named by its kind where the source has one stream of it ('condition' and
    'condition_occurrence' are the same events)."""
    if catalog is None or not isinstance(name, str):
        return name
    kinds = {s.name: s.kind for s in catalog.streams}
    kind = kinds.get(name, name)
    return kind if len(catalog.streams_of(kind)) == 1 else name


def _canon(value: Any, catalog: Catalog | None, *, concepts: bool) -> Any:
    """The plan's JSON with its streams named alike; unless ``concepts``, without what tells
    two sides apart (their concepts, the sex of a sex filter: 'more women than men')."""
    if isinstance(value, dict):
        return {
            k: _stream(v, catalog)
            if k == "stream"
            else "*"
            if k == "sex" and not concepts
            else _canon(v, catalog, concepts=concepts)
            for k, v in value.items()
            if k != "question" and (concepts or k != "concepts")
        }
    if isinstance(value, list):
        return [_canon(v, catalog, concepts=concepts) for v in value]
    return value


def _same_but_concepts(a: QueryPlan, b: QueryPlan, catalog: Catalog | None) -> bool:
    """Both plans count the same thing over the same cohort, told apart only by concepts."""
    da, db = a.to_dict(), b.to_dict()
    if _canon(da, catalog, concepts=True) == _canon(db, catalog, concepts=True):
        return False  # the same count twice: the sides were not read apart
    return _canon(da, catalog, concepts=False) == _canon(db, catalog, concepts=False)
