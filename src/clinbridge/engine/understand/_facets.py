"""Facets: the other text columns of an event table, named by the words of their column names.

A microbiology record has a specimen (its code), a test and an organism; a prescription has a
route. The columns are found in the catalog's description of the stream's table, and their
names read as words (``org_name`` → 'organism', ``test_name`` → 'test', ``route`` → 'route'):
an abbreviation is expanded, generic parts (name, desc, type, ...) are dropped, and only a
column named by one word is a facet. Three uses, each checked against the plan read:

* the facet asked for ('the organism found in the first sputum test of patient 7'): the phrase
  is taken out, the rest is read as the date of that event, and the plan then reports the
  column at that time instead (every value recorded then: ties are reported); a yes/no
  ('has any organism been found in ...') asks for such an event with the column present;
* the facet named as the kind of thing listed ('what microbiology test did patient 7 have
  first', where the table's code is the specimen): the plan reports the column instead of the
  code, unless the code column's own word is named too ('specimen test');
* a stored value of a facet after 'via/through/using/by' ('prescribed via the po/ng route'):
  the value must be one the column stores; it becomes a condition of the events measured.

Whatever does not fit (another table, a cohort filter, another measure) abstains naming the
facet: a facet that is read loosely never becomes an answer.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clinbridge.engine.plan import Measure
from clinbridge.engine.understand._reading import Grounding, Reading

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["read_facets", "stream_nouns"]

_ABBREV = {"spec": "specimen", "org": "organism", "med": "medication", "dx": "diagnosis"}
_GENERIC = {"name", "desc", "description", "type", "id", "code", "label", "val", "value", "rx"}
_FOUND = r"(?:that\s+)?(?:(?:was|were|has\s+been|had\s+been|is|are)\s+)?(?:found|detected|discovered|identified|isolated|grown|seen|present|revealed)"
_ORDER = {"first", "last", "current", "second"}
_inside: contextvars.ContextVar[bool] = contextvars.ContextVar("facets_inside", default=False)


@dataclass(frozen=True)
class Facet:
    stream: str
    table: str
    column: str
    word: str
    code: bool  # the stream's code column


def _words(column: str) -> list[str]:
    parts = [p for p in re.split(r"[_\W]+", column.lower()) if p]
    return [_ABBREV.get(p, p) for p in parts if p not in _GENERIC]


def facets(catalog: Catalog) -> list[Facet]:
    """The one-word text columns of each stream's table (the code column marked)."""
    out: list[Facet] = []
    for s in catalog.streams:
        info = catalog.table(s.table)
        if info is None:
            continue
        roles = {
            s.patient_column,
            s.time_column,
            s.encounter_column,
            s.end_time_column,
            s.unit_column,
            s.unit_label_column,
            s.row_id_column,
            s.nested_encounter_column,
            s.system_column,
        }
        for c in info.columns:
            if c.name in roles or c.type not in {"string", "unknown"}:
                continue
            words = _words(c.name)
            if len(words) != 1 or words[0] in _ORDER or len(words[0]) < 4:
                continue
            out.append(Facet(s.name, s.table, c.name, words[0], c.name == s.code_column))
    return out


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"\b{re.escape(word)}(?:s|es)?\b", text) is not None


Read = Callable[[str, Any], list[Reading]]


def read_facets(question: str, ctx: Any, read: Read) -> list[Reading] | None:
    """Readings that use a facet of the question, or None when the question names none."""
    cat = ctx.catalog
    if cat is None or _inside.get():
        return None
    low = question.lower()
    every = facets(cat)
    named = [f for f in every if _mentions(low, f.word)]
    by_value = re.search(r"\b(?:via|through|using|by|per)\b", low) is not None
    if not named and not by_value:
        return None
    token = _inside.set(True)
    try:
        if by_value:
            found = _values_named(question, every, ctx, read)
            if found is not None:
                return found
        return _read(question, named, ctx, read) if named else None
    finally:
        _inside.reset(token)


