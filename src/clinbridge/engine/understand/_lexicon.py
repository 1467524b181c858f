"""What a source can talk about: its concepts (with their names, synonyms and counts), its
encounter types and what its streams actually store — read once from the catalog and the data.

Only concepts that occur in the data, directly or through their descendants, are grounding
candidates, so a phrase is never grounded to something the source does not hold. The lexicon
is cached per database (pickle) under ``<cache dir>/understand`` and its label vectors through
the embedding service (:mod:`clinbridge.embed`), which is handed in, never loaded here.
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from clinbridge.engine.understand._label_words import spelled_out
from clinbridge.engine.understand._names import patient_names
from clinbridge.engine.understand._spelling import one_slip
from clinbridge.engine.understand._survey_items import SCORE as SURVEY
from clinbridge.engine.understand._survey_items import survey_demoted
from clinbridge.engine.understand._text import content_tokens, normalize, stem, tokens
from clinbridge.vocab import ConceptIndex

if TYPE_CHECKING:
    from collections.abc import Callable

    from clinbridge.catalog import Catalog, EventStream
    from clinbridge.db import Database
    from clinbridge.embed import EmbeddingService

__all__ = ["ConceptEntry", "Lexicon", "Match", "StreamStats"]

logger = logging.getLogger(__name__)

_CACHE_VERSION = 13
_BRACKETS = re.compile(
    r"\[[^\]]*\]|\((?:disorder|finding|procedure|situation|substance|"
    r"observable entity|regime/therapy|morphologic abnormality)\)"
)
_NEAR_EQUAL = 3.0
"""Spelling corrections this close in similarity (rapidfuzz ratio points) are a tie."""
_CODE_CHUNK = 1000
"""Codes per dictionary look-up while building (literal IN lists stay small)."""


@dataclass
class ConceptEntry:
    code: Any
    """The value stored in the stream's code column (OMOP concept_id, a FHIR code)."""
    name: str
    stream: str
    """Stream kind (condition, drug, measurement, ...)."""
    events: int
    values: int
    """Events with a numeric value."""
    direct: bool
    """True when events carry this code itself (not only its descendants)."""
    stream_name: str = ""
    """The catalog stream the events are in (several streams may share a kind)."""
    system: str = ""
    """The code system the events store with this code, when the stream has a system column
    (FHIR: 'http://hl7.org/fhir/sid/cvx'); '' otherwise."""


@dataclass
class StreamStats:
    kind: str
    rows: int = 0
    values: int = 0
    days_supply: int = 0
    quantity: int = 0
    has_value_column: bool = False
    has_days_supply: bool = False
    has_quantity: bool = False


@dataclass
class Match:
    """A phrase grounded to one label (a name or synonym) and the entries carrying it."""

    label: str
    entries: list[int]
    score: float
    how: str


