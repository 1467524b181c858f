"""Last checks of a reading against its question: known misreadings become abstentions (or,
for a cut list, the repaired plan).

* **qualified siblings**: a phrase whose values or times are asked (not a yes/no or a count),
  whose concept set holds several concepts that each add a different qualifier to the words
  asked ('diastolic blood pressure' → *arterial* … diastolic and *non invasive* … diastolic),
  names two measurements, not one: their union mixes two series, and which one is meant is not
  known. A spelling or plural variant ('mesothelial cell(s)') adds no qualifier; an 'a, b or c'
  list names each concept on purpose.
* **a stored fact read as a loose concept**: a phrase grounded only by embedding similarity
  that is, word for word, a value an encounter attribute stores ('emergency room' as an
  admission location) names that fact, not the concept it resembles.
* **distinct concepts across tables**: 'how many unique drugs' over a kind whose tables name
  their concepts through different dictionaries (drug names, ICU item ids) counts codes of two
  kinds together.
* **an 'a, b, or c' list cut after its first item**: the first item read as the measure and the
  rest as a filter of the same table for one patient's yes/no ('has heparin, x, or y been
  prescribed') is one list: the plan is repaired to the union of the three, in the measure.
* **a kind where the question names one of its tables**: 'when did patient 7 last receive a
  prescription' read over every drug table (prescriptions and ICU inputs) is narrowed to the
  table the question names by its own name.
* **yes/no read as a count or list**: 'has patient 7 got a platelet count test' read as how many,
  or as a list, answers another question.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from clinbridge.engine.understand._between_read import time_counted
from clinbridge.engine.understand._name_variants import (
    counted_concept,
    hyphen_cut,
    narrow_variants,
)
from clinbridge.engine.understand._reading import Reading

if TYPE_CHECKING:
    from clinbridge.engine.plan import ConceptSet, QueryPlan

__all__ = ["guard_reading"]

_YESNO = re.compile(r"^\W*(has|have|had|did|does|do|was|were|is|are)\b", re.I)
_STOP = {"of", "the", "a", "an", "and", "in", "on", "for", "to", "with", "by", "at"}


def _words(text: str) -> set[str]:
    out = set()
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w in _STOP:
            continue
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") else w)
    return out


def qualified_siblings(cs: ConceptSet) -> list[str]:
    """The names of a concept set that each add a different qualifier to its label's words."""
    label = cs.label or ""
    if not label or re.search(r",|\bor\b|\band\b", label):
        return []
    asked = _words(label)
    extras: dict[str, frozenset[str]] = {}
    for c in cs.concepts:
        name = str(c.name or c.concept_id)
        words = _words(name)
        if not asked <= words:
            continue
        extras.setdefault(name, frozenset(words - asked))
    kinds = {e for e in extras.values() if e}
    if len(kinds) < 2:
        return []
    return sorted(n for n, e in extras.items() if e)


def _concept_sets(plan: QueryPlan) -> list[ConceptSet]:
    """The measure's concept set when its values or times are asked (which value is the first,
    the last, the highest): a yes/no or a count over any of them ('did patient 7 ever have a
    glucose above 200', 'had a fracture') is answered by their union."""
    m = plan.measure
    series = m.of in {"value", "date", "concept"} and plan.aggregate.op not in {"exists", "count"}
    return [m.concepts] if m.concepts is not None and series else []


_STORED: dict[tuple[int, str, str], set[str]] = {}


def _attribute_value(phrase: str, ctx: Any) -> str | None:
    """The encounter attribute that stores ``phrase`` as one of its values, if any."""
    from clinbridge.engine.understand._schema_plan import _LOOKUP

    enc = ctx.catalog.encounters if ctx is not None and ctx.catalog is not None else None
    lookup = _LOOKUP.get(id(ctx.lexicon)) if enc is not None else None
    if enc is None or lookup is None:
        return None
    for name, column in enc.attributes.items():
        key = (id(ctx.lexicon), enc.table, column)
        if key not in _STORED:
            try:
                rows = lookup(f'SELECT DISTINCT "{column}" FROM "{enc.table}"', ())
            except Exception:
                rows = []
            _STORED[key] = {str(r[0]).strip().lower() for r in rows if r[0] is not None}
        if phrase.strip().lower() in _STORED[key]:
            return name
    return None


