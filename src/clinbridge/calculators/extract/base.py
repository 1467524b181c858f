"""The extractor protocol and its result: parameters with evidence.

An :class:`Extractor` turns a patient note into parameters for one calculator. The note
extractor (rules + fine-tuned model) is a separate component; until one is configured,
:class:`NoExtractor` makes every note-mode row abstain with a clear reason. Everything after
extraction (validation, units, computation, explanation, decision) is shared with gold mode.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from clinbridge.errors import CalculatorError

if TYPE_CHECKING:
    from clinbridge.calculators.compile import Calculator

__all__ = ["Evidence", "Extraction", "ExtractionError", "Extractor", "NoExtractor"]


class ExtractionError(CalculatorError):
    """The extractor could not produce parameters (``details['reason']`` says why)."""


@runtime_checkable
class Extractor(Protocol):
    """Note text + calculator → parameters (input name → value, units as ``[value, unit]``)."""

    name: str

    def extract(self, note: str, calculator: Calculator) -> Mapping[str, Any]:
        """Parameters for ``calculator`` found in ``note``; omit what the note does not say."""
        ...


class NoExtractor:
    """The placeholder used when no note extractor is configured: always refuses."""

    name = "none"

    def extract(self, note: str, calculator: Calculator) -> Mapping[str, Any]:
        """The calculator's inputs found in the note (absent ones are left out)."""
        raise ExtractionError(
            "no extractor configured: note mode needs a note extractor "
            "(pass one to run_rows/--extractor); use --mode gold for gold parameters",
            reason="no_extractor",
        )


@dataclass(frozen=True)
class Evidence:
    """Where an extracted value came from in the note, and how it was found."""

    input: str
    value: Any
    start: int | None
    end: int | None
    text: str
    method: str
    """e.g. 'rule:term+quantity', 'rule:age-pattern', 'rule:not-mentioned', 'model:minilm'."""
    assertion: str = ""
    """'affirmed', 'negated', 'family', 'uncertain', 'historical' (booleans)."""
    score: float | None = None
    """Model probability, when a model decided."""

    def to_json_dict(self) -> dict[str, Any]:
        """The evidence as plain JSON types."""
        return {
            "input": self.input,
            "value": self.value,
            "span": [self.start, self.end] if self.start is not None else None,
            "text": self.text,
            "method": self.method,
            "assertion": self.assertion,
            "score": self.score,
        }


@dataclass
class Extraction(Mapping[str, Any]):
    """Parameters (a mapping, as the protocol requires) with the evidence of each value."""

    params: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, Evidence] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    """Inputs the note did not give (a required one makes the row abstain)."""

    def __getitem__(self, key: str) -> Any:
        return self.params[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.params)

    def __len__(self) -> int:
        return len(self.params)

    def put(self, ev: Evidence) -> None:
        """Record one input's value with its evidence."""
        self.params[ev.input] = ev.value
        self.evidence[ev.input] = ev
