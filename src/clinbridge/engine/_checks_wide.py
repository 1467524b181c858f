"""Checks of answers over a wide trial table (the validator calls these for wide plans).

* ``variables_exist``: every variable the plan names is in the catalog;
* ``trial_coverage``: a comparison between trials uses only variables every trial collected;
  a plan restricted to some trials uses only variables those trials collected;
* ``missing_codes_excluded``: the SQL sets each measured variable's missing codes aside
  (or the plan asked for them);
* ``denominator_stated``: a percentage comes with its numerator and denominator, per group.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from clinbridge.engine.answer import Check
from clinbridge.engine.plan import QueryPlan, VariableFilter

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["check_wide", "names_code"]


def check_wide(plan: QueryPlan, catalog: Catalog, draft: Any) -> list[Check]:
    by = {v.name: v for v in catalog.variables}
    named = []
    for f in (*plan.filters, *plan.aggregate.numerator):
        if isinstance(f, VariableFilter):
            named.append(f.variable)
    measured = [n for n in (plan.measure.variable, plan.measure.baseline) if n]
    groups = [g.variable for g in plan.group_by if g.variable]
    names = [*named, *measured, *groups]
    absent = [n for n in names if n not in by]
    checks = [
        Check(
            name="variables_exist",
            passed=not absent,
            code="not_stored",
            detail=f"no variable {absent[0]!r}" if absent else f"{len(set(names))} variable(s)",
        )
    ]
    if absent:
        return checks
    trial = next((v for v in catalog.variables if v.role == "trial"), None)
    if trial is not None and trial.codes:
        every = set(trial.codes.values())
        chosen = set(every)
        for f in plan.filters:
            if isinstance(f, VariableFilter) and f.variable == trial.name and f.op == "in":
                picked = {trial.codes.get(c, c) for c in f.codes}
                chosen = every - picked if f.negate else picked
        compared = trial.name in groups
        bad = ""
        for n in [*named, *measured]:
            v = by[n]
            have = set(v.trials) or every
            if compared and have != every:
                bad = f"{n} was collected only in {', '.join(sorted(have))}; trials compared"
            elif not have & chosen:
                bad = f"{n} was not collected in {', '.join(sorted(chosen))}"
            if bad:
                break
        checks.append(
            Check(
                name="trial_coverage",
                passed=not bad,
                code="not_stored",
                detail=bad or f"collected in {', '.join(sorted(chosen))}",
            )
        )
    sql = getattr(draft, "sql", None) or ""
    if not plan.measure.include_missing:
        unguarded = [
            n
            for n in measured
            if by[n].missing_codes and not all(names_code(sql, c) for c in by[n].missing_codes)
        ]
        checks.append(
            Check(
                name="missing_codes_excluded",
                passed=not unguarded,
                code="value_implausible",
                detail=f"{unguarded[0]}'s missing codes are not set aside"
                if unguarded
                else "missing codes set aside in the SQL",
            )
        )
    if plan.aggregate.op == "proportion":
        details = getattr(draft, "details", None) or {}
        rows = getattr(draft, "value", None)
        if plan.group_by:
            stated = isinstance(rows, list) and all(
                isinstance(r, dict) and "numerator" in r and "denominator" in r for r in rows
            )
        else:
            stated = "numerator" in details and "denominator" in details
        checks.append(
            Check(
                name="denominator_stated",
                passed=stated,
                code="shape_mismatch",
                detail="numerator and denominator stated" if stated else "no denominator",
            )
        )
    return checks


def names_code(text: str, code: object) -> bool:
    """Whether ``text`` names ``code`` as a whole token: 'ND' is not inside 'AND', '-99' not inside
    '-999', '99' not inside '99.9'."""
    return re.search(rf"(?<![\w.]){re.escape(str(code))}(?![\w.])", text) is not None
