"""A negation the reading did not tie to any condition abstains, never drops silently.

A mention is negated when 'not', 'no', 'non', 'without' or 'never' stands in the two words right
before it ('did not die', 'without seizures', 'non cooled'), or both sides are asked ('with and
without'). A negator further off ('not delivered by emergency caesarean', 'not at all treated
with ...') would otherwise be dropped, and the count would be of the very infants excluded: the
reading abstains and names the negation it could not place.
"""

from __future__ import annotations

from typing import Any

from clinbridge.engine.understand._trial_model import Abstain
from clinbridge.engine.understand._trial_words import NEGATORS


def check_negations_placed(tokens: list[Any], mentions: list[Any], text: str) -> None:
    placed: set[int] = set()
    for mt in mentions:
        before = [t for t in tokens if t.end <= mt.start][
            -2:
        ]  # as _both_sides reads a negated mention
        placed |= {t.start for t in before if t.text in NEGATORS}
        placed |= {t.start for t in tokens if mt.start <= t.start < mt.end}
    for t in tokens:
        if t.text in NEGATORS and t.start not in placed:
            after = text[t.start : t.start + 40].split()
            raise Abstain(
                f"the negation in {' '.join(after[:5])!r} could not be tied to one condition; "
                "say what is excluded right after it ('infants not cooled', 'without seizures')",
                unresolved=[t.text],
            )
