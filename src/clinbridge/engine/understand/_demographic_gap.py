"""Race and ethnicity in a form the demographic reader does not read: an abstention.

The plan filters and groups on race and ethnicity where the source records them, for the forms
``_demographics`` reads ('hispanic pts', 'Black women with asthma', 'patients by race'). Any
other question that qualifies patients by race or ethnicity must not be read as something
else: the words would otherwise be grounded in an event stream (a survey question named
"Hispanic or Latino" in OBSERVATION) or dropped, and the answer would count the wrong people.
Such a question abstains here, naming the attribute, before any reader runs.

What counts as naming race or ethnicity is general language, not any dataset's codes: the
attribute words themselves, the ethnicity names, and the race names only where they qualify
people ('white patients', never 'white blood cells').
"""

from __future__ import annotations

import re

__all__ = ["demographic_gap"]

_PEOPLE = (
    r"(?:patients?|pts?|people|persons?|individuals?|subjects?|adults?|women|men|females?|males?"
    r"|children|kids|boys|girls|cases|residents?|members?|americans?)"
)
_ETHNICITY = re.compile(
    r"\b(?:non[-\s]?)?(?:hispanics?|latin[oax]s?|latin[oa]/[oa]|ethnicity|ethnicities|ethnic(?:al(?:ly)?)?)\b"
    r"|\bethnicity_(?:concept_id|source_value)\b",
    re.IGNORECASE,
)
_RACE = re.compile(
    r"\b(?:race|races|racial(?:ly)?)\b|\brace_(?:concept_id|source_value)\b"
    r"|\b(?:caucasians?|african[-\s]americans?|pacific\s+islanders?|alaska(?:n)?\s+natives?"
    r"|american\s+indians?|native\s+(?:hawaiians?|americans?))\b"
    rf"|\b(?:white|black|asian)s?\b(?=\s+(?:or\s+\w+\s+)?{_PEOPLE}\b)"
    rf"|\b{_PEOPLE}\s+(?:who\s+are|of|recorded\s+as|identified\s+as)\s+(?:white|black|asian)\b",
    re.IGNORECASE,
)


def demographic_gap(question: str) -> str | None:
    """The abstention reason when the question qualifies patients by race or ethnicity, else None.

    >>> demographic_gap("how many hispanic pts") is not None
    True
    >>> demographic_gap("patients with a white blood cell count above 10") is None
    True
    """
    what = []
    if _ETHNICITY.search(question):
        what.append("ethnicity")
    if _RACE.search(question):
        what.append("race")
    if not what:
        return None
    names = " and ".join(what)
    return (
        f"cannot answer: the question qualifies patients by {names} in a form not read (a "
        f"recorded value qualifying people, 'Asian patients', or a grouping 'by {what[0]}' is)"
    )
