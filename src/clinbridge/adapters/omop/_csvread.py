"""Read a delimited file in chunks and keep every good record, whatever is wrong with the others.

The fast path is pandas' C parser. When a chunk cannot be parsed as it stands — a row with the
wrong number of fields, a quote that never closes, bytes that are not UTF-8, a compressed stream
cut short — the chunks already handed out stay as they are and the rest of the file is read by a
slower, record-by-record reader that sets each bad record aside with its line number and reason
and goes on with the next one. Record numbers count data records from 1 (the header is not a
record; blank lines are skipped, as pandas does), so a bad record and a bad value are numbered
the same way.
"""

from __future__ import annotations

import csv
import io
import warnings
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from clinbridge.errors import UnreadableFileError

from ._bulk import open_text, sniff_separator

__all__ = ["BadRecord", "Chunk", "read_tolerant"]

MAX_RECORD_LINES = 1000
"""A quoted field may span lines; one still open after this many lines is an unclosed quote."""
MAX_RECORD_BYTES = 4 << 20

_STREAM_ERRORS = (EOFError, OSError, zlib.error)
"""What a truncated or corrupt .gz stream raises part-way (gzip.BadGzipFile is an OSError)."""


@dataclass(slots=True)
class BadRecord:
    """A record that could not be read as a row of the table."""

    record: int
    line: int
    reason: str
    raw: str | None


@dataclass(slots=True)
class Chunk:
    frame: pd.DataFrame
    """All-text columns, lower-case headers, NaN for empty fields."""
    pos: int
    """Compressed bytes consumed so far (progress)."""
    records: np.ndarray
    """The record number of each row of ``frame``."""
    bad: list[BadRecord] = field(default_factory=list)
    """Records set aside since the previous chunk."""


class _Fallback(Exception):
    """The fast parser cannot go on; the slow reader takes over after the records handed out."""


def read_tolerant(path: Path, *, chunksize: int, sep: str | None = None) -> Iterator[Chunk]:
    """Chunks of ``path`` with every readable record; unreadable ones come in ``Chunk.bad``.

    Raises:
        UnreadableFileError: when the header itself cannot be read (nothing of the file can be placed).
    """
    sep = sep or sniff_separator(path)
    done = 0  # data records handed out by the fast path
    raw, stream = open_text(path)
    with raw:
        try:
            for frame in _fast_frames(stream, sep, chunksize):
                yield Chunk(frame, raw.tell(), np.arange(done + 1, done + len(frame) + 1))
                done += len(frame)
            return
        except _Fallback:
            pass
        except pd.errors.EmptyDataError:
            return  # no header and no records: nothing to load (the caller notes it)
    yield from _slow(path, sep, chunksize, skip=done)


def _fast_frames(stream: IO[bytes], sep: str, chunksize: int) -> Iterator[pd.DataFrame]:
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", pd.errors.ParserWarning)
            reader = pd.read_csv(
                stream,
                sep=sep,
                dtype=str,
                keep_default_na=False,
                na_values=[""],
                chunksize=chunksize,
                quoting=3 if sep == "\t" else 0,  # Athena TSVs are unquoted: quotes are data
                encoding="utf-8-sig",  # a byte-order mark is not part of the first column's name
                encoding_errors="strict",
                on_bad_lines="warn",
            )
            for frame in reader:
                if any(issubclass(w.category, pd.errors.ParserWarning) for w in caught):
                    raise _Fallback  # a ragged row in this chunk: the slow reader keeps its text
                frame.columns = [str(c).strip().lower() for c in frame.columns]
                yield frame
    except pd.errors.EmptyDataError:
        raise
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError, *_STREAM_ERRORS) as exc:
        raise _Fallback from exc


