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
        run_plan=None,        # Callable[[QueryPlan], Answer]; default engine.run.run_plan
        run_sql=None,         # Callable[[SqlProposal], Answer]; default run_sql_proposal (guarded)
        settings=None,        # clinbridge.settings.Settings (max_repair_attempts, max_rows, ...)
        expected_shape=None,  # force "number" | "list" | "date" | "boolean" | "rows" | "text"
        understanding="parser",  # recorded in Answer.provenance.understanding
    )
    result.decision      # "accept" | "abstain"
    result.answer        # the accepted engine Answer (all checks in .checks) or None — never a failed one
    result.to_answer()   # an Answer either way: the accepted one, or decision="abstain" with
                         # reason_code/reason and NO value or rows
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

A draft is the engine's ``Answer`` (or anything with ``value``, ``rows``, ``columns``, ``sql`` and
``concept_sets``). ``concept_sets`` is the Answer's list of resolved sets (``label``, ``concepts``)
or a mapping label → codes; when a set is missing there, the validator resolves it itself with the
engine's resolver. A draft the engine already abstained on (unknown concept, unsafe SQL) keeps
the engine's failed checks, and the proposer is asked for its repair.

A :class:`Check` is ``clinbridge.engine.answer.Check``: ``name`` (what was checked), ``passed``,
``detail`` and ``code`` (the reason code reported if it failed, from :data:`CheckCode`). Abstention reasons (:data:`AbstainReason`) are these codes or the
``clinbridge.errors`` codes (``concept_not_found``, ``sql_unsafe``, ``understanding``, ...).
"""

from __future__ import annotations

import datetime as dt
import decimal
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from clinbridge.engine._checks import (
    Check,
    CheckCode,
    PlanConceptSet,
    _check_concepts,
    _check_patient,
    _check_shape,
    _check_sql,
    _check_windows,
    _Ctx,
    _guard,
    concept_sets_of,
    resolve_concept_ids,
)
from clinbridge.engine._checks_values import _check_values
from clinbridge.engine._checks_wide import check_wide
from clinbridge.engine._checks_wide_clauses import check_wide_clauses
from clinbridge.engine._result_sanity import check_acceptance, check_ambiguous, check_result
from clinbridge.engine._shapes import Shape, expected_shape, plausible_range, question_shape
from clinbridge.engine._wide import is_wide
from clinbridge.engine.answer import Answer, Provenance, Timings, jsonable
from clinbridge.engine.plan import QueryPlan
from clinbridge.errors import AbstainReason, ClinbridgeError
from clinbridge.settings import Settings

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.engine.understand._reading import Reading

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
    "SqlProposal",
    "Validated",
    "answer_with_validation",
    "concept_sets_of",
    "decide",
    "expected_shape",
    "plausible_range",
    "question_shape",
    "resolve_concept_ids",
    "run_sql_proposal",
    "validate",
    "validate_once",
]

logger = logging.getLogger(__name__)


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
    def value(self) -> Any:
        """The answer's value."""

    @property
    def rows(self) -> Any:
        """Its rows."""

    @property
    def columns(self) -> Any:
        """Its column names."""

    @property
    def sql(self) -> str | None:
        """The SQL that ran."""

    @property
    def concept_sets(self) -> Any:
        """The concept sets it resolved."""


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
        """The feedback as plain JSON types."""
        return {
            "proposal": _proposal_dict(self.proposal),
            "failed": [c.model_dump() for c in self.failed],
        }


