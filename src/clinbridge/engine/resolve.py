"""Concept resolution: a plan's ConceptSets → the codes stored in a source's event streams.

The pass ``resolve_concepts`` looks each :class:`~clinbridge.engine.plan.ConceptRef` up in the
stream's :class:`~clinbridge.catalog.Dictionary` (by stored id, by code and vocabulary, by name or
synonym), adds descendants through the ancestor table when asked, removes exclusions, and records
how each concept matched. A concept that does not exist is an error with a reason — it is never
run as an empty filter.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from clinbridge.catalog import Catalog, Dictionary, EventStream
from clinbridge.db import Database
from clinbridge.engine.plan import ConceptRef, ConceptSet
from clinbridge.errors import ConceptNotFoundError, SchemaMismatchError

__all__ = ["ResolvedConcept", "ResolvedConceptSet", "Resolver", "streams_for"]


@dataclass(frozen=True)
class ResolvedConcept:
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
    label: str
    dictionary: str | None
    concepts: tuple[ResolvedConcept, ...]
    system_column: bool = False

    @property
    def values(self) -> tuple[Any, ...]:
        return tuple(dict.fromkeys(c.value for c in self.concepts))

    def by_system(self) -> dict[str | None, list[Any]]:
        out: dict[str | None, list[Any]] = {}
        for c in self.concepts:
            bucket = out.setdefault(c.system, [])
            if c.value not in bucket:
                bucket.append(c.value)
        return out

    def to_dict(self) -> dict[str, Any]:
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
    """Resolves concept sets against one open database, with a per-instance cache."""

    db: Database
    catalog: Catalog
    _cache: dict[tuple[Any, ...], ResolvedConceptSet] = field(default_factory=dict)

    def resolve(self, cs: ConceptSet, stream: EventStream) -> ResolvedConceptSet:
        key = (cs, stream.name)
        if key not in self._cache:
            self._cache[key] = self._resolve(cs, stream)
        return self._cache[key]

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
        d = self.catalog.dictionary(stream.dictionary)
        base: list[ResolvedConcept] = []
        for ref in cs.concepts:
            matches = self._lookup(d, ref)
            if not matches:
                raise ConceptNotFoundError(
                    f"concept {ref.label()!r} was not found in the {d.name!r} dictionary of source "
                    f"{self.catalog.source!r}",
                    concept=ref.label(),
                    dictionary=d.name,
                )
            base.extend(matches)
        concepts = list(base)
        if cs.include_descendants and d.ancestor_table:
            concepts.extend(self._descendants(d, base))
        if cs.exclude:
            excluded = {m.value for ref in cs.exclude for m in self._lookup(d, ref)}
            if cs.include_descendants and d.ancestor_table:
                excluded |= {
                    m.value
                    for m in self._descendants(
                        d, [ResolvedConcept(v, "", None, None, "id") for v in excluded]
                    )
                }
            concepts = [c for c in concepts if c.value not in excluded]
        seen: dict[Any, ResolvedConcept] = {}
        for c in concepts:
            seen.setdefault(c.value, c)
        if not seen:
            raise ConceptNotFoundError(
                f"concept set {cs.describe()!r} is empty after exclusions", concept=cs.describe()
            )
        return ResolvedConceptSet(
            cs.describe(), d.name, tuple(seen.values()), d.system_column is not None
        )

    def _select(
        self, d: Dictionary, where: exp.Expression, table: str | None = None
    ) -> list[tuple[Any, ...]]:
        cols = [exp.column(d.code_column), exp.column(d.label_column)]
        cols.append(exp.column(d.system_column) if d.system_column else exp.null())
        cols.append(exp.column(d.source_code_column) if d.source_code_column else exp.null())
        query = exp.select(*cols).from_(table or d.table).where(where).limit(5000)
        return self.db.execute(query.sql(self.db.dialect), max_rows=5000).rows

    def _lookup(self, d: Dictionary, ref: ConceptRef) -> list[ResolvedConcept]:
        rows: list[tuple[Any, ...]] = []
        how = "id"
        if ref.concept_id is not None:
            rows = self._select(
                d, exp.column(d.code_column).eq(_literal(ref.concept_id, self._code_is_int(d)))
            )
        elif ref.code is not None:
            how = "code"
            column = d.source_code_column or d.code_column
            cond: exp.Expression = exp.column(column).eq(exp.Literal.string(str(ref.code)))
            if ref.system and d.system_column:
                cond = exp.and_(cond, _ieq(exp.column(d.system_column), ref.system))
            rows = self._select(d, cond)
        elif ref.name is not None:
            how = "name"
            rows = self._select(d, _ieq(exp.column(d.label_column), ref.name))
            if not rows and d.synonym_table and d.synonym_code_column and d.synonym_label_column:
                how = "synonym"
                ids = (
                    exp.select(exp.column(d.synonym_code_column))
                    .from_(d.synonym_table)
                    .where(_ieq(exp.column(d.synonym_label_column), ref.name))
                )
                rows = self._select(d, exp.column(d.code_column).isin(query=ids))
            if ref.system and d.system_column:
                rows = [
                    r for r in rows if r[2] is not None and str(r[2]).lower() == ref.system.lower()
                ]
        return [
            ResolvedConcept(r[0], str(r[1]), r[2], None if r[3] is None else str(r[3]), how)
            for r in rows
        ]

    def _descendants(
        self, d: Dictionary, parents: Iterable[ResolvedConcept]
    ) -> list[ResolvedConcept]:
        assert d.ancestor_table and d.ancestor_column and d.descendant_column
        ids = [p.value for p in parents]
        if not ids:
            return []
        is_int = self._code_is_int(d)
        sub = (
            exp.select(exp.column(d.descendant_column))
            .from_(d.ancestor_table)
            .where(exp.column(d.ancestor_column).isin(*[_literal(i, is_int) for i in ids]))
        )
        rows = self._select(d, exp.column(d.code_column).isin(query=sub))
        known = set(ids)
        return [
            ResolvedConcept(
                r[0], str(r[1]), r[2], None if r[3] is None else str(r[3]), "descendant"
            )
            for r in rows
            if r[0] not in known
        ]

    def _code_is_int(self, d: Dictionary) -> bool:
        info = self.catalog.table(d.table)
        col = info.column(d.code_column) if info else None
        return bool(col and col.type == "integer")


def _ieq(column: exp.Expression, text: str) -> exp.Expression:
    return exp.func("LOWER", column).eq(exp.Literal.string(text.lower()))


def _literal(value: Any, as_int: bool) -> exp.Expression:
    if as_int:
        try:
            return exp.Literal.number(int(value))
        except (TypeError, ValueError):
            pass
    if isinstance(value, int | float) and not isinstance(value, bool):
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))