@dataclass
class Lexicon:
    source: str
    entries: list[ConceptEntry] = field(default_factory=list)
    labels: list[tuple[str, frozenset[str], tuple[int, ...], str]] = field(default_factory=list)
    """(normalised label, content-token set, entry indexes, 'name' | 'synonym')."""
    streams: dict[str, StreamStats] = field(default_factory=dict)
    encounter_types: dict[str, int] = field(default_factory=dict)
    encounter_codes: dict[str, int] = field(default_factory=dict)
    """The encounter type codes the source stores (as text) → rows."""
    has_encounter_end: bool = False
    patients: int = 0
    deaths: int = 0
    has_sex: bool = False
    has_birth: bool = False
    has_observation_period: bool = False
    patient_names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Patient name (lower case, digits dropped) → the ids of the patients with that name."""
    stream_words: dict[str, str] = field(default_factory=dict)
    kind_streams: dict[str, list[str]] = field(default_factory=dict)
    """Words of the catalog's stream names and descriptions → stream name (table retrieval)."""
    cache_key: str = ""
    cache_dir: str | None = None
    class_list_allowed: bool = True
    """Built-in drug classes may ground (a vocabulary hierarchy is attached); set per catalog."""
    has_hierarchy: bool = True
    """A concept hierarchy is attached (descendants ground through it); set per catalog."""
    categories: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    """Per stream: recorded category → entries of its codes (``_categories``); set per catalog."""
    patient_ids: frozenset[str] = frozenset()
    """The patient table's integer ids (``_bare_ids``: '3516' as a patient); set per catalog."""
    # indexes (rebuilt after load)
    _exact: dict[str, list[int]] = field(default_factory=dict, repr=False)
    _tokset: dict[frozenset[str], list[int]] = field(default_factory=dict, repr=False)
    _postings: dict[str, set[int]] = field(default_factory=dict, repr=False)
    _embeddings: Any = field(default=None, repr=False)
    embedder: EmbeddingService | None = field(default=None, repr=False, compare=False)
    """The embedding service for :meth:`embed_search` (not pickled; None: no embeddings)."""

    # -- building ----------------------------------------------------------------------------
    @classmethod
    def load(
        cls,
        db: Database,
        catalog: Catalog,
        *,
        cache_dir: str | Path | None = None,
        embedder: EmbeddingService | None = None,
    ) -> Lexicon:
        """Build (or read from the cache) the lexicon of one catalogued database.

        Args:
            db: The open source database.
            catalog: Its catalog.
            cache_dir: The lexicon cache folder (default ``<settings.cache_dir>/understand``).
            embedder: The embedding service for the embedding fallback (None: no fallback).
        """
        key = _cache_key(db, catalog)
        folder = Path(cache_dir) if cache_dir else _default_cache_dir()
        path = folder / f"{key}.pkl"
        if path.exists():
            try:
                with path.open("rb") as fh:
                    lex: Lexicon = pickle.load(fh)
                lex.cache_dir = str(folder)
                lex.embedder = embedder
                lex._index()
                return lex
            except Exception:  # a stale or foreign cache file is rebuilt
                logger.info("lexicon cache %s unreadable; rebuilding", path)
        lex = cls._build(db, catalog)
        lex.cache_key = key
        lex.cache_dir = str(folder)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".tmp")
            with tmp.open("wb") as fh:
                pickle.dump(lex._state(), fh)
            os.replace(tmp, path)
        except OSError:
            logger.info("cannot write lexicon cache %s", path)
        lex.embedder = embedder
        lex._index()
        return lex

    def _state(self) -> Lexicon:
        return Lexicon(
            source=self.source,
            entries=self.entries,
            labels=self.labels,
            streams=self.streams,
            encounter_types=self.encounter_types,
            encounter_codes=self.encounter_codes,
            has_encounter_end=self.has_encounter_end,
            patients=self.patients,
            deaths=self.deaths,
            has_sex=self.has_sex,
            has_birth=self.has_birth,
            has_observation_period=self.has_observation_period,
            patient_names=self.patient_names,
            stream_words=self.stream_words,
            kind_streams=self.kind_streams,
            cache_key=self.cache_key,
        )

    @classmethod
    def _build(cls, db: Database, catalog: Catalog) -> Lexicon:
        lex = cls(source=catalog.source)
        q = _Q(db, catalog)
        indexes: dict[str, ConceptIndex] = {}

        def vocab(name: str) -> ConceptIndex:
            if name not in indexes:
                indexes[name] = ConceptIndex(db, catalog, name)
            return indexes[name]

        labels: dict[tuple[str, str], set[int]] = defaultdict(set)
        for stream in catalog.streams:
            lex._add_stream(q, vocab, stream, labels)
            lex.kind_streams.setdefault(stream.kind, []).append(stream.name)
            if lex.streams.get(stream.kind) and lex.streams[stream.kind].rows:
                for word in _stream_words(stream):
                    lex.stream_words.setdefault(word, stream.name)
        lex.labels = [
            (
                text,
                frozenset(content_tokens(_BRACKETS.sub(" ", text)) or content_tokens(text)),
                tuple(sorted(idx)),
                how,
            )
            for (text, how), idx in labels.items()
        ]
        pt = catalog.patients
        if pt is not None:
            lex.patients = q.scalar(
                exp.select(exp.func("count", exp.Star())).from_(q.table(pt.table))
            )
            lex.has_sex = pt.sex_column is not None
            lex.has_birth = pt.birth_date_column is not None or pt.birth_year_column is not None
            lex.has_observation_period = bool(pt.observation_table and pt.observation_start_column)
            if pt.given_name_column and pt.family_name_column:
                pid = q.col(pt.external_id_column or pt.id_column)
                lex.patient_names = patient_names(
                    q.rows(
                        exp.select(
                            pid, q.col(pt.given_name_column), q.col(pt.family_name_column)
                        ).from_(q.table(pt.table))
                    )
                )
            if pt.death_table:
                lex.deaths = q.scalar(
                    exp.select(exp.func("count", exp.Star())).from_(q.table(pt.death_table))
                )
        enc = catalog.encounters
        if enc is not None:
            lex.has_encounter_end = enc.end_column is not None
            if enc.type_column:
                rows = q.rows(
                    exp.select(q.col(enc.type_column), exp.func("count", exp.Star()))
                    .from_(q.table(enc.table))
                    .group_by(q.col(enc.type_column))
                )
                for code, n in rows:
                    lex.encounter_codes[_code_text(code)] = int(n)
                    kind = enc.type_map.get(_code_text(code), "other")
                    lex.encounter_types[kind] = lex.encounter_types.get(kind, 0) + int(n)
            else:
                n = q.scalar(exp.select(exp.func("count", exp.Star())).from_(q.table(enc.table)))
                lex.encounter_types["other"] = n
        for nested in catalog.nested_encounters:
            if nested.fixed_type and catalog.nested_encounter(nested.fixed_type) is nested:
                n = q.scalar(exp.select(exp.func("count", exp.Star())).from_(q.table(nested.table)))
                kind = nested.fixed_type
                lex.encounter_types[kind] = lex.encounter_types.get(kind, 0) + int(n or 0)
        return lex

    def _add_stream(
        self,
        q: _Q,
        vocab: Callable[[str], ConceptIndex],
        s: EventStream,
        labels: dict[tuple[str, str], set[int]],
    ) -> None:
        stats = self.streams.setdefault(s.kind, StreamStats(kind=s.kind))
        cols: list[Any] = [exp.func("count", exp.Star())]
        for column, flag in (
            (s.value_column, "has_value_column"),
            (s.days_supply_column, "has_days_supply"),
            (s.quantity_column, "has_quantity"),
        ):
            if column:
                setattr(stats, flag, True)
                cols.append(exp.func("count", q.col(column)))
            else:
                cols.append(exp.Literal.number(0))
        row = q.rows(exp.select(*cols).from_(q.table(s.table)))[0]
        stats.rows += int(row[0] or 0)
        stats.values += int(row[1] or 0)
        stats.days_supply += int(row[2] or 0)
        stats.quantity += int(row[3] or 0)
        if not s.code_column:
            return
        code = q.col(s.code_column)
        value = (
            exp.func("count", q.col(s.value_column)) if s.value_column else exp.Literal.number(0)
        )
        per_code: dict[Any, tuple[int, int]] = {}
        stored: list[Any] = []  # the codes as the stream stores them
        for c, n, v in q.rows(
            exp.select(code, exp.func("count", exp.Star()), value)
            .from_(q.table(s.table))
            .where(code.is_(exp.null()).not_())
            .group_by(code)
        ):
            per_code[_norm(c)] = (int(n), int(v or 0))
            stored.append(c)
        systems = self._code_systems(q, s)
        names: dict[Any, str] = {}
        synonyms: list[tuple[Any, str]] = []
        ancestors: dict[Any, set[Any]] = defaultdict(set)
        if s.dictionary:
            names, synonyms = _dictionary_labels(vocab(s.dictionary), stored, ancestors)
        else:
            label_col = s.title_column or s.source_value_column
            if label_col:
                for c, lbl in q.rows(
                    exp.select(code, exp.func("min", q.col(label_col)))
                    .from_(q.table(s.table))
                    .group_by(code)
                ):
                    if lbl:
                        names[_norm(c)] = str(lbl)
        index: dict[Any, int] = {}
        for c, (n, v) in per_code.items():
            index[c] = len(self.entries)
            self.entries.append(
                ConceptEntry(
                    c, names.get(c, str(c)), s.kind, n, v, True, s.name, systems.get(c, "")
                )
            )
        for anc, descs in ancestors.items():
            n = sum(per_code.get(x, (0, 0))[0] for x in descs)
            v = sum(per_code.get(x, (0, 0))[1] for x in descs)
            if anc in index:
                e = self.entries[index[anc]]
                e.events, e.values = e.events + n, e.values + v
            elif anc in names and n:
                index[anc] = len(self.entries)
                self.entries.append(ConceptEntry(anc, names[anc], s.kind, n, v, False, s.name))
        for c, i in index.items():
            labels[(normalize(self.entries[i].name), "name")].add(i)
            if (alt := spelled_out(self.entries[i].name)) is not None:  # 'Ag' → 'antigen'
                labels[(normalize(alt), "synonym")].add(i)
            del c
        for c, lbl in synonyms:
            if c in index:
                labels[(normalize(lbl), "synonym")].add(index[c])

    @staticmethod
    def _code_systems(q: _Q, s: EventStream) -> dict[Any, str]:
        """Code → the code system its events store (one per code; streams with a system column)."""
        if not (s.system_column and s.code_column):
            return {}
        rows = q.rows(
            exp.select(q.col(s.code_column), exp.func("min", q.col(s.system_column)))
            .from_(q.table(s.table))
            .where(q.col(s.code_column).is_(exp.null()).not_())
            .group_by(q.col(s.code_column))
        )
        return {_norm(c): str(sy) for c, sy in rows if sy is not None}

    # -- indexes -----------------------------------------------------------------------------
    def _index(self) -> None:
        self._exact = defaultdict(list)
        self._tokset = defaultdict(list)
        self._postings = defaultdict(set)
        for i, (text, toks, _entries, _how) in enumerate(self.labels):
            self._exact[_squash(text)].append(i)
            self._tokset[toks].append(i)
            for t in toks | frozenset(content_tokens(text)):
                self._postings[t].add(i)

    @property
    def vocabulary(self) -> set[str]:
        return set(self._postings)

    def token_frequency(self, token: str) -> int:
        return len(self._postings.get(token, ()))

    # -- matching ----------------------------------------------------------------------------
    def match(self, phrase: str) -> list[Match]:
        """Labels matching a phrase lexically, best first (exact, same words, contained words)."""
        squashed = _squash(normalize(phrase))
        out: dict[int, Match] = {}
        for i in self._exact.get(squashed, ()):
            if survey_demoted(self.labels[i][0], phrase):  # 'Are you a refugee' for 'refugee'
                out[i] = Match(self.labels[i][0], list(self.labels[i][2]), SURVEY, "contains")
                continue
            out[i] = Match(
                self.labels[i][0],
                list(self.labels[i][2]),
                1.0,
                "exact" if self.labels[i][3] == "name" else "synonym",
            )
        toks = frozenset(content_tokens(phrase))
        if not toks:
            return list(out.values())
        for i in self._tokset.get(toks, ()):
            out.setdefault(i, Match(self.labels[i][0], list(self.labels[i][2]), 0.97, "same_words"))
        postings = [self._postings.get(t) for t in toks]
        if all(postings):
            common = set.intersection(*[p for p in postings if p is not None])
            for i in common:
                if i in out or _only_an_argument(self.labels[i][0], toks):
                    continue
                extra = max(0, len(self.labels[i][1]) - len(toks))
                score = 0.9 * len(toks) / (len(toks) + 0.35 * extra)
                out[i] = Match(
                    self.labels[i][0], list(self.labels[i][2]), round(score, 4), "contains"
                )
        return sorted(out.values(), key=lambda m: (-m.score, -self._events(m), m.label))

    def _events(self, m: Match) -> int:
        return max((self.entries[i].events for i in m.entries), default=0)

    def nearest_token(self, token: str, *, min_ratio: float = 86.0) -> str | None:
        """A vocabulary word close to a misspelt one ('hemorrage' → 'hemorrhage')."""
        if len(token) == 4 and token not in self._postings:
            return _swapped_word(token, self._postings)
        if len(token) < 5 or token in self._postings:
            return None
        from rapidfuzz import fuzz, process

        # Same first letter and nearly the same length: a typo, not another word ('refilled' is
        # not 'prefilled').
        candidates = [
            w for w in self._postings if w[:1] == token[:1] and abs(len(w) - len(token)) <= 2
        ]
        found = process.extract(
            token, candidates, scorer=fuzz.ratio, score_cutoff=min_ratio - _NEAR_EQUAL, limit=4
        )
        if found and found[0][1] >= min_ratio:
            best = str(found[0][0])
            rivals = [str(w) for w, score, _i in found[1:] if score >= found[0][1] - _NEAR_EQUAL]
            if any(stem(w) != stem(best) for w in rivals):
                # two words nearly as close ('brest': 'breast' or 'best'): which was meant is
                # not the speller's to say, so the word stays as typed (and abstains)
                return None
            return best
        # one slip in a longer word — a letter swapped, doubled, dropped or mistyped
        # ('colitus', 'hieght'): the single vocabulary word one edit away, when only one is
        from rapidfuzz.distance import OSA

        if len(token) == 5:  # 'woudn', 'sprya': a letter swapped, dropped or added, never changed
            near = [w for w in candidates if abs(len(w) - 5) <= 1 and one_slip(token, w)]
            return near[0] if len(near) == 1 else None
        near = [w for w in candidates if OSA.distance(token, w, score_cutoff=1) <= 1]
        return near[0] if len(near) == 1 else None

    def embed_search(self, phrase: str, *, limit: int = 5) -> list[tuple[int, float]]:
        """Label indexes by embedding similarity, best first ([] without an embedding model)."""
        import numpy as np

        if self.embedder is None or not self.labels or not self.embedder.semantic:
            return []
        matrix = self._label_embeddings(self.embedder)
        sims = matrix @ self.embedder.encode([phrase])[0]
        order = np.argsort(-sims)[:limit]
        return [(int(i), float(sims[i])) for i in order]

    def _label_embeddings(self, embedder: EmbeddingService) -> Any:
        if self._embeddings is None:
            # Concept names only (synonyms are matched lexically); others get a zero row.
            texts = [t[:200] if how == "name" else "" for t, _k, _e, how in self.labels]
            self._embeddings = embedder.lexicon_vectors(
                self.cache_key or self.source, texts, folder=self.cache_dir
            )
        return self._embeddings

    def warm_embeddings(self) -> bool:
        """Compute (or read) the persisted label vectors now; False without an embedding model."""
        if self.embedder is None or not self.labels or not self.embedder.semantic:
            return False
        self._label_embeddings(self.embedder)
        return True


