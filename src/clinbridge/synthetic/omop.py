"""Synthetic OMOP CDM 5.4 data: ``clinbridge synth omop --patients N --db URL [--seed S]``.

Realistic where Eunomia is thin: measurements with values and units (hemoglobin g/dL, creatinine
and glucose mg/dL, blood pressure mmHg, heart rate, BMI, potassium, sodium, HbA1c %, weight,
temperature, leukocytes, platelets) drawn from person-level baselines that depend on sex and
disease; outpatient, emergency, inpatient (some via the ER) and intensive-care visits with
conditions, drugs, measurements and discharge notes inside them; chronic conditions with
age-dependent prevalence; repeat prescriptions with days' supply, drug and condition eras;
deaths; one observation period per person. The output carries its own vocabulary (see
``_omop_vocab``), so the database is a self-contained CDM.

Everything is drawn with numpy from one ``numpy.random.Generator(seed)``, vectorised per table,
so the same seed gives the same rows, and 100,000 patients take seconds, not hours.

This module is the public API (blocks, frames, writing to a database); the clinical tables are
drawn in ``_omop_frames`` and the vocabulary tables built in ``_omop_vocab_frames``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pandas as pd

from clinbridge.adapters.omop._bulk import BulkWriter, ColumnType, writable
from clinbridge.adapters.omop.ddl import cdm_spec
from clinbridge.adapters.omop.loader import create_cdm_tables, create_indexes
from clinbridge.db import Database
from clinbridge.errors import ConfigError
from clinbridge.synthetic._omop_frames import FrameBuilder
from clinbridge.synthetic._omop_vocab_frames import vocabulary_frames

__all__ = [
    "BLOCK_PATIENTS",
    "SynthReport",
    "build_omop_frames",
    "generate_omop",
    "iter_omop_blocks",
]

logger = logging.getLogger(__name__)


@dataclass
class SynthReport:
    """Rows written per table and the time it took."""

    patients: int
    seed: int
    rows: dict[str, int] = field(default_factory=dict)
    seconds_generate: float = 0.0
    seconds_write: float = 0.0

    @property
    def total_rows(self) -> int:
        """Rows written over every table."""
        return sum(self.rows.values())

    @property
    def rows_per_second(self) -> float:
        """Rows written per second."""
        spent = self.seconds_generate + self.seconds_write
        return self.total_rows / spent if spent else 0.0


BLOCK_PATIENTS = 10_000
"""Patients generated (and held in memory) at a time; block 0 uses ``seed`` itself, so data for
up to this many patients do not depend on the block size."""

_VOCABULARY_TABLES = (
    "concept",
    "concept_ancestor",
    "concept_synonym",
    "concept_relationship",
    "vocabulary",
    "cdm_source",
)
# primary keys that number rows of a table, shifted by the rows of earlier blocks
_ROW_IDS = {
    "condition_occurrence": "condition_occurrence_id",
    "condition_era": "condition_era_id",
    "drug_exposure": "drug_exposure_id",
    "drug_era": "drug_era_id",
    "measurement": "measurement_id",
    "note": "note_id",
}


def _block(patients: int, seed: int | list[int], *, vocabulary: bool) -> dict[str, pd.DataFrame]:
    b = FrameBuilder(patients, seed)
    b.persons()
    b.visits()
    b.conditions()
    b.drugs()
    b.measurements()
    b.notes()
    if vocabulary:
        b.frames.update(vocabulary_frames(patients))
    return b.frames


def iter_omop_blocks(patients: int, seed: int = 0) -> Iterator[dict[str, pd.DataFrame]]:
    """The synthetic CDM in blocks of :data:`BLOCK_PATIENTS` patients, ids continuing across
    blocks; the vocabulary tables come with the first block."""
    if not 1 <= patients <= 1_000_000:
        raise ConfigError(f"patients must be between 1 and 1,000,000, not {patients}")
    persons = visits = 0
    rows: dict[str, int] = {}
    for number, first in enumerate(range(0, patients, BLOCK_PATIENTS)):
        n = min(BLOCK_PATIENTS, patients - first)
        frames = _block(n, seed if number == 0 else [seed, number], vocabulary=number == 0)
        if number:
            for name, df in frames.items():
                if "person_id" in df.columns:
                    df["person_id"] += persons
                for col in ("visit_occurrence_id", "visit_detail_id"):
                    if col in df.columns:
                        df[col] += visits
                if name == "observation_period":
                    df["observation_period_id"] += persons
                if name in _ROW_IDS:
                    df[_ROW_IDS[name]] += rows.get(name, 0)
        persons += n
        visits += len(frames["visit_occurrence"])
        for name in _ROW_IDS:
            rows[name] = rows.get(name, 0) + len(frames[name])
        yield frames


def build_omop_frames(patients: int, seed: int = 0) -> dict[str, pd.DataFrame]:
    """Generate every table as a DataFrame (deterministic for a given ``patients`` and ``seed``)."""
    blocks = list(iter_omop_blocks(patients, seed))
    if len(blocks) == 1:
        return blocks[0]
    return {
        name: pd.concat([b[name] for b in blocks if name in b], ignore_index=True)
        for name in blocks[0]
    }


def generate_omop(
    db: Database | str,
    *,
    patients: int = 1000,
    seed: int = 0,
    schema: str | None = None,
    indexes: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> SynthReport:
    """Generate a synthetic OMOP CDM 5.4 (with its vocabulary) into a database.

    Existing CDM tables in the target are replaced. Patients are generated and written in blocks
    of :data:`BLOCK_PATIENTS`, so memory stays bounded at 100,000 patients and more.

    Args:
        db: A writable :class:`Database` or a URL (``duckdb:///synth.duckdb``).
        patients: Number of persons (1 to 1,000,000).
        seed: Random seed; the same seed gives the same data.
        schema: Target schema (DuckDB, PostgreSQL); defaults to the URL's.
        indexes: Index person and concept columns (SQLite, PostgreSQL).
        progress: ``progress(patients_done, patients)``.

    Returns:
        A :class:`SynthReport` with rows per table and timings.
    """
    if not 1 <= patients <= 1_000_000:
        raise ConfigError(f"patients must be between 1 and 1,000,000, not {patients}")
    report = SynthReport(patients=patients, seed=seed)
    with writable(db, schema) as database:
        schema = schema or database.schema
        t1 = time.perf_counter()
        create_cdm_tables(database, "5.4", schema=schema, replace=True)
        spec = cdm_spec("5.4")
        writer = BulkWriter(database, schema)
        report.seconds_write += time.perf_counter() - t1
        done = 0
        blocks = iter_omop_blocks(patients, seed)
        while True:
            t0 = time.perf_counter()
            frames = next(blocks, None)
            report.seconds_generate += time.perf_counter() - t0
            if frames is None:
                break
            t1 = time.perf_counter()
            for name, df in frames.items():
                table = spec[name]
                types: dict[str, ColumnType] = {
                    c.name: c.portable for c in table.columns if c.name in df.columns
                }
                ordered = df[[c for c in table.column_names if c in df.columns]]
                if database.backend == "postgres":
                    with database.conn.transaction():
                        writer.write(name, ordered, types)
                else:
                    writer.write(name, ordered, types)
                report.rows[name] = report.rows.get(name, 0) + len(df)
            done += len(frames["person"])
            report.seconds_write += time.perf_counter() - t1
            if progress:
                progress(done, patients)
        t1 = time.perf_counter()
        if indexes:
            create_indexes(database, schema, list(report.rows))
        if database.backend == "postgres":
            for name in report.rows:
                writer.execute(f"ANALYZE {writer.table(name)}")
        if database.backend == "sqlite":
            database.conn.commit()
        report.seconds_write += time.perf_counter() - t1
        logger.info("synthetic OMOP: %d patients, %d rows", patients, report.total_rows)
        return report
