"""A phrase whose best match lies in one stream, read in another: 'pregnant' as two procedures.

A general word grounds to every concept whose label carries it ('pregnancy' → the diagnosis
'Normal pregnancy' and the procedures 'Standard pregnancy test', 'Pregnancy termination care').
With nothing in the question naming a stream, the reading keeps the stream with the most events,
and that can drop the label the phrase matched best — counting pregnancy tests as pregnancies.
When the stream a reading used holds none of the best-matching label's concepts, the question
is asked instead (one reading per stream the phrase's concepts are recorded in, each answered and
offered as an alternative; reason ``ambiguous`` even when they agree, since they mean different
things). A stream said aloud ('diagnosed', 'procedures') is a hint, and the reading stands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from clinbridge.engine.understand._ground import Concept
from clinbridge.engine.understand._reading import Choice

if TYPE_CHECKING:
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.engine.understand._lexicon import Lexicon
    from clinbridge.engine.understand._reading import Reading

__all__ = ["stream_choices"]


def _streams_used(node: Any) -> Iterator[tuple[str, str]]:
    """(stream, concept-set label) of every node of the plan holding concepts in a stream."""
    if isinstance(node, tuple | list):
        for x in node:
            yield from _streams_used(x)
        return
    fields = getattr(type(node), "model_fields", None)
    if not fields:
        return
    stream, concepts = getattr(node, "stream", None), getattr(node, "concepts", None)
    if isinstance(stream, str) and concepts is not None and hasattr(concepts, "label"):
        yield stream, str(concepts.label or "")
    for name in fields:
        if name in ("concepts", "question"):
            continue
        yield from _streams_used(getattr(node, name, None))


def _kinds(entries: list[int], lex: Lexicon) -> dict[str, int]:
    """Stream kind → events, over the entries with events."""
    out: dict[str, int] = {}
    for e in entries:
        entry = lex.entries[e]
        if entry.events:
            out[entry.stream] = out.get(entry.stream, 0) + entry.events
    return out


def _split(c: Concept, plan: QueryPlan, lex: Lexicon) -> list[str]:
    """The phrase's stream kinds when the plan read it in a stream its best label is not in."""
    if c.hints or not c.primary:
        return []
    kinds = _kinds(c.entries, lex)
    best = _kinds(c.primary, lex)
    if len(kinds) < 2 or not best:
        return []
    used = {s for s, label in _streams_used(plan) if label == c.phrase}
    if len(used) != 1:
        return []
    (stream,) = used
    names = {lex.entries[e].stream_name for e in c.primary} | set(best)
    if stream in names:
        return []
    return sorted(kinds, key=lambda k: -kinds[k])


def stream_choices(
    items: list[Any],
    first: Reading,
    lex: Lexicon,
    assemble: Callable[[list[Any]], Reading],
) -> Reading:
    """The first reading with one choice per stream when it dropped a phrase's best label."""
    if first.plan is None or first.choices:
        return first
    for k, c in enumerate(items):
        if not isinstance(c, Concept):
            continue
        kinds = _split(c, first.plan, lex)
        if not kinds:
            continue
        choices: list[Choice] = []
        for kind in kinds:
            keep = [e for e in c.entries if lex.entries[e].stream == kind]
            primary = [e for e in c.primary if lex.entries[e].stream == kind] or keep
            narrowed = replace(c, entries=keep, primary=primary, tied=[], alternatives=[])
            new_items = list(items)
            new_items[k] = narrowed
            reading = assemble(new_items)
            if reading.plan is None or any(ch.plan == reading.plan for ch in choices):
                continue
            names = sorted({lex.entries[e].name for e in keep})
            shown = "; ".join(names[:3]) + ("; ..." if len(names) > 3 else "")
            choices.append(
                Choice(description=f"{c.phrase!r} as {kind} records ({shown})", plan=reading.plan)
            )
        if len(choices) >= 2:
            return first.model_copy(update={"choices": tuple(choices), "answer_when_agreed": False})
    return first