def _stream_words(stream: EventStream) -> list[str]:
    """Words that name a stream: its name, and the words of its table's description.

    A description also names who its records are about or by ('Events of a Person', 'observed
    by a Provider') and carries function words ('otherwise', 'through'); those never name the
    stream: 'how many of the providers are female' is not a count of diagnoses. Its verbs stay
    ('prescribed' names the prescriptions). A description cut short drops its last word.
    """
    described = stream.description.rstrip()
    if described.endswith(("…", "...")):
        described = described.rstrip(".…").rsplit(" ", 1)[0]
    words = content_tokens(f"{stream.name.replace('_', ' ')} {described}")
    return [
        w
        for w in words
        if len(w) > 3 and w not in _GENERIC_TABLE_WORDS and w not in _NOT_STREAM_WORDS
    ]


_NOT_STREAM_WORDS = frozenset(
    {
        # who records are about or by, and where: never a stream
        "patient",
        "person",
        "provider",
        "clinician",
        "practitioner",
        "healthcare",
        # the function words and light nouns of a table's description
        "about",
        "through",
        "beyond",
        "otherwise",
        "contain",
        "capture",
        "represent",
        "optional",
        "parent",
        "information",
        "purpose",
        "context",
        "fact",
        "used",
    }
)


_GENERIC_TABLE_WORDS = frozenset(
    {
        "fhir",
        "omop",
        "table",
        "data",
        "record",
        "event",
        "stream",
        "occurrence",
        "value",
        "code",
        "detail",
        # a description's question and order words ('what was prescribed', 'first and last
        # care unit') are the question's structure, never a stream's name
        "what",
        "which",
        "when",
        "where",
        "first",
        "last",
        # 'given' describes every record of administration (a prescription is given too)
        "given",
    }
)
_PREPOSITIONS = frozenset(
    {
        "of",
        "for",
        "to",
        "by",
        "due",
        "with",
        "without",
        "in",
        "on",
        "at",
        "from",
        "against",
        "after",
        "during",
    }
)


