"""Create a MIMIC database from native CSV files: ``clinbridge load mimic DIR --db URL``.

Reads MIMIC-III v1.4 (``ADMISSIONS.csv.gz``, upper-case headers or lower) and MIMIC-IV v2.x
(``hosp/``, ``icu/``, ``note/`` subfolders, or all files in one folder). Every known table file is
read in chunks, typed column by column (:mod:`._tables`; 64-bit integers never pass through a
float) and bulk-loaded. A file that lacks a column the catalog needs is refused whole, naming the
file and the column. As in the OMOP loader (:mod:`clinbridge.adapters.omop._quarantine`), a record
that cannot be read (wrong number of fields, a quote that never closes, bytes that are not UTF-8, a
``.csv.gz`` cut short) and a row with an unreadable value (text in a numeric column, a bad
timestamp, an empty required value) are quarantined in ``clinbridge_rejected`` with file, record
number (data records from 1), column and reason, and every other record loads (or the first stops
the load with ``on_error="raise"``). For every file read = loaded + quarantined.

Two derived columns make MIMIC-IV native data answerable the way MIMIC-III and EHRSQL are, and are
recorded in the provenance table: ``patients.birth_year`` (anchor_year − anchor_age) and
``diagnoses_icd.charttime`` (the admission's admittime; MIMIC does not time diagnoses).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pandas as pd
from sqlglot import exp

from clinbridge.adapters.mimic._tables import (
    KNOWN_TABLES,
    MimicType,
    column_type,
    required_present,
)
from clinbridge.adapters.mimic.adapter import PROVENANCE_TABLE
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
from clinbridge.db import Database
from clinbridge.errors import LoadError

__all__ = ["MimicLoadReport", "find_files", "load_mimic"]

logger = logging.getLogger(__name__)

_SUFFIXES = (".csv.gz", ".csv")


@dataclass
class MimicLoadReport(FilesReport):
    """Per-file counts of one load; ``read == loaded + rejected`` for each file."""

    VERSION_FIELD: ClassVar[str] = "version"
    TABLE_SECONDS: ClassVar[bool] = False

    version: str = ""


def find_files(folder: Path) -> list[tuple[str, Path]]:
    """(table, file) for every known MIMIC table file in ``folder`` or its hosp/icu/note folders."""
    out: dict[str, Path] = {}
    dirs = [folder] + [d for d in sorted(folder.iterdir()) if d.is_dir()]
    for d in dirs:
        for path in sorted(d.iterdir()):
            name = path.name.lower()
            suffix = next((s for s in _SUFFIXES if name.endswith(s)), None)
            if path.is_file() and suffix:
                table = name[: -len(suffix)]
                if table in KNOWN_TABLES and table not in out:
                    out[table] = path
    return sorted(out.items())


def _header(path: Path) -> list[str]:
    for part in read_tolerant(path, chunksize=1):
        return list(part.frame.columns)
    return []


def _detect_version(files: dict[str, Path]) -> str:
    patients = files.get("patients")
    cols = set(_header(patients)) if patients else set()
    if "anchor_age" in cols:
        adm = files.get("admissions")
        adm_cols = set(_header(adm)) if adm else set()
        return "MIMIC-IV v2.x" if "race" in adm_cols or not adm_cols else "MIMIC-IV v1.0"
    if "dob" in cols:
        dx = files.get("diagnoses_icd")
        dx_cols = set(_header(dx)) if dx else set()
        if "icd_code" in dx_cols and "charttime" in dx_cols:
            return "MIMIC-IV (EHRSQL-2024 schema)"
        return "MIMIC-III v1.4"
    raise LoadError(
        "cannot tell the MIMIC version: PATIENTS has neither dob (MIMIC-III) nor anchor_age "
        "(MIMIC-IV)",
        file=str(patients) if patients else "PATIENTS.csv",
        field="dob or anchor_age",
    )


def _sql_type(t: MimicType, dialect: str) -> str:
    if t == "integer":
        return "BIGINT" if dialect != "sqlite" else "INTEGER"
    if t == "float":
        return (
            "DOUBLE PRECISION"
            if dialect == "postgres"
            else "DOUBLE"
            if dialect == "duckdb"
            else "REAL"
        )
    if t == "timestamp":
        return "TEXT" if dialect == "sqlite" else "TIMESTAMP"
    return "TEXT"


def _ident(name: str, dialect: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect=dialect)


def load_mimic(
    folder: str | Path,
    db: Database | str,
    *,
    schema: str | None = None,
    on_error: OnError = "quarantine",
    replace: bool = False,
    chunksize: int = 200_000,
    progress: Progress | None = None,
    only: list[str] | None = None,
) -> MimicLoadReport:
    """Load a folder of MIMIC-III / MIMIC-IV CSV (or CSV.gz) files into a database.

    Args:
        folder: The MIMIC folder (``ADMISSIONS.csv.gz``..., or ``hosp/`` + ``icu/`` subfolders).
        db: An open writable :class:`Database` or a URL (opened read-write).
        schema: Target schema (DuckDB, PostgreSQL).
        on_error: "raise" stops at the first bad value (file, row, column); "quarantine" keeps
            bad rows in ``clinbridge_rejected`` with their reason.
        replace: Drop tables that already exist; otherwise an existing table is an error.
        chunksize: Rows per chunk.
        progress: ``progress(bytes_done, bytes_total)``.
        only: Load only these tables.

    Returns:
        A :class:`MimicLoadReport` (version detected, read/loaded/rejected per file).

    Raises:
        LoadError: Not a MIMIC folder, a file without a required column, or (``on_error="raise"``)
            the first bad value.
    """
    start = time.perf_counter()
    folder = Path(folder)
    if not folder.is_dir():
        raise LoadError(f"{folder} is not a folder of MIMIC CSV files", file=str(folder))
    files = find_files(folder)
    if only is not None:
        wanted = {t.lower() for t in only}
        files = [(t, p) for t, p in files if t in wanted]
    by_table = dict(files)
    if "patients" not in by_table:
        raise LoadError(
            f"no PATIENTS.csv(.gz) in {folder}: not a MIMIC folder",
            file=str(folder / "PATIENTS.csv"),
        )
    version = _detect_version(by_table)
    # refuse a file without a needed column before anything is written
    headers = {t: _header(p) for t, p in files}
    for table, path in files:
        missing = required_present(table, set(headers[table]))
        if missing:
            raise LoadError(
                f"{path.name} lacks the column {missing[0]!r} that {table} needs",
                file=str(path),
                record="header",
                field=missing[0],
                table=table,
            )
    with writable(db, schema) as database:
        schema = schema or database.schema
        ensure_schema(database, schema)
        writer = BulkWriter(database, schema)
        report = MimicLoadReport(database.backend, schema, version=version)
        if database.backend == "sqlite":
            database.conn.execute("PRAGMA synchronous = OFF")
        total = sum(p.stat().st_size for _, p in files) or 1
        done = 0
        for table, path in files:
            types: dict[str, ColumnType] = {
                c: column_type(table, c)  # type: ignore[misc]
                for c in headers[table]
            }
            _create(database, writer, table, types, replace=replace)

            def file_progress(pos: int, _total: int = 0, base: int = done) -> None:
                if progress:
                    progress(min(base + pos, total), total)

            with transaction(database):
                load = _load_file(
                    path,
                    table,
                    types,
                    writer,
                    on_error=on_error,
                    chunksize=chunksize,
                    progress=file_progress,
                )
            report.tables.append(load)
            done += path.stat().st_size
        report.notes.extend(_derive(database, writer, by_table, version))
        _index(database, writer, [t.table for t in report.tables])
        _write_provenance(database, writer, folder, report)
        if database.backend == "sqlite":
            database.conn.commit()
        report.seconds = time.perf_counter() - start
        return report


def _create(
    db: Database, writer: BulkWriter, table: str, types: dict[str, ColumnType], *, replace: bool
) -> None:
    existing = {t.lower() for t in db.table_names()}
    if table in existing:
        if not replace:
            raise LoadError(
                f"table {table} already exists; use replace=True (--replace)", table=table
            )
        writer.execute(f"DROP TABLE {writer.table(table)}")
    cols = ", ".join(
        f"{_ident(c, db.dialect)} {_sql_type(t, db.dialect)}"  # type: ignore[arg-type]
        for c, t in types.items()
    )
    writer.execute(f"CREATE TABLE {writer.table(table)} ({cols})")
    if db.backend == "sqlite":
        db.conn.commit()


def _load_file(
    path: Path,
    table: str,
    types: dict[str, ColumnType],
    writer: BulkWriter,
    *,
    on_error: OnError,
    chunksize: int,
    progress: Progress | None,
) -> TableLoad:
    started = time.perf_counter()
    load = TableLoad(table=table, file=path.name)
    # a row must hold a value for each required column that has no alternative
    required = sorted(
        {choices[0] for choices in _required_choices(table) if len(choices) == 1} & set(types)
    )
    for part in read_tolerant(path, chunksize=chunksize, sep=","):
        unreadable = set_aside_unreadable(part, writer, path=path, table=table, on_error=on_error)
        typed, problems = convert_chunk(part.frame, types, required=required)
        typed, rejected = set_aside_bad_values(
            part.frame,
            typed,
            problems,
            part.records,
            writer,
            path=path,
            table=table,
            on_error=on_error,
        )
        load.read += unreadable + len(part.frame)
        load.rejected += unreadable + rejected
        load.loaded += writer.write(table, typed, types, not_null=required)
        if progress:
            progress(part.pos, 0)
    load.seconds = time.perf_counter() - started
    if load.rejected:
        load.notes.append(f"{load.rejected} rows quarantined, kept in {REJECTED_TABLE}")
    return load


def _required_choices(table: str) -> tuple[tuple[str, ...], ...]:
    from clinbridge.adapters.mimic._tables import REQUIRED

    return REQUIRED.get(table, ())


def _columns(db: Database, table: str) -> set[str]:
    return {c.lower() for c, _ in db.columns(table)}


def _derive(db: Database, writer: BulkWriter, files: dict[str, Path], version: str) -> list[str]:
    """Derived columns that MIMIC-IV native data needs (see the module docstring)."""
    notes: list[str] = []
    tables = {t.lower() for t in db.table_names()}
    d = db.dialect
    if "patients" in tables:
        cols = _columns(db, "patients")
        if {"anchor_age", "anchor_year"} <= cols and "birth_year" not in cols:
            writer.execute(f"ALTER TABLE {writer.table('patients')} ADD COLUMN birth_year BIGINT")
            writer.execute(
                f"UPDATE {writer.table('patients')} SET birth_year = anchor_year - anchor_age"
            )
            notes.append("patients.birth_year derived as anchor_year - anchor_age (MIMIC-IV)")
    for table in ("diagnoses_icd", "procedures_icd"):
        if table in tables and "admissions" in tables:
            cols = _columns(db, table)
            if "charttime" not in cols and "chartdate" not in cols:
                kind = "TEXT" if d == "sqlite" else "TIMESTAMP"
                writer.execute(f"ALTER TABLE {writer.table(table)} ADD COLUMN charttime {kind}")
                writer.execute(
                    f"UPDATE {writer.table(table)} SET charttime = (SELECT a.admittime FROM "
                    f"{writer.table('admissions')} AS a WHERE a.hadm_id = "
                    f"{writer.table(table)}.hadm_id)"
                )
                notes.append(f"{table}.charttime derived from the admission's admittime")
    if db.backend == "sqlite":
        db.conn.commit()
    return notes


_INDEXED = {
    "patients": ("subject_id",),
    "admissions": ("subject_id", "hadm_id"),
    "icustays": ("subject_id", "hadm_id"),
    "transfers": ("subject_id", "hadm_id"),
    "diagnoses_icd": ("subject_id", "hadm_id"),
    "procedures_icd": ("subject_id", "hadm_id"),
    "labevents": ("subject_id", "itemid"),
    "chartevents": ("subject_id", "itemid"),
    "prescriptions": ("subject_id",),
    "inputevents": ("subject_id", "itemid"),
    "inputevents_mv": ("subject_id", "itemid"),
    "outputevents": ("subject_id", "itemid"),
    "microbiologyevents": ("subject_id",),
}


def _index(db: Database, writer: BulkWriter, tables: list[str]) -> None:
    if db.backend not in {"sqlite", "postgres"}:
        return
    for table in tables:
        cols = _columns(db, table)
        for column in _INDEXED.get(table, ()):
            if column in cols:
                writer.execute(
                    f'CREATE INDEX IF NOT EXISTS "idx_{table}_{column}" ON '
                    f"{writer.table(table)} ({_ident(column, db.dialect)})"
                )


def _write_provenance(
    db: Database, writer: BulkWriter, folder: Path, report: MimicLoadReport
) -> None:
    """Record what was loaded (version, folder, per-file counts) in ``clinbridge_source``."""
    writer.execute(f"DROP TABLE IF EXISTS {writer.table(PROVENANCE_TABLE)}")
    writer.execute(f"CREATE TABLE {writer.table(PROVENANCE_TABLE)} (key TEXT, value TEXT)")
    rows = [
        ("mimic_version", report.version),
        ("loaded_from", str(folder)),
        ("loaded_at", dt.datetime.now(dt.UTC).isoformat(timespec="seconds")),
        ("loader", "clinbridge load mimic"),
    ]
    rows += [
        (f"file:{t.file}", f"read {t.read} loaded {t.loaded} rejected {t.rejected}")
        for t in report.tables
    ]
    rows += [(f"note:{i}", n) for i, n in enumerate(report.notes)]
    df = pd.DataFrame(rows, columns=["key", "value"])
    writer.write(PROVENANCE_TABLE, df, {"key": "string", "value": "string"})
