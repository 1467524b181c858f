"""The Answer: a value with everything needed to audit and re-run it.

Abstaining is a normal result (``decision="abstain"`` with a ``reason``), not an exception.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, model_validator

from clinbridge.errors import AbstainReason

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["Alternative", "Answer", "Check", "Provenance", "Timings", "jsonable"]


class Check(BaseModel):
    """One check of an answer: its name, whether it passed, a code and a detail."""

    model_config = ConfigDict(frozen=True)

    name: str
    passed: bool
    detail: str = ""
    code: str = ""
    alternatives: tuple[Alternative, ...] = Field(default=(), exclude=True, repr=False)
    """With ``code="ambiguous"``: the readings the check saw remain (the Answer that abstains on
    this check lists them); left out of the check's own JSON."""


class Provenance(BaseModel):
    """Where an answer came from: question, plan, SQL, source, versions and row count."""

    question: str | None = None
    source: str | None = None
    adapter: str | None = None
    adapter_version: str | None = None
    cdm_version: str | None = None
    vocabulary_version: str | None = None
    dialect: str | None = None
    now: str | None = None
    row_count: int = 0
    truncated: bool = False
    understanding: str | None = None
    """Which reader produced the plan: 'plan' (given), 'parser', or an LLM backend name."""

    @classmethod
    def of_source(cls, catalog: Catalog, dialect: str, **fields: Any) -> Provenance:
        """A provenance naming ``catalog``'s source, adapter and versions, with ``fields``."""
        return cls(
            source=catalog.source,
            adapter=catalog.adapter,
            adapter_version=catalog.adapter_version,
            cdm_version=catalog.cdm_version,
            vocabulary_version=catalog.vocabulary_version,
            dialect=dialect,
            **fields,
        )


class Timings(BaseModel):
    """How long each step took, in milliseconds."""

    steps_ms: dict[str, float] = Field(default_factory=dict)

    @contextlib.contextmanager
    def trace(self, step: str) -> Iterator[None]:
        """Time the block as ``step``."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.steps_ms[step] = round(
                self.steps_ms.get(step, 0.0) + (time.perf_counter() - start) * 1000, 3
            )

    @property
    def total_ms(self) -> float:
        """The sum of the steps."""
        return round(sum(self.steps_ms.values()), 3)


class Alternative(BaseModel):
    """One reading of an ambiguous question, for the user (or a page) to pick."""

    description: str
    """What this reading takes the question to mean, in plain language."""
    plan: dict[str, Any]
    """The reading's QueryPlan (JSON); ``clinbridge ask --plan`` or ``ask_plan`` runs it."""
    value: Any = None
    """The value this reading gives, when it was computed and passed validation."""
    decision: Literal["accept", "abstain"] = "accept"
    reason: str | None = None


class Answer(BaseModel):
    """What clinbridge says: a checked value, or an abstention with its reason."""

    decision: Literal["accept", "abstain"]
    value: Any = None
    shape: str | None = None
    columns: list[str] = Field(default_factory=list)
    rows: list[list[Any]] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
    plan: dict[str, Any] | None = None
    sql: str | None = None
    dialect: str | None = None
    concept_sets: list[dict[str, Any]] = Field(default_factory=list)
    checks: list[Check] = Field(default_factory=list)
    reason: str | None = None
    reason_code: AbstainReason | None = None
    alternatives: list[Alternative] = Field(default_factory=list)
    """With ``reason_code="ambiguous"``: the readings that survived validation, each with its
    value; pick one and run its plan."""
    timings: Timings = Field(default_factory=Timings)
    provenance: Provenance = Field(default_factory=Provenance)

    @model_validator(mode="after")
    def _alternatives_of_check(self) -> Answer:
        """An ``ambiguous`` abstention lists the readings its deciding check carries."""
        if self.decision == "abstain" and self.reason_code == "ambiguous" and not self.alternatives:
            for c in self.checks:
                told = c.detail == self.reason or not self.reason
                if not c.passed and c.code == "ambiguous" and c.alternatives and told:
                    self.alternatives = list(c.alternatives)
                    break
        return self

    @property
    def accepted(self) -> bool:
        """Whether the answer was accepted."""
        return self.decision == "accept"

    def to_dict(self) -> dict[str, Any]:
        """The answer as plain JSON types."""
        data = self.model_dump(mode="python")
        data["timings"] = {**self.timings.steps_ms, "total_ms": self.timings.total_ms}
        return jsonable(data)  # type: ignore[no-any-return]

    def to_json(self, *, indent: bool = True) -> str:
        """The answer as JSON."""
        return orjson.dumps(self.to_dict(), option=orjson.OPT_INDENT_2 if indent else 0).decode()

    def summary(self) -> str:
        """One human line: the value, or why there is none."""
        if self.decision == "abstain":
            return f"cannot answer: {self.reason}"
        value = self.value
        if isinstance(value, list) and len(value) > 10:
            shown = ", ".join(str(v) for v in value[:10]) + f", ... ({len(value)} in all)"
            return shown
        if isinstance(value, float):
            return f"{value:.4g}"
        return str(value)


def jsonable(value: Any) -> Any:
    """Plain JSON types: dates as ISO strings, Decimals as ints (whole) or floats."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        # whole Decimals (PostgreSQL sum/count over BIGINT) stay exact integers
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value
