"""What a trial question aggregates: a change between two time points (oriented as said), one
numeric variable (the mean when no aggregate is named), a listed variable, or the subjects."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinbridge.engine.plan import Measure
from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._trial_change_sign import oriented
from clinbridge.engine.understand._trial_model import Abstain, Family, Mention
from clinbridge.engine.understand._trial_roles import grounding
from clinbridge.engine.understand._trial_unit_aside import check_unit_aside
from clinbridge.engine.understand._trial_words import IN_UNIT, UNIT_NAMES

if TYPE_CHECKING:
    from clinbridge.engine.understand._trial import _Question

__all__ = ["measure_of", "measured_variable"]


def measure_of(q: _Question, measured: list[Mention]) -> Measure:
    """What is aggregated: a change, a variable, a listed variable, or the patients (q.op set)."""
    measure = Measure(of="patients")
    if q.change:
        if len(measured) != 1 or measured[0].variable is None:
            raise Abstain("a change needs one measurement at two time points")
        mt = measured[0]
        base = mt.baseline if isinstance(mt.target, Family) else None
        if base is None or mt.variable is None:
            # 'difference in mean X between A and B': no second time point of X is named
            raise Abstain(f"a change of {mt.target.label!r} needs it at two time points")
        later, earlier = oriented(q, q.minus, mt.variable, base)  # 'a fall', 'X - Y'
        measure = Measure(of="change", variable=later.name, baseline=earlier.name)
        q.op = q.op if q.op in {"mean", "median", "min", "max", "stddev"} else "mean"
        note = (
            f"minus {base.name} ({base.time_point})"
            if later is mt.variable
            else f"subtracted from {base.name} ({base.time_point}), as said"
        )
        q.groundings.append(grounding(mt, q.text, note=note))
    elif measured:
        measure = measured_variable(q, measured)
    check_unit_aside(q.units_said, q.mentions, measured[0].variable if measured else None)
    if q.listing is not None and q.op is None and measure.of == "patients":
        q.op = "list"
        measure = Measure(of="variable", variable=q.listing.name)
        q.groundings.append(
            Grounding(phrase=q.listing_phrase, kind="aggregate", target=f"list of {q.listing.name}")
        )
    return measure


def measured_variable(q: _Question, measured: list[Mention]) -> Measure:
    if len({(id(m.target), m.variable and m.variable.name) for m in measured}) == 1:
        measured = measured[:1]  # one column named twice ('how heavy ... at birth'): one measure
    if len(measured) > 1:
        names = ", ".join(repr(m.target.label) for m in measured)
        raise Abstain(f"the question names more than one measurement ({names}); ask for one")
    mt = measured[0]
    if mt.variable is None:
        raise Abstain(f"{mt.target.label!r} names no one variable here")
    if q.op in {None, "count", "proportion"}:
        if q.op is not None:
            raise Abstain(
                f"a {q.op} of {mt.target.label!r} needs a condition on it (e.g. 'below 34')"
            )
        q.op = "mean"
        q.groundings.append(
            Grounding(phrase=q.question, kind="aggregate", target="mean (no aggregate named)")
        )
    asked_unit = IN_UNIT.search(q.text)
    if asked_unit and mt.variable.unit:
        said = UNIT_NAMES.get(asked_unit.group(1), asked_unit.group(1))
        stored = UNIT_NAMES.get(mt.variable.unit.lower(), mt.variable.unit)
        if said != stored:
            raise Abstain(
                f"the answer is asked in {said}; {mt.variable.name} is stored in {mt.variable.unit}"
            )
    q.groundings.append(grounding(mt, q.text))
    return Measure(of="variable", variable=mt.variable.name)
