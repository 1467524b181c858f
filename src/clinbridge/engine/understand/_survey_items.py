"""A questionnaire item's label is not the finding it asks about.

Screening instruments store their questions as concepts ('Are you a refugee', 'Do you feel
safe at home', 'Have you been ...'): a record of one says the question was asked, not that
the answer was yes. Stop words aside, such a label holds the same words as the finding it asks
about ('Refugee'), so a plain phrase ('refugee') would match both exactly. Where the phrase does
not itself ask the question, the item is only a label *containing* the words (scored below
an exact name), so the finding alone is read; a phrase that says the question ('are you a
refugee') still matches the item exactly.
"""

from __future__ import annotations

import re

__all__ = ["asks_the_patient", "survey_demoted"]

_ASKED = re.compile(
    r"^\s*(?:are|do|does|did|have|has|had|is|was|were|can|could|will|would|how|what|when|"
    r"which|who|in\s+the\s+past)\b[^?]*\b(?:you|your|yourself)\b|\?\s*$",
    re.IGNORECASE,
)
"""A question put to the patient: an asking word opening a clause about 'you', or a final '?'."""


def asks_the_patient(label: str) -> bool:
    """Whether a concept label is a question put to the patient (a questionnaire item)."""
    return bool(_ASKED.search(label))


SCORE = 0.9
"""The score of a questionnaire item matched by a plain phrase: a contained-words match."""


def survey_demoted(label: str, phrase: str) -> bool:
    """Whether ``label`` (matched exactly once stop words are dropped) is a questionnaire item
    that ``phrase`` does not ask: it then matches as a label containing the words only."""
    return asks_the_patient(label) and not asks_the_patient(phrase)
