"""clinbridge: exact, auditable answers from clinical data, or an honest 'cannot answer'."""

from __future__ import annotations

from clinbridge.catalog import Catalog
from clinbridge.errors import ClinbridgeError
from clinbridge.settings import Settings

__version__ = "0.1.0"

__all__ = ["Catalog", "ClinbridgeError", "Settings", "__version__", "connect"]


def __getattr__(name: str) -> object:
    # ``clinbridge.connect`` is imported lazily so that ``import clinbridge`` stays fast.
    if name == "connect":
        from clinbridge.api import connect

        return connect
    raise AttributeError(f"module 'clinbridge' has no attribute {name!r}")
