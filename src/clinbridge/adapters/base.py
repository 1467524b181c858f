"""Source adapters and their registry.

Each adapter subclass registers itself by ``name`` (``__init_subclass__``); third-party adapters
come in through the ``clinbridge.adapters`` entry-point group. ``get_adapter("omop")`` looks an
adapter up by name and suggests the closest one on failure; ``detect_adapter(db)`` asks each
registered adapter whether it recognises a database.
"""

from __future__ import annotations

import difflib
import logging
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, ClassVar

from clinbridge.errors import UnknownAdapterError

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database

__all__ = ["SourceAdapter", "adapter_names", "describe", "detect_adapter", "get_adapter"]

logger = logging.getLogger(__name__)

_REGISTRY: dict[str, type[SourceAdapter]] = {}
PLUGIN_GROUP = "clinbridge.adapters"
BUILTIN_MODULES = (
    "clinbridge.adapters.omop",
    "clinbridge.adapters.fhir",
    "clinbridge.adapters.mimic",
    "clinbridge.adapters.trial",
)


class SourceAdapter:
    """Describe (and optionally load) one family of clinical sources."""

    name: ClassVar[str] = ""
    version: ClassVar[str] = "1"
    PRIORITY: ClassVar[int] = 100
    """Lower runs first in detection."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.name:
            _REGISTRY[cls.name] = cls

    @classmethod
    def detect(cls, db: Database) -> bool:
        """Whether this adapter recognises the database."""
        return False

    def catalog(self, db: Database, *, source: str | None = None) -> Catalog:
        """The source's catalog, read from the database's own metadata."""
        raise NotImplementedError


_loaded = False


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib

    for module in BUILTIN_MODULES:
        try:
            importlib.import_module(module)
        except ImportError as exc:  # pragma: no cover - a missing optional module
            logger.debug("adapter module %s not available: %s", module, exc)
    for ep in entry_points(group=PLUGIN_GROUP):
        try:
            ep.load()
        except Exception as exc:  # pragma: no cover - third-party failure
            logger.warning("could not load adapter plugin %s: %s", ep.name, exc)


def adapter_names() -> list[str]:
    """The names of every registered adapter, built-in and from entry points, sorted."""
    _load_all()
    return sorted(_REGISTRY)


def get_adapter(spec: str) -> SourceAdapter:
    """Look an adapter up by name: ``get_adapter("omop")``."""
    _load_all()
    name = spec.split(",")[0].strip().lower()
    cls = _REGISTRY.get(name)
    if cls is None:
        close = difflib.get_close_matches(name, list(_REGISTRY), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UnknownAdapterError(
            f"unknown adapter {name!r}{hint} (known: {', '.join(sorted(_REGISTRY))}); "
            f"third-party adapters register through the {PLUGIN_GROUP!r} entry-point group",
            adapter=name,
        )
    return cls()


def detect_adapter(db: Database) -> SourceAdapter:
    """The adapter whose tables ``db`` holds (OMOP, MIMIC, FHIR, trial...), or AdapterError."""
    _load_all()
    for cls in sorted(_REGISTRY.values(), key=lambda c: (c.PRIORITY, c.name)):
        if cls.detect(db):
            return cls()
    raise UnknownAdapterError(
        f"no adapter recognises the database {db.url!r} (tables: {', '.join(db.table_names()[:20])})",
        url=db.url,
    )


def describe(db: Database, *, adapter: str | None = None, source: str | None = None) -> Catalog:
    """Catalog a database with the named adapter, or the first one that recognises it."""
    chosen = get_adapter(adapter) if adapter else detect_adapter(db)
    return chosen.catalog(db, source=source)
