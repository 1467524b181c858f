"""One notes stream over every source: the catalog's ``note`` streams read as :class:`Note` s.

FHIR DocumentReferences (``fhir_note``, base64 already decoded at load), MIMIC NOTEEVENTS /
MIMIC-IV discharge notes and the OMOP NOTE table are all catalogued as event streams of kind
``note`` with a text column; this module reads them for one patient through sqlglot, whatever
the source, and the patient's encounters for a question's encounter scope. Read-only.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlglot import exp

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog, EventStream
    from clinbridge.db import Database

__all__ = ["Encounter", "Note", "note_streams", "read_encounters", "read_notes"]

_KEY_COLUMNS = ("note_id", "row_id", "id")
MAX_NOTES = 5000
"""Most notes read for one patient (a question over more says so in its checks)."""


@dataclass(frozen=True)
class Note:
    """One clinical note of one patient."""

    note_id: str
    """``<stream>:<row key>`` (the source's own id where it has one, else a content hash)."""
    patient_id: str
    encounter_id: str | None
    time: dt.datetime | None
    source: str
    """The stream it came from (``note``, ``noteevents``, ``discharge``) and its table."""
    title: str
    text: str


@dataclass(frozen=True)
class Encounter:
    """One encounter of a patient: id, canonical type and period."""

    encounter_id: str
    type: str
    start: dt.datetime | None
    end: dt.datetime | None


def note_streams(catalog: Catalog) -> tuple[EventStream, ...]:
    """The catalog's note streams that hold text."""
    return tuple(s for s in catalog.streams_of("note") if s.text_column)


def _table(catalog: Catalog, db: Database, name: str) -> exp.Table:
    schema = catalog.schema_name if db.backend != "sqlite" else None
    return exp.table_(name, db=schema, quoted=True) if schema else exp.table_(name, quoted=True)


def _col(name: str, alias: str = "t") -> exp.Column:
    return exp.column(name, table=alias, quoted=True)


def _patient_condition(catalog: Catalog, db: Database, column: str, patient_id: str) -> exp.Expr:
    """``column`` holds the patient the user names (by the external id when the source has one)."""
    text = exp.cast(_col(column), "text")
    p = catalog.patients
    if p is None or not p.external_id_column or p.external_id_column == p.id_column:
        return text.eq(exp.Literal.string(str(patient_id)))
    sub = (
        exp.select(exp.column(p.id_column, quoted=True))
        .from_(_table(catalog, db, p.table))
        .where(
            exp.cast(exp.column(p.external_id_column, quoted=True), "text").eq(
                exp.Literal.string(str(patient_id))
            )
        )
    )
    return _col(column).isin(query=sub)


def _key_columns(catalog: Catalog, table: str) -> list[str]:
    info = catalog.table(table)
    if info is None:
        return []
    names = {c.name.lower(): c.name for c in info.columns}
    key = next((names[k] for k in (*_KEY_COLUMNS, f"{table.lower()}_id") if k in names), None)
    if key is None:
        return []
    return [key, names["seq"]] if "seq" in names else [key]


def _as_time(value: Any) -> dt.datetime | None:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    if isinstance(value, str) and value:
        try:
            return dt.datetime.fromisoformat(value.replace("Z", "+00:00")).replace(tzinfo=None)
        except ValueError:
            return None
    return None


def read_notes(db: Database, catalog: Catalog, patient_id: str) -> list[Note]:
    """Every note of one patient from every note stream, oldest first.

    Args:
        db: The open (read-only) database.
        catalog: Its catalog; streams of kind ``note`` with a text column are read.
        patient_id: The patient as the user names them.
    """
    out: list[Note] = []
    for s in note_streams(catalog):
        assert s.text_column is not None
        keys = _key_columns(catalog, s.table)
        cols = [s.patient_column, s.encounter_column, s.time_column, s.title_column, s.text_column]
        select = [
            _col(c).as_(f"c{i}") if c else exp.null().as_(f"c{i}") for i, c in enumerate(cols)
        ]
        select += [_col(k).as_(f"k{i}") for i, k in enumerate(keys)]
        q = (
            exp.select(*select)
            .from_(exp.alias_(_table(catalog, db, s.table), "t"))
            .where(_patient_condition(catalog, db, s.patient_column, patient_id))
            .limit(MAX_NOTES)
        )
        for row in db.execute(q.sql(dialect=db.dialect), max_rows=MAX_NOTES).rows:
            pid, enc, time, title, text = row[:5]
            if not isinstance(text, str) or not text.strip():
                continue
            key = ".".join(str(v) for v in row[5:]) if keys else _digest(pid, time, text)
            out.append(
                Note(
                    note_id=f"{s.name}:{key}",
                    patient_id=str(pid),
                    encounter_id=None if enc is None else str(enc),
                    time=_as_time(time),
                    source=f"{s.name} ({s.table})",
                    title="" if title is None else str(title),
                    text=text,
                )
            )
    out.sort(key=lambda n: (n.time or dt.datetime.min, n.note_id))
    return out


def _digest(*parts: Any) -> str:
    return hashlib.sha1("\0".join(str(p) for p in parts).encode()).hexdigest()[:12]


def read_encounters(db: Database, catalog: Catalog, patient_id: str) -> list[Encounter]:
    """The patient's encounters with canonical types, oldest first (empty without a table)."""
    e = catalog.encounters
    if e is None:
        return []
    cols = [e.id_column, e.start_column, e.end_column, e.type_column]
    select = [_col(c).as_(f"c{i}") if c else exp.null().as_(f"c{i}") for i, c in enumerate(cols)]
    q = (
        exp.select(*select)
        .from_(exp.alias_(_table(catalog, db, e.table), "t"))
        .where(_patient_condition(catalog, db, e.patient_column, patient_id))
        .order_by(_col(e.start_column))
    )
    out = []
    for eid, start, end, kind in db.execute(q.sql(dialect=db.dialect), max_rows=MAX_NOTES).rows:
        canonical = e.type_map.get(str(kind), "other") if kind is not None else "other"
        out.append(Encounter(str(eid), canonical, _as_time(start), _as_time(end)))
    return out
