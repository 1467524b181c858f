"""Gather calculator inputs from patient records in any catalogued source.

For each input of a spec, its ``records`` entries say where to look: the patients table (age,
sex), the latest measurement/vital before the reference date (with its unit), or whether a
condition/drug/procedure/observation (with descendants when the source has an ancestor table)
was recorded before it. Queries are built as sqlglot expressions against the
:class:`~clinbridge.catalog.Catalog` only (never hard-coded table names) and run read-only.

Every value carries its provenance (table, concept, date, raw value and unit). What could not be
found is reported; a required input that is missing makes the calculation abstain. A finding
that is not recorded is *missing*, not absent, unless the caller explicitly says
``missing="absent"`` (then the explanation says so for each such input).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from sqlglot import exp

from clinbridge.calculators.compile import Calculator, MissingPolicy
from clinbridge.catalog import Catalog, Dictionary, EventStream
from clinbridge.db import Database
from clinbridge.errors import CalculatorError, ClinbridgeError

__all__ = ["Evidence", "RecordsOutcome", "compute_from_records", "gather_inputs"]

logger = logging.getLogger(__name__)

_VALUE_KINDS = ("measurement", "vital", "observation")
DEFAULT_MAX_VALUE_AGE_DAYS = 365
"""A lab or vital older than this (before the reference date) counts as not recorded."""


class Evidence(BaseModel):
    """Where one input's value came from (or why it is missing)."""

    model_config = ConfigDict(frozen=True)

    input: str
    found: bool
    value: Any = None
    unit: str | None = None
    source: str = ""
    """e.g. 'measurement: Creatinine [3016723] on 2019-03-02 = 1.2 mg/dL'."""


class RecordsOutcome(BaseModel):
    """Result of computing a calculator from records."""

    model_config = ConfigDict(frozen=True)

    calculator_id: int
    calculator: str
    patient: str
    at: str
    decision: Literal["accept", "abstain"]
    answer: Any = None
    unit: str | None = None
    evidence: tuple[Evidence, ...] = ()
    missing: tuple[str, ...] = ()
    reason: str | None = None
    explanation: str = ""
    death_date: str | None = None
    """The patient's recorded date of death, if any (ISO)."""
    notes: tuple[str, ...] = ()
    """What the caller should know (e.g. the reference date was moved to the date of death)."""

    def to_json_dict(self) -> dict[str, Any]:
        """The result as plain JSON types."""
        return self.model_dump(mode="json")

    def report(self) -> str:
        """The result, its inputs and their sources, as text."""
        lines = [f"{self.calculator} for patient {self.patient} as of {self.at}"]
        lines.extend(f"Note: {n}" for n in self.notes)
        for e in self.evidence:
            mark = "found" if e.found else "MISSING"
            lines.append(f"  [{mark}] {e.input}: {e.source}")
        if self.decision == "accept":
            lines.append(self.explanation)
        else:
            lines.append(f"Abstained: {self.reason}")
        return "\n".join(lines)


def _table(catalog: Catalog, name: str) -> exp.Table:
    return exp.table_(name, db=catalog.schema_name) if catalog.schema_name else exp.table_(name)


def _lit(value: Any) -> exp.Expression:
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, int | float):
        return exp.Literal.number(value)
    return exp.Literal.string(str(value))


def _patient_literal(patient: str) -> exp.Expression:
    return (
        exp.Literal.number(int(patient))
        if patient.strip().isdigit()
        else exp.Literal.string(patient)
    )


