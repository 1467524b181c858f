"""The Python API: ``clinbridge.connect(url).ask("How many women had a GI bleed in 2015?")``.

A :class:`Connection` holds an open, read-only database, its catalog and (built lazily, cached
on disk) the lexicon that grounds questions. ``ask`` reads the question into ranked plan readings
(the built-in parser, or a configured LLM backend), then runs them through the validator: the
first reading is tried, the next reading is the one repair, and anything that fails a check
becomes an abstention with its reason.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clinbridge.engine.answer import Answer, Check, Provenance, Timings

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.embed import EmbeddingService
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.engine.understand import Reading, Understander
    from clinbridge.settings import Settings

__all__ = ["Connection", "connect"]

logger = logging.getLogger(__name__)


def connect(
    url: str,
    *,
    schema: str | None = None,
    adapter: str | None = None,
    source: str | None = None,
    settings: Settings | None = None,
    cache_dir: str | Path | None = None,
) -> Connection:
    """Open a source read-only and describe it.

    Args:
        url: ``duckdb:///file.duckdb``, ``sqlite:///file.db`` or ``postgresql://...``.
        schema: Schema holding the source (PostgreSQL).
        adapter: Adapter name (default: detected).
        source: Source name to record in the catalog.
        settings: Limits, 'now', LLM configuration (default: from the environment).
        cache_dir: Where the understanding lexicon is cached.

    Returns:
        A :class:`Connection`; use it as a context manager or call ``close()``.
    """
    from clinbridge.adapters import describe
    from clinbridge.db import Database
    from clinbridge.settings import Settings

    db = Database.open(url, schema=schema)
    try:
        catalog = describe(db, adapter=adapter, source=source)
    except Exception:
        db.close()
        raise
    return Connection(db, catalog, settings=settings or Settings.from_env(), cache_dir=cache_dir)


class Connection:
    """One described source, ready for questions and plans."""

    def __init__(
        self,
        db: Database,
        catalog: Catalog,
        *,
        settings: Settings | None = None,
        cache_dir: str | Path | None = None,
    ) -> None:
        from clinbridge.settings import Settings

        self.db = db
        self.catalog = catalog
        self.settings = settings or Settings()
        if cache_dir is None and self.settings.cache_dir:  # CLINBRIDGE_CACHE_DIR, via Settings
            cache_dir = Path(self.settings.cache_dir) / "understand"
        self._cache_dir = cache_dir
        self._understander: Understander | None = None
        self._trial_reader: Any = None
        self._bank: Any = False
        self._llm: Any = None
        self._notes: Any = None

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Close the database."""
        self.db.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def embedder(self) -> EmbeddingService:
        """The embedding service for these settings (the model loads on first use)."""
        from clinbridge.embed import service_for

        return service_for(self.settings)

    @property
    def understander(self) -> Understander:
        """The built-in parser for this source (built on first use)."""
        if self._understander is None:
            from clinbridge.engine.understand import Understander

            self._understander = Understander(
                self.db,
                self.catalog,
                cache_dir=self._cache_dir,
                embeddings=self.settings.embeddings != "off",
                embedder=self.embedder,
                builtin_drug_classes=self.settings.drug_classes == "builtin",
            )
        return self._understander

    # -- questions ---------------------------------------------------------------------------
    def readings(
        self, question: str, patient_id: str | None = None, now: str | dt.datetime | None = None
    ) -> list[Reading]:
        """The parser's ranked readings of ``question`` (plans with grounding evidence)."""
        if self.catalog.variables and not self.catalog.streams:  # a wide trial table
            if self._trial_reader is None:
                from clinbridge.engine.understand._trial import TrialReader

                self._trial_reader = TrialReader(self.catalog)
            return self._trial_reader.understand(question)  # type: ignore[no-any-return]
        readings = self.understander.understand(question, patient_id=patient_id, now=self._now(now))
        bank = self._example_bank()
        if bank is not None:
            from clinbridge.engine.understand._bank import apply_examples

            readings = apply_examples(
                question, readings, bank, source=self.catalog.source, patient_id=patient_id
            )
        return readings

    def _example_bank(self) -> Any:
        """The approved examples (settings.examples, else ~/.clinbridge/examples.jsonl), read
        once; None when there is no bank file."""
        if self._bank is False:
            from clinbridge.engine.examples import ExampleBank, default_bank_path

            path = default_bank_path(self.settings)
            self._bank = ExampleBank(path, embeddings="off") if path.exists() else None
        return self._bank

    def ask(
        self, question: str, patient_id: str | None = None, now: str | dt.datetime | None = None
    ) -> Answer:
        """Answer a question in plain language, or abstain with the reason.

        The tables answer first; a patient-level value or yes/no question they cannot answer
        (or one that asks about the notes) is then answered from the patient's notes, quoting
        and citing them (``details['citations']``, see ``clinbridge.engine.notes``).

        Args:
            question: The question, as a clinician would ask it.
            patient_id: The patient, for patient-level questions.
            now: What 'today' means (ISO timestamp); default: settings, then the data's end.

        Returns:
            An :class:`~clinbridge.engine.answer.Answer` (``decision`` accept or abstain).
        """
        answer = self._ask_tables(question, patient_id=patient_id, now=now)
        if patient_id is None:
            return answer
        return self._with_notes(question, patient_id, answer)

    def _with_notes(self, question: str, patient_id: str, answer: Answer) -> Answer:
        """The notes' answer when the tables have none (abstained, empty, or a 'no' the notes
        may contradict) or the question asks about notes; otherwise the tables' answer."""
        from clinbridge.engine.notes import ChunkIndex, answer_from_notes, note_streams

        if not note_streams(self.catalog):
            return answer
        if answer.reason_code == "ambiguous" or answer.alternatives:
            return answer  # the user picks a reading first; a note never hides the choice
        empty = answer.value is None or answer.value is False or answer.value == []
        if answer.accepted and not empty and "note" not in question.lower():
            return answer
        if self._notes is None:
            self._notes = ChunkIndex(self.db, self.catalog, self.embedder)
        from_notes = answer_from_notes(
            question,
            str(patient_id),
            self._notes,
            structured=answer,
            unmentioned=self.settings.notes_unmentioned,
        )
        if from_notes is None or (not from_notes.accepted and answer.accepted):
            return answer
        return from_notes

    def _ask_tables(
        self, question: str, patient_id: str | None = None, now: str | dt.datetime | None = None
    ) -> Answer:
        """The tables' answer (the built-in parser or the configured LLM, then the validator)."""
        from clinbridge.engine._choices import answer_choices
        from clinbridge.engine.validate import answer_with_validation

        if self.settings.llm not in {"", "none"}:
            return self._ask_llm(question, patient_id=patient_id, now=now)
        start = time.perf_counter()
        readings = self.readings(question, patient_id=patient_id, now=now)
        understand_ms = (time.perf_counter() - start) * 1000
        plans = [r.plan for r in readings if r.plan is not None]
        if not plans:
            reason = readings[0].abstain_reason if readings else "could not read the question"
            return self._abstain(
                question, reason or "could not read the question", understand_ms, readings
            )
        answer: Answer | None = None
        question = self._as_read(question)  # the checks read the words the reader read
        if readings[0].choices:
            answer = answer_choices(
                question,
                [(c.description, c.plan) for c in readings[0].choices],
                catalog=self.catalog,
                db=self.db,
                settings=self.settings,
                understanding="parser",
                answer_when_agreed=readings[0].answer_when_agreed,
            )
        if answer is None:
            second = self._second_reading(question, readings)
            result = answer_with_validation(
                question,
                plans,
                catalog=self.catalog,
                db=self.db,
                settings=self.settings,
                understanding="parser",
                extra_checks=second[1] if second else None,
            )
            answer = result.to_answer()
            if second:
                answer.details["learned_reading"] = second[0].to_dict()
        answer.timings.steps_ms["understand"] = round(understand_ms, 3)
        for kind in (
            n.removeprefix("spread: ") for n in readings[0].notes if n.startswith("spread: ")
        ):
            from clinbridge.engine._wide_spread import add_spread  # 'mean (SD)', 'median (IQR)'

            add_spread(answer, kind, self.catalog, self.db, self.settings.max_rows)
        notes = [n for n in readings[0].notes if n.startswith("example ")]
        first_plan = readings[0].plan
        if notes and first_plan is not None and answer.plan == first_plan.to_dict():
            answer.details["examples"] = notes
            answer.provenance.understanding = "parser+examples"
        answer.details.setdefault("groundings", [g.model_dump() for g in readings[0].groundings])
        answer.details.setdefault("confidence", readings[0].confidence)
        if readings[0].notes:
            answer.details.setdefault("notes", list(readings[0].notes))
        return answer

    def _as_read(self, question: str) -> str:
        """The question as the built-in reader read it (typing slips mended, 'exists' said as 'is
        there any'): the validator's checks of what is asked read the same words."""
        if self.catalog.variables and not self.catalog.streams:  # a wide trial table: as asked
            return question
        from clinbridge.engine.understand import as_read

        return as_read(question, self.understander.lexicon)

    def _second_reading(self, question: str, readings: list[Reading]) -> tuple[Any, Any] | None:
        """The learned reader's reading and the agreement check each plan must pass (or None
        when ``settings.learned_reader`` is off)."""
        if self.settings.learned_reader == "off":
            return None
        from clinbridge.engine._checks_readers import check_readers
        from clinbridge.engine.understand.learned import shared_reader

        learned = shared_reader(self.settings.learned_reader_path or None).read(question)
        by_plan = {r.plan: r.groundings for r in readings if r.plan is not None}

        similarity = self.embedder.scores if self.settings.embeddings != "off" else None

        def agree(plan: QueryPlan) -> list[Check]:
            return check_readers(plan, by_plan.get(plan, ()), learned, similarity=similarity)

        return learned, agree

    def _ask_llm(
        self, question: str, *, patient_id: str | None, now: str | dt.datetime | None
    ) -> Answer:
        """A configured LLM backend proposes the plan (settings.llm); same validator."""
        from clinbridge.engine.llm.backends import get_backend
        from clinbridge.engine.llm.propose import LLMUnderstanding

        if self._llm is None:
            self._llm = LLMUnderstanding(
                get_backend(self.settings), catalog=self.catalog, db=self.db, settings=self.settings
            )
        answer: Answer = self._llm.answer(
            question, patient_id=patient_id, now=self._now(now)
        ).to_answer()
        return answer

    def ask_plan(self, plan: QueryPlan) -> Answer:
        """Execute a QueryPlan through the validator (no understanding involved)."""
        from clinbridge.engine.validate import answer_with_validation

        result = answer_with_validation(
            plan.question or "",
            [plan],
            catalog=self.catalog,
            db=self.db,
            settings=self.settings,
            understanding="plan",
        )
        return result.to_answer()

    # -- helpers -----------------------------------------------------------------------------
    def _now(self, now: str | dt.datetime | None) -> dt.datetime | None:
        if isinstance(now, dt.datetime):
            return now
        if isinstance(now, dt.date):
            return dt.datetime(now.year, now.month, now.day)
        text = now or self.settings.now
        if not text:
            return None
        return dt.datetime.fromisoformat(str(text))

    def _abstain(
        self, question: str, reason: str, understand_ms: float, readings: list[Any]
    ) -> Answer:
        timings = Timings()
        timings.steps_ms["understand"] = round(understand_ms, 3)
        unresolved = list(readings[0].unresolved) if readings else []
        return Answer(
            decision="abstain",
            reason=reason,
            reason_code="understanding",
            checks=[
                Check(name="question_understood", passed=False, detail=reason, code="understanding")
            ],
            details={"unresolved": unresolved} if unresolved else {},
            timings=timings,
            provenance=Provenance(
                question=question,
                source=self.catalog.source,
                adapter=self.catalog.adapter,
                dialect=self.db.dialect,
                understanding="parser",
            ),
        )