def _only_an_argument(label: str, toks: frozenset[str]) -> bool:
    """True when every word of the phrase sits after a preposition of the label, i.e. the label
    is about something else *of/for/to* the phrase: 'Urine screening test for diabetes' is not
    diabetes, 'History of myocardial infarction' is not an infarction, 'Closed fracture of hip'
    is not the hip."""
    words = [stem(w) for w in tokens(_BRACKETS.sub(" ", label))]
    cut = next((k for k, w in enumerate(words) if w in _PREPOSITIONS and k > 0), None)
    if cut is None:
        return False
    head = set(words[:cut])
    return not (head & toks)


def _dictionary_labels(
    index: ConceptIndex, stored: list[Any], ancestors: dict[Any, set[Any]]
) -> tuple[dict[Any, str], list[tuple[Any, str]]]:
    """Names and synonyms of the codes a stream stores and of their ancestors, through the
    vocabulary layer; ``ancestors`` gets each ancestor's descendants among ``stored``.

    The codes go in chunks of :data:`_CODE_CHUNK`, so each look-up's IN list stays small.
    """
    names: dict[Any, str] = {}
    synonyms: list[tuple[Any, str]] = []
    for start in range(0, len(stored), _CODE_CHUNK):
        chunk = stored[start : start + _CODE_CHUNK]
        wanted = list(chunk)
        for anc, desc in index.ancestor_pairs(chunk):
            wanted.append(anc)
            if _norm(anc) != _norm(desc):
                ancestors[_norm(anc)].add(_norm(desc))
        found = index.by_ids(wanted)
        names.update({_norm(m.concept_id): m.name for m in found if m.name})
        synonyms += [
            (_norm(c), lbl)
            for c, lbl in index.synonyms([m.concept_id for m in found])
            if lbl and lbl.count(";") < 2 and len(lbl) <= 150
        ]
    return names, synonyms


