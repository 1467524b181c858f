"""Shared pieces of the one-patient shape readers (``_elapsed``, ``_change``).

The patient named in the question ('patient 10004733'), the longest run of the question's
words that is one concept's whole name (or the same words) in one stream of the source, and
the concept set, grounding and reading built from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from clinbridge.engine.plan import ConceptRef, ConceptSet, QueryPlan
from clinbridge.engine.understand._lexicon import ConceptEntry, Lexicon
from clinbridge.engine.understand._reading import Grounding, Reading

__all__ = ["concept_span", "found_concept", "loose_span", "named_patient", "shape_reading"]

_PATIENT = re.compile(r"\bpatient\s+(\d+)(?:\s*'\s*s\b)?")

Span = tuple[set[int], str, list[ConceptEntry]]


def named_patient(question: str, patient_id: str | None) -> tuple[str, str] | None:
    """(the lower-cased question with the patient's id taken out, the id); None when no
    patient is named or another than the one asked about."""
    text = " " + re.sub(r"\s+", " ", question.lower().replace("\u2019", "'")) + " "
    m = _PATIENT.search(text)
    if m is None or (patient_id is not None and patient_id != m[1]):
        return None
    return text[: m.start()] + " patient " + text[m.end() :], m[1]


def concept_span(
    words: list[str],
    lex: Lexicon,
    filler: frozenset[str],
    keep: Callable[[ConceptEntry], bool],
) -> Span | None:
    """The longest run of words (not starting or ending with ``filler``) that is one concept's
    whole name, or the same words, with the entries ``keep`` accepts all in one stream; None
    when there is none or two different ones tie (not a reader's to choose)."""
    n = len(words)
    for size in range(n, 0, -1):
        hits: list[tuple[int, ConceptEntry]] = []
        for a in range(n - size + 1):
            part = words[a : a + size]
            if part[0] in filler or part[-1] in filler or "patient" in part:
                continue
            for m in lex.match(" ".join(part)):
                if m.score < 0.97:
                    break
                hits += [(a, lex.entries[i]) for i in m.entries if keep(lex.entries[i])]
        if hits:
            streams = {e.stream_name for _, e in hits}
            phrases = {" ".join(words[a : a + size]) for a, _ in hits}
            if len(streams) != 1 or len(phrases) != 1:
                return None
            a = min(a for a, _ in hits)
            entries = list({e.code: e for _, e in hits}.values())
            return set(range(a, a + size)), streams.pop(), entries
    return None


def loose_span(
    words: list[str],
    lex: Lexicon,
    filler: frozenset[str],
    keep: Callable[[ConceptEntry], bool],
) -> Span | None:
    """Where no whole name is said ('weight' for 'daily weight'): the one run of words left
    between the shape's filler, grounded as the general reader grounds a phrase (without
    embeddings); None unless it is one concept, every word read, one measurement (not two
    tied), with entries ``keep`` accepts in one stream."""
    from clinbridge.engine.understand._ground import Concept, ground_text

    inside = [k for k, w in enumerate(words) if w not in filler]
    runs: list[list[int]] = []
    for k in inside:
        if runs and runs[-1][-1] == k - 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    if not runs or len({" ".join(words[k] for k in r) for r in runs}) != 1:
        return None  # one name, said once or said again ('the weight ... weight change')
    inside = [k for r in runs for k in r]
    items = ground_text(" ".join(words[k] for k in runs[0]), lex, embeddings=False)
    if len(items) != 1 or not isinstance(items[0], Concept) or len(items[0].tied) > 1:
        return None
    entries = [lex.entries[i] for i in (items[0].primary or items[0].entries)]
    kept = [e for e in entries if keep(e)]
    if not kept or len(kept) != len(entries) or len({e.stream_name for e in kept}) != 1:
        return None
    return set(inside), kept[0].stream_name, list({e.code: e for e in kept}.values())


def found_concept(words: list[str], span: Span) -> tuple[str, ConceptSet, Grounding]:
    """The span's phrase, its exact concept set and its grounding."""
    where, stream, entries = span
    phrase = " ".join(words[k] for k in sorted(where))
    concepts = ConceptSet(
        concepts=tuple(ConceptRef(concept_id=e.code, name=e.name) for e in entries),
        label=phrase,
        include_descendants=False,
    )
    grounding = Grounding(
        phrase=phrase,
        kind="concept",
        target=f"{stream}: {'; '.join(e.name for e in entries[:5])}",
        how="exact",
        codes=tuple(str(e.code) for e in entries)[:50],
    )
    return phrase, concepts, grounding


def shape_reading(
    question: str, plan: QueryPlan, groundings: tuple[Grounding, ...], note: str
) -> Reading:
    """A reading of one of these shapes (its confidence that of a schema reading)."""
    return Reading(
        question=question, plan=plan, confidence=0.9, groundings=groundings, notes=(note,)
    )