def _abstain(question: str, reason: str, phrase: str) -> list[Reading]:
    return [
        Reading(question=question, abstain_reason=f"cannot answer: {reason}", unresolved=(phrase,))
    ]


def _read(question: str, named: list[Facet], ctx: Any, read: Read) -> list[Reading] | None:
    asked = [f for f in named if not f.code]
    for f in asked:
        m = _asking(question, f.word)
        if m is not None:  # 'what was the organism found in the urine test of ...'
            return _asked(question, m, f, ctx, read)
    listed = [f for f in asked if not any(g.code and g.stream == f.stream for g in named)]
    if not listed:
        return None
    readings = read(question, ctx)
    first = readings[0] if readings else None
    if first is None or first.plan is None:
        return readings
    m = first.plan.measure
    hit = [f for f in listed if f.stream == m.stream]
    if m.of != "concept" or m.concepts is not None or len(hit) != 1 or m.column:
        return readings
    f = hit[0]
    plan = first.plan.model_copy(update={"measure": m.model_copy(update={"column": f.column})})
    g = Grounding(phrase=f.word, kind="field", target=f"{f.table}.{f.column}")
    return [first.model_copy(update={"plan": plan, "groundings": (*first.groundings, g)})]


_LEAD = r"^\W*(?:(?:please|can|could|you|tell|show|give|me|us|i|want|to|know)\W+)*"


def _asking(question: str, word: str) -> re.Match[str] | None:
    """The phrase that asks for the facet (what was the W found in / has any W been found in)."""
    tail = rf"(?:'s\s+name)?(?:\s+{_FOUND})?\s+(?:in|at|of|on|from|during|for)\s+(?:the\s+)?"
    wh = (
        rf"(?:what|which)\s+(?:(?:was|were|is|are)\s+)?(?:the\s+)?(?:name\s+of\s+(?:the\s+)?)?"
        rf"({word}s?){tail}"
    )
    m = re.search(_LEAD + wh, question, flags=re.I)
    if m is not None:
        return m
    yn = rf"\b(?:any|an?)\s+({word}s?)\s+{_FOUND}\s+(?:in|at|on|from|during|for)\s+(?:the\s+)?"
    return re.search(yn, question, flags=re.I)


def _asked(question: str, m: re.Match[str], f: Facet, ctx: Any, read: Read) -> list[Reading]:
    """'the organism found in the first sputum test of patient 7': the column at that event."""
    yesno = re.match(r"(?i)\W*(has|have|had|was|were|is|are|did|do|does)\b", question) is not None
    head, rest = question[: m.start()].strip(), question[m.end() :]
    if yesno:
        rest = re.sub(r"(?i)\b(first|last)\s+", "", rest)
        text = f"{head} any {rest}"
    elif re.search(r"\b(first|last|latest|earliest|most\s+recent)\b", rest, re.I):
        text = f"When was {rest}"
    else:  # 'what was the dose of X since May': a sum or a list, not the value at one time
        return _abstain(question, f"which {f.word} (first? last? all?) is not said", f.word)
    readings = read(text, ctx)
    first = readings[0] if readings else None
    plan = first.plan if first is not None else None
    if first is None or plan is None:
        why = first.abstain_reason if first is not None else "nothing read"
        return _abstain(question, f"the {f.word} of an event that is not read ({why})", f.word)
    ms = plan.measure
    ok_stream = ms.stream is not None and _one_table(ctx.catalog, ms.stream) == f.table
    if plan.filters or not ok_stream or ms.column or ms.value is not None:
        return _abstain(question, f"the {f.word} of another kind of event", f.word)
    op = plan.aggregate.op
    if yesno and op == "exists" and ms.of == "events":
        measure = ms.model_copy(update={"column": f.column, "stream": f.stream})
    elif not yesno and op in {"first", "last"} and ms.of == "date":
        measure = Measure(of="concept", stream=f.stream, concepts=ms.concepts, column=f.column)
    else:
        return _abstain(question, f"the {f.word} with this kind of question", f.word)
    g = Grounding(phrase=m.group(0).strip(), kind="field", target=f"{f.table}.{f.column}")
    out = plan.model_copy(update={"measure": measure, "question": question})
    return [
        first.model_copy(
            update={"question": question, "plan": out, "groundings": (*first.groundings, g)}
        )
    ]


