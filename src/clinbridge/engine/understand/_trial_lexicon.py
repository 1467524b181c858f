"""The words a trial reader knows, as written: the dictionary's (variable labels and code labels)
and the reader's own (aggregate words, fillers, synonyms, subject nouns, design words) — what a
typing slip is mended against (``_trial_typos``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._trial_soft_words import SOFT_WORDS
from clinbridge.engine.understand._trial_vocab import (
    _SYNONYMS,
    FILLER,
    NEGATED_WORDS,
    ROLE_WORDS,
    SUBJECT_WORDS,
)
from clinbridge.engine.understand._trial_words import AGG_WORDS, EXTRA_FILLER, SPLIT_VERBS

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["reader_words"]

_GENERAL = (
    *("between", "compare", "compared", "comparison", "versus", "distribution", "breakdown"),
    *("frequency", "frequencies", "stratified", "measurements", "measurement", "randomised"),
    *("randomized", "randomisation", "randomization", "excluding", "excluded", "including"),
    *("missing", "unknown", "category", "categories", "infants", "babies", "children"),
    *("neonates", "newborns", "patients", "subjects", "participants", "treatment", "mortality"),
    *("survivors", "survived", "outcome", "percentage", "proportion", "average", "median"),
    *("weighed", "weighing", "received", "required", "needed", "developed", "recruited"),
)


def reader_words(catalog: Catalog) -> set[str]:
    """Every word of the catalog's labels and code labels, and of the reader's word lists."""
    out: set[str] = set(_GENERAL)
    for v in catalog.variables:
        for text in (v.description or "", *(v.codes or {}).values()):
            out.update(re.findall(r"[a-z]+", str(text).lower()))
    for words in (
        AGG_WORDS,
        EXTRA_FILLER,
        FILLER,
        _SYNONYMS,
        NEGATED_WORDS,
        SUBJECT_WORDS,
        SPLIT_VERBS,
        SOFT_WORDS,
    ):
        out.update(w for w in words if w.isalpha())
    out.update(w for ws in ROLE_WORDS.values() for w in ws)
    out.update(w + "s" for w in SUBJECT_WORDS)
    return out
