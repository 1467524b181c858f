"""Vocabularies: load OHDSI Athena files and resolve phrases, codes and ids to concepts.

``ConceptIndex`` looks concepts up in any catalogued dictionary and returns ``ConceptMatch``
records saying what matched and why; ``load_vocabulary`` loads Athena (tab-separated) or
Eunomia-style (comma) vocabulary files into a database.
"""

from __future__ import annotations

from clinbridge.vocab._athena import VOCABULARY_TABLES, load_vocabulary
from clinbridge.vocab._match import ConceptIndex, ConceptMatch, MatchHow

__all__ = ["VOCABULARY_TABLES", "ConceptIndex", "ConceptMatch", "MatchHow", "load_vocabulary"]
