"""Built-in understanding (no LLM): a clinical question → ranked QueryPlan readings.

Every phrase is grounded in what the source's catalog and vocabulary hold — concepts by exact
name or synonym (with descendants), by the same or contained words, by a spelling correction
against the source's own words, and finally by embedding similarity — and everything structural
(the aggregate, cohort, sexes, ages, values with units, counts, negation, time windows, encounter
scope, grouping) is read by general rules. A phrase that cannot be grounded makes the reading an
abstention that names it.

Example:
    >>> u = Understander(db, catalog)                                       # doctest: +SKIP
    >>> readings = u.understand("How many women had a GI bleed in 2015?")    # doctest: +SKIP
    >>> readings[0].plan.aggregate.op                                       # doctest: +SKIP
    'count'
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clinbridge.engine.understand._assemble import Ctx, assemble, expand
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._slots import extract
from clinbridge.engine.understand._text import normalize

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.embed import EmbeddingService

__all__ = ["Grounding", "Lexicon", "Reading", "UnderstandContext", "Understander", "understand"]

logger = logging.getLogger(__name__)


@dataclass
class UnderstandContext:
    """What understanding needs besides the question: the source's lexicon and the subject."""

    lexicon: Lexicon
    catalog: Catalog | None = None
    patient_id: str | None = None
    now: dt.datetime | None = None
    embeddings: bool = True


def understand(question: str, ctx: UnderstandContext) -> list[Reading]:
    """Read a question into ranked readings (best first); a single abstaining reading if none.

    Args:
        question: The question in plain clinical language.
        ctx: The source's lexicon, the patient (for patient-level questions) and 'now'.

    Returns:
        Readings, best first. Each has a plan and its grounding evidence, or an abstention reason.
    """
    text = normalize(question)
    today = (ctx.now.date() if ctx.now else None) or _data_today(ctx.catalog) or dt.date.today()
    c = Ctx(
        question=question,
        lex=ctx.lexicon,
        patient_id=ctx.patient_id,
        now=ctx.now,
        today=today,
        embeddings=ctx.embeddings,
    )
    try:
        pieces = extract(text)
        items = expand(pieces, c)
    except Exception as exc:  # a parsing bug must not become an answer
        logger.exception("understanding failed for %r", question)
        return [Reading(question=question, abstain_reason=f"could not read the question ({exc})")]
    first = assemble(items, c)
    readings = [first]
    if first.plan is not None:
        readings.extend(_alternatives(items, c, first))
    return readings


def _alternatives(items: list[Any], c: Ctx, first: Reading) -> list[Reading]:
    """Next readings: each ambiguous concept swapped for its next-best grounding."""
    from clinbridge.engine.understand._ground import Concept

    out: list[Reading] = []
    for k, item in enumerate(items):
        if not isinstance(item, Concept) or not item.alternatives:
            continue
        alt = item.alternatives[0]
        if alt.score < 0.5 or set(alt.entries) == set(item.entries):
            continue
        swapped = Concept(
            item.phrase, alt.label, list(alt.entries), alt.score, alt.how, hints=item.hints
        )
        new_items = list(items)
        new_items[k] = swapped
        ctx = Ctx(
            question=c.question,
            lex=c.lex,
            patient_id=c.patient_id,
            now=c.now,
            today=c.today,
            embeddings=c.embeddings,
        )
        reading = assemble(new_items, ctx)
        if reading.plan is not None and reading.plan != first.plan:
            out.append(
                reading.model_copy(
                    update={"confidence": round(min(reading.confidence, first.confidence) * 0.8, 4)}
                )
            )
        if len(out) >= 2:
            break
    return out


def _data_today(catalog: Catalog | None) -> dt.date | None:
    return catalog.data_end_date() if catalog is not None else None


class Understander:
    """Understanding bound to one database: builds (or loads) its lexicon once.

    Args:
        db: The open source database.
        catalog: Its catalog.
        cache_dir: Where the lexicon and embeddings are cached (default ~/.cache/clinbridge).
        embeddings: Use embedding similarity as the last grounding resort.
        embedder: The embedding service (default: the process's for the environment's settings).
    """

    def __init__(
        self,
        db: Database,
        catalog: Catalog,
        *,
        cache_dir: str | Path | None = None,
        embeddings: bool = True,
        embedder: EmbeddingService | None = None,
    ) -> None:
        if embeddings and embedder is None:
            from clinbridge.embed import service_for

            embedder = service_for()
        self.catalog = catalog
        self.lexicon = Lexicon.load(
            db, catalog, cache_dir=cache_dir, embedder=embedder if embeddings else None
        )
        self.embeddings = embeddings

    def understand(
        self, question: str, *, patient_id: str | None = None, now: dt.datetime | None = None
    ) -> list[Reading]:
        ctx = UnderstandContext(
            self.lexicon, self.catalog, patient_id=patient_id, now=now, embeddings=self.embeddings
        )
        return understand(question, ctx)
