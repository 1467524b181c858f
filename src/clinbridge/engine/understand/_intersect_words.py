"""Set words of a data manager's cohort said as the conjunction they are: the patients with both.

'size of the intersection of person_ids with A and with B' is 'count of person_ids with A and
with B'; 'intersection of person_id sets: A and B in condition_occurrence; count' is 'count
person_id with A and B in condition_occurrence'; 'person_id with A INTERSECT person_id with B'
is 'person_id with A and with B'. Only these set words of patient ids are rewritten; the
readers then read both conditions as usual.
"""

from __future__ import annotations

import re

__all__ = ["intersect_words"]

_IDS = r"(?:person|patient|subject)_ids?"
_SIZE = re.compile(
    rf"\b(?:the\s+)?(?:size|count|number|cardinality)\s+of\s+the\s+intersection\s+of\s+(?={_IDS}\b)",
    re.I,
)
_SETS = re.compile(
    rf"^\s*(?:the\s+)?intersection\s+of\s+(?P<ids>{_IDS})\s+sets?\s*:\s*(?P<rest>.+?)\s*;\s*"
    r"(?:count|how\s+many)\s*[?.]?\s*$",
    re.I,
)
_INTERSECT = re.compile(rf"\s+intersect\s+{_IDS}\s+(?=with\b)", re.I)


def intersect_words(question: str) -> str:
    """The question with its set words of patient ids said as 'and'."""
    m = _SETS.match(question)
    if m is not None:
        question = f"count {m['ids']} with {m['rest']}"
    question = _SIZE.sub("count of ", question)
    return _INTERSECT.sub(" and ", question)
