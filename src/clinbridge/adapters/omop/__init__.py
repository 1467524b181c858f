"""OMOP CDM 5.3 / 5.4: attach an existing CDM, or create one from CSV files.

* :class:`OmopAdapter` (registered as ``"omop"``) recognises a CDM and describes it as a Catalog.
* :func:`load_omop_csv` creates the CDM tables from the carried OHDSI spec and bulk-loads CSVs.
* :mod:`clinbridge.adapters.omop.ddl` emits the CDM DDL for any sqlglot dialect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clinbridge.adapters.omop.adapter import (
    OMOP_SEX_VALUES,
    VISIT_TYPES,
    OmopAdapter,
    classify_visit,
    detect_cdm_version,
    vocabulary_catalog,
)
from clinbridge.adapters.omop.ddl import cdm_spec, ddl

if TYPE_CHECKING:
    from clinbridge.adapters.omop.loader import LoadReport, create_cdm_tables, load_omop_csv

_LAZY = {"LoadReport", "create_cdm_tables", "load_omop_csv"}


def __getattr__(name: str) -> Any:
    # The loader needs pandas; asking questions of a CDM does not, so it is imported on first use.
    if name in _LAZY:
        from clinbridge.adapters.omop import loader

        return getattr(loader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "OMOP_SEX_VALUES",
    "VISIT_TYPES",
    "LoadReport",
    "OmopAdapter",
    "cdm_spec",
    "classify_visit",
    "create_cdm_tables",
    "ddl",
    "detect_cdm_version",
    "load_omop_csv",
    "vocabulary_catalog",
]
