"""Typed CSV reading and bulk writing shared by the OMOP and vocabulary loaders.

``convert_chunk`` turns a chunk of text columns into typed columns and says which rows are bad
(and why); ``BulkWriter`` appends a typed DataFrame to a table with each backend's fastest path:
DuckDB scans a registered DataFrame, PostgreSQL receives ``COPY ... FROM STDIN``, SQLite takes
``executemany``.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import logging
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
import pandas as pd
from sqlglot import exp

from clinbridge.adapters.omop.ddl import REJECTED_TABLE
from clinbridge.errors import ExecutionError

if TYPE_CHECKING:
    from clinbridge.db import Database

__all__ = [
    "REJECTED_TABLE",
    "BulkWriter",
    "ChunkProblems",
    "ColumnType",
    "FilesReport",
    "Progress",
    "TableLoad",
    "convert_chunk",
    "ensure_schema",
    "open_text",
    "open_writable",
    "quote_table",
    "writable",
]

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
"""``progress(done, total)``; units are bytes of input for the file loaders."""
ColumnType = Literal["integer", "float", "string", "date", "timestamp"]
OnError = Literal["raise", "quarantine"]
"""Rows a loader refused, with the file, record, field and reason (``on_error="quarantine"``)."""


@dataclass
class TableLoad:
    """What happened to one input file."""

    table: str
    file: str
    read: int = 0
    loaded: int = 0
    rejected: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def reconciles(self) -> bool:
        return self.read == self.loaded + self.rejected


@dataclass
class FilesReport:
    """Per-file counts of one load of a folder; ``read == loaded + rejected`` for each file.

    Subclasses name their version field (``VERSION_FIELD``) and say whether each table's
    seconds are reported (``TABLE_SECONDS``).
    """

    VERSION_FIELD: ClassVar[str] = "version"
    TABLE_SECONDS: ClassVar[bool] = True

    backend: str
    schema: str | None
    tables: list[TableLoad] = field(default_factory=list)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def read(self) -> int:
        return sum(t.read for t in self.tables)

    @property
    def loaded(self) -> int:
        return sum(t.loaded for t in self.tables)

    @property
    def rejected(self) -> int:
        return sum(t.rejected for t in self.tables)

    @property
    def reconciles(self) -> bool:
        return all(t.reconciles for t in self.tables)

    def table(self, name: str) -> TableLoad:
        return next(t for t in self.tables if t.table == name.lower())

    def to_dict(self) -> dict[str, object]:
        tables: list[dict[str, object]] = []
        for t in self.tables:
            row: dict[str, object] = {
                "table": t.table,
                "file": t.file,
                "read": t.read,
                "loaded": t.loaded,
                "rejected": t.rejected,
            }
            if self.TABLE_SECONDS:
                row["seconds"] = round(t.seconds, 3)
            row["notes"] = t.notes
            tables.append(row)
        return {
            self.VERSION_FIELD: getattr(self, self.VERSION_FIELD),
            "backend": self.backend,
            "schema": self.schema,
            "seconds": round(self.seconds, 3),
            "read": self.read,
            "loaded": self.loaded,
            "rejected": self.rejected,
            "tables": tables,
            "notes": self.notes,
        }


@dataclass
class ChunkProblems:
    """Bad rows of one chunk: (row index in chunk, field, reason)."""

    rows: list[tuple[int, str, str]] = field(default_factory=list)
    long: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Text column → (values longer than the spec's varchar(n), n): loaded and reported."""

    def add(self, mask: np.ndarray[Any, Any], field_name: str, reason: str) -> None:
        for i in np.flatnonzero(mask):
            self.rows.append((int(i), field_name, reason))


def open_text(path: Path) -> tuple[IO[bytes], IO[bytes]]:
    """(raw handle for progress via tell(), stream to parse); gunzips ``.gz`` files."""
    raw = path.open("rb")
    if path.suffix.lower() == ".gz":
        return raw, gzip.GzipFile(fileobj=raw)  # type: ignore[return-value]
    return raw, raw


