"""The LLM as a proposer: prompt → JSON → pydantic-validated plan (or free SQL), re-asked once.

Parsing follows instructor's loop: a reply that is not JSON, or not a valid QueryPlan, is sent
back once with the structured validation error; a second failure ends the attempt (the pipeline
abstains with ``llm``). The validator's failed checks come back through
:meth:`LLMUnderstanding.proposer`'s ``feedback`` argument and are sent to the model as its one
repair. The caller's patient id and 'now' override whatever the model wrote.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import ValidationError

from clinbridge.engine.llm.prompt import build_context, envelope_schema, plan_messages
from clinbridge.engine.plan import QueryPlan
from clinbridge.engine.validate import Feedback, SqlProposal, Validated, answer_with_validation
from clinbridge.errors import ClinbridgeError, LLMError

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.engine.examples import ExampleBank
    from clinbridge.engine.llm.backends import LLMBackend, Message
    from clinbridge.engine.understand import Understander
    from clinbridge.engine.understand._reading import Reading
    from clinbridge.engine.validate import Proposer
    from clinbridge.settings import Settings

__all__ = ["LLMUnderstanding", "ReplyError", "extract_json", "parse_reply"]

logger = logging.getLogger(__name__)


class ReplyError(LLMError, ValueError):
    """The model's reply is not a valid answer; ``detail`` is what the re-ask tells it."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def extract_json(text: str) -> Any:
    """The first JSON object in a reply (code fences and chatter around it are ignored)."""
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    start = text.find("{")
    if start < 0:
        raise ReplyError("the reply contains no JSON object")
    depth, in_str, esc = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                try:
                    return orjson.loads(text[start : i + 1])
                except orjson.JSONDecodeError as exc:
                    raise ReplyError(f"the reply is not valid JSON: {exc}") from exc
    raise ReplyError("the reply's JSON object is not closed (truncated output?)")


