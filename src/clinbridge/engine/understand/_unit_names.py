"""Care units the source names exactly: 'in the emergency department observation' where the
source records transfers to a unit of that name is that unit, not an emergency-type visit."""

from __future__ import annotations

from typing import Any

from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._text import tokens

_PLACE_KINDS = frozenset({"visit_detail"})
_LEAD = frozenset({"in", "to", "into", "at", "from", "through", "the", "a", "an"})


def _unit_match(words: list[str], lex: Lexicon) -> bool:
    phrase = " ".join(words)
    return any(
        m.how == "exact" and any(lex.entries[e].stream in _PLACE_KINDS for e in m.entries)
        for m in lex.match(phrase)
    )


def unit_names(pieces: list[Any], lex: Lexicon) -> list[Any]:
    """Turn a located encounter slot back into words where its place words (with up to three
    words after it) are exactly the name of a care unit the source records."""
    from clinbridge.engine.understand._slots import Slot

    out: list[Any] = []
    k = 0
    joined = False
    while k < len(pieces):
        p = pieces[k]
        if isinstance(p, Slot) and p.kind == "encounter" and p.data.get("located"):
            place = [w for w in tokens(p.text) if w not in _LEAD]
            nxt = pieces[k + 1] if k + 1 < len(pieces) else None
            right = tokens(nxt)[:3] if isinstance(nxt, str) else []
            hit = next(
                (
                    b
                    for b in range(len(right), -1, -1)
                    if place and _unit_match(place + right[:b], lex)
                ),
                None,
            )
            if hit is not None:
                text = f" {p.text} "
                if out and isinstance(out[-1], str):
                    out[-1] = out[-1] + text
                else:
                    out.append(text)
                k += 1
                joined = True
                continue
        if isinstance(p, str) and joined and out and isinstance(out[-1], str):
            out[-1] = out[-1] + p  # the words after a unit turned back into words
        else:
            out.append(p)
        joined = False
        k += 1
    return out
