"""Checks that a wide (trial) answer kept what the question wrote and can name its groups.

* ``conditions_kept``: every condition the question writes on a variable by its name
  (``ARM = 2``, ``VENT_DAYS >= 5``, ``STUDY = 'KES'``) is a condition of the plan (or of either
  side of a difference) — never dropped, and never read as a grouping by that variable, which
  answers every value of it instead of the one asked;
* ``groups_named``: a grouped answer names its groups — when not one group of a categorical
  variable carries a label (codes 1 and 2 with no labels, as a dictionary whose codes the loader
  did not read leaves them), the groups cannot be told apart and the answer is not given; the
  same for a list of such a variable's values ('which sites had any NEC?' over site numbers).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from clinbridge.engine.answer import Check
from clinbridge.engine.plan import QueryPlan, VariableFilter

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog, Variable

__all__ = ["check_wide_clauses", "written_conditions"]

_CLAUSE = re.compile(
    r"(?<![\w.])(?P<name>[A-Za-z][\w.]*)\s*(?P<op>==|!=|<>|>=|<=|=|>|<|≥|≤)\s*"
    r"(?P<value>'[^']*'|\"[^\"]*\"|-?\d+(?:\.\d+)?|[A-Za-z]\w*)"
)


def written_conditions(question: str, catalog: Catalog) -> list[tuple[str, str]]:
    """(variable name, the clause as written) for each ``NAME op value`` in the question whose
    NAME is a catalog variable's name (case set aside)."""
    names = {v.name.lower(): v.name for v in catalog.variables}
    out = []
    for m in _CLAUSE.finditer(question or ""):
        name = names.get(m.group("name").lower())
        if name is not None:
            out.append((name, m.group(0).strip()))
    return out


def _filtered(plan: QueryPlan | None) -> set[str]:
    """The variables the plan (and the plans it subtracts) puts a condition on."""
    out: set[str] = set()
    while plan is not None:
        for f in (*plan.filters, *plan.aggregate.numerator):
            if isinstance(f, VariableFilter) and f.op != "known":
                out.add(f.variable)
        plan = plan.minus
    return out


def _labelled(v: Variable, value: Any) -> bool:
    """Whether a group's value names the group: a label the dictionary gives, or a text."""
    if isinstance(value, str):
        return bool(value.strip())
    if value is None:
        return False
    key = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    return bool((v.codes or {}).get(key))


def _names_value(v: Variable, value: Any) -> bool:
    """Whether a listed value names what it stands for: not a code of ``v`` that the dictionary
    leaves unlabelled ('1' of a site column with no names)."""
    codes = v.codes or {}
    if isinstance(value, str) and value.strip() in codes:
        return bool(codes[value.strip()])
    return _labelled(v, value)


def _listed_variable(plan: QueryPlan, by: dict[str, Variable]) -> Variable | None:
    """The categorical variable whose values a list answer gives: the one listed ('which sites
    had ...'), or the one grouped by when only the groups come back ('which sites randomised
    more than 25')."""
    names = []
    if plan.aggregate.op == "list" and plan.measure.variable:
        names.append(plan.measure.variable)
    names += [g.variable for g in plan.group_by if g.variable]
    found = [by[n] for n in names if n in by and by[n].type == "categorical"]
    return found[0] if len(found) == 1 else None


def _unnamed(what: str, seen: list[Any]) -> Check:
    """The failed ``groups_named`` check: ``what`` ('the groups of SITE') are codes no label names."""
    shown = ", ".join(str(s) for s in seen[:4])
    return Check(
        name="groups_named",
        passed=False,
        code="not_stored",
        detail=f"{what} are codes with no label ({shown}): the dictionary names none of them",
    )


def check_wide_clauses(
    plan: QueryPlan, catalog: Catalog, question: str | None, value: Any
) -> list[Check]:
    """The two checks above, for a plan over a wide table."""
    checks: list[Check] = []
    if question:
        kept = _filtered(plan)
        lost = [
            clause for name, clause in written_conditions(question, catalog) if name not in kept
        ]
        grouped = {g.variable for g in plan.group_by if g.variable}
        detail = ""
        if lost:
            name = next(n for n, c in written_conditions(question, catalog) if c == lost[0])
            how = "read as a grouping by it" if name in grouped else "not in the plan"
            detail = f"the condition {lost[0]!r} is {how}; the answer would not be restricted by it"
        checks.append(
            Check(
                name="conditions_kept",
                passed=not lost,
                code="question_not_covered",
                detail=detail or "every written condition is in the plan",
            )
        )
    by = {v.name: v for v in catalog.variables}
    rows = value if isinstance(value, list) else []
    listed = _listed_variable(plan, by)
    if listed is not None and rows and not any(isinstance(r, dict) for r in rows):
        seen = list(dict.fromkeys(r for r in rows if r is not None))
        if seen and not any(_names_value(listed, r) for r in seen):
            checks.append(_unnamed(f"the values of {listed.name} listed", seen))
    for g in plan.group_by:
        v = by.get(g.variable or "")
        if v is None or v.type != "categorical" or not rows:
            continue
        seen = [r.get(v.column, r.get(v.name)) for r in rows if isinstance(r, dict)]
        seen = list(dict.fromkeys(s for s in seen if s is not None))
        if seen and not any(_labelled(v, s) for s in seen):
            checks.append(_unnamed(f"the groups of {v.name}", seen))
    return checks
