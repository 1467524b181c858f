"""Readings a user chose between (the alternatives of an ``ambiguous`` answer), each validated
and answered on its own; agreed values answer, different ones are returned as alternatives."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from clinbridge.engine._checks import Check
from clinbridge.engine.answer import Alternative, Answer, Provenance, Timings, jsonable
from clinbridge.engine.validate import Validated, validate_once

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.settings import Settings

__all__ = ["answer_choices", "orjson_key"]


def answer_choices(
    question: str | None,
    choices: Sequence[tuple[str, QueryPlan]],
    *,
    catalog: Catalog,
    db: Database,
    settings: Settings | None = None,
    understanding: str = "parser",
    answer_when_agreed: bool = False,
) -> Answer | None:
    """Answer each reading of an ambiguous question; ask the user which one they meant.

    Each ``(description, plan)`` is executed and validated on its own (no repair). When two or
    more survive validation, the result abstains with reason code ``ambiguous`` and lists them
    in ``Answer.alternatives`` (description, plan, value): a phrase that names two measurements
    equally well is not read as either, even when their values happen to agree on this data
    (``answer_when_agreed=True`` answers then instead). When one survives, that answer is
    returned (the other readings are named in ``details["ambiguity"]``), unless another reading
    abstained as ``ambiguous`` itself: a reading left open is not refuted, and the answer stays
    ambiguous. None when no reading survives (the caller abstains as usual).
    """
    started = time.perf_counter()
    outcomes: list[tuple[str, QueryPlan, Validated]] = []
    for description, plan in choices:
        v = validate_once(
            question, plan, catalog=catalog, db=db, settings=settings, how=understanding
        )
        outcomes.append((description, plan, v))
    accepted = [(d, p, v) for d, p, v in outcomes if v.decision == "accept" and v.answer]
    if not accepted:
        return None
    # a reading that abstained as ambiguous is left open, not refuted: the one that passed is
    # not the answer by default ('pregnancies' as procedures, itself ambiguous, or conditions)
    left_open = [
        (d, p, v) for d, p, v in outcomes if v.decision != "accept" and v.reason == "ambiguous"
    ]
    values = {orjson_key(v.value) for _, _, v in accepted}
    note = {
        "readings": [
            {"description": d, "decision": v.decision, "value": jsonable(v.value)}
            for d, _, v in outcomes
        ]
    }
    if (len(accepted) == 1 and not left_open) or (answer_when_agreed and len(values) == 1):
        answer = accepted[0][2].answer
        assert answer is not None
        answer.details["ambiguity"] = note
        return answer
    alternatives = [
        Alternative(
            description=d,
            plan=p.to_dict(),
            value=jsonable(v.value) if v.decision == "accept" else None,
            decision=v.decision,
            reason=None if v.decision == "accept" else (v.detail or v.reason),
        )
        for d, p, v in outcomes
    ]
    names = "; ".join(a.description for a in alternatives if a.decision == "accept")
    first = accepted[0][2]
    differ = "give different answers" if len(values) > 1 else "happen to give the same answer here"
    if len(accepted) == 1:
        names += "; " + "; ".join(f"{d} (itself ambiguous: {v.detail})" for d, _, v in left_open)
        differ = "may give different answers"
    return Answer(
        decision="abstain",
        reason=f"the question can be read in several ways that {differ} ({names}); pick one",
        reason_code="ambiguous",
        alternatives=alternatives,
        plan=accepted[0][1].to_dict(),
        checks=[
            Check(
                name="unambiguous",
                passed=False,
                code="ambiguous",
                detail=f"{len(accepted)} readings pass validation ({len(values)} distinct values)",
            )
        ],
        provenance=first.provenance or Provenance(question=question),
        timings=Timings(steps_ms={"validate": round((time.perf_counter() - started) * 1000, 3)}),
        details={"ambiguity": note},
    )


def orjson_key(value: Any) -> str:
    """A hashable, order-stable key for comparing answer values."""
    import orjson

    return orjson.dumps(jsonable(value), option=orjson.OPT_SORT_KEYS).decode()
