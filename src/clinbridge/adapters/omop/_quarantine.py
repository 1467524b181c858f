"""Set bad records aside, the same way for every file loader (OMOP, MIMIC).

A record that cannot be read, and a row with a bad value, goes to ``clinbridge_rejected`` with
its file, record number (data records from 1, as :mod:`._csvread` counts them), field, reason
and raw values, and the rest of the file loads; with ``on_error="raise"`` the first one stops
the load with a :class:`~clinbridge.errors.LoadError` naming the file, record and field.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from clinbridge.errors import LoadError

from ._bulk import BulkWriter, ChunkProblems, OnError
from ._csvread import Chunk

__all__ = ["OnError", "set_aside_bad_values", "set_aside_unreadable"]

logger = logging.getLogger(__name__)


def set_aside_unreadable(
    part: Chunk, writer: BulkWriter, *, path: Path, table: str, on_error: OnError
) -> int:
    """Quarantine the records of ``part`` that could not be read; how many there were."""
    if not part.bad:
        return 0
    first = part.bad[0]
    if on_error == "raise":
        raise LoadError(first.reason, file=str(path), record=first.record, table=table)
    writer.write_rejected(
        [
            {
                "table": table,
                "file": path.name,
                "record": b.record,
                "field": None,
                "reason": b.reason,
                "raw": {"line": b.line, "text": b.raw},
            }
            for b in part.bad
        ]
    )
    logger.warning(
        "%s: %d unreadable records set aside (first: %s)", path.name, len(part.bad), first.reason
    )
    return len(part.bad)


def set_aside_bad_values(
    chunk: pd.DataFrame,
    typed: pd.DataFrame,
    problems: ChunkProblems,
    numbers: np.ndarray,
    writer: BulkWriter,
    *,
    path: Path,
    table: str,
    on_error: OnError,
) -> tuple[pd.DataFrame, int]:
    """``typed`` without the rows ``problems`` names, which are quarantined; and how many.

    ``chunk`` is the text the rows were read from (kept raw) and ``numbers`` their record numbers.
    """
    if not problems.rows:
        return typed, 0
    if on_error == "raise":
        row, fld, reason = min(problems.rows)
        value = chunk.iloc[row].get(fld) if fld in chunk.columns else None
        raise LoadError(
            f"{reason}: {value!r}",
            file=str(path),
            record=int(numbers[row]),
            field=fld,
            table=table,
        )
    by_row: dict[int, tuple[str, str]] = {}
    for i, fld, reason in problems.rows:
        by_row.setdefault(i, (fld, reason))
    bad = sorted(by_row)
    writer.write_rejected(
        [
            {
                "table": table,
                "file": path.name,
                "record": int(numbers[i]),
                "field": by_row[i][0],
                "reason": by_row[i][1],
                "raw": {k: (None if pd.isna(v) else v) for k, v in chunk.iloc[i].items()},
            }
            for i in bad
        ]
    )
    keep = pd.Series(True, index=typed.index)
    keep.iloc[bad] = False
    logger.warning(
        "%s: %d rows rejected (first: record %d, %s: %s)",
        path.name,
        len(bad),
        int(numbers[bad[0]]),
        *by_row[bad[0]],
    )
    return typed[keep.to_numpy()], len(bad)
