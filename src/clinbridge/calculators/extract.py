"""Where calculator parameters come from when they are not given: the extractor protocol.

An :class:`Extractor` turns a patient note into parameters for one calculator. The note
extractor (rules + fine-tuned model) is a separate component; until one is configured,
:class:`NoExtractor` makes every note-mode row abstain with a clear reason. Everything after
extraction (validation, units, computation, explanation, decision) is shared with gold mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from clinbridge.errors import CalculatorError

if TYPE_CHECKING:
    from clinbridge.calculators.compile import Calculator

__all__ = ["ExtractionError", "Extractor", "NoExtractor"]


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
        raise ExtractionError(
            "no extractor configured: note mode needs a note extractor "
            "(pass one to run_rows/--extractor); use --mode gold for gold parameters",
            reason="no_extractor",
        )
