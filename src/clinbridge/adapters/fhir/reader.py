"""Read FHIR JSON files as a stream of records: bundles (.json/.json.gz) and NDJSON.

Each :class:`Record` says where it came from (file and ``entry N`` / ``line N``) and carries
either the parsed resource or the parse error. NDJSON is read line by line. A bundle smaller
than ``stream_threshold`` bytes is parsed whole with orjson (fast); a bigger one, or one whose
JSON is broken, is parsed entry by entry with an incremental decoder, so memory stays bounded
by the largest entry and the complete entries before a truncation are kept.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

__all__ = [
    "FileKind",
    "Record",
    "discover",
    "file_kind",
    "line_chunks",
    "line_records",
    "read_file",
]

DEFAULT_STREAM_THRESHOLD = 8 * 1024 * 1024
"""Bundles estimated bigger than this (uncompressed) are decoded entry by entry: a JSON tree held
whole takes 15-20x its size in Python objects."""


@dataclass(slots=True)
class Record:
    """One resource read from a file (or why it could not be), with its file and record."""

    file: str
    record: str
    """'entry 3' (bundles, 0-based like Bundle.entry[3]) or 'line 17' (NDJSON, 1-based)."""
    resource: dict[str, Any] | None = None
    raw: str | None = None
    """The JSON text when the reader has it verbatim (NDJSON lines), else None."""
    full_url: str | None = None
    error: str | None = None
    field: str | None = None


FileKind = str  # "bundle" | "ndjson" | "log"

_SUFFIXES = (".ndjson.gz", ".ndjson", ".json.gz", ".json", ".jsonl", ".jsonl.gz")


def file_kind(path: Path) -> FileKind | None:
    """Whether ``path`` is a bundle, NDJSON or a log file by its name, or None for other files."""
    name = path.name.lower()
    if not name.endswith(_SUFFIXES):
        return None
    if name.startswith("log.") and ".ndjson" in name:
        return "log"
    return "ndjson" if ".ndjson" in name or ".jsonl" in name else "bundle"


def discover(paths: list[str | Path]) -> list[Path]:
    """Files to load: given files as they are, directories searched recursively (sorted)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and file_kind(f)))
        else:
            out.append(p)
    return out