def _pydantic_detail(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors()[:8]:
        loc = ".".join(str(p) for p in err["loc"])
        lines.append(f"{loc}: {err['msg']}")
    return "; ".join(lines)


def parse_reply(text: str, *, allow_sql: bool = True) -> QueryPlan | SqlProposal:
    """``{"plan": {...}}`` → QueryPlan; ``{"sql": ..., "shape": ...}`` → SqlProposal."""
    data = extract_json(text)
    if not isinstance(data, dict):
        raise ReplyError("the reply must be a JSON object")
    if "plan" in data and data["plan"] is not None:
        try:
            return QueryPlan.model_validate(data["plan"])
        except ValidationError as exc:
            raise ReplyError(f"invalid QueryPlan: {_pydantic_detail(exc)}") from exc
    if data.get("sql"):
        if not allow_sql:
            raise ReplyError('free SQL is not allowed here; answer with {"plan": ...}')
        shape = data.get("shape")
        try:
            return SqlProposal(
                sql=str(data["sql"]),
                shape=shape
                if shape in {"number", "list", "date", "boolean", "rows", "text"}
                else None,
            )
        except ValidationError as exc:
            raise ReplyError(f"invalid SQL answer: {_pydantic_detail(exc)}") from exc
    if {"filters", "aggregate", "measure"} & set(data):
        try:  # a bare plan without the envelope
            return QueryPlan.model_validate(data)
        except ValidationError as exc:
            raise ReplyError(f"invalid QueryPlan: {_pydantic_detail(exc)}") from exc
    raise ReplyError(
        'the reply must be {"plan": {...}}'
        + (' or {"sql": "...", "shape": "..."}' if allow_sql else "")
    )


class LLMUnderstanding:
    """Questions → plans with an LLM backend, grounded in one source.

    The validator holds each proposal against a second reading of the question: the built-in
    parser's (``parser``; by default one on this database without embeddings, built on first use).
    """

    def __init__(
        self,
        backend: LLMBackend,
        *,
        catalog: Catalog,
        db: Database | None = None,
        bank: ExampleBank | None = None,
        settings: Settings | None = None,
        allow_sql: bool = True,
        max_tokens: int = 1024,
        parser: Understander | None = None,
    ) -> None:
        from clinbridge.settings import Settings

        self.backend = backend
        self.catalog = catalog
        self.db = db
        self.bank = bank
        self.settings = settings or Settings()
        self.allow_sql = allow_sql
        self.max_tokens = max_tokens
        self._parser = parser

    def second_reading(
        self, question: str, *, patient_id: str | None = None, now: dt.datetime | None = None
    ) -> Reading | None:
        """The built-in parser's top reading of the question, or None when it cannot read it."""
        if self.db is None:
            return None
        if self._parser is None:
            from clinbridge.engine.understand import Understander

            self._parser = Understander(self.db, self.catalog, embeddings=False)
        try:
            readings = self._parser.understand(question, patient_id=patient_id, now=now)
        except ClinbridgeError as exc:  # only the verbatim coverage checks apply
            logger.info("no second reading of %r: %s", question, exc)
            return None
        return readings[0] if readings else None

    def _ask(self, messages: list[Message]) -> tuple[QueryPlan | SqlProposal, str]:
        """One proposal; a reply that does not parse is re-asked once with the error."""
        schema = envelope_schema(allow_sql=self.allow_sql)
        reply = self.backend.complete(messages, schema=schema, max_tokens=self.max_tokens)
        try:
            return parse_reply(reply, allow_sql=self.allow_sql), reply
        except ReplyError as first:
            logger.info("parse:error %s; re-asking once", first.detail)
            messages.append({"role": "assistant", "content": reply[:4000]})
            messages.append(
                {
                    "role": "user",
                    "content": f"That reply was rejected: {first.detail}. "
                    "Answer again with one corrected JSON object.",
                }
            )
            reply = self.backend.complete(messages, schema=schema, max_tokens=self.max_tokens)
            try:
                return parse_reply(reply, allow_sql=self.allow_sql), reply
            except ReplyError as second:
                raise LLMError(
                    f"the {self.backend.name} model did not produce a valid plan: {second.detail}",
                    first_error=first.detail,
                    reply=reply[:500],
                ) from second

    def proposer(
        self, question: str, *, patient_id: str | None = None, now: dt.datetime | None = None
    ) -> Proposer:
        """A proposer for :func:`~clinbridge.engine.validate.answer_with_validation`."""
        state: dict[str, Any] = {"messages": None, "reply": None}

        def fix(p: QueryPlan | SqlProposal) -> QueryPlan | SqlProposal:
            if isinstance(p, QueryPlan):
                return p.model_copy(
                    update={
                        "question": question,
                        # The caller's patient wins; without one, a patient named in the
                        # question (and read by the model) stands — the validator checks it.
                        "patient_id": patient_id if patient_id is not None else p.patient_id,
                        "now": now if now is not None else p.now,
                    }
                )
            return p

        def propose(feedback: Feedback | None) -> QueryPlan | SqlProposal | None:
            if feedback is None:
                ctx = build_context(
                    question,
                    catalog=self.catalog,
                    db=self.db,
                    bank=self.bank,
                    embeddings=self.settings.embeddings,
                )
                messages = plan_messages(
                    question,
                    ctx,
                    patient_id=patient_id,
                    now=now.isoformat() if now else None,
                    allow_sql=self.allow_sql,
                )
            else:
                messages = state["messages"]
                messages.append({"role": "assistant", "content": (state["reply"] or "")[:4000]})
                messages.append({"role": "user", "content": feedback.to_prompt()})
            state["messages"] = messages
            proposal, reply = self._ask(messages)
            state["reply"] = reply
            return fix(proposal)

        return propose

    def answer(
        self, question: str, *, patient_id: str | None = None, now: dt.datetime | None = None
    ) -> Validated:
        """Propose with the LLM, execute, validate; accept, repair once, or abstain."""
        if self.db is None:
            raise LLMError("answering needs a database")
        return answer_with_validation(
            question,
            self.proposer(question, patient_id=patient_id, now=now),
            catalog=self.catalog,
            db=self.db,
            settings=self.settings,
            understanding=self.backend.name,
            reading=self.second_reading(question, patient_id=patient_id, now=now),
        )

    def back_translate(self, plan: QueryPlan) -> str:
        """A natural question for a plan (example-bank mutations); falls back to the template."""
        from clinbridge.engine._describe import describe_plan

        template = describe_plan(plan)
        messages: list[Message] = [
            {
                "role": "system",
                "content": "Rewrite the question so a clinician would ask it naturally. Keep every "
                "condition, number, unit and time window. Answer with the question only.",
            },
            {
                "role": "user",
                "content": f"Plan: {plan.model_copy(update={'question': None}).to_json()}\n"
                f"Literal question: {template}",
            },
        ]
        text = self.backend.complete(messages, max_tokens=96).strip().strip('"').splitlines()
        line = next((t.strip() for t in text if t.strip()), "")
        return line if 8 <= len(line) <= 300 else template