class _Gatherer:
    def __init__(self, db: Database, catalog: Catalog, patient: str, at: dt.date) -> None:
        self.db = db
        self.catalog = catalog
        self.patient = patient
        self.at = at
        self._concepts: dict[tuple[Any, ...], dict[Any, str]] = {}

    def run(self, select: exp.Select) -> list[tuple[Any, ...]]:
        sql = select.sql(dialect=self.db.dialect)
        logger.debug("records sql: %s", sql)
        return self.db.execute(sql, max_rows=1000).rows

    # -- patients ------------------------------------------------------------------------
    def patient_field(self, field: str) -> Evidence | None:
        pt = self.catalog.patients
        if pt is None:
            return None
        id_col = pt.external_id_column or pt.id_column
        where = exp.column(id_col).eq(_patient_literal(self.patient))
        if field == "sex" and pt.sex_column:
            rows = self.run(
                exp.select(exp.column(pt.sex_column))
                .from_(_table(self.catalog, pt.table))
                .where(where)
            )
            if not rows or rows[0][0] is None:
                return None
            raw = str(rows[0][0])
            canon = pt.sex_values.get(raw, raw.lower())
            if canon not in ("male", "female"):
                return None
            return Evidence(
                input="sex",
                found=True,
                value=canon.capitalize(),
                source=f"{pt.table}.{pt.sex_column} = {raw} ({canon})",
            )
        if field == "age":
            cols = [c for c in (pt.birth_date_column, pt.birth_year_column) if c]
            if not cols:
                return None
            rows = self.run(
                exp.select(*[exp.column(c) for c in cols])
                .from_(_table(self.catalog, pt.table))
                .where(where)
            )
            if not rows:
                return None
            birth = rows[0][0] if pt.birth_date_column else None
            if isinstance(birth, dt.datetime):
                birth = birth.date()
            if isinstance(birth, str):
                birth = dt.date.fromisoformat(birth[:10])
            if isinstance(birth, dt.date):
                years = (
                    self.at.year
                    - birth.year
                    - ((self.at.month, self.at.day) < (birth.month, birth.day))
                )
                source = f"{pt.table}.{pt.birth_date_column} = {birth.isoformat()}"
                return Evidence(input="age", found=True, value=years, unit="year", source=source)
            year = rows[0][-1]
            if year is None:
                return None
            source = f"{pt.table}.{pt.birth_year_column} = {int(year)} (age from birth year)"
            return Evidence(
                input="age", found=True, value=self.at.year - int(year), unit="year", source=source
            )
        return None

    def death_date(self) -> dt.date | None:
        """The patient's earliest recorded date of death, or ``None``."""
        pt = self.catalog.patients
        if pt is None or not (pt.death_table and pt.death_patient_column and pt.death_date_column):
            return None
        key = _patient_literal(self.patient)
        cond: exp.Expression
        if pt.external_id_column and pt.death_table == pt.table:
            cond = exp.column(pt.external_id_column).eq(key)
        elif pt.external_id_column:
            ids = (
                exp.select(exp.column(pt.id_column))
                .from_(_table(self.catalog, pt.table))
                .where(exp.column(pt.external_id_column).eq(key))
            )
            cond = exp.column(pt.death_patient_column).isin(query=ids)
        else:
            cond = exp.column(pt.death_patient_column).eq(key)
        col = exp.column(pt.death_date_column)
        rows = self.run(
            exp.select(col)
            .from_(_table(self.catalog, pt.death_table))
            .where(cond)
            .where(col.is_(exp.null()).not_())
            .order_by(col)
            .limit(1)
        )
        if not rows:
            return None
        value = rows[0][0]
        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, dt.date):
            return value
        return dt.date.fromisoformat(str(value)[:10])

    # -- concept sets --------------------------------------------------------------------
    def concept_ids(
        self,
        stream: EventStream,
        concept_ids: Iterable[int],
        codes: Iterable[str],
        names: Iterable[str],
        descendants: bool,
    ) -> dict[Any, str]:
        """Values of the stream's code column that mean the concept (value -> label).

        OMOP streams store integer concept ids: ``concept_ids`` are used as they are and
        ``codes`` (LOINC, SNOMED, ...) are resolved through the dictionary's source code.
        Other sources (FHIR) store the codes themselves, so ``codes`` are matched directly.
        Names are matched on the dictionary's labels; descendants come from its ancestor table.
        """
        key = (stream.name, tuple(concept_ids), tuple(codes), tuple(names), descendants)
        if key in self._concepts:
            return self._concepts[key]
        integer_codes = (stream.code_system or "").lower() == "omop"
        ids: dict[Any, str] = (
            {int(c): "" for c in concept_ids} if integer_codes else {str(c): "" for c in codes}
        )
        d = self._dictionary(stream)
        if d is not None:
            conds: list[exp.Expression] = []
            if ids:
                conds.append(exp.column(d.code_column).isin(*[_lit(i) for i in ids]))
            if codes and d.source_code_column:
                conds.append(exp.column(d.source_code_column).isin(*[_lit(c) for c in codes]))
            for n in names:
                conds.append(
                    exp.Lower(this=exp.column(d.label_column)).like(_lit(f"%{n.lower()}%"))
                )
            if conds:
                sel = (
                    exp.select(exp.column(d.code_column), exp.column(d.label_column))
                    .from_(_table(self.catalog, d.table))
                    .where(exp.or_(*conds))
                )
                for code, label in self.run(sel):
                    ids[int(code) if integer_codes else str(code)] = str(label or "")
            if (
                descendants
                and ids
                and d.ancestor_table
                and d.ancestor_column
                and d.descendant_column
            ):
                sel = (
                    exp.select(
                        exp.column(d.descendant_column, table="a"),
                        exp.column(d.label_column, table="c"),
                    )
                    .from_(_table(self.catalog, d.ancestor_table).as_("a"))
                    .join(
                        _table(self.catalog, d.table).as_("c"),
                        on=exp.column(d.code_column, table="c").eq(
                            exp.column(d.descendant_column, table="a")
                        ),
                        join_type="left",
                    )
                    .where(exp.column(d.ancestor_column, table="a").isin(*[_lit(i) for i in ids]))
                )
                for code, label in self.run(sel):
                    ids.setdefault(int(code) if integer_codes else str(code), str(label or ""))
        self._concepts[key] = ids
        return ids

    def _dictionary(self, stream: EventStream) -> Dictionary | None:
        if not stream.dictionary:
            return None
        try:
            return self.catalog.dictionary(stream.dictionary)
        except ClinbridgeError:
            return None

    # -- events --------------------------------------------------------------------------
    def _time_filter(self, stream: EventStream, lookback_days: int | None) -> exp.Expression:
        col = exp.column(stream.time_column)
        # Everything on the reference day counts, whether the column holds dates or timestamps.
        day_after = (self.at + dt.timedelta(days=1)).isoformat()
        cond: exp.Expression = exp.LT(this=col, expression=exp.cast(_lit(day_after), "date"))
        if lookback_days is not None:
            start = self.at - dt.timedelta(days=lookback_days)
            cond = exp.and_(  # type: ignore[assignment]
                cond, exp.GTE(this=col, expression=exp.cast(_lit(start.isoformat()), "date"))
            )
        return cond

    def latest_value(
        self, stream: EventStream, ids: dict[Any, str], lookback_days: int | None
    ) -> tuple[Any, ...] | None:
        if not stream.code_column or not stream.value_column or not ids:
            return None
        unit_col: exp.Expression = (
            exp.column(unit) if (unit := _unit_column(stream)) else exp.null()
        )
        sel = (
            exp.select(
                exp.column(stream.time_column),
                exp.column(stream.code_column),
                exp.column(stream.value_column),
                unit_col,
            )
            .from_(_table(self.catalog, stream.table))
            .where(exp.column(stream.patient_column).eq(_patient_literal(self.patient)))
            .where(exp.column(stream.code_column).isin(*[_lit(i) for i in ids]))
            .where(exp.column(stream.value_column).is_(exp.null()).not_())
            .where(self._time_filter(stream, lookback_days))
            .order_by(exp.column(stream.time_column).desc())
            .limit(1)
        )
        rows = self.run(sel)
        return rows[0] if rows else None

    def first_event(
        self, stream: EventStream, ids: dict[Any, str], lookback_days: int | None
    ) -> tuple[Any, ...] | None:
        if not stream.code_column or not ids:
            return None
        sel = (
            exp.select(exp.column(stream.time_column), exp.column(stream.code_column))
            .from_(_table(self.catalog, stream.table))
            .where(exp.column(stream.patient_column).eq(_patient_literal(self.patient)))
            .where(exp.column(stream.code_column).isin(*[_lit(i) for i in ids]))
            .where(self._time_filter(stream, lookback_days))
            .order_by(exp.column(stream.time_column))
            .limit(1)
        )
        rows = self.run(sel)
        return rows[0] if rows else None


