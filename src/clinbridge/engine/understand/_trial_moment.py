"""A variable recorded at one named moment ('Head circumference at birth', 'Birth weight') asked
at a later visit ('head circumference at 18 months').

Such a variable carries no time point of its own in the dictionary, so the time asked would be
dropped and the birth value answered for a visit the trial never measured. A time asked after
birth (hours, minutes or months above zero) for it abstains instead, naming the moment it was
recorded at. So does any time point asked of a variable with none, unless its label names it
('Cooling stopped before 72 h' asked 'before 72h').
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._trial_model import Abstain
from clinbridge.timepoint import find_time_points

if TYPE_CHECKING:
    from clinbridge.timepoint import TimePoint

__all__ = ["check_fixed_moment"]

_AT_BIRTH = re.compile(r"\b(birth|delivery|born)\b", re.I)
"""Words of a label that fix its moment at birth."""


def check_fixed_moment(label: str, asked: list[TimePoint]) -> None:
    """Abstain when ``label`` fixes its moment at birth and a later time point is asked, or
    when a time point is asked of an untimed variable whose label does not name it."""
    moment = _AT_BIRTH.search(label)
    later = [a for a in asked if a.scale in {"h", "min", "mo"} and a.amount > 0]
    if moment is not None and later:
        raise Abstain(
            f"{label!r} was recorded at {moment.group(1).lower()} only, not at {later[0].text()}",
            unresolved=[later[0].text()],
        )
    # no time point of its own, and none in its label: a time asked of it cannot be placed
    # ('the temp at 24h' read as 'Time from start of cooling to target temperature')
    own = {tp.text() for tp, _ in find_time_points(label.lower())}
    stray = [a for a in asked if a.scale in {"h", "min", "mo"} and a.text() not in own]
    if stray:
        raise Abstain(
            f"{label!r} has no time points; the question's {stray[0].text()} cannot be placed",
            unresolved=[stray[0].text()],
        )
