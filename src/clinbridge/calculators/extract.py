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

__all__ = ["EXTRACTOR_GROUP", "ExtractionError", "Extractor", "NoExtractor", "get_extractor"]


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


EXTRACTOR_GROUP = "clinbridge.extractors"
"""Entry-point group through which packages register note extractors (name -> factory)."""


def get_extractor(name: str | None) -> Extractor:
    """An extractor by name: ``none``, an entry point of :data:`EXTRACTOR_GROUP`, or
    ``module:attribute`` (a class or factory called without arguments).

    Raises:
        ConfigError: no extractor of that name.
    """
    import importlib
    from importlib.metadata import entry_points

    from clinbridge.errors import ConfigError

    if not name or name == "none":
        return NoExtractor()
    for ep in entry_points(group=EXTRACTOR_GROUP):
        if ep.name == name:
            return ep.load()()  # type: ignore[no-any-return]
    module, _, attr = name.partition(":")
    if attr:
        try:
            factory = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise ConfigError(f"cannot load extractor {name!r}: {exc}", extractor=name) from exc
        extractor = factory()
        if not isinstance(extractor, Extractor):
            raise ConfigError(
                f"{name!r} is not an extractor (needs name and extract())", extractor=name
            )
        return extractor
    raise ConfigError(
        f"unknown extractor {name!r}: use 'none', an entry point of {EXTRACTOR_GROUP!r} or module:attr",
        extractor=name,
    )