def guard_reading(question: str, reading: Reading, ctx: Any = None) -> Reading:
    """The reading, or an abstention when its plan is one of the known misreadings."""
    plan = reading.plan
    if plan is None:
        return reading
    reason, phrase = "", ""
    for g in reading.groundings:
        if g.kind == "concept" and g.how == "embedding":
            fact = _attribute_value(g.phrase, ctx)
            if fact is not None:
                reason = f"{g.phrase!r} is a stored {fact}, read loosely as {g.target!r}"
                phrase = g.phrase
                break
    for cs in _concept_sets(plan) if not reason else []:
        names = qualified_siblings(cs)
        if names:
            reason = f"{cs.label!r} names several measurements ({', '.join(names[:4])}); say which"
            phrase = cs.label or ""
            break
    plan = narrow_variants(question, plan)
    if plan is not reading.plan:
        reading = reading.model_copy(update={"plan": plan})
    if not reason and (cut := hyphen_cut(question, plan)) is not None:
        reason, phrase = f"{cut!r} is one stored name, read in pieces", cut
    if not reason and (counted := counted_concept(question, plan)) is not None:
        reason, phrase = f"'how many {counted}' counts {counted}, not patients", counted
    narrowed = _named_table(question, plan, ctx)
    if narrowed is not None:
        plan = narrowed
        reading = reading.model_copy(update={"plan": plan})
    op = plan.aggregate.op
    m = plan.measure
    if not reason and m.of == "concept" and op == "count_distinct" and m.stream:
        kinds = _dictionaries(ctx, m.stream)
        if len(kinds) > 1:
            reason, phrase = (
                f"distinct {m.stream} concepts named by {len(kinds)} dictionaries",
                m.stream,
            )
    if not reason and (merged := _cut_list(question, plan)) is not None:
        return reading.model_copy(update={"plan": merged})
    if (
        not reason
        and _YESNO.match(question)
        and op in {"count", "count_distinct", "list"}
        and not re.search(r"\bhow\s+(many|much)\b", question, re.I)
    ):
        reason, phrase = f"a yes/no question read as a {op}", question.split()[0]
    if not reason and (timed := time_counted(question, plan)) is not None:
        reason, phrase = timed
    if not reason:
        return reading
    return Reading(
        question=reading.question,
        abstain_reason=f"cannot answer: {reason}",
        unresolved=(phrase,),
        groundings=reading.groundings,
    )


def _dictionaries(ctx: Any, stream: str) -> set[str]:
    cat = ctx.catalog if ctx is not None else None
    if cat is None:
        return set()
    from clinbridge.engine.resolve import streams_for

    try:
        found = streams_for(cat, stream)
    except Exception:
        return set()
    return {s.dictionary or s.name for s in found}


def _cut_list(question: str, plan: QueryPlan) -> QueryPlan | None:
    """The repaired plan of an 'a, b, or c' list read as a and a filter 'b or c', or None."""
    from clinbridge.engine.plan import EventFilter

    m = plan.measure
    if plan.patient_id is None or plan.aggregate.op != "exists" or m.concepts is None:
        return None
    if len(plan.filters) != 1 or not isinstance(plan.filters[0], EventFilter):
        return None
    f = plan.filters[0]
    if f.stream != m.stream or f.concepts is None or f.value is not None or f.negate:
        return None
    if f.min_count != 1 or not re.search(r"\bor\b", f.concepts.label or ""):
        return None
    if f.window is not None and plan.window is not None and f.window != plan.window:
        return None
    first = re.escape(str(m.concepts.concepts[0].name or "")) if m.concepts.concepts else ""
    if not first or not re.search(rf"{first}\s*,", question, re.I) or len(m.concepts.concepts) != 1:
        return None
    union = m.concepts.model_copy(
        update={
            "concepts": (*m.concepts.concepts, *f.concepts.concepts),
            "label": f"{m.concepts.label}, {f.concepts.label}",
        }
    )
    return plan.model_copy(
        update={
            "filters": (),
            "window": plan.window or f.window,
            "measure": m.model_copy(update={"concepts": union}),
        }
    )


def _named_table(question: str, plan: QueryPlan, ctx: Any) -> QueryPlan | None:
    """The plan narrowed to the one stream of its measure's kind that the question names by
    the stream's own name ('prescription' → prescriptions), or None."""
    from clinbridge.engine.understand._text import stem

    cat = ctx.catalog if ctx is not None else None
    m = plan.measure
    if cat is None or not m.stream or any(s.name == m.stream for s in cat.streams):
        return None
    words = {stem(w) for w in re.findall(r"[a-z]+", question.lower())}
    named = [s for s in cat.streams_of(m.stream) if stem(s.name.lower()) in words]
    if len(named) != 1:
        return None
    return plan.model_copy(update={"measure": m.model_copy(update={"stream": named[0].name})})
