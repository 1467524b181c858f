"""Compatibility names for retrieval embeddings; the service lives in :mod:`clinbridge.embed`.

``Embedder`` is :class:`clinbridge.embed.EmbeddingService` and ``get_embedder(mode)`` returns the
process's service for that mode (default cache folder). New code takes an ``EmbeddingService``
as an argument instead.
"""

from __future__ import annotations

from clinbridge.embed import EmbeddingService, service_for

__all__ = ["Embedder", "get_embedder"]

Embedder = EmbeddingService


def get_embedder(mode: str = "auto") -> EmbeddingService:
    """The process-wide embedding service for a mode ('auto', 'on', 'off')."""
    return service_for(mode=mode)