class _Counting(io.RawIOBase):
    """Wraps a binary file and counts the compressed bytes read (for progress)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = self.raw.readinto(b)  # type: ignore[attr-defined]
        self.count += n or 0
        return n or 0

    def close(self) -> None:
        self.raw.close()
        super().close()


def _open(path: Path) -> tuple[IO[bytes], _Counting]:
    counter = _Counting(open(path, "rb"))  # noqa: SIM115 - closed by the caller
    buffered = io.BufferedReader(counter, 1 << 20)
    if path.name.lower().endswith(".gz"):
        return gzip.GzipFile(fileobj=buffered, mode="rb"), counter  # type: ignore[return-value]
    return buffered, counter


def read_file(
    path: Path,
    *,
    stream_threshold: int = DEFAULT_STREAM_THRESHOLD,
    position: list[int] | None = None,
) -> Iterator[Record]:
    """Records of one file; ``position[0]`` is kept at the compressed bytes read so far."""
    kind = file_kind(path) or "bundle"
    fh, counter = _open(path)
    try:
        if kind == "ndjson":
            yield from _ndjson(fh, str(path), counter, position)
        else:
            size = os.path.getsize(path)
            if path.name.lower().endswith(".gz"):
                size *= 8  # a rough guess at the uncompressed size
            if size < stream_threshold:
                try:
                    data = fh.read()
                except (OSError, EOFError) as exc:
                    yield Record(str(path), "file", error=f"cannot read file: {exc}")
                    return
                try:
                    doc = orjson.loads(data)
                except orjson.JSONDecodeError:
                    doc = None
                if doc is not None:
                    yield from _document(doc, str(path))
                    if position is not None:
                        position[0] = counter.count
                    return
                fh = io.BytesIO(data)
            yield from _stream_bundle(fh, str(path), counter, position)
    finally:
        fh.close()
        counter.close()


_BLANK = frozenset(b" \t\r\n\f\v")
_loads = orjson.loads


def _ndjson(
    fh: IO[bytes], name: str, counter: _Counting, position: list[int] | None
) -> Iterator[Record]:
    lineno = 0
    try:
        for line in fh:
            lineno += 1
            if position is not None and not lineno & 1023:
                position[0] = counter.count
            if line[0] in _BLANK and not line.strip():
                continue
            # Fast path: one resource on the line (anything else is re-parsed by line_records).
            try:
                obj = _loads(line)
            except orjson.JSONDecodeError:
                obj = None
            if type(obj) is dict and obj.get("resourceType") != "Bundle":
                yield Record(name, f"line {lineno}", obj, line.decode().rstrip("\r\n"))
            else:
                yield from line_records(name, lineno, line)
    except (OSError, EOFError) as exc:  # e.g. a truncated gzip stream
        yield Record(name, f"line {lineno + 1}", error=f"cannot read the rest of the file: {exc}")
    if position is not None:
        position[0] = counter.count


def _unreadable(name: str, lineno: int, line: bytes, error: str) -> Record:
    return Record(name, f"line {lineno}", raw=line.decode("utf-8", "replace"), error=error)


def line_records(name: str, lineno: int, line: bytes) -> Iterator[Record]:
    """The record(s) of one NDJSON line (a Bundle on one line gives its entries)."""
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        yield _unreadable(name, lineno, line, f"invalid JSON: {exc}")
        return
    if isinstance(obj, dict) and obj.get("resourceType") == "Bundle":
        yield from _document(obj, name, prefix=f"line {lineno} ")
        return
    if not isinstance(obj, dict):
        yield _unreadable(name, lineno, line, f"expected a JSON object, got {type(obj).__name__}")
        return
    yield Record(name, f"line {lineno}", resource=obj, raw=line.decode().rstrip("\r\n"))


def line_chunks(path: Path, max_bytes: int = 4 << 20) -> Iterator[tuple[int, list[bytes]] | Record]:
    """Raw NDJSON lines in chunks of about ``max_bytes``: (first line number, lines).

    A read error (a truncated gzip stream) comes as a Record with the error, after the lines read.
    """
    fh, counter = _open(path)
    lineno = 0
    chunk: list[bytes] = []
    first = 1
    size = 0
    try:
        for line in fh:
            lineno += 1
            chunk.append(line)
            size += len(line)
            if size >= max_bytes:
                yield first, chunk
                chunk, first, size = [], lineno + 1, 0
    except (OSError, EOFError) as exc:
        if chunk:
            yield first, chunk
            chunk = []
        yield Record(
            str(path), f"line {lineno + 1}", error=f"cannot read the rest of the file: {exc}"
        )
    finally:
        fh.close()
        counter.close()
    if chunk:
        yield first, chunk


def _entry(entry: Any, name: str, where: str) -> Record:
    if not isinstance(entry, dict):
        return Record(
            name, where, error=f"expected a Bundle entry object, got {type(entry).__name__}"
        )
    res = entry.get("resource")
    full_url = entry.get("fullUrl") if isinstance(entry.get("fullUrl"), str) else None
    if not isinstance(res, dict):
        req = entry.get("request") if isinstance(entry.get("request"), dict) else {}
        what = f"{req.get('method')} {req.get('url')}" if req else "no resource"
        return Record(
            name,
            where,
            raw=orjson.dumps(entry).decode(),
            full_url=full_url,
            field="resource",
            error=f"entry has no resource object ({what})",
        )
    return Record(name, where, resource=res, full_url=full_url)


def _document(doc: Any, name: str, prefix: str = "") -> Iterator[Record]:
    if not isinstance(doc, dict):
        yield Record(
            name,
            f"{prefix}document".strip(),
            error=f"expected a JSON object, got {type(doc).__name__}",
        )
        return
    if doc.get("resourceType") != "Bundle":
        yield Record(name, f"{prefix}resource".strip(), resource=doc)
        return
    entries = doc.get("entry", [])
    if not isinstance(entries, list):
        yield Record(
            name,
            f"{prefix}Bundle.entry".strip(),
            field="entry",
            error="Bundle.entry is not an array",
        )
        return
    for i, entry in enumerate(entries):
        yield _entry(entry, name, f"{prefix}entry {i}")


_ENTRY_RE = re.compile(r'"entry"\s*:\s*\[')
_BAD_BYTE = re.compile("[\udc80-\udcff]")
_NEXT_ENTRY = re.compile(r'\}\s*,\s*(\{\s*"(?:fullUrl|resource|request)"\s*:)')
"""Where the next Bundle entry starts: an object opening on an entry-level key after a comma."""
_CHUNK = 1 << 20


def _stream_bundle(
    fh: IO[bytes], name: str, counter: _Counting, position: list[int] | None
) -> Iterator[Record]:
    """Entry-by-entry decoding of a (large or broken) bundle."""
    # Bytes that are not UTF-8 decode to lone surrogates, so one bad byte costs only the entry
    # that holds it (checked after each entry is decoded), never the rest of the bundle.
    text = io.TextIOWrapper(fh, encoding="utf-8", errors="surrogateescape")
    decoder = json.JSONDecoder()
    buf = ""
    eof = False
    lines_before = 0  # newlines in text already dropped from buf

    def more() -> bool:
        nonlocal buf, eof
        try:
            chunk = text.read(_CHUNK)
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise _ReadError(str(exc)) from exc
        if not chunk:
            eof = True
            return False
        buf += chunk
        return True

    def where(pos: int) -> str:
        line = lines_before + buf.count("\n", 0, pos) + 1
        col = pos - (buf.rfind("\n", 0, pos) + 1) + 1
        return f"line {line} column {col}"

    try:
        while True:
            m = _ENTRY_RE.search(buf)
            if m:
                break
            if not more():
                bad = _BAD_BYTE.search(buf)
                if bad is not None:
                    yield Record(
                        name,
                        "document",
                        raw=_clean(buf[:10000]) or None,
                        error=f"invalid UTF-8 byte 0x{ord(bad.group()) - 0xDC00:02x} at "
                        f"{where(bad.start())}",
                    )
                    return
                try:
                    doc = json.loads(buf)
                except json.JSONDecodeError as exc:
                    yield Record(
                        name,
                        "document",
                        raw=_clean(buf[:10000]) or None,
                        error=f"invalid JSON at {where(exc.pos)}: {exc.msg}",
                    )
                    return
                yield from _document(doc, name)
                return
        header = buf[: m.start()]
        if '"Bundle"' not in header:
            yield Record(
                name, "document", error="not a FHIR Bundle (no resourceType Bundle before entry)"
            )
            return
        pos = m.end()
        index = 0
        while True:
            # skip whitespace and separators
            while True:
                while pos < len(buf) and buf[pos] in " \t\r\n,":
                    pos += 1
                if pos < len(buf) or not more():
                    break
            if pos >= len(buf):
                yield Record(
                    name,
                    f"entry {index}",
                    error=f"file ends inside Bundle.entry (truncated) at {where(pos)}",
                )
                return
            if buf[pos] == "]":
                return
            try:
                obj, end = decoder.raw_decode(buf, pos)
            except json.JSONDecodeError as exc:
                unterminated = exc.msg.startswith("Unterminated")
                if not eof and (unterminated or len(buf) - exc.pos < _CHUNK) and more():
                    continue
                # Resynchronise on the next entry's start so one broken entry costs only itself.
                nxt = _NEXT_ENTRY.search(buf, exc.pos)
                while nxt is None and more():
                    nxt = _NEXT_ENTRY.search(buf, exc.pos)
                yield Record(
                    name,
                    f"entry {index}",
                    raw=_clean(buf[pos : min(pos + 10000, nxt.start() if nxt else len(buf))]),
                    error=f"invalid JSON at {where(exc.pos)}: {exc.msg}"
                    + (" (file truncated?)" if eof and nxt is None else "")
                    + ("; reading resumed at the next entry" if nxt is not None else ""),
                )
                if nxt is None:
                    return
                index += 1
                pos = nxt.start(1)
                continue
            bad = _BAD_BYTE.search(buf, pos, end)
            if bad is not None:
                byte = ord(bad.group()) - 0xDC00
                yield Record(
                    name,
                    f"entry {index}",
                    raw=_clean(buf[pos:end])[:10000],
                    error=f"invalid UTF-8 byte 0x{byte:02x} at {where(bad.start())}",
                )
            else:
                yield _entry(obj, name, f"entry {index}")
            index += 1
            pos = end
            if pos > _CHUNK:  # drop what is consumed
                lines_before += buf.count("\n", 0, pos)
                buf = buf[pos:]
                pos = 0
            if position is not None:
                position[0] = counter.count
    except _ReadError as exc:
        yield Record(name, "file", error=f"cannot read the file: {exc}")


def _clean(text: str) -> str:
    """Text for the quarantine: bytes that were not UTF-8 become U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


class _ReadError(Exception):
    pass
