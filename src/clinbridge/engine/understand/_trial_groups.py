"""A grouping said but not read: 'by randoimsed arm', 'by recruiting centre' where the first
word names nothing. Dropping it would answer one pooled number for a breakdown asked, so the
reading abstains instead, naming the words."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinbridge.engine.understand._trial_vocab import ROLE_WORDS, tokenize

if TYPE_CHECKING:
    from clinbridge.engine.understand._trial_model import Family

__all__ = ["unread_grouping"]


def unread_grouping(rest: str, families: list[Family], known: set[str]) -> list[str]:
    """The words the reader does not know before a design or coded variable's name in the first
    three words after 'by' (empty when there are none: 'by caesarean section' is no grouping,
    'by instrumental vaginal delivery' a code's words)."""
    toks = tokenize(rest)[:3]
    role = set().union(*ROLE_WORDS.values())
    heads = {w for f in families if f.kind == "categorical" for w in f.head}
    for k, t in enumerate(toks):
        if k and (t.norm in role or t.norm.rstrip("s") in role or t.norm in heads):
            return [x.text for x in toks[:k] if x.norm not in known]
    return []