@dataclass(frozen=True)
class Attempt:
    """One proposal and the checks its execution got."""

    proposal: QueryPlan | SqlProposal | None
    checks: tuple[Check, ...]
    sql: str | None = None
    """The SQL that ran (for the audit trail; the value of a failed attempt is not kept)."""

    @property
    def passed(self) -> bool:
        """Whether every check passed."""
        return bool(self.checks) and all(c.passed for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        """The attempt as plain JSON types."""
        return {
            "proposal": _proposal_dict(self.proposal),
            "sql": self.sql,
            "checks": [c.model_dump() for c in self.checks],
        }


@dataclass(frozen=True)
class Validated:
    """The outcome: an accepted answer, or an abstention with its reason."""

    decision: Literal["accept", "abstain"]
    answer: Answer | None
    """The accepted Answer (checks included); None on abstention — a failed answer is never kept."""
    checks: tuple[Check, ...]
    reason: str | None = None
    detail: str = ""
    attempts: tuple[Attempt, ...] = ()
    repaired: bool = False
    question: str | None = None
    provenance: Provenance | None = None
    elapsed_ms: float = 0.0

    @property
    def value(self) -> Any:
        """The accepted answer's value, or None."""
        return self.answer.value if self.answer is not None else None

    @property
    def plan(self) -> QueryPlan | None:
        """The accepted plan, or None."""
        last = self.attempts[-1].proposal if self.attempts else None
        return last if isinstance(last, QueryPlan) else None

    @property
    def sql(self) -> str | None:
        """The accepted SQL, or None."""
        if self.answer is not None:
            return self.answer.sql
        return self.attempts[-1].sql if self.attempts else None

    def to_answer(self) -> Answer:
        """An engine Answer either way: the accepted one, or an abstention without any value."""
        if self.answer is not None:
            return self.answer
        plan = self.plan
        return Answer(
            decision="abstain",
            plan=plan.to_dict() if plan is not None else None,
            sql=self.sql,
            checks=list(self.checks),
            reason=self.detail or self.reason,
            reason_code=self.reason,
            provenance=self.provenance or Provenance(question=self.question),
            timings=Timings(steps_ms={"validate": round(self.elapsed_ms, 3)}),
        )

    def to_dict(self) -> dict[str, Any]:
        """The outcome as plain JSON types."""
        return {
            "decision": self.decision,
            "value": jsonable(self.value),
            "reason": self.reason,
            "detail": self.detail,
            "checks": [c.model_dump() for c in self.checks],
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


def validate(
    draft: Any,
    *,
    plan: QueryPlan | None,
    catalog: Catalog,
    db: Database,
    question: str | None = None,
    expected: Shape | None = None,
    coverage: bool = False,
    reading: Reading | None = None,
) -> list[Check]:
    """Run every deterministic check on a draft answer.

    Args:
        draft: the executed answer (``value``, ``rows``, ``columns``, ``sql``, ``concept_sets``).
        plan: the plan it came from, or None for free SQL.
        catalog: the source's catalog.
        db: the (read-only) database, for checks that look at the data.
        question: the question, for the shape it asks for.
        expected: force the expected shape (free-SQL proposals say theirs).
        coverage: also check that the plan/SQL uses every concept and number the question
            names (on for LLM proposals: a model may silently drop part of a question).
        reading: a second reading of the question (the built-in parser's) for the coverage
            checks; without it only the verbatim ones apply.

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
    if all(c.passed for c in checks):  # the result's own sense, once nothing else failed
        checks += check_result(plan, ctx.value, question) + check_ambiguous(plan, question, ctx)
        checks += check_acceptance(ctx, checks)  # the plan answers what is asked (_acceptance)
    if plan is not None and is_wide(plan, catalog):  # trial tables: coverage, missing codes
        checks += check_wide(plan, catalog, draft)
        checks += check_wide_clauses(plan, catalog, question, getattr(draft, "value", None))
    if coverage:
        from clinbridge.engine._coverage import check_coverage

        codes = {c for _, ids in resolved.values() for c in ids}
        names = _concept_names(draft, plan)
        try:
            checks += check_coverage(
                question=question,
                plan=plan,
                sql=getattr(draft, "sql", None),
                plan_codes=codes,
                plan_names=names,
                catalog=catalog,
                db=db,
                reading=reading,
            )
        except ClinbridgeError as exc:
            checks.append(
                Check(
                    name="coverage", passed=False, code=exc.code, detail=f"could not check: {exc}"
                )
            )
    try:
        checks += _check_values(ctx, resolved)
    except ClinbridgeError as exc:
        checks.append(
            Check(
                name="values", passed=False, code=exc.code, detail=f"could not check values: {exc}"
            )
        )
    return checks


def _concept_names(draft: Any, plan: QueryPlan | None) -> set[str]:
    """Names of the concepts a plan uses: its own references and what the engine resolved."""
    names: set[str] = set()
    if plan is not None:
        for pcs in concept_sets_of(plan):
            names |= {r.name for r in pcs.concepts.concepts if r.name}
            if pcs.concepts.label:
                names.add(pcs.concepts.label)
    for item in getattr(draft, "concept_sets", None) or []:
        if isinstance(item, dict):
            names |= {str(c.get("name")) for c in item.get("concepts", [])[:50] if c.get("name")}
    return names


_PRIORITY = (
    "patient_not_found",
    "concept_not_found",
    "question_not_covered",
    "readings_disagree",
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


def _as_proposer(proposer: Proposer | Sequence[Proposal]) -> Proposer:
    if callable(proposer):
        return proposer
    readings = iter(list(proposer))

    def next_reading(feedback: Feedback | None) -> Proposal | None:
        return next(readings, None)

    return next_reading


_SHAPES: dict[str, str] = {
    "number": "scalar",
    "list": "list",
    "date": "date",
    "boolean": "boolean",
    "rows": "rows",
    "text": "scalar",
}


def run_sql_proposal(
    proposal: SqlProposal, *, catalog: Catalog, db: Database, settings: Settings | None = None
) -> Answer:
    """Execute free SQL behind the guard into a draft Answer (raises SQLSafetyError if refused)."""
    settings = settings or Settings()
    timings = Timings()
    with timings.trace("guard"):
        sql = _guard(proposal.sql, catalog, db, settings.max_rows)
    with timings.trace("execute"):
        res = db.execute(
            sql, timeout_ms=settings.sql_timeout_ms, max_rows=settings.max_rows, sandbox=True
        )
    value: Any
    if len(res.columns) == 1 and len(res.rows) == 1:
        value = res.rows[0][0]
    elif len(res.columns) == 1:
        value = [r[0] for r in res.rows]
    else:
        value = [dict(zip(res.columns, r, strict=True)) for r in res.rows]
    if isinstance(value, dt.date):
        value = value.isoformat()
    elif isinstance(value, decimal.Decimal):
        value = float(value)
    return Answer(
        decision="accept",
        value=value,
        shape=_SHAPES.get(proposal.shape or ""),
        columns=res.columns,
        rows=[list(r) for r in res.rows],
        sql=sql,
        dialect=db.dialect,
        timings=timings,
        provenance=Provenance(
            source=catalog.source,
            adapter=catalog.adapter,
            dialect=db.dialect,
            row_count=len(res.rows),
            truncated=res.truncated,
            understanding="sql",
        ),
    )


_TRUSTED_READERS = frozenset({"parser", "plan", "mutation", "feedback"})
"""Proposers whose plans ground every phrase themselves; LLM proposals get the coverage checks."""


def answer_with_validation(
    question: str | None,
    proposer: Proposer | Sequence[Proposal],
    *,
    catalog: Catalog,
    db: Database,
    run_plan: Callable[[QueryPlan], Any] | None = None,
    run_sql: Callable[[SqlProposal], Any] | None = None,
    settings: Settings | None = None,
    expected_shape: Shape | None = None,
    max_repairs: int | None = None,
    understanding: str = "parser",
    coverage: bool | None = None,
    extra_checks: Callable[[QueryPlan], Sequence[Check]] | None = None,
    reading: Reading | None = None,
) -> Validated:
    """Propose, execute, validate; accept, repair once, or abstain.

    Args:
        question: the question (for its expected shape and for the record).
        proposer: the parser's readings (best first) or a callable taking the last Feedback.
        catalog: the source's catalog.
        db: the read-only database.
        run_plan: executes a plan into a draft Answer (default: ``clinbridge.engine.run.run_plan``).
        run_sql: executes free SQL behind the guard (default: :func:`run_sql_proposal`).
        settings: limits (``max_repair_attempts``, ``max_rows``, ``sql_timeout_ms``).
        expected_shape: the shape of answer wanted, when the caller knows it.
        max_repairs: overrides ``settings.max_repair_attempts`` (default 1).
        understanding: who proposed ('parser', 'openai', ...), recorded in the provenance.
        coverage: run the question-coverage checks (default: for LLM proposals and free SQL,
            i.e. when ``understanding`` is not 'parser', 'plan', 'mutation' or 'feedback').
        extra_checks: more checks of each executed plan (e.g. the dual-reader agreement of
            :mod:`clinbridge.engine._checks_readers`); they fail like any other check.
        reading: a second, independent reading of the question (the built-in parser's top
            reading) that the coverage checks hold the proposals against.

    Returns:
        A :class:`Validated` outcome; its ``answer`` is None unless every check passed.
    """
    settings = settings or Settings()
    started = time.perf_counter()
    provenance = Provenance.of_source(
        catalog, db.dialect, question=question, understanding=understanding
    )
    propose = _as_proposer(proposer)
    if run_plan is None:
        from clinbridge.engine.resolve import Resolver
        from clinbridge.engine.run import run_plan as _engine_run

        resolver = Resolver(db, catalog)

        def run_plan(plan: QueryPlan) -> Any:
            return _engine_run(
                db, catalog, plan, settings=settings, resolver=resolver, understanding=understanding
            )

    if run_sql is None:

        def run_sql(p: SqlProposal) -> Any:
            return run_sql_proposal(p, catalog=catalog, db=db, settings=settings)

    repairs = settings.max_repair_attempts if max_repairs is None else max_repairs
    attempts: list[Attempt] = []
    feedback: Feedback | None = None
    for i in range(1 + max(0, repairs)):
        try:
            proposal = propose(feedback)
        except ClinbridgeError as exc:
            logger.info("proposer gave up: %s", exc)
            if not attempts:
                attempts.append(
                    Attempt(
                        None,
                        (Check(name="understood", passed=False, code=exc.code, detail=str(exc)),),
                    )
                )
            break
        if proposal is None:
            break
        cover = (
            coverage
            if coverage is not None
            else (isinstance(proposal, SqlProposal) or understanding not in _TRUSTED_READERS)
        )
        draft, checks = _execute_and_check(
            proposal,
            question,
            run_plan,
            run_sql,
            catalog,
            db,
            expected_shape,
            cover,
            extra_checks,
            reading,
        )
        ran_sql = getattr(draft, "sql", None) or (
            proposal.sql if isinstance(proposal, SqlProposal) else None
        )
        attempts.append(Attempt(proposal, tuple(checks), ran_sql))
        decision, _, _ = decide(checks)
        if decision == "accept" and draft is not None:
            logger.info("plan:accepted after %d attempt(s)", i + 1)
            elapsed = (time.perf_counter() - started) * 1000
            answer = _with_checks(draft, checks, question, provenance)
            answer.timings.steps_ms["validate_total"] = round(elapsed, 3)
            answer.details["validation"] = {
                "attempts": len(attempts),
                "repaired": i > 0,
                "rejected": [
                    {"reason": decide(a.checks)[1], "detail": decide(a.checks)[2]}
                    for a in attempts[:-1]
                ],
            }
            return Validated(
                "accept",
                answer,
                tuple(checks),
                attempts=tuple(attempts),
                repaired=i > 0,
                question=question,
                provenance=answer.provenance,
                elapsed_ms=elapsed,
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
        "abstain",
        None,
        last.checks,
        reason=reason,
        detail=detail,
        attempts=tuple(attempts),
        question=question,
        provenance=provenance,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )


def _execute_and_check(
    proposal: Proposal,
    question: str | None,
    run_plan: Callable[[QueryPlan], Any],
    run_sql: Callable[[SqlProposal], Any],
    catalog: Catalog,
    db: Database,
    expected_shape: Shape | None,
    coverage: bool = False,
    extra_checks: Callable[[QueryPlan], Sequence[Check]] | None = None,
    reading: Reading | None = None,
) -> tuple[Any, list[Check]]:
    try:
        if isinstance(proposal, SqlProposal):
            draft = run_sql(proposal)
            plan, expected = None, expected_shape or proposal.shape
        else:
            draft = run_plan(proposal)
            plan, expected = proposal, expected_shape
    except ClinbridgeError as exc:
        return None, [Check(name="executed", passed=False, code=exc.code, detail=str(exc))]
    own = [_as_check(c) for c in getattr(draft, "checks", None) or []]
    executed = bool(getattr(draft, "columns", None))
    if getattr(draft, "decision", "accept") == "abstain" and not executed:
        # The engine could not run it (unknown concept, unsafe SQL): nothing to validate.
        return draft, own
    q = question or (proposal.question if isinstance(proposal, QueryPlan) else None)
    checks = validate(
        draft,
        plan=plan,
        catalog=catalog,
        db=db,
        question=q,
        expected=expected,
        coverage=coverage,
        reading=reading,
    )
    if extra_checks is not None and plan is not None:
        checks += extra_checks(plan)
    return draft, own + checks


def _as_check(c: Any) -> Check:
    return c if isinstance(c, Check) else Check.model_validate(c, from_attributes=True)


def _with_checks(
    draft: Any, checks: list[Check], question: str | None, provenance: Provenance
) -> Answer:
    if isinstance(draft, Answer):
        prov = draft.provenance.model_copy(
            update={"question": question or draft.provenance.question}
        )
        return draft.model_copy(
            update={
                "checks": checks,
                "decision": "accept",
                "reason": None,
                "reason_code": None,
                "provenance": prov,
            }
        )
    # Drafts from a custom runner: keep what an Answer can carry.
    rows = [list(r) for r in (getattr(draft, "rows", None) or [])]
    return Answer(
        decision="accept",
        value=getattr(draft, "value", None),
        columns=list(getattr(draft, "columns", None) or []),
        rows=rows,
        sql=getattr(draft, "sql", None),
        checks=checks,
        provenance=provenance,
    )


def validate_once(
    question: str | None,
    proposal: Proposal,
    *,
    catalog: Catalog,
    db: Database,
    settings: Settings | None,
    how: str,
    run_plan: Callable[[QueryPlan], Any] | None = None,
) -> Validated:
    """One proposal executed and validated as it stands (no repair); ``how`` is the understanding."""
    return answer_with_validation(
        question,
        [proposal],
        catalog=catalog,
        db=db,
        settings=settings,
        max_repairs=0,
        run_plan=run_plan,
        understanding=how,
    )
