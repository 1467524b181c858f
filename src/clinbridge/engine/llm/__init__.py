"""Optional LLM understanding: a local or on-premises model proposes the QueryPlan.

Configuration (file/env, see ``clinbridge.settings``): ``CLINBRIDGE_LLM=openai|transformers|none``,
``CLINBRIDGE_LLM_URL`` (OpenAI-compatible server: vLLM, llama.cpp, Ollama, TGI),
``CLINBRIDGE_LLM_MODEL`` (model name for a server, or a local model directory for transformers),
``CLINBRIDGE_LLM_API_KEY`` (optional bearer token), ``CLINBRIDGE_EXAMPLES`` (example bank file).

How ``ask()`` uses it (the same validator path as the built-in parser)::

    from clinbridge.engine.llm import llm_enabled, llm_proposer
    from clinbridge.engine.validate import answer_with_validation

    if llm_enabled(settings):
        proposer = llm_proposer(question, catalog=catalog, db=db, settings=settings,
                                patient_id=patient_id, now=now)
        result = answer_with_validation(question, proposer, catalog=catalog, db=db,
                                        settings=settings, understanding=settings.llm)
        answer = result.to_answer()

    # or, in one call:
    from clinbridge.engine.llm import answer_with_llm
    answer = answer_with_llm(question, catalog=catalog, db=db, settings=settings,
                             patient_id=patient_id, now=now).to_answer()

The model sees the catalog summary, the top-k tables/streams by embedding similarity, sampled
rows (through the guard), candidate concepts from the dictionaries and similar approved examples;
it answers ``{"plan": QueryPlan}`` (JSON-schema constrained where the server supports it) or, for
questions a plan cannot express, ``{"sql": ..., "shape": ...}`` which runs behind the guard and
the validator. Invalid JSON/plans are re-asked once with the pydantic error; failed validator
checks are sent back once as the repair; then the pipeline abstains.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, NotRequired, TypedDict, Unpack

from clinbridge.engine.llm.backends import (
    LLMBackend,
    OpenAIBackend,
    TransformersBackend,
    get_backend,
)
from clinbridge.engine.llm.propose import LLMUnderstanding, parse_reply

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.engine.validate import Proposer, Validated
    from clinbridge.settings import Settings

__all__ = [
    "LLMBackend",
    "LLMContext",
    "LLMUnderstanding",
    "OpenAIBackend",
    "TransformersBackend",
    "answer_with_llm",
    "get_backend",
    "llm_enabled",
    "llm_proposer",
    "parse_reply",
]

_BACKENDS: dict[tuple[str, str, str], LLMBackend] = {}


def llm_enabled(settings: Settings) -> bool:
    """Whether an LLM backend is configured (``CLINBRIDGE_LLM`` other than 'none')."""
    return (settings.llm or "none").lower() not in {"", "none", "off"}


def _backend(settings: Settings) -> LLMBackend:
    key = (settings.llm, settings.llm_url, settings.llm_model)
    if key not in _BACKENDS:  # a local model is loaded once per process
        _BACKENDS[key] = get_backend(settings)
    return _BACKENDS[key]


class LLMContext(TypedDict):
    """What an LLM proposal is made against: the catalog, database and settings (required), the
    patient in focus, the clock, and whether raw SQL may be proposed (optional)."""

    catalog: Catalog
    db: Database
    settings: Settings
    patient_id: NotRequired[str | None]
    now: NotRequired[dt.datetime | None]
    allow_sql: NotRequired[bool]


def llm_proposer(question: str, **context: Unpack[LLMContext]) -> Proposer:
    """A validator proposer backed by the configured LLM and the default example bank."""
    from clinbridge.engine.examples import ExampleBank, default_bank_path

    settings = context["settings"]
    path = default_bank_path(settings)
    bank = ExampleBank(path, embeddings=settings.embeddings) if path.exists() else None
    llm = LLMUnderstanding(
        _backend(settings),
        catalog=context["catalog"],
        db=context["db"],
        bank=bank,
        settings=settings,
        allow_sql=context.get("allow_sql", True),
    )
    return llm.proposer(question, patient_id=context.get("patient_id"), now=context.get("now"))


def answer_with_llm(question: str, **context: Unpack[LLMContext]) -> Validated:
    """Answer with the configured LLM through the validator (accept, one repair, or abstain)."""
    from clinbridge.engine.validate import answer_with_validation

    settings = context["settings"]
    return answer_with_validation(
        question,
        llm_proposer(question, **context),
        catalog=context["catalog"],
        db=context["db"],
        settings=settings,
        understanding=settings.llm,
    )