def _unit_column(stream: EventStream) -> str | None:
    """The column with a unit as text: OMOP keeps a concept id in unit_column (use the label)."""
    if (stream.code_system or "").lower() == "omop":
        return stream.unit_label_column
    return stream.unit_column or stream.unit_label_column


def gather_inputs(
    calc: Calculator,
    db: Database,
    catalog: Catalog,
    patient: str,
    *,
    at: dt.date,
    max_value_age_days: int | None = DEFAULT_MAX_VALUE_AGE_DAYS,
) -> tuple[dict[str, Any], list[Evidence]]:
    """Find each input of ``calc`` for one patient; returns (parameters, evidence per input).

    Labs and vitals older than ``max_value_age_days`` before ``at`` are not used (unless the
    spec's record query sets its own ``lookback_days``); ``None`` accepts any age.
    """
    g = _Gatherer(db, catalog, patient, at)
    params: dict[str, Any] = {}
    evidence: list[Evidence] = []
    for inp in calc.spec.inputs:
        found: Evidence | None = None
        looked: list[str] = []
        for q in inp.records:
            if q.kind == "patient":
                looked.append(f"patients.{q.field}")
                found = g.patient_field(q.field or inp.name)
                if found is not None:
                    found = found.model_copy(update={"input": inp.name})
            else:
                kinds = _VALUE_KINDS if q.kind in ("measurement", "vital") else (q.kind,)
                for stream in (s for s in catalog.streams if s.kind in kinds):
                    ids = g.concept_ids(stream, q.concept_ids, q.codes, q.names, q.descendants)
                    if inp.type in ("number", "integer"):
                        lookback = (
                            q.lookback_days if q.lookback_days is not None else max_value_age_days
                        )
                        window = f" within {lookback} days" if lookback is not None else ""
                        looked.append(f"{stream.name} ({len(ids)} concepts{window})")
                        row = g.latest_value(stream, ids, lookback)
                        if row is not None:
                            when, code, value, unit = row
                            unit = unit or q.unit or inp.unit
                            found = Evidence(
                                input=inp.name,
                                found=True,
                                value=float(value),
                                unit=unit,
                                source=f"{stream.name}: {ids.get(code) or ids.get(str(code)) or code} [{code}] on "
                                f"{_iso(when)} = {value} {unit or ''}".rstrip(),
                            )
                    elif inp.type == "boolean":
                        looked.append(f"{stream.name} ({len(ids)} concepts)")
                        row = g.first_event(stream, ids, q.lookback_days)
                        if row is not None:
                            when, code = row
                            found = Evidence(
                                input=inp.name,
                                found=True,
                                value=True,
                                source=f"{stream.name}: {ids.get(code) or ids.get(str(code)) or code} [{code}] first on {_iso(when)}",
                            )
                    if found:
                        break
            if found:
                break
        if found is None:
            where = ", ".join(looked) if looked else "no record mapping in the spec"
            evidence.append(
                Evidence(input=inp.name, found=False, source=f"not recorded (looked in: {where})")
            )
            continue
        evidence.append(found)
        params[inp.name] = [found.value, found.unit] if found.unit and inp.unit else found.value
    return params, evidence


