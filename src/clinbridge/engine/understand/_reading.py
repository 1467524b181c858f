"""What understanding returns: ranked readings, each a plan with its grounding evidence."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from clinbridge.engine.plan import QueryPlan

__all__ = ["Choice", "Grounding", "Reading"]


class Grounding(BaseModel):
    """One phrase of the question and what it was grounded to."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    phrase: str
    kind: str
    """concept | encounter_type | sex | age | time | value | aggregate | group | scope | patient"""
    target: str
    """What the phrase became: a concept label and stream, an encounter type, a window..."""
    how: str = "rule"
    """exact | synonym | same_words | contains | fuzzy | embedding | rule"""
    score: float = 1.0
    codes: tuple[str, ...] = ()


class Choice(BaseModel):
    """One way to read an ambiguous question: what it means, in words, and its plan."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    description: str
    plan: QueryPlan


class Reading(BaseModel):
    """One interpretation of a question: a plan (or an abstention) with its evidence."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str
    plan: QueryPlan | None = None
    confidence: float = 0.0
    groundings: tuple[Grounding, ...] = ()
    abstain_reason: str | None = None
    unresolved: tuple[str, ...] = ()
    """Phrases that could not be grounded (named in the abstention reason)."""
    notes: tuple[str, ...] = ()
    choices: tuple[Choice, ...] = ()
    """When a phrase names several measurements equally well ('blood pressure'): one reading
    per candidate. The caller answers each and asks the user when their answers differ."""
    answer_when_agreed: bool = False
    """With ``choices``: when every surviving reading gives the same answer, it is the answer
    (the choice does not change it: a ranking's unit, records or patients); by default the user
    is asked even then (a phrase naming two measurements is not read as either)."""

    @property
    def abstained(self) -> bool:
        return self.plan is None
