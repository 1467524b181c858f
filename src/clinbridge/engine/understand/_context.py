"""Assembly context: the pieces being assembled, the abstention, and concept resolution.

Shared by the measure and the filter assembly: a grounded concept is resolved to the stream
that records it and to the concept set a plan names, from what the source stores (the
lexicon), never from the wording of particular questions.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from clinbridge.engine.plan import ConceptRef, ConceptSet, ValueFilter
from clinbridge.engine.understand._definite_variants import definite_variants, vaccine_act
from clinbridge.engine.understand._ground import Concept, Word, ground_text
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._method_variants import method_base, method_siblings
from clinbridge.engine.understand._pieces import Slot
from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._shared_head import share_head
from clinbridge.errors import UnderstandingError

__all__ = ["VALUE_STREAMS", "Abstain", "Ctx", "Item", "expand"]

Item = Slot | Concept | Word
VALUE_STREAMS = ("measurement", "observation", "vital")


class Abstain(UnderstandingError):
    """The reader cannot answer; ``reason`` says why (control flow inside the reader)."""

    def __init__(self, reason: str, *unresolved: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.unresolved = unresolved

    def __str__(self) -> str:
        return self.reason


@dataclass
class Ctx:
    question: str
    lex: Lexicon
    patient_id: str | None
    now: dt.datetime | None
    today: dt.date
    embeddings: bool = True
    groundings: list[Grounding] = field(default_factory=list)
    choice: dict[int, int] = field(default_factory=dict)
    measure_value: ValueFilter | None = None
    located_scope: Slot | None = None
    patient_id_from_question: bool = False
    choices: dict[str, int] = field(default_factory=dict)
    """Which candidate each ambiguous phrase is read as (alternative readings)."""
    ambiguities: list[tuple[str, list[str]]] = field(default_factory=list)
    """Phrases naming several measurements equally well, with the candidates' names."""
    consumed: set[int] = field(default_factory=set)
    """Order slots ('first') used by a filter or an anchor (ids)."""
    measure_positions: set[int] = field(default_factory=set)
    """Concepts the measure itself uses besides its first (the two events of a time between)."""
    unit: str | None = None
    """A unit the question names on its own ('(g/dL)', 'in kg'): the answer's unit."""
    value_per_patient: bool = False
    """The measure is a value summarised for each patient ('mean chloride per patient')."""
    """Alternative label chosen per concept position (for ranked readings)."""


def expand(pieces: Sequence[str | Slot], ctx: Ctx) -> list[Item]:
    items: list[Item] = []
    for piece in pieces:
        if isinstance(piece, Slot):
            items.append(piece)
        else:
            items.extend(
                share_head(ground_text(piece, ctx.lex, embeddings=ctx.embeddings), ctx.lex)
            )
    return items


def _slots(items: Sequence[Item], *kinds: str) -> list[Slot]:
    return [i for i in items if isinstance(i, Slot) and i.kind in kinds]


def _ps(c: Concept, kind: str, lex: Lexicon) -> str:
    """The stream a plan names: the kind, or the one catalog stream of that kind holding the
    concept when several streams share the kind (FHIR allergies vs observations)."""
    if len(lex.kind_streams.get(kind, ())) <= 1:
        return kind
    names = {lex.entries[e].stream_name for e in c.entries if lex.entries[e].stream == kind}
    return names.pop() if len(names) == 1 and "" not in names else kind


def _stream_for(
    c: Concept, lex: Lexicon, *, prefer: Sequence[str] | None = None, with_values: bool = False
) -> str | None:
    by_stream: dict[str, int] = {}
    for e in c.entries:
        entry = lex.entries[e]
        if with_values and not entry.values:
            continue
        by_stream[entry.stream] = by_stream.get(entry.stream, 0) + entry.events
    if not by_stream:
        return None
    for hint in c.hints:
        if hint in by_stream:
            return hint
    if prefer:
        for p in prefer:
            if p in by_stream:
                return p
    return max(by_stream, key=lambda s: by_stream[s])


