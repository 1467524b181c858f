"""The validator (CLEAR-Med style): deterministic checks, then accept, one repair, or abstain.

Every draft answer — from a plan the built-in parser or an LLM proposed, or from free SQL an LLM
wrote — goes through :func:`validate` before anyone sees it. An answer that failed a check is
never emitted: :func:`answer_with_validation` either accepts it, asks the proposer once more with
the failed checks (the LLM is re-asked with the structured error; the parser gives its next
reading), or abstains with a reason code.

Interface (stable; ``clinbridge.engine.understand`` / ``ask()`` code against it)::

    from clinbridge.engine.validate import (
        Check, Validated, SqlProposal, Feedback, answer_with_validation, validate, decide,
    )

    # 1. The pipeline. ``proposer`` is either
    #    * a sequence of QueryPlans (the parser's readings, best first): the first is tried, the
    #      next one is the repair; or
    #    * a callable ``proposer(feedback: Feedback | None) -> QueryPlan | SqlProposal | None``,
    #      called with ``None`` first and with the failed attempt's Feedback for the repair
    #      (LLM proposers re-ask with ``feedback.to_prompt()``). Returning None or raising a
    #      ClinbridgeError (e.g. UnderstandingError naming the phrase) ends the attempts.
    result: Validated = answer_with_validation(
        question, proposer,
        catalog=catalog, db=db,
        run_plan=None,        # Callable[[QueryPlan], AnswerDraft]; default clinbridge.engine.run
        run_sql=None,         # Callable[[SqlProposal], AnswerDraft]; default guard + db.execute
        settings=None,        # clinbridge.settings.Settings (max_repair_attempts, max_rows, ...)
        expected_shape=None,  # force "number" | "list" | "date" | "boolean" | "rows" | "text"
    )
    result.decision      # "accept" | "abstain"
    result.answer        # the accepted draft (an engine Answer) or None — never a failed one
    result.value         # the accepted value or None
    result.checks        # tuple[Check, ...] of the final attempt
    result.reason        # None on accept; an AbstainReason code on abstain
    result.detail        # human sentence for the reason
    result.attempts      # tuple[Attempt, ...]: each proposal (plan / SQL) with its checks
    result.repaired      # True when the accepted answer came from the repair
    result.to_dict()     # JSON-ready

    # 2. The checks alone.
    checks: list[Check] = validate(draft, plan=plan, catalog=catalog, db=db, question=question)
    decision, reason, detail = decide(checks)   # ("accept", None, "") or ("abstain", code, text)

A draft (``AnswerDraft``) is anything with ``value``, ``rows``, ``columns``, ``plan``, ``sql`` and
``concept_sets`` attributes — the engine's ``Answer`` fits. ``concept_sets`` maps a concept set's
``describe()`` label to the resolved codes (or holds objects with ``label`` and ``concept_ids``);
when a set is missing there, the validator resolves it itself through the catalog's dictionary.

A :class:`Check` has ``name`` (what was checked), ``passed``, ``detail`` and, when it failed, a
``code`` from :data:`CheckCode`. Abstention reasons (:data:`AbstainReason`) are these codes or the
``clinbridge.errors`` codes (``concept_not_found``, ``sql_unsafe``, ``understanding``, ...).
"""

from __future__ import annotations

import datetime as dt
import decimal
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from clinbridge.engine._checks import (
    Check,
    CheckCode,
    PlanConceptSet,
    Shape,
    _check_concepts,
    _check_patient,
    _check_shape,
    _check_sql,
    _check_values,
    _check_windows,
    _Ctx,
    _guard,
    concept_sets_of,
    expected_shape,
    plausible_range,
    question_shape,
    resolve_concept_ids,
)
from clinbridge.engine.plan import QueryPlan
from clinbridge.errors import ClinbridgeError, ConfigError, ErrorCode

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.settings import Settings

__all__ = [
    "AbstainReason",
    "AnswerDraft",
    "Attempt",
    "Check",
    "CheckCode",
    "Feedback",
    "PlanConceptSet",
    "Proposer",
    "Shape",
    "SqlDraft",
    "SqlProposal",
    "Validated",
    "answer_with_validation",
    "concept_sets_of",
    "decide",
    "expected_shape",
    "plausible_range",
    "question_shape",
    "resolve_concept_ids",
    "validate",
]

logger = logging.getLogger(__name__)

AbstainReason = CheckCode | ErrorCode


# -- data types ---------------------------------------------------------------------------------


