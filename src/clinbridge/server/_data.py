"""Read-only queries for the page's selectors and plots, built from the catalog (never table names).

Every statement is a sqlglot tree, passed through the guard (:func:`guard_sql`) and run on the
read-only connection with the settings' timeout and row limit.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from clinbridge.engine import sqlfuncs
from clinbridge.engine.guard import guard_sql
from clinbridge.errors import SchemaMismatchError

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog, EventStream
    from clinbridge.db import Database
    from clinbridge.settings import Settings

__all__ = [
    "encounters",
    "event_counts",
    "group_values",
    "patients",
    "series",
    "trajectory",
    "value_streams",
]

VALUE_KINDS = ("measurement", "vital", "observation", "lab")


def _run(
    db: Database, catalog: Catalog, select: exp.Select, settings: Settings, max_rows: int
) -> list[tuple[Any, ...]]:
    g = guard_sql(select, catalog=catalog, dialect=db.dialect, max_rows=max_rows)
    return db.execute(
        g.sql, timeout_ms=settings.sql_timeout_ms, max_rows=max_rows, sandbox=True
    ).rows


def _table(catalog: Catalog, name: str, alias: str | None = None) -> exp.Table:
    return exp.table_(name, db=catalog.schema_name or None, alias=alias)


def _lit(value: str) -> exp.Expression:
    text = value.strip()
    if text.lstrip("-").isdigit() and len(text) < 19:
        return exp.Literal.number(int(text))
    return exp.Literal.string(text)


def _stream(catalog: Catalog, name: str) -> EventStream:
    """A stream by name, or the only stream of that kind (plans name streams by kind)."""
    of_kind = catalog.streams_of(name)
    if not any(s.name == name for s in catalog.streams) and len(of_kind) == 1:
        return of_kind[0]
    return catalog.stream(name)


def value_streams(catalog: Catalog) -> list[EventStream]:
    return [s for s in catalog.streams if s.value_column and s.code_column]


def _when(value: Any) -> dt.datetime | None:
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    if isinstance(value, str) and value:
        try:
            return dt.datetime.fromisoformat(value)
        except ValueError:
            return None
    return None


def _unit_col(stream: EventStream, alias: str) -> exp.Expression:
    # OMOP keeps a concept id in unit_column; the text is in unit_label_column (unit_source_value).
    col = (
        stream.unit_label_column
        if (stream.code_system or "").lower() == "omop"
        else (stream.unit_column or stream.unit_label_column)
    )
    return exp.column(col, table=alias) if col else exp.null()


def _label_join(
    catalog: Catalog, stream: EventStream, select: exp.Select, alias: str
) -> tuple[exp.Select, exp.Expression]:
    if not stream.dictionary or not stream.code_column:
        return select, exp.null()
    try:
        d = catalog.dictionary(stream.dictionary)
    except SchemaMismatchError:
        return select, exp.null()
    on = exp.column(d.code_column, table="d").eq(exp.column(stream.code_column, table=alias))
    return select.join(_table(catalog, d.table, "d"), on=on, join_type="left"), exp.column(
        d.label_column, table="d"
    )


# -- patients -------------------------------------------------------------------------------------
def patients(
    db: Database, catalog: Catalog, settings: Settings, *, query: str = "", limit: int = 50
) -> list[dict[str, Any]]:
    """Patient ids (with sex and birth year where known), those starting with ``query`` first."""
    pt = catalog.patients
    if pt is None:
        return []
    id_col = pt.external_id_column or pt.id_column
    cols: list[exp.Expression] = [exp.column(id_col, table="p")]
    cols.append(exp.column(pt.sex_column, table="p") if pt.sex_column else exp.null())
    cols.append(exp.column(pt.birth_year_column, table="p") if pt.birth_year_column else exp.null())
    sel = exp.select(*cols).from_(_table(catalog, pt.table, "p"))
    if query.strip():
        text = exp.cast(exp.column(id_col, table="p"), "text")
        sel = sel.where(exp.Like(this=text, expression=exp.Literal.string(query.strip() + "%")))
    sel = sel.order_by(exp.column(id_col, table="p")).limit(limit)
    out = []
    for pid, sex, year in _run(db, catalog, sel, settings, limit):
        out.append(
            {
                "id": str(pid),
                "sex": pt.sex_values.get(str(sex), None) if sex is not None else None,
                "birth_year": int(year) if year is not None else None,
            }
        )
    return out


def series(
    db: Database, catalog: Catalog, settings: Settings, patient: str
) -> list[dict[str, Any]]:
    """The patient's numeric series: one entry per (stream, code) with its count and label."""
    out: list[dict[str, Any]] = []
    for s in value_streams(catalog):
        assert s.code_column and s.value_column
        sel = exp.select().from_(_table(catalog, s.table, "e"))
        sel, label = _label_join(catalog, s, sel, "e")
        sel = (
            sel.select(
                exp.column(s.code_column, table="e"),
                exp.Max(this=label),
                exp.Count(this=exp.Star()),
                exp.Max(this=_unit_col(s, "e")),
            )
            .where(exp.column(s.patient_column, table="e").eq(_lit(patient)))
            .where(exp.column(s.value_column, table="e").is_(exp.null()).not_())
            .group_by(exp.column(s.code_column, table="e"))
            .order_by(exp.Count(this=exp.Star()).desc())
            .limit(200)
        )
        for code, name, n, unit in _run(db, catalog, sel, settings, 200):
            out.append(
                {
                    "stream": s.name,
                    "code": str(code),
                    "label": str(name) if name is not None else str(code),
                    "count": int(n),
                    "unit": unit,
                }
            )
    return out


