"""OMOP CDM 5.3 / 5.4: attach an existing CDM, or create one from CSV files.

* :class:`OmopAdapter` (registered as ``"omop"``) recognises a CDM and describes it as a Catalog.
* :func:`load_omop_csv` creates the CDM tables from the carried OHDSI spec and bulk-loads CSVs.
* :mod:`clinbridge.adapters.omop.ddl` emits the CDM DDL for any sqlglot dialect.
"""

from __future__ import annotations

from clinbridge.adapters.omop.adapter import (
    OMOP_SEX_VALUES,
    VISIT_TYPES,
    OmopAdapter,
    classify_visit,
    detect_cdm_version,
    vocabulary_catalog,
)
from clinbridge.adapters.omop.ddl import cdm_spec, ddl
from clinbridge.adapters.omop.loader import LoadReport, create_cdm_tables, load_omop_csv

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