def _iso(value: Any) -> str:
    return value.isoformat()[:10] if isinstance(value, dt.date | dt.datetime) else str(value)


def compute_from_records(
    calc: Calculator,
    db: Database | str,
    patient: str,
    *,
    at: str | dt.date | None = None,
    catalog: Catalog | None = None,
    missing: MissingPolicy = "spec",
    max_value_age_days: int | None = DEFAULT_MAX_VALUE_AGE_DAYS,
) -> RecordsOutcome:
    """Compute ``calc`` for one patient of a catalogued source.

    Args:
        calc: the calculator.
        db: an open :class:`Database` or a URL (opened read-only).
        patient: the patient id as the source stores it.
        at: reference date (ISO); default: the source's last data date, else today, or the
            date of death when the patient died before it (said in ``notes``). An explicit
            date after the patient's recorded death makes it abstain (reason ``deceased``).
        catalog: the source's catalog; default: described by the first adapter that recognises it.
        missing: ``"absent"`` treats findings not recorded as absent (said in the explanation);
            the default abstains when a required input is not recorded.
        max_value_age_days: labs and vitals older than this before ``at`` are not used.

    Returns:
        A :class:`RecordsOutcome` (accept with the answer, or abstain with what is missing).
    """
    own = isinstance(db, str)
    database = Database.open(db) if isinstance(db, str) else db
    notes: list[str] = []
    try:
        if catalog is None:
            from clinbridge.adapters.base import describe

            catalog = describe(database)
        when = (
            at
            if isinstance(at, dt.date)
            else (dt.date.fromisoformat(at) if at else (catalog.data_end_date() or dt.date.today()))
        )
        death = _Gatherer(database, catalog, patient, when).death_date()
        if death is not None and when > death:
            if at is not None:
                return RecordsOutcome(
                    calculator_id=calc.id,
                    calculator=calc.name,
                    patient=patient,
                    at=when.isoformat(),
                    decision="abstain",
                    reason=(
                        f"deceased: the patient died on {death.isoformat()}, before the reference "
                        f"date {when.isoformat()}; a score as of that date does not apply (give a "
                        f"date on or before {death.isoformat()})"
                    ),
                    death_date=death.isoformat(),
                )
            notes.append(
                f"the patient died on {death.isoformat()}: the reference date is the date of "
                f"death, not the source's last data date ({when.isoformat()})"
            )
            when = death
        params, evidence = gather_inputs(
            calc, database, catalog, patient, at=when, max_value_age_days=max_value_age_days
        )
    finally:
        if own:
            database.close()
    sources = {e.input: e.source for e in evidence if e.found}
    lacking = tuple(e.input for e in evidence if not e.found)
    base = {
        "calculator_id": calc.id,
        "calculator": calc.name,
        "patient": patient,
        "at": when.isoformat(),
        "evidence": tuple(evidence),
        "missing": lacking,
        "death_date": death.isoformat() if death else None,
        "notes": tuple(notes),
    }
    try:
        result = calc.compute(params, missing=missing, sources=sources)
    except CalculatorError as exc:
        return RecordsOutcome(decision="abstain", reason=f"{exc.code}: {exc}", **base)
    text = result.explanation() + "".join(f"\nNote: {n}" for n in notes)
    if missing == "absent" and lacking:
        text += (
            "\nNote: findings not recorded in the source were taken as absent (caller's choice)."
        )
    return RecordsOutcome(
        decision="accept", answer=result.value, unit=result.unit, explanation=text, **base
    )