def _one_table(cat: Catalog, stream: str) -> str | None:
    from clinbridge.engine.resolve import streams_for

    try:
        found = streams_for(cat, stream)
    except Exception:
        return None
    return found[0].table if len(found) == 1 else None


_VALUES: dict[tuple[int, str, str], list[str]] = {}


def _stored(ctx: Any, f: Facet) -> list[str]:
    """The distinct values the facet's column stores (longest first), read once."""
    from clinbridge.engine.understand._schema_plan import _LOOKUP

    key = (id(ctx.lexicon), f.table, f.column)
    if key not in _VALUES:
        lookup = _LOOKUP.get(id(ctx.lexicon))
        vals: list[str] = []
        if lookup is not None:
            try:
                rows = lookup(f'SELECT DISTINCT "{f.column}" FROM "{f.table}"', ())
                vals = [str(r[0]) for r in rows if r[0] is not None and str(r[0]).strip()]
            except Exception:
                vals = []
        _VALUES[key] = sorted(vals, key=len, reverse=True)
    return _VALUES[key]


def _values_named(question: str, every: list[Facet], ctx: Any, read: Read) -> list[Reading] | None:
    """'prescribed via the po/ng route': a stored value of a facet named after a preposition."""
    for f in every:
        if f.code:
            continue
        for v in _stored(ctx, f):
            pat = (
                rf"\s*\b(?:via|through|using|by|per)\s+(?:the\s+|an?\s+)?{re.escape(v)}"
                rf"(?:\s+{f.word}s?|\s+means)?(?=$|[\s?.,;!])"
            )
            m = re.search(pat, question, flags=re.I)
            if m is None:
                continue
            return _with_value(question, m, f, v, ctx, read)
    return None


def _with_value(
    question: str, m: re.Match[str], f: Facet, v: str, ctx: Any, read: Read
) -> list[Reading]:
    text = (question[: m.start()] + question[m.end() :]).strip()
    readings = read(text, ctx)
    first = readings[0] if readings else None
    plan = first.plan if first is not None else None
    if first is None or plan is None:
        why = first.abstain_reason if first is not None else "nothing read"
        return _abstain(question, f"the {f.word} {v!r} with a question not read ({why})", v)
    ms = plan.measure
    if plan.filters or ms.stream is None or _one_table(ctx.catalog, ms.stream) != f.table:
        return _abstain(question, f"the {f.word} {v!r} applies to another kind of event", v)
    if ms.of not in {"concept", "date", "events", "value"} or ms.matches:
        return _abstain(question, f"the {f.word} {v!r} with this kind of question", v)
    measure = ms.model_copy(update={"stream": f.stream, "matches": ((f.column, (v,)),)})
    g = Grounding(phrase=m.group(0).strip(), kind="field", target=f"{f.table}.{f.column} = {v!r}")
    out = plan.model_copy(update={"measure": measure, "question": question})
    return [
        first.model_copy(
            update={"question": question, "plan": out, "groundings": (*first.groundings, g)}
        )
    ]


_ADJECTIVE = re.compile(r"\b([a-z]+olog)(?:ical|ic)\b", re.I)


def stream_nouns(question: str, lex: Any) -> str:
    """'a microbiological test': an '-ological' adjective read as its '-ology' noun when that
    noun names one of the source's tables (a word of the stream's name or description)."""
    words = getattr(lex, "stream_words", {}) or {}

    def noun(m: re.Match[str]) -> str:
        word = m[1].lower() + "y"
        return word if word in words else m[0]

    return _ADJECTIVE.sub(noun, question)