def _slow(path: Path, sep: str, chunksize: int, *, skip: int) -> Iterator[Chunk]:
    raw, stream = open_text(path)
    quoting = csv.QUOTE_NONE if sep == "\t" else csv.QUOTE_MINIMAL
    with raw:
        records = _records(stream, quoting != csv.QUOTE_NONE)
        header: list[str] | None = None
        for item in records:
            if isinstance(item, BadRecord) or not item[1].strip():
                if isinstance(item, BadRecord):
                    raise UnreadableFileError(
                        f"cannot read the header of {path.name}: {item.reason}", file=str(path)
                    )
                continue
            try:
                names = _split(item[1].lstrip("\ufeff"), sep, quoting)
            except csv.Error as exc:
                raise UnreadableFileError(
                    f"cannot read the header of {path.name}: line {item[0]}: {exc}", file=str(path)
                ) from exc
            header = [c.strip().lower() for c in names]
            break
        if header is None:
            return
        width = len(header)
        number = 0
        rows: list[list[str | None]] = []
        nums: list[int] = []
        bad: list[BadRecord] = []
        for item in records:
            if isinstance(item, BadRecord):
                number += 1
                item.record = number
                if number > skip:
                    bad.append(item)
            else:
                line, text = item
                if not text.strip():
                    continue
                number += 1
                if number <= skip:
                    continue
                try:
                    values = _split(text, sep, quoting)
                except csv.Error as exc:
                    bad.append(BadRecord(number, line, f"line {line}: {exc}", text))
                    continue
                if len(values) != width:
                    reason = f"line {line}: expected {width} fields, saw {len(values)}"
                    bad.append(BadRecord(number, line, reason, text))
                    continue
                rows.append([v if v != "" else None for v in values])
                nums.append(number)
            if len(rows) >= chunksize:
                yield Chunk(_frame(rows, header), raw.tell(), np.asarray(nums), bad)
                rows, nums, bad = [], [], []
        if rows or bad:
            yield Chunk(_frame(rows, header), raw.tell(), np.asarray(nums, dtype=np.int64), bad)


def _frame(rows: list[list[str | None]], header: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=header, dtype=object)
    return frame.fillna(np.nan) if len(frame) else frame


def _split(text: str, sep: str, quoting: int) -> list[str]:
    reader = csv.reader(io.StringIO(text), delimiter=sep, quoting=quoting, strict=True)  # type: ignore[arg-type]
    fields = next(reader, [])
    if next(reader, None) is not None:
        raise csv.Error("a record ends inside the line (a stray quote?)")
    return fields


class _Lines:
    """Physical lines (line number, bytes) with push-back; a stream error comes last as a BadRecord."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._it = _lines(stream)
        self._back: list[tuple[int, bytes] | BadRecord] = []

    def next(self) -> tuple[int, bytes] | BadRecord | None:
        return self._back.pop() if self._back else next(self._it, None)

    def push(self, items: list[tuple[int, bytes] | BadRecord]) -> None:
        self._back.extend(reversed(items))


def _records(stream: IO[bytes], quoted: bool) -> Iterator[tuple[int, str] | BadRecord]:
    """(first line number, record text) — a quoted field may span lines — or a BadRecord."""
    src = _Lines(stream)
    while (got := src.next()) is not None:
        if isinstance(got, BadRecord):
            yield got
            return
        lineno, first = got
        try:
            text = first.decode("utf-8")
        except UnicodeDecodeError as exc:
            reason = f"line {lineno}: byte 0x{first[exc.start]:02x} at column {exc.start + 1} is not UTF-8"
            yield BadRecord(0, lineno, reason, first.decode("utf-8", "replace").rstrip("\r\n"))
            continue
        if not quoted or text.count('"') % 2 == 0:
            yield lineno, text.rstrip("\r\n")
            continue
        # An open quote: the record goes on over the next lines until the quote closes.
        parts: list[str] = [text]
        taken: list[tuple[int, bytes] | BadRecord] = []
        quotes, size, closed = text.count('"'), len(first), False
        while len(taken) < MAX_RECORD_LINES and size < MAX_RECORD_BYTES:
            nxt = src.next()
            if nxt is None:
                break
            taken.append(nxt)
            if isinstance(nxt, BadRecord):
                break
            try:
                more = nxt[1].decode("utf-8")
            except UnicodeDecodeError:
                break
            parts.append(more)
            size += len(nxt[1])
            quotes += more.count('"')
            if quotes % 2 == 0:
                closed = True
                break
        if closed:
            yield lineno, "".join(parts).rstrip("\r\n")
            continue
        reason = f"line {lineno}: a quote opens and never closes"
        yield BadRecord(0, lineno, reason, text.rstrip("\r\n"))
        src.push(taken)  # go on with the line after the one that opened the quote


def _lines(stream: IO[bytes]) -> Iterator[tuple[int, bytes] | BadRecord]:
    lineno = 0
    try:
        for line in stream:
            lineno += 1
            yield lineno, line
    except _STREAM_ERRORS as exc:
        yield BadRecord(
            0,
            lineno + 1,
            f"line {lineno + 1} on: the rest of the file cannot be read "
            f"(truncated or corrupt compressed stream: {exc})",
            None,
        )
