"""The readers of questions that name their concepts by the source's exact dictionary names, in
order: two events one after the other (:mod:`._follow_read`), a cost of one concept
(:mod:`._cost_read`), a count over one concept and a plain ranking (:mod:`._count_read`). Each
reads a question whole or leaves it to the general reader (None)."""

from __future__ import annotations

import datetime as dt

from clinbridge.catalog import Catalog
from clinbridge.engine.understand._cost_read import read_cost
from clinbridge.engine.understand._count_read import read_count, read_current, read_rank
from clinbridge.engine.understand._follow_read import read_follow
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._reading import Reading

__all__ = ["read_exact"]


def read_exact(
    question: str, lex: Lexicon, catalog: Catalog | None, now: dt.datetime | None
) -> Reading | None:
    """The first exact-name reading of the question; None when no reader reads it."""
    if catalog is None:
        return None
    return (
        read_follow(question, lex, catalog, now)
        or read_cost(question, lex, now)
        or read_count(question, lex, now)
        or read_rank(question, lex, now)
        or read_current(question, lex, now)
    )
