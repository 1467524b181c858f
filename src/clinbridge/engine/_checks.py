"""The validator's individual checks (see :mod:`clinbridge.engine.validate` for the pipeline).

What the checks share (the context, concept-set resolution through a catalog dictionary) and the
structural checks: patient, concepts, answer shape, time windows and free SQL. The checks of the
measured quantity (stored, units, plausible values, proportions) are in
:mod:`clinbridge.engine._checks_values`. Each returns :class:`Check` objects.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clinbridge.engine._shapes import (
    _COMPATIBLE,
    Shape,
    actual_shape,
    expected_shape,
    question_breakdown,
    question_shape,
)
from clinbridge.engine.answer import Alternative
from clinbridge.engine.answer import Check as _AnswerCheck
from clinbridge.engine.plan import (
    CalendarWindow,
    ConceptSet,
    EncounterFilter,
    EventAnchor,
    EventFilter,
    FixedAnchor,
    QueryPlan,
    RelativeWindow,
)
from clinbridge.errors import AbstainReason as AbstainReason
from clinbridge.errors import CheckCode as CheckCode
from clinbridge.errors import ClinbridgeError, ConceptNotFoundError

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog, EventStream
    from clinbridge.db import Database

logger = logging.getLogger(__name__)


Check = _AnswerCheck


def failed(name: str, code: str, detail: str, alternatives: Sequence[Alternative] = ()) -> Check:
    """A failed check: its name, the abstention code it stands for, and what was wrong.

    ``alternatives`` (for ``ambiguous``): the readings that remain, for the user to pick one.
    """
    return Check(
        name=name, passed=False, code=code, detail=detail, alternatives=tuple(alternatives)
    )


"""One deterministic check: name, passed, detail, code (the reason code if it failed)."""


# -- concept sets ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanConceptSet:
    """One concept set of a plan, with where it sits and which stream it filters."""

    path: str
    stream: str
    concepts: ConceptSet
    negate: bool = False


def concept_sets_of(plan: QueryPlan) -> list[PlanConceptSet]:
    """Every concept set a plan names (filters, numerator, anchors, measure), with its stream."""
    found: list[PlanConceptSet] = []

    def window(w: Any, path: str) -> None:
        if isinstance(w, RelativeWindow):
            anchor(w.anchor, f"{path}.anchor")

    def anchor(a: Any, path: str) -> None:
        if isinstance(a, EventAnchor) and a.concepts is not None:
            found.append(PlanConceptSet(path, a.stream, a.concepts))

    def filt(f: Any, path: str) -> None:
        if isinstance(f, EventFilter):
            if f.concepts is not None:
                found.append(PlanConceptSet(path, f.stream, f.concepts, f.negate))
            window(f.window, f"{path}.window")
            if f.age_at_event is not None and f.age_at_event.at is not None:
                anchor(f.age_at_event.at, f"{path}.age_at_event")
        elif isinstance(f, EncounterFilter):
            window(f.window, f"{path}.window")
        elif getattr(f, "at", None) is not None:
            anchor(f.at, f"{path}.at")

    for i, f in enumerate(plan.filters):
        filt(f, f"filters[{i}]")
    for i, f in enumerate(plan.aggregate.numerator):
        filt(f, f"aggregate.numerator[{i}]")
    if plan.measure.concepts is not None and plan.measure.stream is not None:
        found.append(PlanConceptSet("measure", plan.measure.stream, plan.measure.concepts))
    for name in ("age_at", "start_at", "end_at"):
        anchor(getattr(plan.measure, name), f"measure.{name}")
    window(plan.window, "window")
    return found


def _streams_for(catalog: Catalog, name: str) -> list[EventStream]:
    exact = [s for s in catalog.streams if s.name == name]
    return exact or list(catalog.streams_of(name))


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _table(catalog: Catalog, name: str) -> str:
    if "." in name or not catalog.schema_name:
        return ".".join(_q(p) for p in name.split("."))
    return f"{_q(catalog.schema_name)}.{_q(name)}"


def _run(db: Database, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    if db.backend == "postgres":
        sql = sql.replace("?", "%s")
    return db.execute(sql, list(params), timeout_ms=30_000, max_rows=None).rows


def _in_list(values: Sequence[Any]) -> str:
    return ", ".join("?" for _ in values)


def resolve_concept_ids(
    catalog: Catalog, db: Database, stream: EventStream, cs: ConceptSet
) -> list[Any]:
    """Codes a concept set matches in a stream's code column (the engine's resolver); [] if none."""
    from clinbridge.engine.resolve import Resolver

    try:
        return list(Resolver(db, catalog).resolve(cs, stream).values)
    except ConceptNotFoundError:
        return []


def _draft_ids(draft: Any, cs: ConceptSet) -> list[Any] | None:
    """The codes the engine resolved for ``cs`` (from ``Answer.concept_sets``), if complete."""
    sets = getattr(draft, "concept_sets", None)
    if not sets:
        return None
    keys = {cs.describe(), cs.label or ""} - {""}
    if isinstance(sets, Mapping):
        hit = next((sets[k] for k in keys if k in sets), None)
        return None if hit is None else list(hit)
    for item in sets:
        label = item.get("label") if isinstance(item, Mapping) else getattr(item, "label", None)
        if label not in keys:
            continue
        if isinstance(item, Mapping):
            concepts = item.get("concepts") or []
            if item.get("count", len(concepts)) > len(concepts):
                return None  # the answer lists only the first concepts of a big set
            return [c["value"] for c in concepts]
        values = getattr(item, "values", None)
        return None if values is None else list(values)
    return None


# -- the checks -------------------------------------------------------------------------------------


def _patient_internal_id(catalog: Catalog, db: Database, patient_id: str) -> Any | None:
    p = catalog.patients
    if p is None:
        return None
    col = p.external_id_column or p.id_column
    said = f"CAST({_q(col)} AS TEXT)"
    if catalog.variables:  # a trial's subject ids are typed in any case ('ht-16-0125')
        said = f"UPPER({said})"
        patient_id = str(patient_id).upper()
    rows = _run(
        db,
        f"SELECT {_q(p.id_column)} FROM {_table(catalog, p.table)} WHERE {said} = ? LIMIT 1",
        [str(patient_id)],
    )
    return rows[0][0] if rows else None


def _date(text: str | None) -> dt.date | None:
    if not text:
        return None
    try:
        return dt.date.fromisoformat(str(text)[:10])
    except ValueError:
        return None


class _Ctx:
    """What the checks share: the draft, plan, catalog, database, and memoised lookups."""

    def __init__(
        self,
        draft: Any,
        plan: QueryPlan | None,
        catalog: Catalog,
        db: Database,
        question: str | None,
    ):
        self.draft, self.plan, self.catalog, self.db, self.question = (
            draft,
            plan,
            catalog,
            db,
            question,
        )
        self.value = getattr(draft, "value", None)
        self.rows: Sequence[Sequence[Any]] = getattr(draft, "rows", None) or []
        self.columns: Sequence[str] = getattr(draft, "columns", None) or []
        self._pid: tuple[bool, Any] | None = None

    def patient(self) -> tuple[bool, Any]:
        """(exists, internal id) for a patient-level plan."""
        if self._pid is None:
            pid = self.plan.patient_id if self.plan else None
            if pid is None:
                self._pid = (True, None)
            else:
                internal = _patient_internal_id(self.catalog, self.db, pid)
                self._pid = (internal is not None, internal)
        return self._pid


def _check_patient(ctx: _Ctx) -> list[Check]:
    if ctx.plan is None or ctx.plan.patient_id is None:
        return []
    if ctx.catalog.patients is None:
        return [
            failed(
                "patient_exists",
                "patient_not_found",
                "this source has no patient table to look the patient up in",
            )
        ]
    exists, _ = ctx.patient()
    if exists:
        return [
            Check(
                name="patient_exists", passed=True, detail=f"patient {ctx.plan.patient_id} exists"
            )
        ]
    return [
        failed(
            "patient_exists",
            "patient_not_found",
            f"no patient with id {ctx.plan.patient_id!r} in {ctx.catalog.source}",
        )
    ]


def _check_concepts(
    ctx: _Ctx,
) -> tuple[list[Check], dict[str, tuple[list[EventStream], list[Any]]]]:
    checks: list[Check] = []
    resolved: dict[str, tuple[list[EventStream], list[Any]]] = {}
    if ctx.plan is None:
        return checks, resolved
    for pcs in concept_sets_of(ctx.plan):
        label = pcs.concepts.describe()
        streams = _streams_for(ctx.catalog, pcs.stream)
        if not streams:
            checks.append(
                failed(
                    f"concepts_resolved[{pcs.path}]",
                    "schema_mismatch",
                    f"the source has no {pcs.stream!r} events for {label!r}",
                )
            )
            continue
        ids = _draft_ids(ctx.draft, pcs.concepts)
        if ids is None:
            ids = []
            for s in streams:
                try:
                    ids.extend(resolve_concept_ids(ctx.catalog, ctx.db, s, pcs.concepts))
                except ClinbridgeError as exc:
                    logger.debug("could not resolve %s in %s: %s", label, s.name, exc)
        if not ids:
            checks.append(
                failed(
                    f"concepts_resolved[{pcs.path}]",
                    "concept_not_found",
                    f"{label!r} matches no concept of the {pcs.stream} dictionary",
                )
            )
            continue
        checks.append(
            Check(
                name=f"concepts_resolved[{pcs.path}]",
                passed=True,
                detail=f"{label!r} → {len(ids)} concept(s)",
            )
        )
        resolved[pcs.path] = (streams, ids)
        n = 0
        for s in streams:
            if s.code_column is None:
                continue
            rows = _run(
                ctx.db,
                f"SELECT 1 FROM {_table(ctx.catalog, s.table)} WHERE {_q(s.code_column)} "
                f"IN ({_in_list(ids)}) LIMIT 1",
                ids,
            )
            n += len(rows)
        if n:
            checks.append(
                Check(
                    name=f"concepts_in_data[{pcs.path}]",
                    passed=True,
                    detail=f"{label!r} occurs in the {pcs.stream} data",
                )
            )
        else:
            checks.append(
                failed(
                    f"concepts_in_data[{pcs.path}]",
                    "concept_not_in_data",
                    f"no {pcs.stream} event in {ctx.catalog.source} is coded as {label!r}",
                )
            )
    return checks, resolved


def _check_shape(ctx: _Ctx, shape: Shape | None) -> list[Check]:
    actual = actual_shape(ctx.value)
    plan = ctx.plan
    checks = []
    if actual is None:
        op = plan.aggregate.op if plan else None
        who = " for this patient" if plan is not None and plan.patient_id else ""
        detail = f"no such data{who}: the query returned no value" + (f" for {op}" if op else "")
        checks.append(Check(name="result_present", passed=False, code="no_data", detail=detail))
        return checks
    if plan is not None and plan.patient_id and actual in {"list", "rows"} and not ctx.value:
        checks.append(
            failed(
                "result_present",
                "no_data",
                "no such data for this patient: the query returned no rows",
            )
        )
        return checks
    if plan is not None and plan.aggregate.op == "list" and not ctx.value:
        checks.append(failed("result_present", "no_data", "the query returned an empty list"))
        return checks
    checks.append(Check(name="result_present", passed=True, detail=f"a {actual} value"))
    if (
        plan is not None
        and plan.patient_id
        and plan.measure.of == "patients"
        and plan.aggregate.op in {"count", "count_distinct"}
        and not plan.group_by
    ):
        checks.append(
            Check(
                name="plan_meaningful",
                passed=False,
                code="shape_mismatch",
                detail="counting patients within one patient always gives 0 or 1; "
                "the question asks for something else (a yes/no, or a count of events or visits)",
            )
        )
    wanted = shape or (expected_shape(plan) if plan is not None else None)
    if wanted is not None:
        ok = actual in _COMPATIBLE[wanted]
        checks.append(
            Check(
                name="result_shape",
                passed=ok,
                code="shape_mismatch",
                detail=f"expected {wanted}, got {actual}",
            )
        )
    asked = question_shape(ctx.question)
    if asked is not None and plan is not None and shape is None:
        planned = expected_shape(plan)
        # A grouped plan answers 'how many ... by sex' with rows; a count answers 'is there any' too.
        ok = (
            planned in _COMPATIBLE[asked]
            or (asked == "number" and planned == "rows")
            or (asked == "boolean" and planned == "number")
            # 'how much does X cost': the amount(s) charged for X's events
            or (asked == "number" and planned == "list" and plan.measure.of == "cost")
            # 'what was the last vaccine given': the first/last event of a kind named by no
            # concept can only be answered by the concept recorded then
            or (
                asked == "number"
                and planned == "text"
                and plan.measure.of == "concept"
                and plan.measure.stream is not None
                and plan.measure.concepts is None
            )
        )
        checks.append(
            Check(
                name="shape_matches_question",
                passed=ok,
                code="shape_mismatch",
                detail=f"the question asks for a {asked}; the plan gives a {planned}",
            )
        )
    by = question_breakdown(ctx.question)
    given = expected_shape(plan) if plan is not None else actual
    if by is not None and given not in {"rows", "list"}:
        # 'how many patients per vaccine' answered with one number is not what was asked
        checks.append(
            failed(
                "breakdown_matches_question",
                "shape_mismatch",
                f"the question asks for an answer per {by}; the plan gives a single {given}",
            )
        )
    if asked is not None and plan is None:
        # Free SQL: what the SQL returned must be what the question asks for, whatever the
        # proposer claimed its shape was.
        ok = actual in _COMPATIBLE[asked] or (asked == "boolean" and actual == "number")
        checks.append(
            Check(
                name="shape_matches_question",
                passed=ok,
                code="shape_mismatch",
                detail=f"the question asks for a {asked}; the SQL returned a {actual}",
            )
        )
    return checks


def _windows(plan: QueryPlan) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if plan.window is not None:
        out.append(("window", plan.window))
    for label, filters in (
        ("filters", plan.filters),
        ("aggregate.numerator", plan.aggregate.numerator),
    ):
        for i, f in enumerate(filters):
            w = getattr(f, "window", None)
            if w is not None:
                out.append((f"{label}[{i}].window", w))
    return out


def _check_windows(ctx: _Ctx) -> list[Check]:
    plan = ctx.plan
    if plan is None:
        return []
    start, end = _date(ctx.catalog.data_start), _date(ctx.catalog.data_end)
    obs = _patient_observation(ctx) if plan.patient_id else None
    checks: list[Check] = []
    for path, w in _windows(plan):
        lo: dt.date | None
        hi: dt.date | None
        if isinstance(w, CalendarWindow):
            lo, hi = w.start, w.end
        elif isinstance(w, RelativeWindow):
            if w.start_days is not None and w.end_days is not None and w.start_days > w.end_days:
                checks.append(
                    failed(
                        f"window[{path}]",
                        "window_empty",
                        f"window starts {w.start_days} days and ends {w.end_days} days from its anchor",
                    )
                )
                continue
            if not isinstance(w.anchor, FixedAnchor):
                continue
            base = w.anchor.date or (plan.now.date() if plan.now else None)
            if base is None:
                continue
            lo = base + dt.timedelta(days=w.start_days) if w.start_days is not None else None
            hi = base + dt.timedelta(days=w.end_days) if w.end_days is not None else None
        else:
            continue
        if lo is not None and hi is not None and lo > hi:
            checks.append(
                failed(f"window[{path}]", "window_empty", f"window starts {lo} after it ends {hi}")
            )
            continue
        if (hi is not None and start is not None and hi < start) or (
            lo is not None and end is not None and lo > end
        ):
            checks.append(
                Check(
                    name=f"window[{path}]",
                    passed=False,
                    code="window_outside_data",
                    detail=f"window {lo or '…'}..{hi or '…'} lies outside the data "
                    f"({ctx.catalog.data_start}..{ctx.catalog.data_end})",
                )
            )
            continue
        if obs is not None and (
            (hi is not None and hi < obs[0]) or (lo is not None and lo > obs[1])
        ):
            checks.append(
                Check(
                    name=f"window[{path}]",
                    passed=False,
                    code="window_outside_observation",
                    detail=f"window {lo or '…'}..{hi or '…'} lies outside patient {plan.patient_id}'s "
                    f"observation {obs[0]}..{obs[1]}",
                )
            )
            continue
        checks.append(
            Check(
                name=f"window[{path}]",
                passed=True,
                detail=f"{lo or '…'}..{hi or '…'} overlaps the data",
            )
        )
    return checks


def _patient_observation(ctx: _Ctx) -> tuple[dt.date, dt.date] | None:
    p = ctx.catalog.patients
    exists, internal = ctx.patient()
    if (
        p is None
        or not exists
        or not (
            p.observation_table
            and p.observation_patient_column
            and p.observation_start_column
            and p.observation_end_column
        )
    ):
        return None
    rows = _run(
        ctx.db,
        f"SELECT MIN({_q(p.observation_start_column)}), MAX({_q(p.observation_end_column)}) "
        f"FROM {_table(ctx.catalog, p.observation_table)} WHERE {_q(p.observation_patient_column)} = ?",
        [internal],
    )
    if not rows or rows[0][0] is None or rows[0][1] is None:
        return None
    a, b = _date(str(rows[0][0])), _date(str(rows[0][1]))
    return (a, b) if a and b else None


def _check_sql(ctx: _Ctx) -> list[Check]:
    sql = getattr(ctx.draft, "sql", None)
    if ctx.plan is not None or not sql:
        return []
    try:
        _guard(sql, ctx.catalog, ctx.db)
    except ClinbridgeError as exc:
        return [Check(name="sql_guarded", passed=False, code=exc.code, detail=str(exc))]
    return [
        Check(
            name="sql_guarded",
            passed=True,
            detail="a single read-only SELECT over catalogued tables",
        )
    ]


def _guard(sql: str, catalog: Catalog, db: Database, max_rows: int = 10_000) -> str:
    """Run the engine's guard on free SQL; returns the SQL to execute (or raises SQLSafetyError)."""
    from clinbridge.engine.guard import guard_catalog_tables

    return guard_catalog_tables(sql, catalog, dialect=db.dialect, max_rows=max_rows).sql