def sniff_separator(path: Path) -> str:
    raw, stream = open_text(path)
    with raw:
        try:
            first = stream.readline().decode("utf-8", "replace")
        except (EOFError, OSError, zlib.error):
            first = ""  # a stream cut short: the reader that follows says where
    return "\t" if first.count("\t") > first.count(",") else ","


_DIGITS8 = r"^\d{8}$"


def convert_chunk(
    chunk: pd.DataFrame,
    types: dict[str, ColumnType],
    *,
    required: Sequence[str] = (),
    max_lengths: dict[str, int] | None = None,
) -> tuple[pd.DataFrame, ChunkProblems]:
    """Typed columns (in ``types`` order; absent columns become NULL) and the rows that failed.

    Integers accept "10204.0" (a float with no fraction) and stay exact to 64 bits; dates accept
    ISO and Athena's ``YYYYMMDD``. A bad value or a missing required value marks the row; text
    longer than the spec's varchar(n) is kept and counted in ``problems.long``.
    """
    problems = ChunkProblems()
    out: dict[str, Any] = {}
    n = len(chunk)
    max_lengths = max_lengths or {}
    for name, typ in types.items():
        if name not in chunk.columns:
            out[name] = pd.Series([None] * n, index=chunk.index, dtype="object")
            if name in required:
                problems.add(np.ones(n, dtype=bool), name, "missing required column")
            continue
        raw = chunk[name]
        present = raw.notna().to_numpy()
        if typ == "integer":
            col, bad = _to_int64(raw, present)
            problems.add(bad, name, "not an integer")
            out[name] = pd.Series(col, index=chunk.index)
        elif typ == "float":
            num = _to_float(raw)
            bad = present & num.isna().to_numpy()
            problems.add(bad, name, "not a number")
            out[name] = num
        elif typ in {"date", "timestamp"}:
            parsed = pd.to_datetime(raw, format="ISO8601", errors="coerce")
            retry = present & parsed.isna().to_numpy()
            if retry.any():  # Athena writes dates as YYYYMMDD
                compact = pd.to_datetime(raw.where(retry), format="%Y%m%d", errors="coerce")
                parsed = parsed.where(~retry, compact)
            bad = present & parsed.isna().to_numpy()
            problems.add(bad, name, f"not a {'date' if typ == 'date' else 'date-time'}")
            if typ == "date":
                parsed = parsed.dt.normalize()
            out[name] = parsed
        else:
            if name in required:
                # An empty field of a NOT NULL text column is an empty string, not a missing value
                # (Athena and Eunomia leave e.g. vocabulary_reference empty).
                raw = raw.fillna("")
                present = np.ones(n, dtype=bool)
            out[name] = raw
            limit = max_lengths.get(name)
            if limit:
                too_long = present & (raw.str.len().fillna(0).to_numpy() > limit)
                if too_long.any():
                    problems.long[name] = (int(too_long.sum()), limit)
        if name in required:
            problems.add(~present, name, "required value is empty")
    return pd.DataFrame(out, index=chunk.index), problems


_INT_TEXT = r"\s*([+-]?\d+)(?:\.0*)?\s*"
_INT64_MAX = str(2**63 - 1)


def _to_int64(raw: pd.Series, present: np.ndarray[Any, Any]) -> tuple[Any, np.ndarray[Any, Any]]:
    """Text to nullable Int64 without passing through a float (19-digit ids stay exact).

    Accepts "10204" and "10204.0"; anything else, or a value outside 64 bits, is bad.
    """
    n = len(raw)
    if not n:
        return pd.array([], dtype="Int64"), np.zeros(0, dtype=bool)
    digits = raw.str.extract(f"^{_INT_TEXT}$", expand=False)
    ok = digits.notna().to_numpy().copy()
    unsigned = digits.str.lstrip("+-").str.lstrip("0")
    length = unsigned.str.len().fillna(0).to_numpy()
    negative = digits.str.startswith("-").fillna(False).to_numpy(dtype=bool)
    limit = np.where(negative, str(2**63), _INT64_MAX)
    too_big = (length > 19) | (
        (length == 19) & (unsigned.fillna("").to_numpy(dtype=object) > limit.astype(object))
    )
    ok &= ~too_big
    bad = present & ~ok
    text = digits.where(ok, "0").fillna("0").str.lstrip("+").to_numpy(dtype=object)
    ints = text.astype(np.int64)
    col = pd.array(ints, dtype="Int64")
    col[~ok] = pd.NA
    return col, bad