def trajectory(
    db: Database,
    catalog: Catalog,
    settings: Settings,
    patient: str,
    stream: str,
    code: str | Sequence[str],
) -> tuple[str, str | None, list[tuple[dt.datetime, float]]]:
    """(label, unit, [(time, value)]) of one coded numeric series (one code or several) for one patient."""
    codes = [code] if isinstance(code, str) else list(code)
    s = _stream(catalog, stream)
    if not s.code_column or not s.value_column:
        raise SchemaMismatchError(f"stream {stream!r} has no coded numeric values")
    sel = exp.select().from_(_table(catalog, s.table, "e"))
    sel, label = _label_join(catalog, s, sel, "e")
    sel = (
        sel.select(
            exp.column(s.time_column, table="e"),
            exp.column(s.value_column, table="e"),
            _unit_col(s, "e"),
            label,
        )
        .where(exp.column(s.patient_column, table="e").eq(_lit(patient)))
        .where(exp.column(s.code_column, table="e").isin(*[_lit(c) for c in codes]))
        .where(exp.column(s.value_column, table="e").is_(exp.null()).not_())
        .order_by(exp.column(s.time_column, table="e"))
    )
    rows = _run(db, catalog, sel, settings, settings.max_rows)
    points = [(t, float(v)) for when, v, _, _ in rows if (t := _when(when)) is not None]
    unit = next((u for _, _, u, _ in rows if u), None)
    name = next((str(n) for *_, n in rows if n), codes[0] if codes else "")
    return name, unit, points


def encounters(
    db: Database, catalog: Catalog, settings: Settings, patient: str
) -> list[tuple[dt.datetime, dt.datetime, str]]:
    """(start, end, canonical type) of the patient's encounters."""
    enc = catalog.encounters
    if enc is None:
        return []
    cols: list[exp.Expression] = [exp.column(enc.start_column, table="v")]
    cols.append(exp.column(enc.end_column, table="v") if enc.end_column else exp.null())
    cols.append(exp.column(enc.type_column, table="v") if enc.type_column else exp.null())
    sel = (
        exp.select(*cols)
        .from_(_table(catalog, enc.table, "v"))
        .where(exp.column(enc.patient_column, table="v").eq(_lit(patient)))
        .order_by(exp.column(enc.start_column, table="v"))
    )
    out: list[tuple[dt.datetime, dt.datetime, str]] = []
    for start, end, kind in _run(db, catalog, sel, settings, 5000):
        s0 = _when(start)
        if s0 is None:
            continue
        e0 = _when(end) or s0
        out.append((s0, e0, enc.type_map.get(str(kind), "other") if kind is not None else "other"))
    return out


