"""The dictionary's neighbour pairs: which words stand side by side in its labels, so that a
shorthand ('mod', 'sev', 'std') is written out only beside a word it stands beside there."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from clinbridge.engine.understand._trial_model import label_terms
from clinbridge.engine.understand._trial_vocab import neighbour_pairs

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["dictionary_neighbours"]


def dictionary_neighbours(catalog: Catalog) -> frozenset[tuple[str, str]]:
    """The neighbour pairs of a catalog: of its labels, its code labels, a code said before its
    variable's name ('moderate disability', 'severe HIE'), and two codes of one variable said
    together ('moderate or severe': 'mod or severe injury')."""
    coded = [v for v in catalog.variables if v.type == "categorical" and not v.role]
    return neighbour_pairs(
        [v.description or v.name for v in catalog.variables]
        + [lab for v in catalog.variables for lab in v.codes.values() if lab]
        + [
            pair
            for v in coded
            for lab in v.codes.values()
            if lab
            for word in label_terms(v.description or v.name)[0]
            for pair in (f"{lab} {word}", f"{word} {lab}")  # 'severe HIE', 'GMFCS level V'
        ]
        + [
            f"{a} {b}"
            for v in coded
            if len(v.codes) <= 12
            for a, b in itertools.permutations([lab for lab in v.codes.values() if lab], 2)
        ]
    )
