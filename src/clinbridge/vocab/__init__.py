"""Vocabularies: load OHDSI Athena files and resolve phrases, codes and ids to concepts.

``ConceptIndex`` looks concepts up in any catalogued dictionary and returns ``ConceptMatch``
records saying what matched and why; ``load_vocabulary`` loads Athena (tab-separated) or
Eunomia-style (comma) vocabulary files into a database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clinbridge.vocab._match import ConceptIndex, ConceptMatch, MatchHow

if TYPE_CHECKING:
    from clinbridge.vocab._athena import VOCABULARY_TABLES, load_vocabulary


def __getattr__(name: str) -> Any:
    # The Athena loader needs pandas; concept lookups do not, so it is imported on first use.
    if name in {"VOCABULARY_TABLES", "load_vocabulary"}:
        from clinbridge.vocab import _athena

        return getattr(_athena, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["VOCABULARY_TABLES", "ConceptIndex", "ConceptMatch", "MatchHow", "load_vocabulary"]
