"""Load OHDSI Athena vocabulary files into a database: ``clinbridge load vocab DIR --db URL``.

Athena ships CONCEPT.csv, CONCEPT_RELATIONSHIP.csv, CONCEPT_ANCESTOR.csv, CONCEPT_SYNONYM.csv,
VOCABULARY.csv, DOMAIN.csv, CONCEPT_CLASS.csv, RELATIONSHIP.csv and DRUG_STRENGTH.csv as
*tab-separated*, unquoted files with dates written ``20230101``; Eunomia and other exports use
comma CSVs with ISO dates. Both are read with pandas in chunks (the separator is sniffed), typed
against the CDM vocabulary tables and bulk-loaded, with the same error handling and reconciled
counts as the OMOP loader.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Literal

from clinbridge.adapters.omop._bulk import BulkWriter, Progress, writable
from clinbridge.adapters.omop.ddl import cdm_spec
from clinbridge.adapters.omop.loader import (
    LoadReport,
    _table_files,
    create_cdm_tables,
    create_indexes,
    load_table_file,
)
from clinbridge.db import Database
from clinbridge.errors import LoadError

__all__ = ["VOCABULARY_TABLES", "load_vocabulary"]

logger = logging.getLogger(__name__)

VOCABULARY_TABLES = (
    "concept",
    "vocabulary",
    "domain",
    "concept_class",
    "concept_relationship",
    "relationship",
    "concept_synonym",
    "concept_ancestor",
    "drug_strength",
)


def load_vocabulary(
    folder: str | Path,
    db: Database | str,
    *,
    schema: str | None = None,
    on_error: Literal["raise", "quarantine"] = "quarantine",
    if_exists: Literal["fail", "replace", "append"] = "fail",
    chunksize: int = 500_000,
    progress: Progress | None = None,
    indexes: bool = True,
) -> LoadReport:
    """Load the vocabulary files of a folder (Athena TSV or comma CSV) into a database.

    Args:
        folder: Folder with CONCEPT.csv etc. (Athena download, unzipped) or .csv.gz files.
        db: A writable :class:`Database` or a URL.
        schema: Target schema (defaults to the URL's).
        on_error: "raise" or "quarantine" (rows kept in ``clinbridge_rejected`` with a reason).
        if_exists: When a vocabulary table already has rows: "fail", "replace" or "append".
        chunksize: Rows per chunk (Athena's CONCEPT_RELATIONSHIP has tens of millions).
        progress: ``progress(bytes_done, bytes_total)``.
        indexes: Create lookup indexes (SQLite, PostgreSQL) after loading.

    Returns:
        A :class:`~clinbridge.adapters.omop.loader.LoadReport`.
    """
    start = time.perf_counter()
    folder = Path(folder)
    if not folder.is_dir():
        raise LoadError(f"{folder} is not a folder of vocabulary files", file=str(folder))
    files = [(t, p) for t, p in _table_files(folder) if t in VOCABULARY_TABLES]
    if not any(t == "concept" for t, _ in files):
        raise LoadError(f"no CONCEPT file in {folder}", file=str(folder))
    with writable(db, schema) as database:
        schema = schema or database.schema
        spec = cdm_spec("5.4")
        report = LoadReport(database.backend, schema, cdm_version="5.4")
        create_cdm_tables(
            database,
            "5.4",
            schema=schema,
            replace=if_exists == "replace",
            tables=[spec[t] for t in VOCABULARY_TABLES],
        )
        writer = BulkWriter(database, schema)
        total = sum(p.stat().st_size for _, p in files)
        done = 0
        for table, path in files:
            base = done

            def file_progress(pos: int, _total: int, base: int = base) -> None:
                if progress:
                    progress(min(base + pos, total), total)

            load = load_table_file(
                path,
                spec[table],
                writer,
                on_error=on_error,
                if_exists=if_exists,
                chunksize=chunksize,
                progress=file_progress,
            )
            if database.backend == "sqlite":
                database.conn.commit()
            report.tables.append(load)
            done += path.stat().st_size
        if indexes:
            create_indexes(database, schema, [t.table for t in report.tables])
        if database.backend == "sqlite":
            database.conn.commit()
        report.seconds = time.perf_counter() - start
        return report
