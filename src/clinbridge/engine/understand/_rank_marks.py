"""Ranked lists, read: 'the five most common diagnoses', 'top 3 lab tests since 2100'.

'top N' / 'N most common' becomes a ``rank`` slot (how many places, ranked by how often each
concept is recorded); :mod:`._ranking` applies it to a reading. A ranking by anything other
than frequency ('the highest mortality rate') becomes an ``unsupported`` slot instead.
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._pieces import Piece, Slot, split_pieces

__all__ = ["mark_rank"]

_FREQ = r"(?:common(?:ly)?|frequent(?:ly)?|often|popular|prevalent|usual)"
_RANK = re.compile(
    rf"\b(?:top[\s-]+(?P<n1>\d+)(?:\s+(?:most\s+)?{_FREQ})?"
    rf"|(?P<n2>\d+)\s+(?:most\s+|more\s+)?{_FREQ}"
    rf"|most\s+{_FREQ}\s+(?P<n3>\d+))\b"
)
# a frequency word left beside the thing ranked: 'the top 5 diagnoses most frequently made'
_FREQ_WORD = re.compile(rf"\b(?:most\s+)?{_FREQ}\b")
# ranked by something other than how often: never read as a frequency rank
_OTHER_ORDER = re.compile(
    r"\b(?:highest|lowest|largest|smallest|greatest|least|biggest|best|worst|rates?|ratio)\b"
)


def mark_rank(pieces: list[Piece]) -> list[Piece]:
    """Mark 'top N' / 'N most common' as a ``rank`` slot (``{"top": N}``) and the frequency
    words that go with it; a ranking by anything else becomes an ``unsupported`` slot."""
    joined = " ".join(p.text if isinstance(p, Slot) else p for p in pieces)
    if not _RANK.search(joined):
        return pieces
    if _OTHER_ORDER.search(joined):
        return split_pieces(
            pieces,
            _RANK,
            lambda m: Slot(
                "unsupported", {"what": "a ranking by something other than how often"}, m[0]
            ),
        )

    def rank(m: re.Match[str]) -> Slot:
        n = int(m["n1"] or m["n2"] or m["n3"])
        return Slot("rank", {"top": n}, m[0])

    pieces = split_pieces(pieces, _RANK, rank)
    return split_pieces(pieces, _FREQ_WORD, lambda m: Slot("rank_word", {}, m[0]))
