"""Create an OMOP CDM from CSV files: ``clinbridge load omop --csv DIR --db URL``.

Every table of the chosen CDM version is created from the carried DDL spec; each ``<TABLE>.csv``
(or ``.csv.gz``, ``.tsv``) in the folder is read with pandas in chunks, checked against the
column types and loaded with the backend's bulk path. Real-world quirks are handled: upper-case
headers, integer ids written as floats ("10204.0"), header-only files, persons that appear in
observation_period but not in person (reported, not dropped).

Bad values either stop the load with a :class:`~clinbridge.errors.LoadError` naming the file,
record and field (``on_error="raise"``) or go to the ``clinbridge_rejected`` table with their
reason (``on_error="quarantine"``); either way read = loaded + rejected for every file.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from sqlglot import exp

from clinbridge.adapters.omop._bulk import (
    REJECTED_TABLE,
    BulkWriter,
    ColumnType,
    FilesReport,
    OnError,
    Progress,
    TableLoad,
    convert_chunk,
    ensure_schema,
    transaction,
    writable,
)
from clinbridge.adapters.omop._csvread import read_tolerant
from clinbridge.adapters.omop._quarantine import set_aside_bad_values, set_aside_unreadable
from clinbridge.adapters.omop.ddl import (
    CDM_VERSIONS,
    TableSpec,
    cdm_spec,
    create_table_sql,
    normalise_version,
    table_spec,
)
from clinbridge.db import Database
from clinbridge.errors import LoadError, UnreadableFileError

__all__ = [
    "LoadReport",
    "create_cdm_tables",
    "create_indexes",
    "detect_csv_version",
    "load_omop_csv",
    "load_table_file",
]

logger = logging.getLogger(__name__)

IfExists = Literal["fail", "replace", "append"]
_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".txt")
COLUMN_ALIASES = {
    # CDM 5.3.0's DDL (and ETL-Synthea exports built from it) misspelt this column.
    "reveue_code_source_value": "revenue_code_source_value",
}


@dataclass
class LoadReport(FilesReport):
    """Per-file counts and timings of one load; ``read == loaded + rejected`` for each file."""

    VERSION_FIELD: ClassVar[str] = "cdm_version"
    TABLE_SECONDS: ClassVar[bool] = True

    cdm_version: str = ""


def _table_files(folder: Path) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    for path in sorted(folder.iterdir()):
        name = path.name.lower()
        suffix = next((s for s in _SUFFIXES if name.endswith(s)), None)
        if path.is_file() and suffix:
            out.append((name[: -len(suffix)], path))
    return out


def detect_csv_version(folder: Path) -> str:
    """5.4 if the files look like CDM 5.4 (an EPISODE file, 5.4-only visit columns or cdm_version)."""
    try:
        return _detect_csv_version(folder)
    except UnreadableFileError:
        return "5.3"  # the unreadable file is reported when it is loaded


def _detect_csv_version(folder: Path) -> str:
    files = dict(_table_files(folder))
    if "cdm_source" in files:
        for part in read_tolerant(files["cdm_source"], chunksize=10):
            chunk = part.frame
            if "cdm_version" in chunk.columns and chunk["cdm_version"].notna().any():
                try:
                    return normalise_version(str(chunk["cdm_version"].dropna().iloc[0]))
                except Exception:
                    pass
            break
    if "episode" in files:
        return "5.4"
    if "visit_occurrence" in files:
        for part in read_tolerant(files["visit_occurrence"], chunksize=1):
            if "admitted_from_concept_id" in part.frame.columns:
                return "5.4"
            break
    return "5.3"


def create_cdm_tables(
    db: Database,
    version: str,
    *,
    schema: str | None = None,
    replace: bool = False,
    tables: Iterable[TableSpec] | None = None,
) -> list[str]:
    """Create every CDM table (``IF NOT EXISTS``); drop them first when ``replace``."""
    ensure_schema(db, schema)
    writer = BulkWriter(db, schema)
    if db.backend == "sqlite":
        db.conn.commit()
        db.conn.execute("BEGIN")
    created = []
    for spec in tables if tables is not None else cdm_spec(version).values():
        if replace:
            writer.execute(f"DROP TABLE IF EXISTS {writer.table(spec.name)}")
        writer.execute(create_table_sql(spec, db.dialect, schema=writer.schema))
        created.append(spec.name)
    if db.backend == "sqlite":
        db.conn.commit()
    return created


def load_omop_csv(
    folder: str | Path,
    db: Database | str,
    *,
    schema: str | None = None,
    cdm_version: str | None = None,
    on_error: OnError = "quarantine",
    if_exists: IfExists = "fail",
    chunksize: int = 200_000,
    progress: Progress | None = None,
    only: Iterable[str] | None = None,
    indexes: bool = True,
) -> LoadReport:
    """Load a folder of OMOP CSV files into a database, creating the CDM tables first.

    Args:
        folder: Folder with one file per table (``PERSON.csv``, ``measurement.csv.gz``, ...).
        db: An open writable :class:`Database` or a URL (opened read-write).
        schema: Target schema (DuckDB, PostgreSQL); defaults to the URL's ``?schema=``.
        cdm_version: "5.3" or "5.4"; detected from the files when omitted.
        on_error: "raise" stops at the first bad value with a LoadError (file, record, field);
            "quarantine" keeps bad rows in ``clinbridge_rejected`` with their reason.
        if_exists: What to do when a target table already has rows: "fail", "replace", "append".
        chunksize: Rows per chunk.
        progress: ``progress(bytes_done, bytes_total)``, called after every chunk.
        only: Load only these tables.
        indexes: On SQLite and PostgreSQL, index person and concept columns after loading
            (DuckDB needs none).

    Returns:
        A :class:`LoadReport` with read/loaded/rejected counts per file.
    """
    start = time.perf_counter()
    folder = Path(folder)
    if not folder.is_dir():
        raise LoadError(f"{folder} is not a folder of OMOP CSV files", file=str(folder))
    with writable(db, schema) as database:
        schema = schema or database.schema
        version = normalise_version(cdm_version) if cdm_version else detect_csv_version(folder)
        files = _table_files(folder)
        if only is not None:
            wanted = {t.lower() for t in only}
            files = [(t, p) for t, p in files if t in wanted]
        if not files:
            raise LoadError(f"no CSV files in {folder}", file=str(folder))
        report = LoadReport(database.backend, schema, cdm_version=version)
        if database.backend == "sqlite":
            # A bulk load into a new file: no fsync per commit (the file is rebuilt if it fails).
            database.conn.execute("PRAGMA synchronous = OFF")
        writer = BulkWriter(database, schema)
        create_cdm_tables(database, version, schema=schema, replace=if_exists == "replace")
        total = sum(p.stat().st_size for _, p in files)
        done = 0
        for table, path in files:
            spec = table_spec(table, version)
            if spec is None:
                report.notes.append(f"{path.name}: not an OMOP CDM {version} table, skipped")
                logger.info("skipping %s: not a CDM table", path.name)
                done += path.stat().st_size
                continue
            if spec.name not in cdm_spec(version):
                other = next(v for v in CDM_VERSIONS if spec.name in cdm_spec(v))
                create_cdm_tables(database, version, schema=schema, tables=[spec])
                report.notes.append(
                    f"{path.name}: table {spec.name} defined by CDM {other}, created from it"
                )

            def file_progress(pos: int, _total: int = 0, base: int = done) -> None:
                if progress:
                    progress(min(base + pos, total), total)

            try:
                with transaction(database):
                    load = load_table_file(
                        path,
                        spec,
                        writer,
                        on_error=on_error,
                        if_exists=if_exists,
                        chunksize=chunksize,
                        progress=file_progress,
                    )
            except UnreadableFileError as exc:
                if on_error == "raise":
                    raise
                # The file as a whole cannot be read (its header): it is set aside, the rest loads.
                load = TableLoad(table=spec.name, file=path.name)
                load.notes.append(f"file not loaded: {exc}")
                writer.write_rejected(
                    [
                        {
                            "table": spec.name,
                            "file": path.name,
                            "record": None,
                            "field": None,
                            "reason": f"file not loaded: {exc}",
                            "raw": None,
                        }
                    ]
                )
                logger.warning("%s: not loaded: %s", path.name, exc)
            report.tables.append(load)
            done += path.stat().st_size
        report.notes.extend(_quirk_notes(database, writer, {t.table for t in report.tables}))
        if indexes:
            create_indexes(database, schema, [t.table for t in report.tables if t.loaded])
        if database.backend == "postgres":
            # Fresh statistics: the planner, and the catalog's cheap row counts, rely on them.
            for t in report.tables:
                if t.loaded:
                    writer.execute(f"ANALYZE {writer.table(t.table)}")
        report.seconds = time.perf_counter() - start
        return report


def load_table_file(
    path: Path,
    spec: TableSpec,
    writer: BulkWriter,
    *,
    on_error: OnError = "quarantine",
    if_exists: IfExists = "fail",
    chunksize: int = 200_000,
    progress: Progress | None = None,
    table_name: str | None = None,
) -> TableLoad:
    """Load one file into one (existing) table; see :func:`load_omop_csv`."""
    started = time.perf_counter()
    name = table_name or spec.name
    load = TableLoad(table=name, file=path.name)
    if if_exists != "append" and writer.count(name):
        if if_exists == "fail":
            raise LoadError(
                f"table {name} already has rows; use --replace or --append",
                file=str(path),
            )
        writer.execute(f"DELETE FROM {writer.table(name)}")
    types: dict[str, ColumnType] = {c.name: c.portable for c in spec.columns}
    required = [c.name for c in spec.columns if c.required]
    lengths = {c.name: c.max_length for c in spec.columns if c.max_length}
    warned_extra = False
    long_counts: dict[str, tuple[int, int]] = {}
    chunks = 0
    for part in read_tolerant(path, chunksize=chunksize):
        chunks += 1
        chunk, pos, numbers = part.frame, part.pos, part.records
        unreadable = set_aside_unreadable(
            part, writer, path=path, table=spec.name, on_error=on_error
        )
        load.read += unreadable
        load.rejected += unreadable
        if any(c in COLUMN_ALIASES for c in chunk.columns):
            chunk = chunk.rename(columns=COLUMN_ALIASES)
        extra = [c for c in chunk.columns if c not in types]
        if extra and not warned_extra:
            warned_extra = True
            load.notes.append(f"columns not in CDM table {spec.name} ignored: {', '.join(extra)}")
            logger.info("%s: ignoring non-CDM columns %s", path.name, extra)
        typed, problems = convert_chunk(chunk, types, required=required, max_lengths=lengths)  # type: ignore[arg-type]
        load.read += len(chunk)
        for col, (count, limit) in problems.long.items():
            long_counts[col] = (long_counts.get(col, (0, limit))[0] + count, limit)
        typed, rejected = set_aside_bad_values(
            chunk, typed, problems, numbers, writer, path=path, table=spec.name, on_error=on_error
        )
        load.rejected += rejected
        load.loaded += writer.write(name, typed, types, not_null=required)
        if progress:
            progress(pos, 0)
    if not chunks:
        load.notes.append("empty file (no header, no records): nothing to load")
    key = next((c.name for c in spec.columns if c.primary_key), None)
    if key is not None and load.loaded:
        if _referenced(spec.name, key):
            # Other tables join on this key: a second row with it would be a second person (or
            # visit, concept...) behind one id, so the later copies are set aside.
            moved = _set_aside_duplicates(writer, name, key, path.name, spec.name)
            load.loaded -= moved
            load.rejected += moved
        else:
            shared = _shared_keys(writer, name, key)
            if shared:
                load.notes.append(
                    f"{shared} rows share their {key} with another row (kept: no table refers to "
                    f"{spec.name} rows by {key}, so each row is a distinct record)"
                )
    replaced = writer.take_nul_count()
    if replaced:
        load.notes.append(
            f"{replaced} NUL characters replaced by U+FFFD (PostgreSQL text cannot hold NUL)"
        )
    load.seconds = time.perf_counter() - started
    for col, (count, limit) in long_counts.items():
        load.notes.append(
            f"{count} values of {col} longer than the CDM's {limit} characters (kept)"
        )
    if load.rejected:
        load.notes.append(f"{load.rejected} rows rejected, kept in {REJECTED_TABLE}")
    return load


_ROW_ID = {"duckdb": "rowid", "sqlite": "rowid", "postgres": "ctid"}


def _referenced(table: str, key: str) -> bool:
    """Whether another CDM table carries ``key`` (person_id, visit_occurrence_id, concept_id...)."""
    return any(
        key in other.column_names
        for version in CDM_VERSIONS
        for other in cdm_spec(version).values()
        if other.name != table
    )


def _shared_keys(writer: BulkWriter, name: str, key: str) -> int:
    col = exp.to_identifier(key, quoted=True).sql(dialect=writer.db.dialect)
    with writer.db.cursor() as cur:
        cur.execute(f"SELECT COUNT({col}) - COUNT(DISTINCT {col}) FROM {writer.table(name)}")
        row = cur.fetchall()[0]
    return int(row[0] or 0)


def _literal(value: object) -> str:
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def _set_aside_duplicates(
    writer: BulkWriter, name: str, key: str, file: str, spec_name: str
) -> int:
    """Rows whose primary key an earlier row already has go to the rejected table; returns how many.

    The row stored first is kept (lowest physical row id), the later copies are moved out, with
    their values, so that every key is unique and read = loaded + rejected still holds.
    """
    db = writer.db
    target = writer.table(name)
    col = exp.to_identifier(key, quoted=True).sql(dialect=db.dialect)
    rid = _ROW_ID[db.backend]
    with db.cursor() as cur:
        cur.execute(
            f"SELECT {col} FROM {target} WHERE {col} IS NOT NULL GROUP BY {col} HAVING COUNT(*) > 1"
        )
        dup_keys = [r[0] for r in cur.fetchall()]
    if not dup_keys:
        return 0
    moved = 0
    for start in range(0, len(dup_keys), 1000):
        keys = dup_keys[start : start + 1000]
        marks = ", ".join(_literal(k) for k in keys)
        with db.cursor() as cur:
            cur.execute(
                f"SELECT CAST({rid} AS TEXT) AS _rid, * FROM {target} WHERE {col} IN ({marks}) "
                f"ORDER BY {col}, {rid}"
            )
            names = [d[0] for d in cur.description]
            rows = cur.fetchall()
        seen: set[object] = set()
        extra: list[str] = []
        records = []
        ki = names.index(key)
        for row in rows:
            if row[ki] not in seen:
                seen.add(row[ki])
                continue
            extra.append(row[0])
            records.append(
                {
                    "table": spec_name,
                    "file": file,
                    "record": None,
                    "field": key,
                    "reason": f"duplicate {key} {row[ki]}: an earlier row has the same primary key",
                    "raw": dict(zip(names[1:], row[1:], strict=True)),
                }
            )
        writer.write_rejected(records)
        ids = ", ".join("'" + r.replace("'", "''") + "'" for r in extra)
        where = f"CAST({rid} AS TEXT) IN ({ids})"
        writer.execute(f"DELETE FROM {target} WHERE {where}")
        moved += len(extra)
    logger.warning("%s: %d rows with a duplicate %s set aside", file, moved, key)
    return moved


_INDEXED = {
    "person": ("person_id",),
    "observation_period": ("person_id",),
    "visit_occurrence": ("person_id", "visit_concept_id"),
    "visit_detail": ("person_id", "visit_occurrence_id"),
    "condition_occurrence": ("person_id", "condition_concept_id"),
    "drug_exposure": ("person_id", "drug_concept_id"),
    "procedure_occurrence": ("person_id", "procedure_concept_id"),
    "device_exposure": ("person_id", "device_concept_id"),
    "measurement": ("person_id", "measurement_concept_id"),
    "observation": ("person_id", "observation_concept_id"),
    "note": ("person_id",),
    "death": ("person_id",),
    "drug_era": ("person_id", "drug_concept_id"),
    "condition_era": ("person_id", "condition_concept_id"),
    "concept": ("concept_id", "concept_code"),
    "concept_ancestor": ("ancestor_concept_id",),
    "concept_synonym": ("concept_id",),
    "concept_relationship": ("concept_id_1",),
}


# The rest of the OHDSI CommonDataModel 5.4 PostgreSQL indices (OMOPCDM_postgresql_5.4_indices.sql)
# for the tables the engine queries: visit joins, concept hierarchy both ways, vocabulary filters.
# PostgreSQL only (SQLite keeps the smaller set above; DuckDB uses zone maps, not indexes).
_OHDSI_PG = {
    "person": ("gender_concept_id",),
    "visit_detail": ("visit_detail_concept_id",),
    "condition_occurrence": ("visit_occurrence_id",),
    "drug_exposure": ("visit_occurrence_id",),
    "procedure_occurrence": ("visit_occurrence_id",),
    "device_exposure": ("visit_occurrence_id",),
    "measurement": ("visit_occurrence_id",),
    "observation": ("visit_occurrence_id",),
    "note": ("note_type_concept_id", "visit_occurrence_id"),
    "concept": ("vocabulary_id", "domain_id", "concept_class_id"),
    "concept_ancestor": ("descendant_concept_id",),
    "concept_relationship": ("concept_id_2", "relationship_id"),
    "drug_strength": ("drug_concept_id", "ingredient_concept_id"),
}


def create_indexes(db: Database, schema: str | None, tables: Iterable[str]) -> int:
    """Index person and concept columns (SQLite, PostgreSQL); returns how many were created.

    On PostgreSQL the full OHDSI recommended set for these tables is created (``_OHDSI_PG``).
    """
    if db.backend not in {"sqlite", "postgres"}:
        return 0
    writer = BulkWriter(db, schema)
    tables = list(tables)
    n = 0
    for table in tables:
        extra = _OHDSI_PG.get(table, ()) if db.backend == "postgres" else ()
        for column in (*_INDEXED.get(table, ()), *extra):
            writer.execute(
                f'CREATE INDEX IF NOT EXISTS "idx_{table}_{column}" ON {writer.table(table)} ("{column}")'
            )
            n += 1
    # name lookups compare lower(name): index the expression (ConceptIndex.by_name)
    for table, column in (("concept", "concept_name"), ("concept_synonym", "concept_synonym_name")):
        if table in set(tables):
            writer.execute(
                f'CREATE INDEX IF NOT EXISTS "idx_{table}_lower_name" ON {writer.table(table)} '
                f'(lower("{column}"))'
            )
            n += 1
    if db.backend == "sqlite":
        db.conn.commit()
    return n


def _quirk_notes(db: Database, writer: BulkWriter, loaded: set[str]) -> list[str]:
    """Known data-quality quirks worth telling the user about (nothing is changed)."""
    notes: list[str] = []
    if {"person", "observation_period"} <= loaded:
        with db.cursor() as cur:
            cur.execute(
                f"SELECT count(*) FROM (SELECT person_id FROM {writer.table('observation_period')} "
                f"EXCEPT SELECT person_id FROM {writer.table('person')}) AS orphans"
            )
            rows = cur.fetchall()
        row = rows[0] if rows else None
        orphans = int(row[0]) if row else 0
        if orphans:
            notes.append(
                f"{orphans} persons appear in observation_period but not in person "
                "(kept; patient counts use the person table)"
            )
    return notes
