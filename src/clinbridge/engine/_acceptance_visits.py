"""Acceptance rules on a count of encounters, looking at the encounters counted.

A count of visits picks one meaning of 'a visit' where the data can hold two; when the
encounters the draft counted show both, the count is a guess and the answer is reported
``ambiguous`` with both counts (devset7 and devset9: each such count was scored wrong):

* **records or visits**: two encounter records of one patient with the same start and end
  (a visit recorded twice under two ids) count twice as records and once as a visit; a
  question that counts rows, records or resources has chosen;
* **a class or its kinds**: emergency encounters are read by their class (FHIR
  Encounter.class EMER), which holds emergency-room visits and emergency hospital admissions
  (obstetric, asthma) alike; where the encounters counted carry both kinds
  (:attr:`EncounterTable.detail_column`), 'ER visits' may mean the class or the room visits.
  A question that names the class ('encounters of class EMER') has chosen.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from clinbridge.engine._checks import failed
from clinbridge.errors import ClinbridgeError

if TYPE_CHECKING:
    from clinbridge.engine._checks import Check, _Ctx
    from clinbridge.engine.answer import Alternative
    from clinbridge.engine.plan import QueryPlan

logger = logging.getLogger(__name__)

# A kind naming the emergency room or department itself ('Emergency room admission',
# 'Emergency Encounter'), as against an admission to the hospital through it.
_ROOM = re.compile(r"\bemergency\s+(?:room|department|encounter|ward)\b|\b(?:ER|ED|A&E)\b", re.I)
_CLASS_SAID = re.compile(r"\bclass(?:_code|es)?\b|\bEMER\b")
# the records counted as such: 'count of Encounter resources', 'fhir_encounter rows', 'count(*)'
_RECORDS_SAID = re.compile(r"\b(?:rows?|records?|resources?|entries)\b|count\s*\(\s*\*", re.I)


def _counted(ctx: _Ctx) -> list[tuple[Any, ...]] | None:
    """(id, patient, start, end, detail) of each encounter the draft counted, from its ``ev``
    step; None when the draft's SQL is not of the compiled shape."""
    import sqlglot
    from sqlglot import exp

    from clinbridge.engine._checks import _guard, _run

    enc = ctx.catalog.encounters
    sql = getattr(ctx.draft, "sql", None)
    if enc is None or not sql:
        return None
    try:
        tree = sqlglot.parse_one(sql, read=ctx.db.dialect)
        ctes = list(tree.ctes)
        names = [c.alias_or_name for c in ctes]
        if "ev" not in names:
            return None
        detail = exp.column(enc.detail_column, table="x") if enc.detail_column else exp.null()
        outer = (
            exp.select(
                exp.column(enc.id_column, table="x"),
                exp.column(enc.patient_column, table="x"),
                exp.column(enc.start_column, table="x"),
                exp.column(enc.end_column, table="x") if enc.end_column else exp.null(),
                detail,
            )
            .from_(exp.to_table(enc.table).as_("x"))
            .where(
                exp.column(enc.id_column, table="x").isin(
                    exp.select("e.eid").from_("ev AS e").where("NOT e.eid IS NULL")
                )
            )
        )
        for c in ctes[: names.index("ev") + 1]:
            outer = outer.with_(c.alias_or_name, as_=c.this)
        return _run(ctx.db, _guard(outer.sql(dialect=ctx.db.dialect), ctx.catalog, ctx.db))
    except (sqlglot.errors.SqlglotError, ClinbridgeError) as exc:
        logger.debug("counted encounters did not run: %s", exc)
        return None


def _reading(ctx: _Ctx, description: str, plan: QueryPlan, value: int) -> Alternative:
    from clinbridge.engine._acceptance_alts import reading

    return reading(ctx, description, plan, value)


def check_visits(ctx: _Ctx) -> list[Check]:
    """Failed checks for a count of encounters whose records show two meanings of a visit."""
    plan, question = ctx.plan, ctx.question or ""
    if plan is None or plan.measure.of != "encounters" or plan.aggregate.op != "count":
        return []
    if plan.group_by or not isinstance(ctx.value, int) or ctx.value < 2:
        return []
    rows = _counted(ctx)
    if not rows or len({r[0] for r in rows}) != ctx.value:
        return []  # not the encounters the value counts
    visits = {(r[1], str(r[2]), str(r[3])) for r in rows}
    if len(visits) < ctx.value and not _RECORDS_SAID.search(question):
        return [
            failed(
                "visit_records_unique",
                "ambiguous",
                f"{ctx.value} encounter records, but {ctx.value - len(visits)} repeat another "
                f"record's patient, start and end: {len(visits)} distinct visits. Count "
                "records or visits?",
                [
                    _reading(ctx, "encounter records", plan, ctx.value),
                    _reading(
                        ctx, "distinct visits (same patient, start and end once)", plan, len(visits)
                    ),
                ],
            )
        ]
    if plan.measure.encounter_type != "emergency" or _CLASS_SAID.search(question):
        return []
    details = [str(r[4] or "") for r in rows]
    room = sum(1 for d in details if _ROOM.search(d))
    if room == 0 or room == len(details):
        return []
    others = sorted({d for d in details if not _ROOM.search(d)})
    return [
        failed(
            "encounter_kind_unique",
            "ambiguous",
            f"{ctx.value} encounters of the emergency class, of which {len(details) - room} "
            f"are recorded as another kind ({', '.join(others)}): every emergency-class "
            f"encounter ({ctx.value}) or the emergency-room visits only ({room})?",
            [
                _reading(ctx, "every emergency-class encounter", plan, ctx.value),
                _reading(ctx, "emergency-room visits only", plan, room),
            ],
        )
    ]
