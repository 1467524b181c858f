"""What a data manager types in SQL's own words, said the way the readers read it.

'exists X ...?' is a yes/no question: a data manager writes the SQL predicate as the question
('exists drug_exposure for person_id 445 under celecoxib?', 'exists a Peptic ulcer
condition_occurrence with condition_start_date >= 2012-01-01? yes/no', 'does there exist a
person with ...'). A leading 'exists' (or 'there exists', 'does there exist') is read as 'is
there any': whether at least one such record is stored. Only at the start of the question,
where the word can be nothing but the predicate.

A range written '2010..2018' is left as typed: said as '2010-2018' it met a reading that drops
the span from a schema-worded breakdown (every year answered: a wrong answer, not a gain).
"""

from __future__ import annotations

import re

__all__ = ["exists_asked", "sql_said"]

_EXISTS = re.compile(
    r"^\s*(?:does\s+there\s+exist|there\s+exists?|exists?)\s+(?:an?\s+|any\s+|some\s+)?"
    r"(?=[A-Za-z'\"])",
    re.I,
)


def exists_asked(question: str) -> str:
    """``question`` with a leading 'exists' said as 'is there any'."""
    return _EXISTS.sub("is there any ", question, count=1)


def sql_said(question: str) -> str:
    """``question`` with the SQL words of the module docstring said plainly."""
    return exists_asked(question)
