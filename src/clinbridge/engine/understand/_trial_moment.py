"""A variable recorded at one named moment ('Head circumference at birth', 'Birth weight') asked
at a later visit ('head circumference at 18 months').

Such a variable carries no time point of its own in the dictionary, so the time asked would be
dropped and the birth value answered for a visit the trial never measured. A time asked after
birth (hours, minutes or months above zero) for it abstains instead, naming the moment it was
recorded at.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._trial_model import Abstain

if TYPE_CHECKING:
    from clinbridge.timepoint import TimePoint

__all__ = ["check_fixed_moment"]

_AT_BIRTH = re.compile(r"\b(birth|delivery|born)\b", re.I)
"""Words of a label that fix its moment at birth."""


def check_fixed_moment(label: str, asked: list[TimePoint]) -> None:
    """Abstain when ``label`` fixes its moment at birth and a later time point is asked."""
    moment = _AT_BIRTH.search(label)
    later = [a for a in asked if a.scale in {"h", "min", "mo"} and a.amount > 0]
    if moment is not None and later:
        raise Abstain(
            f"{label!r} was recorded at {moment.group(1).lower()} only, not at {later[0].text()}",
            unresolved=[later[0].text()],
        )
