"""clinbridge: exact, auditable answers from clinical data, or an honest 'cannot answer'."""

from __future__ import annotations

from clinbridge.catalog import Catalog
from clinbridge.errors import ClinbridgeError
from clinbridge.settings import Settings

__version__ = "0.1.0"

__all__ = ["Catalog", "ClinbridgeError", "Settings", "__version__"]
