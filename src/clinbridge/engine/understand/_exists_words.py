"""A data manager's existence test said as a question: 'exists drug_exposure for person_id 445
under X (1118084)?', 'exists a procedure_occurrence with Y and procedure_date < 1980-01-01?
yes/no'.

A leading 'exists' (with its article) is 'is there a', and a closing 'yes/no' or 'true/false'
(the answer's form, which a yes/no question has anyway) is dropped; the readers then read the
rest as any other yes/no question. Nothing else is changed.
"""

from __future__ import annotations

import re

__all__ = ["exists_words"]

_LEAD = re.compile(r"^\s*(?:does\s+(?:there\s+)?)?exists?\s+(?:an?\s+|any\s+)?(?=[a-z_])", re.I)
_FORM = re.compile(r"\s*[?,.;:]?\s*\(?\s*(?:yes\s*/\s*no|true\s*/\s*false)\s*\)?\s*[?.]?\s*$", re.I)


def exists_words(question: str) -> str:
    """The question with a leading 'exists' said as 'is there a'."""
    m = _LEAD.match(question)
    if m is None:
        return question
    rest = _FORM.sub("", question[m.end() :]).rstrip(" ?")
    return f"is there a {rest}?"
