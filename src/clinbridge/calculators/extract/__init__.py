"""Where calculator parameters come from when they are not given: note extractors.

An :class:`Extractor` turns a patient note into parameters for one calculator
(:mod:`.base`). Built in: ``rules`` (:mod:`.rules`: numbers with units, age and sex, dates,
booleans with negation/family/uncertainty via negspacy) and ``builtin`` (the rules plus the
fine-tuned MiniLM judge shipped in the package, :mod:`.model`). :class:`NoExtractor` (``none``)
refuses. Everything after extraction (validation, units, computation, explanation, decision) is
shared with gold mode.
"""

from __future__ import annotations

from clinbridge.calculators.extract.base import (
    Evidence,
    Extraction,
    ExtractionError,
    Extractor,
    NoExtractor,
)

__all__ = [
    "EXTRACTOR_GROUP",
    "Evidence",
    "Extraction",
    "ExtractionError",
    "Extractor",
    "NoExtractor",
    "get_extractor",
]

EXTRACTOR_GROUP = "clinbridge.extractors"
"""Entry-point group through which packages register note extractors (name -> factory)."""


def get_extractor(name: str | None) -> Extractor:
    """An extractor by name: ``builtin`` (rules + shipped model), ``rules``, ``none``, an entry point of :data:`EXTRACTOR_GROUP`, or
    ``module:attribute`` (a class or factory called without arguments).

    Raises:
        ConfigError: no extractor of that name.
    """
    import importlib
    from importlib.metadata import entry_points

    from clinbridge.errors import ConfigError

    if not name or name == "none":
        return NoExtractor()
    if name == "rules":
        from clinbridge.calculators.extract.rules import RuleExtractor

        return RuleExtractor()
    if name in ("builtin", "model"):
        from clinbridge.calculators.extract.model import ModelExtractor

        return ModelExtractor()
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