def _to_float(raw: pd.Series) -> pd.Series:
    """Text to float64, NaN where missing or unreadable (fast path first)."""
    try:
        return raw.astype("float64")
    except (ValueError, TypeError):
        return pd.to_numeric(raw, errors="coerce").astype("float64")


def quote_table(name: str, schema: str | None, dialect: str) -> str:
    table = (
        exp.table_(name, db=schema, quoted=True)
        if schema and dialect != "sqlite"
        else exp.table_(name, quoted=True)
    )
    return table.sql(dialect=dialect)


@contextlib.contextmanager
def writable(db: str | Database, schema: str | None = None) -> Iterator[Database]:
    """The database a loader writes to: opened with :func:`open_writable` (and closed after the
    block) when given as a URL, else the open database as given (left open)."""
    if not isinstance(db, str):
        yield db
        return
    database = open_writable(db, schema)
    try:
        yield database
    finally:
        database.close()


def open_writable(url: str, schema: str | None = None) -> Database:
    """Open a database for loading, creating a DuckDB file's target schema first if needed."""
    from clinbridge.db import Database, parse_url

    parsed = parse_url(url)
    wanted = schema or parsed.schema
    if parsed.backend == "duckdb" and wanted and parsed.path and parsed.path != ":memory:":
        import duckdb

        Path(parsed.path).parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(parsed.path)
        try:
            ident = exp.to_identifier(wanted, quoted=True).sql(dialect="duckdb")
            con.execute(f"CREATE SCHEMA IF NOT EXISTS {ident}").fetchall()
        finally:
            con.close()
    return Database.open(url, read_only=False, schema=schema)


def ensure_schema(db: Database, schema: str | None) -> None:
    if not schema or db.backend == "sqlite":
        if schema and db.backend == "sqlite":
            logger.warning("SQLite has no schemas; ignoring schema %r", schema)
        return
    ident = exp.to_identifier(schema, quoted=True).sql(dialect=db.dialect)
    with db.cursor() as cur:
        cur.execute(f"CREATE SCHEMA IF NOT EXISTS {ident}")
        if db.backend == "duckdb":
            cur.fetchall()