def _squash(text: str) -> str:
    return " ".join(content_tokens(text)) or text.strip()


def _norm(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        v = value.strip()
        if v.endswith(".0") and v[:-2].lstrip("-").isdigit():
            return int(v[:-2])
        return v
    if hasattr(value, "item"):
        return _norm(value.item())
    return value


def _code_text(value: Any) -> str:
    return str(_norm(value))


def _default_cache_dir() -> Path:
    from clinbridge.embed import default_cache_dir
    from clinbridge.settings import Settings

    return default_cache_dir(Settings.from_env()) / "understand"


def _cache_key(db: Database, catalog: Catalog) -> str:
    h = hashlib.sha1()
    h.update(str(_CACHE_VERSION).encode())
    h.update(db.url.encode())
    h.update(catalog.to_json(indent=False).encode())
    path = getattr(db, "_parsed", None)
    file = getattr(path, "path", None)
    if file and file != ":memory:" and Path(file).exists():
        st = Path(file).stat()
        h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:20]


class _Q:
    """Tiny query helper: quoted identifiers, the catalog's schema, sqlglot expressions."""

    def __init__(self, db: Database, catalog: Catalog) -> None:
        self.db = db
        self.schema = catalog.schema_name if db.backend != "sqlite" else None

    def table(self, name: str) -> exp.Table:
        return (
            exp.table_(name, db=self.schema, quoted=True)
            if self.schema
            else exp.table_(name, quoted=True)
        )

    @staticmethod
    def col(name: str) -> exp.Column:
        return exp.column(name, quoted=True)

    def rows(self, query: exp.Expression) -> list[tuple[Any, ...]]:
        return self.db.execute(query.sql(dialect=self.db.dialect), max_rows=None).rows

    def scalar(self, query: exp.Expression) -> int:
        rows = self.rows(query)
        return int(rows[0][0] or 0) if rows else 0


def _swapped_word(token: str, words: Any) -> str | None:
    """The vocabulary word a four-letter one is with two neighbouring letters swapped back
    ('pian' → 'pain'), when exactly one is: a shorter word has too many one-letter neighbours
    for any other slip to be read safely."""
    swaps = {token[:k] + token[k + 1] + token[k] + token[k + 2 :] for k in range(len(token) - 1)}
    near = sorted(w for w in swaps if w != token and w in words)
    return near[0] if len(near) == 1 else None