class SqlProposal(BaseModel):
    """Free SQL for a question the plan cannot express; runs behind the guard and the validator."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sql: str
    shape: Shape | None = None
    """What the answer should look like (one number, a list, ...), as the proposer understood it."""
    rationale: str = ""


@runtime_checkable
class AnswerDraft(Protocol):
    """What the validator needs of an executed plan (the engine's ``Answer`` fits)."""

    @property
    def value(self) -> Any: ...
    @property
    def rows(self) -> Sequence[Sequence[Any]]: ...
    @property
    def columns(self) -> Sequence[str]: ...
    @property
    def plan(self) -> QueryPlan | None: ...
    @property
    def sql(self) -> str | None: ...
    @property
    def concept_sets(self) -> Any: ...


@dataclass(frozen=True)
class SqlDraft:
    """An executed free-SQL proposal."""

    value: Any
    rows: list[tuple[Any, ...]]
    columns: list[str]
    sql: str
    plan: QueryPlan | None = None
    concept_sets: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    truncated: bool = False


@dataclass(frozen=True)
class Feedback:
    """What went wrong with one proposal; handed to the proposer for its one repair."""

    proposal: QueryPlan | SqlProposal | None
    failed: tuple[Check, ...]

    def to_prompt(self) -> str:
        """The structured error an LLM is re-asked with."""
        lines = ["The previous answer failed these checks; fix the cause and answer again:"]
        for c in self.failed:
            lines.append(f"- {c.code or c.name}: {c.detail}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "proposal": _proposal_dict(self.proposal),
            "failed": [c.to_dict() for c in self.failed],
        }


@dataclass(frozen=True)
class Attempt:
    proposal: QueryPlan | SqlProposal | None
    checks: tuple[Check, ...]

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(c.passed for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {
            "proposal": _proposal_dict(self.proposal),
            "checks": [c.to_dict() for c in self.checks],
        }


@dataclass(frozen=True)
class Validated:
    """The outcome: an accepted answer, or an abstention with its reason."""

    decision: Literal["accept", "abstain"]
    answer: Any
    checks: tuple[Check, ...]
    reason: str | None = None
    detail: str = ""
    attempts: tuple[Attempt, ...] = ()
    repaired: bool = False

    @property
    def value(self) -> Any:
        return getattr(self.answer, "value", None) if self.decision == "accept" else None

    @property
    def plan(self) -> QueryPlan | None:
        last = self.attempts[-1].proposal if self.attempts else None
        return last if isinstance(last, QueryPlan) else None

    @property
    def sql(self) -> str | None:
        if self.answer is not None:
            return getattr(self.answer, "sql", None)
        last = self.attempts[-1].proposal if self.attempts else None
        return last.sql if isinstance(last, SqlProposal) else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "value": _jsonable(self.value),
            "reason": self.reason,
            "detail": self.detail,
            "checks": [c.to_dict() for c in self.checks],
            "attempts": [a.to_dict() for a in self.attempts],
            "repaired": self.repaired,
        }


Proposal = QueryPlan | SqlProposal
Proposer = Callable[[Feedback | None], Proposal | None]


def _proposal_dict(p: Proposal | None) -> dict[str, Any] | None:
    if p is None:
        return None
    if isinstance(p, QueryPlan):
        return {"plan": p.to_dict()}
    return {"sql": p.sql, "shape": p.shape}


def _jsonable(value: Any) -> Any:
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def validate(
    draft: Any,
    *,
    plan: QueryPlan | None,
    catalog: Catalog,
    db: Database,
    question: str | None = None,
    expected: Shape | None = None,
) -> list[Check]:
    """Run every deterministic check on a draft answer.

    Args:
        draft: the executed answer (``value``, ``rows``, ``columns``, ``sql``, ``concept_sets``).
        plan: the plan it came from, or None for free SQL.
        catalog: the source's catalog.
        db: the (read-only) database, for checks that look at the data.
        question: the question, for the shape it asks for.
        expected: force the expected shape (free-SQL proposals say theirs).

    Returns:
        The checks, passed and failed.
    """
    ctx = _Ctx(draft, plan, catalog, db, question)
    checks: list[Check] = []
    checks += _check_sql(ctx)
    checks += _check_patient(ctx)
    if any(not c.passed for c in checks):
        return checks
    concept_checks, resolved = _check_concepts(ctx)
    checks += concept_checks
    checks += _check_windows(ctx)
    checks += _check_shape(ctx, expected)
    try:
        checks += _check_values(ctx, resolved)
    except ClinbridgeError as exc:
        checks.append(
            Check(
                name="values", passed=False, code=exc.code, detail=f"could not check values: {exc}"
            )
        )
    return checks


_PRIORITY = (
    "patient_not_found",
    "concept_unresolved",
    "concept_not_in_data",
    "schema_mismatch",
    "window_empty",
    "window_outside_data",
    "window_outside_observation",
    "not_stored",
    "no_data",
)


def decide(checks: Sequence[Check]) -> tuple[Literal["accept", "abstain"], str | None, str]:
    """Accept when every check passed; otherwise abstain with the most telling failure."""
    failed = [c for c in checks if not c.passed]
    if checks and not failed:
        return "accept", None, ""
    if not failed:
        return "abstain", "no_proposal", "nothing was checked"
    failed.sort(key=lambda c: _PRIORITY.index(c.code) if c.code in _PRIORITY else len(_PRIORITY))
    return "abstain", failed[0].code or "plan", failed[0].detail


# -- the pipeline -----------------------------------------------------------------------------------


def _as_proposer(proposer: Proposer | Sequence[QueryPlan]) -> Proposer:
    if callable(proposer):
        return proposer
    readings = iter(list(proposer))

    def next_reading(feedback: Feedback | None) -> Proposal | None:
        return next(readings, None)

    return next_reading


def _default_run_plan(
    catalog: Catalog, db: Database, settings: Settings | None
) -> Callable[[QueryPlan], Any]:
    def run(plan: QueryPlan) -> Any:
        try:
            from clinbridge.engine import run as run_mod  # type: ignore[attr-defined]
        except ImportError as exc:
            raise ConfigError("clinbridge.engine.run is not available; pass run_plan=") from exc
        fn = getattr(run_mod, "run_plan", None) or run_mod.run  # type: ignore[attr-defined]
        return fn(plan, catalog=catalog, db=db, settings=settings)

    return run


def _default_run_sql(
    catalog: Catalog, db: Database, settings: Settings | None
) -> Callable[[SqlProposal], Any]:
    def run(p: SqlProposal) -> SqlDraft:
        sql = _guard(p.sql, catalog, db)
        max_rows = settings.max_rows if settings else 10_000
        timeout = settings.sql_timeout_ms if settings else 30_000
        res = db.execute(sql, timeout_ms=timeout, max_rows=max_rows)
        value: Any
        if len(res.columns) == 1 and len(res.rows) == 1:
            value = res.rows[0][0]
        elif len(res.columns) == 1:
            value = [r[0] for r in res.rows]
        else:
            value = [list(r) for r in res.rows]
        return SqlDraft(
            value=value, rows=res.rows, columns=res.columns, sql=sql, truncated=res.truncated
        )

    return run


def answer_with_validation(
    question: str | None,
    proposer: Proposer | Sequence[QueryPlan],
    *,
    catalog: Catalog,
    db: Database,
    run_plan: Callable[[QueryPlan], Any] | None = None,
    run_sql: Callable[[SqlProposal], Any] | None = None,
    settings: Settings | None = None,
    expected_shape: Shape | None = None,
    max_repairs: int | None = None,
) -> Validated:
    """Propose, execute, validate; accept, repair once, or abstain.

    Args:
        question: the question (for its expected shape and for the record).
        proposer: the parser's readings (best first) or a callable taking the last Feedback.
        catalog: the source's catalog.
        db: the read-only database.
        run_plan: executes a plan into a draft Answer (default: ``clinbridge.engine.run``).
        run_sql: executes free SQL behind the guard (default: guard + ``db.execute``).
        settings: limits (``max_repair_attempts``, ``max_rows``, ``sql_timeout_ms``).
        expected_shape: the shape of answer wanted, when the caller knows it.
        max_repairs: overrides ``settings.max_repair_attempts`` (default 1).

    Returns:
        A :class:`Validated` outcome; its ``answer`` is None unless every check passed.
    """
    propose = _as_proposer(proposer)
    run_p = run_plan or _default_run_plan(catalog, db, settings)
    run_s = run_sql or _default_run_sql(catalog, db, settings)
    repairs = (
        max_repairs
        if max_repairs is not None
        else (settings.max_repair_attempts if settings else 1)
    )
    attempts: list[Attempt] = []
    feedback: Feedback | None = None
    for i in range(1 + max(0, repairs)):
        try:
            proposal = propose(feedback)
        except ClinbridgeError as exc:
            logger.info("proposer gave up: %s", exc)
            if not attempts:
                chk = Check(
                    name="understood",
                    passed=False,
                    code=exc.code,
                    detail=str(exc),
                    data=exc.to_dict(),
                )
                attempts.append(Attempt(None, (chk,)))
            break
        if proposal is None:
            break
        try:
            if isinstance(proposal, SqlProposal):
                draft = run_s(proposal)
                checks = validate(
                    draft,
                    plan=None,
                    catalog=catalog,
                    db=db,
                    question=question,
                    expected=expected_shape or proposal.shape,
                )
            else:
                draft = run_p(proposal)
                checks = validate(
                    draft,
                    plan=proposal,
                    catalog=catalog,
                    db=db,
                    question=question or proposal.question,
                    expected=expected_shape,
                )
        except ClinbridgeError as exc:
            draft, checks = (
                None,
                [Check(name="executed", passed=False, code=exc.code, detail=str(exc))],
            )
        attempts.append(Attempt(proposal, tuple(checks)))
        decision, _, _ = decide(checks)
        if decision == "accept":
            logger.info("plan:accepted after %d attempt(s)", i + 1)
            return Validated(
                "accept", draft, tuple(checks), attempts=tuple(attempts), repaired=i > 0
            )
        feedback = Feedback(proposal, tuple(c for c in checks if not c.passed))
        logger.info("plan:rejected %s", [c.code for c in feedback.failed])
    if not attempts:
        chk = Check(
            name="proposed",
            passed=False,
            code="no_proposal",
            detail="no reading of the question was proposed",
        )
        attempts.append(Attempt(None, (chk,)))
    last = attempts[-1]
    _, reason, detail = decide(last.checks)
    return Validated(
        "abstain", None, last.checks, reason=reason, detail=detail, attempts=tuple(attempts)
    )