class BulkWriter:
    """Append typed DataFrames to tables of one database with the backend's bulk path."""

    def __init__(self, db: Database, schema: str | None = None) -> None:
        self.db = db
        self.schema = schema if db.backend != "sqlite" else None

    def table(self, name: str) -> str:
        return quote_table(name, self.schema, self.db.dialect)

    def execute(self, sql: str) -> None:
        with self.db.cursor() as cur:
            cur.execute(sql)
            if self.db.backend == "duckdb":
                cur.fetchall()  # DuckDB 2 refuses new work while a result is pending

    def count(self, name: str) -> int:
        with self.db.cursor() as cur:
            cur.execute(f"SELECT count(*) FROM {self.table(name)}")
            rows = cur.fetchall()
        row = rows[0] if rows else None
        return int(row[0]) if row else 0

    def write(
        self,
        name: str,
        df: pd.DataFrame,
        types: dict[str, ColumnType],
        *,
        not_null: Sequence[str] = (),
    ) -> int:
        if df.empty:
            return 0
        cols = ", ".join(
            exp.to_identifier(c, quoted=True).sql(dialect=self.db.dialect) for c in df.columns
        )
        target = self.table(name)
        try:
            if self.db.backend == "duckdb":
                self._duckdb(target, cols, df)
            elif self.db.backend == "postgres":
                self._postgres(target, cols, df, types, not_null)
            else:
                self._sqlite(target, cols, df, types)
        except Exception as exc:
            raise ExecutionError(f"bulk insert into {name} failed: {exc}", table=name) from exc
        return len(df)

    def _duckdb(self, target: str, cols: str, df: pd.DataFrame) -> None:
        conn = self.db.conn
        if not getattr(self, "_quiet", False):
            conn.execute("SET enable_progress_bar = false").fetchall()  # library code never prints
            self._quiet = True
        view = "_clinbridge_chunk"
        conn.register(view, df)
        try:
            conn.execute(f"INSERT INTO {target} ({cols}) SELECT {cols} FROM {view}").fetchall()
        finally:
            conn.unregister(view)

    def _postgres(
        self,
        target: str,
        cols: str,
        df: pd.DataFrame,
        types: dict[str, ColumnType],
        not_null: Sequence[str],
    ) -> None:
        buf = io.StringIO()
        _as_text(df, types).to_csv(buf, index=False, header=False)
        data = buf.getvalue()
        if "\x00" in data:
            # PostgreSQL text cannot hold NUL: U+FFFD marks where one was (counted in the notes).
            self._nul = getattr(self, "_nul", 0) + data.count("\x00")
            data = data.replace("\x00", "\ufffd")
        # In COPY's CSV format an empty field is NULL; NOT NULL text columns hold empty strings.
        keep = [c for c in not_null if types.get(c) == "string" and c in df.columns]
        force = ""
        if keep:
            idents = ", ".join(
                exp.to_identifier(c, quoted=True).sql(dialect="postgres") for c in keep
            )
            force = f", FORCE_NOT_NULL ({idents})"
        copy_sql = f"COPY {target} ({cols}) FROM STDIN WITH (FORMAT csv{force})"
        with self.db.conn.cursor() as cur, cur.copy(copy_sql) as cp:
            cp.write(data)

    def _sqlite(
        self, target: str, cols: str, df: pd.DataFrame, types: dict[str, ColumnType]
    ) -> None:
        text = _as_text(df, types)
        obj = text.astype(object).where(text.notna(), None)
        marks = ", ".join("?" for _ in df.columns)
        rows = list(obj.itertuples(index=False, name=None))
        conn = self.db.conn
        conn.executemany(f"INSERT INTO {target} ({cols}) VALUES ({marks})", rows)
        conn.commit()

    def take_nul_count(self) -> int:
        """NUL characters replaced (PostgreSQL) since the last call."""
        n: int = getattr(self, "_nul", 0)
        self._nul = 0
        return n

    def write_rejected(self, records: list[dict[str, Any]]) -> None:
        """Keep refused rows (with file, record, field, reason and the raw values)."""
        if not records:
            return
        self.ensure_rejected_table()
        df = pd.DataFrame(
            {
                "table_name": [r["table"] for r in records],
                "file": [r["file"] for r in records],
                "record": pd.array([r["record"] for r in records], dtype="Int64"),
                "field": [r["field"] for r in records],
                "reason": [r["reason"] for r in records],
                "raw": [json.dumps(r["raw"], default=str) for r in records],
            }
        )
        types: dict[str, ColumnType] = {str(c): "string" for c in df.columns}
        types["record"] = "integer"
        self.write(REJECTED_TABLE, df, types)

    def ensure_rejected_table(self) -> None:
        big = "BIGINT" if self.db.backend != "sqlite" else "INTEGER"
        self.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table(REJECTED_TABLE)} (table_name TEXT, file TEXT, "
            f"record {big}, field TEXT, reason TEXT, raw TEXT)"
        )


def _as_text(df: pd.DataFrame, types: dict[str, ColumnType]) -> pd.DataFrame:
    """Dates as ISO text (SQLite stores them so; COPY parses them)."""
    out = df.copy()
    for name, typ in types.items():
        if name not in out.columns or typ not in {"date", "timestamp"}:
            continue
        col = out[name]
        if not pd.api.types.is_datetime64_any_dtype(col):
            continue
        values = col.to_numpy(dtype="datetime64[s]")
        text = np.datetime_as_string(values, unit="D" if typ == "date" else "s")
        if typ == "timestamp":
            text = np.char.replace(text, "T", " ")
        out[name] = pd.Series(text, index=col.index, dtype=object).where(
            col.notna().to_numpy(), None
        )
    return out


@contextlib.contextmanager
def transaction(db: Database) -> Iterator[None]:
    """Group a load's statements (PostgreSQL: one transaction; others commit as they go)."""
    if db.backend == "postgres":
        with db.conn.transaction():
            yield
    else:
        yield
