"""MIMIC-III v1.4 / MIMIC-IV v2.x (and the EHRSQL-2024 reshaping of the MIMIC-IV demo).

* :class:`MimicAdapter` (registered as ``"mimic"``) recognises a MIMIC database and describes it.
* :func:`load_mimic` creates the tables from native CSV / CSV.gz files, quarantining bad rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clinbridge.adapters.mimic.adapter import (
    PROVENANCE_TABLE,
    MimicAdapter,
    classify_admission,
    detect_mimic_version,
)

if TYPE_CHECKING:
    from clinbridge.adapters.mimic.loader import MimicLoadReport, load_mimic

_LAZY = {"MimicLoadReport", "load_mimic"}


def __getattr__(name: str) -> Any:
    # The loader needs pandas; describing a database does not.
    if name in _LAZY:
        from clinbridge.adapters.mimic import loader

        return getattr(loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "PROVENANCE_TABLE",
    "MimicAdapter",
    "MimicLoadReport",
    "classify_admission",
    "detect_mimic_version",
    "load_mimic",
]
