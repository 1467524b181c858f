"""Concept resolution: a plan's ConceptSets → the codes stored in a source's event streams.

The pass ``resolve_concepts`` looks each :class:`~clinbridge.engine.plan.ConceptRef` up in the
stream's :class:`~clinbridge.catalog.Dictionary` (by stored id, by code and vocabulary, by name or
synonym), adds descendants through the ancestor table when asked, removes exclusions, and records
how each concept matched. A concept that does not exist is an error with a reason — it is never
run as an empty filter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clinbridge.catalog import Catalog, EventStream
from clinbridge.db import Database
from clinbridge.engine.plan import ConceptRef, ConceptSet
from clinbridge.errors import ConceptNotFoundError, SchemaMismatchError
from clinbridge.vocab import ConceptIndex, ConceptMatch

__all__ = ["ResolvedConcept", "ResolvedConceptSet", "Resolver", "streams_for"]


@dataclass(frozen=True)
class ResolvedConcept:
    """One concept a concept set resolved to, with how it was found."""

    value: Any
    """What the stream's code column stores (OMOP concept_id, a FHIR code)."""
    name: str
    system: str | None
    code: str | None
    how: str
    """id | code | name | synonym | descendant"""
    via: Any = None


@dataclass(frozen=True)
class ResolvedConceptSet:
    """A concept set resolved against one stream: its concepts and their codes."""

    label: str
    dictionary: str | None
    concepts: tuple[ResolvedConcept, ...]
    system_column: bool = False

    @property
    def values(self) -> tuple[Any, ...]:
        """The codes to match in the stream."""
        return tuple(dict.fromkeys(c.value for c in self.concepts))

    def by_system(self) -> dict[str | None, list[Any]]:
        """The codes grouped by their coding system."""
        out: dict[str | None, list[Any]] = {}
        for c in self.concepts:
            bucket = out.setdefault(c.system, [])
            if c.value not in bucket:
                bucket.append(c.value)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The resolved set as plain JSON types."""
        return {
            "label": self.label,
            "dictionary": self.dictionary,
            "count": len(self.values),
            "concepts": [
                {
                    "value": _plain(c.value),
                    "name": c.name,
                    "system": c.system,
                    "code": c.code,
                    "how": c.how,
                    **({"via": _plain(c.via)} if c.via is not None else {}),
                }
                for c in self.concepts[:200]
            ],
        }


def _plain(v: Any) -> Any:
    return v if isinstance(v, int | float | str) or v is None else str(v)


def streams_for(catalog: Catalog, stream: str) -> tuple[EventStream, ...]:
    """The catalog streams a plan's ``stream`` names: a stream name, or every stream of a kind."""
    named = tuple(s for s in catalog.streams if s.name == stream)
    if named:
        return named
    of_kind = catalog.streams_of(stream)
    if of_kind:
        return of_kind
    raise SchemaMismatchError(
        f"source {catalog.source!r} has no {stream!r} events",
        stream=stream,
        available=sorted({s.name for s in catalog.streams} | {s.kind for s in catalog.streams}),
    )


@dataclass
class Resolver:
    """Resolves concept sets against one open database, with a per-instance cache.

    Lookups go through :class:`clinbridge.vocab.ConceptIndex` over the stream's dictionary:
    ids and codes exactly (source codes follow 'Maps to' to standard concepts), names exactly or
    by synonym. Approximate matching is the understanding layer's job, never the compiler's.
    """

    db: Database
    catalog: Catalog
    _cache: dict[tuple[Any, ...], ResolvedConceptSet] = field(default_factory=dict)
    _indexes: dict[str, ConceptIndex] = field(default_factory=dict)

    def resolve(self, cs: ConceptSet, stream: EventStream) -> ResolvedConceptSet:
        """Resolve ``cs`` against ``stream`` (cached)."""
        key = (cs, stream.name)
        if key not in self._cache:
            self._cache[key] = self._resolve(cs, stream)
        return self._cache[key]

    def index(self, dictionary: str) -> ConceptIndex:
        """The concept index of one dictionary (built on first use)."""
        if dictionary not in self._indexes:
            self._indexes[dictionary] = ConceptIndex(self.db, self.catalog, dictionary)
        return self._indexes[dictionary]

    # -- internals -------------------------------------------------------------------------
    def _resolve(self, cs: ConceptSet, stream: EventStream) -> ResolvedConceptSet:
        if stream.dictionary is None:
            # No dictionary: codes are matched literally (ids or codes only, never names).
            found: list[ResolvedConcept] = []
            for ref in cs.concepts:
                if ref.name is not None and ref.code is None and ref.concept_id is None:
                    raise ConceptNotFoundError(
                        f"stream {stream.name!r} has no dictionary to look up the name {ref.name!r}",
                        concept=ref.label(),
                    )
                value = ref.concept_id if ref.concept_id is not None else ref.code
                found.append(ResolvedConcept(value, ref.label(), ref.system, ref.code, "code"))
            return ResolvedConceptSet(
                cs.describe(), None, tuple(found), stream.system_column is not None
            )
        index = self.index(stream.dictionary)
        base: list[ConceptMatch] = []
        for ref in cs.concepts:
            matches = self._lookup(index, ref)
            if not matches:
                raise ConceptNotFoundError(
                    f"concept {ref.label()!r} was not found in the {stream.dictionary!r} dictionary of "
                    f"source {self.catalog.source!r}",
                    concept=ref.label(),
                    dictionary=stream.dictionary,
                )
            base.extend(matches)
        concepts = list(base)
        if cs.include_descendants:
            concepts.extend(index.descendants([m.concept_id for m in base], include_self=False))
        if cs.exclude:
            excluded = [m.concept_id for ref in cs.exclude for m in self._lookup(index, ref)]
            if cs.include_descendants:
                excluded += [m.concept_id for m in index.descendants(excluded, include_self=False)]
            drop = set(excluded)
            if cs.exclude_must_cut and not any(c.concept_id in drop for c in concepts):
                # 'any statin except aspirin': an exclusion that cuts nothing was read wrongly
                # (or asked wrongly); the answer would ignore it
                names = ", ".join(ref.label() for ref in cs.exclude)
                raise ConceptNotFoundError(
                    f"the exclusion {names!r} is not among the concepts of {cs.describe()!r}: "
                    "nothing to leave out",
                    concept=names,
                )
            concepts = [c for c in concepts if c.concept_id not in drop]
        seen: dict[Any, ResolvedConcept] = {}
        for m in concepts:
            seen.setdefault(
                m.concept_id,
                ResolvedConcept(m.concept_id, m.name, m.vocabulary, m.code, m.how, m.via),
            )
        if not seen:
            raise ConceptNotFoundError(
                f"concept set {cs.describe()!r} is empty after exclusions", concept=cs.describe()
            )
        has_system = self.catalog.dictionary(stream.dictionary).system_column is not None
        return ResolvedConceptSet(
            cs.describe(), stream.dictionary, tuple(seen.values()), has_system
        )

    @staticmethod
    def _lookup(index: ConceptIndex, ref: ConceptRef) -> list[ConceptMatch]:
        if ref.concept_id is not None:
            return index.by_ids([ref.concept_id])
        if ref.code is not None:
            return index.map_codes([ref.code], vocabulary=ref.system) or index.by_codes(
                [ref.code], ref.system
            )
        assert ref.name is not None
        found = index.by_name(ref.name)
        if ref.system:
            found = [m for m in found if (m.vocabulary or "").lower() == ref.system.lower()]
        standard = [m for m in found if m.standard]
        if standard:
            return standard
        return index.maps_to([m.concept_id for m in found]) or found
