"""The embedding index of a patient's note chunks: built on demand, persisted per database.

Vectors are MiniLM sentence vectors (:mod:`clinbridge.embed`), written under
``<cache dir>/notes/<database key>/`` — never inside the user's database, which is read-only.
A file is keyed by the patient and a hash of the chunk texts, so a changed note re-embeds only
that patient. With embeddings off, chunks are ranked lexically (token-set ratio).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from clinbridge.engine.notes._chunk import Chunk, chunk_note
from clinbridge.engine.notes._source import read_notes

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.embed import EmbeddingService

__all__ = ["ChunkIndex"]


class ChunkIndex:
    """Chunks and vectors of one database's notes, patient by patient.

    Args:
        db: The open database.
        catalog: Its catalog (note streams).
        embedder: The embedding service (its mode decides semantic vs lexical ranking).
        folder: Where vectors persist (default ``<embedder cache>/notes/<database key>``).
    """

    def __init__(
        self,
        db: Database,
        catalog: Catalog,
        embedder: EmbeddingService,
        folder: str | Path | None = None,
    ) -> None:
        self.db = db
        self.catalog = catalog
        self.embedder = embedder
        if folder is None and embedder.cache_dir is not None:
            from clinbridge.engine.understand._lexicon import _cache_key

            folder = embedder.cache_dir / "notes" / _cache_key(db, catalog)
        self.folder = Path(folder) if folder is not None else None
        self._chunks: dict[str, list[Chunk]] = {}

    def chunks(self, patient_id: str) -> list[Chunk]:
        """Every chunk of the patient's notes (read and cut once per index)."""
        if patient_id not in self._chunks:
            notes = read_notes(self.db, self.catalog, patient_id)
            self._chunks[patient_id] = [c for n in notes for c in chunk_note(n)]
        return self._chunks[patient_id]

    def rank(self, patient_id: str, query: str, chunks: list[Chunk]) -> list[tuple[Chunk, float]]:
        """``chunks`` (of this patient) by similarity to ``query``, best first."""
        if not chunks:
            return []
        if not self.embedder.semantic:
            scores = self.embedder.scores(query, [c.text for c in chunks])
        else:
            key = f"notes-{patient_id}"
            matrix = self.embedder.lexicon_vectors(
                key, [c.text for c in chunks], folder=self.folder
            )
            q = self.embedder.encode([query])[0]
            scores = [max(0.0, float(x)) for x in matrix @ q]
        order = sorted(range(len(chunks)), key=lambda i: (-scores[i], i))
        return [(chunks[i], scores[i]) for i in order]
