"""Whether an event is active or ended at 'now': the SQL condition, per stream, and its rule.

A stream that records each event's own status (``EventStream.status_column``: FHIR
Condition.clinicalStatus, MedicationRequest.status) is read by that status: ``active`` is a
status the source lists as active (``status_active``) for an event started on or before now;
``ended`` a status it lists as over (``status_ended``). The stored status is the record's as of
the export, not as of an earlier 'now'. A stream without a status but with an end date
(``end_time_column``: OMOP condition_end_date, drug_exposure_end_date) is read by the dates, at
day precision: ``active`` is started on or before now with no end or an end after now; ``ended``
an end on or before now. A stream with neither cannot tell, and the plan is refused naming it;
so is one whose rows hold no status the lists know, or no end date at all (:func:`check_recorded`:
an end column left empty everywhere does not say that every event is still going on).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from sqlglot import exp

from clinbridge.catalog import EventStream
from clinbridge.engine import sqlfuncs as f
from clinbridge.errors import UnsupportedOperationError

if TYPE_CHECKING:
    from clinbridge.db import Database

__all__ = ["StatusProbe", "check_recorded", "status_condition"]

StatusProbe = tuple[str, str, exp.Select]
"""(stream, what it must record, a query returning a row where some event records it)."""


def _values(column: exp.Expr, values: tuple[str, ...]) -> exp.Expr:
    return exp.Lower(this=column).isin(*(exp.Literal.string(v.lower()) for v in values))


def status_condition(
    s: EventStream, alias: str, state: str, now: dt.date, dialect: str
) -> tuple[exp.Expr, str, StatusProbe]:
    """The condition keeping the events of ``s`` (as ``alias``) that are ``state`` at ``now``,
    the rule used in words and the probe that the stream records it; refused where the stream
    records neither status nor end."""
    started = exp.LTE(
        this=f.as_date(exp.column(s.time_column, table=alias), dialect),
        expression=f.date_literal(now, dialect),
    )
    if s.status_column and (s.status_active or s.status_ended):
        stored = exp.column(s.status_column, table=alias)
        values = s.status_active if state == "active" else s.status_ended
        if not values:
            raise UnsupportedOperationError(
                f"stream {s.name!r} records no status value meaning {state!r}"
            )
        rule = (
            f"{state} by the status {s.name} records ({s.status_column} in "
            f"{', '.join(values)}), for events started on or before {now.isoformat()}"
        )
        known = _values(exp.column(s.status_column), (*s.status_active, *s.status_ended))
        probe = (s.name, f"a known status ({s.status_column})", _probe(s.table, known))
        return exp.and_(started, _values(stored, values)), rule, probe
    if s.end_time_column:
        end = f.as_date(exp.column(s.end_time_column, table=alias), dialect)
        today = f.date_literal(now, dialect)
        if state == "active":
            cond = exp.and_(
                started, exp.or_(end.is_(exp.null()), exp.GTE(this=end, expression=today))
            )
            # dates are whole days: an exposure whose end date is today spans today
            rule = (
                f"active by the dates: {s.name} started on or before {now.isoformat()} with no "
                f"end ({s.end_time_column}) or an end on or after it"
            )
        else:
            cond = exp.and_(
                started, exp.not_(end.is_(exp.null())), exp.LT(this=end, expression=today)
            )
            rule = (
                f"ended by the dates: {s.name} with an end ({s.end_time_column}) before "
                f"{now.isoformat()}"
            )
        filled = exp.not_(exp.column(s.end_time_column).is_(exp.null()))
        probe = (s.name, f"an end date ({s.end_time_column})", _probe(s.table, filled))
        return cond, rule, probe
    raise UnsupportedOperationError(
        f"stream {s.name!r} records neither a status nor an end date for its events: whether "
        f"one is {state} cannot be told"
    )


def _probe(table: str, where: exp.Expr) -> exp.Select:
    return exp.select(exp.Literal.number(1)).from_(table).where(where).limit(1)


def check_recorded(db: Database, probes: tuple[StatusProbe, ...]) -> None:
    """Refuse (UnsupportedOperationError) where a stream's rows record no status or end at all."""
    for stream, what, query in probes:
        if not db.execute(query.sql(db.dialect), max_rows=1).rows:
            raise UnsupportedOperationError(
                f"no {stream} event in this source records {what}: whether one is active or "
                "ended cannot be told"
            )
