"""'in all infants' said of a variable one trial collected: the answer would cover that trial
only, so the reading abstains and says which trial to ask about (said plainly, 'mean MRI score',
it is answered with a note that it was collected only in that trial)."""

from __future__ import annotations

import re
from typing import Any

from clinbridge.engine.understand._trial_model import Abstain

ALL_SUBJECTS = re.compile(
    r"\b(?:all|every|each\s+and\s+every)\s+(?:the\s+|of\s+the\s+)?"
    r"(?:infants?|babies|baby|neonates?|newborns?|patients?|participants?|subjects?|children|child)\b"
    r"|\bthe\s+(?:whole|entire|full)\s+(?:cohort|population|sample)\b"
    r"|\b(?:both|the\s+two|two)\s+(?:trials|studies)\s+(?:combined|pooled|together)\b"
    r"|\b(?:combining|pooling)\s+(?:both|the\s+two|the)\s+(?:trials|studies)\b"
)
"""All the infants: 'in all infants', 'the whole cohort', 'both trials combined'."""


def check_all_subjects(text: str, mentions: list[Any], trials: tuple[str, ...]) -> None:
    said = ALL_SUBJECTS.search(text)
    if said is None:
        return
    for mt in mentions:
        var = mt.variable
        if var is not None and var.trials and set(var.trials) != set(trials):
            only = ", ".join(var.trials)
            raise Abstain(
                f"{var.name} ({var.description}) was collected only in {only}; it cannot be "
                f"given for {said.group(0)!r} — ask for it in {only}"
            )