def event_counts(
    db: Database,
    catalog: Catalog,
    settings: Settings,
    stream: str,
    code: str | None,
    *,
    interval: str = "year",
) -> tuple[str, list[tuple[str, int]]]:
    """(label, [(period, count)]) of a stream's events (of one code) per year or month."""
    s = _stream(catalog, stream)
    t = exp.column(s.time_column, table="e")
    yr = sqlfuncs.year(t, db.dialect)
    keys: list[exp.Expr] = [yr]
    if interval == "month":
        keys.append(sqlfuncs.month(t, db.dialect))
    sel = exp.select().from_(_table(catalog, s.table, "e"))
    label: exp.Expression = exp.null()
    if code and s.code_column:
        sel, label = _label_join(catalog, s, sel, "e")
        sel = sel.where(exp.column(s.code_column, table="e").eq(_lit(code)))
    sel = (
        sel.select(*keys, exp.Count(this=exp.Star()), exp.Max(this=label))
        .where(t.is_(exp.null()).not_())
        .group_by(*keys)
        .order_by(*keys)
    )
    rows = _run(db, catalog, sel, settings, 5000)
    name = next((str(r[-1]) for r in rows if r[-1]), code or s.name)
    out = []
    for r in rows:
        period = f"{int(r[0])}" if interval != "month" else f"{int(r[0])}-{int(r[1]):02d}"
        out.append((period, int(r[-2])))
    return name, out


def group_values(
    db: Database,
    catalog: Catalog,
    settings: Settings,
    stream: str,
    code: str,
    *,
    by: str = "sex",
) -> tuple[str, str | None, dict[str, list[float]]]:
    """Each patient's mean value of one coded series, grouped by sex or decade of birth."""
    s = _stream(catalog, stream)
    pt = catalog.patients
    if pt is None or not s.code_column or not s.value_column:
        raise SchemaMismatchError(f"stream {stream!r} has no coded numeric values per patient")
    key_col = pt.sex_column if by == "sex" else pt.birth_year_column
    if key_col is None:
        raise SchemaMismatchError(f"source {catalog.source!r} records no {by} for patients")
    on = exp.column(pt.id_column, table="p").eq(exp.column(s.patient_column, table="e"))
    sel = exp.select().from_(_table(catalog, s.table, "e"))
    sel, label = _label_join(catalog, s, sel, "e")
    sel = (
        sel.join(_table(catalog, pt.table, "p"), on=on)
        .select(
            exp.column(key_col, table="p"),
            exp.Avg(this=exp.column(s.value_column, table="e")),
            exp.Max(this=_unit_col(s, "e")),
            exp.Max(this=label),
        )
        .where(exp.column(s.code_column, table="e").eq(_lit(code)))
        .where(exp.column(s.value_column, table="e").is_(exp.null()).not_())
        .group_by(exp.column(s.patient_column, table="e"), exp.column(key_col, table="p"))
    )
    rows = _run(db, catalog, sel, settings, settings.max_rows)
    groups: dict[str, list[float]] = {}
    for key, value, _, _ in rows:
        if value is None:
            continue
        name: str
        if by == "sex":
            name = pt.sex_values.get(str(key), "unknown") if key is not None else "unknown"
        else:
            name = f"born {int(key) // 10 * 10}s" if key is not None else "unknown"
        groups.setdefault(name, []).append(float(value))
    unit = next((r[2] for r in rows if r[2]), None)
    label_text = next((str(r[3]) for r in rows if r[3]), code)
    return label_text, unit, dict(sorted(groups.items()))