def _tied_measurements(c: Concept, stream: str, lex: Lexicon) -> list[Any]:
    """The distinct value-bearing measurements of the labels tied for best (most values first)."""
    seen: dict[Any, Any] = {}
    for group in c.tied or [c.primary]:
        best = [lex.entries[e] for e in group if lex.entries[e].stream == stream]
        best = [e for e in best if e.values]
        if best:
            e = max(best, key=lambda x: x.values)
            seen.setdefault(method_base(e.name) or e.name.lower(), e)
    return sorted(seen.values(), key=lambda e: -e.values)


def _concept_set(
    c: Concept, stream: str, lex: Lexicon, ctx: Ctx, *, values: bool = False
) -> ConceptSet:
    entries = [lex.entries[e] for e in c.entries if lex.entries[e].stream == stream]
    if values:
        primary = [lex.entries[e] for e in c.primary if lex.entries[e].stream == stream]
        with_values = [e for e in primary if e.values] or [e for e in entries if e.values]
        if not with_values:
            raise Abstain(f"no numeric values are stored for {c.label!r}", c.phrase)
        candidates = _tied_measurements(c, stream, lex) or [
            max(with_values, key=lambda e: e.values)
        ]
        if len(candidates) > 1:
            names = [e.name for e in candidates]
            if (c.phrase, names) not in ctx.ambiguities:
                ctx.ambiguities.append((c.phrase, names))
        chosen = candidates[min(ctx.choices.get(c.phrase, 0), len(candidates) - 1)]
        entries = method_siblings(chosen, lex)
    elif c.how == "contains" and (asked := vaccine_act(c.phrase, entries, lex)):
        raise Abstain(asked, c.phrase)
    elif c.how == "contains" and (variants := definite_variants(c.phrase, entries, ctx.question)):
        names = [g[0].name for g in variants]  # 'the hepatitis vaccine': A or B?
        if (c.phrase, names) not in ctx.ambiguities:
            ctx.ambiguities.append((c.phrase, names))
        entries = variants[min(ctx.choices.get(c.phrase, 0), len(variants) - 1)]
    if not entries:
        raise Abstain(f"{c.label!r} has no {stream} records in this source", c.phrase)
    seen: dict[Any, Any] = {}
    for e in entries:
        seen.setdefault(e.code, e)
    refs = tuple(ConceptRef(concept_id=e.code, name=e.name) for e in seen.values())
    ctx.groundings.append(
        Grounding(
            phrase=c.phrase,
            kind="concept",
            target=f"{stream}: {'; '.join(e.name for e in list(seen.values())[:5])}",
            how=c.how,
            score=c.score,
            codes=tuple(str(e.code) for e in seen.values())[:50],
        )
    )
    return ConceptSet(concepts=refs, label=c.phrase)


def _kind_of(name: str, lex: Lexicon) -> str | None:
    if name in lex.kind_streams:
        return name
    return next((k for k, names in lex.kind_streams.items() if name in names), None)


def check_named_kind(items: list[Item], pos: int | None, stream: str | None, lex: Lexicon) -> None:
    """Abstain where the kind of record named next to the measured concept ('lab testing',
    'platelet count tests') is not the kind its grounded concept is stored in, or a stream named
    ('urine microbiology test') is not the concept's: the words were read loosely (a procedure
    named 'testing', an input named 'platelets', an output named 'urine'). Value kinds (labs,
    vitals, observations) named as a kind are one family."""
    have = _kind_of(stream, lex) if stream and pos is not None else None
    if have is None or pos is None:
        return
    near = items[max(0, pos - 1) : pos] + items[pos + 1 : pos + 3]
    for i in near:
        if not (isinstance(i, Word) and i.role in {"stream_noun", "event_noun"} and i.value):
            continue
        if i.value not in lex.kind_streams and _kind_of(i.value, lex) is not None:
            if stream == i.value or (stream == have and i.value in lex.kind_streams[have]):
                continue  # the stream named ('microbiology'), or a kind that holds it
            raise Abstain(
                f"{i.text!r} names {i.value} records, but the concept read is in {stream}"
            )
        named = _kind_of(i.value, lex)
        if named is None or named == have or {named, have} <= set(VALUE_STREAMS):
            continue
        raise Abstain(f"{i.text!r} names {named} records, but the concept read is a {have}", i.text)
