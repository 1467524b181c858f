"""What a data manager types in SQL's own words, said the way the readers read it.

'exists X ...?' is a yes/no question: a data manager writes the SQL predicate as the question
('exists drug_exposure for person_id 445 under celecoxib?', 'exists a Peptic ulcer
condition_occurrence with condition_start_date >= 2012-01-01? yes/no', 'does there exist a
person with ...'). A leading 'exists' (or 'there exists', 'does there exist') is read as 'is
there any': whether at least one such record is stored. Only at the start of the question,
where the word can be nothing but the predicate.

'date_diff' is SQL's difference of two dates: "date_diff('day', A, B)", 'date_diff day, A, B'
(inside an aggregate's parentheses) are 'days from A to B'; "date_diff('day') between A and
B", 'date_diff in days from A to B' are 'days between A and B', 'days from A to B' — the words
the readers of elapsed time read. The unit is kept (days, weeks, months, years); arguments are
read only when plain (no commas or parentheses inside).

A range written '2010..2018' is left as typed: said as '2010-2018' it met a reading that drops
the span from a schema-worded breakdown (every year answered: a wrong answer, not a gain).
"""

from __future__ import annotations

import re

__all__ = ["date_diff_said", "exists_asked", "sql_said"]

_EXISTS = re.compile(
    r"^\s*(?:does\s+there\s+exist|there\s+exists?|exists?)\s+(?:an?\s+|any\s+|some\s+)?"
    r"(?=[A-Za-z'\"])",
    re.I,
)


def exists_asked(question: str) -> str:
    """``question`` with a leading 'exists' said as 'is there any'."""
    return _EXISTS.sub("is there any ", question, count=1)


_FUNC = r"\bdate_?diff"
_UNIT = r"'?(?P<u>day|week|month|year)s?'?"
_ARGS = r"(?P<a>[^,()]+?)\s*,\s*(?P<b>[^,()]+?)"
_DIFF_CALL = re.compile(rf"{_FUNC}\s*\(\s*{_UNIT}\s*,\s*{_ARGS}\s*\)", re.I)
_DIFF_LISTED = re.compile(rf"{_FUNC}\s+(?:in\s+)?{_UNIT}\s*,\s*{_ARGS}(?=\s*\))", re.I)
_DIFF_UNIT = re.compile(
    rf"{_FUNC}\s*(?:\(\s*{_UNIT}\s*\)|\s+(?:in\s+)?{_UNIT.replace('?P<u>', '?P<v>')})", re.I
)


_ONE_RECORD = re.compile(r"(?P<p>\w*?)_?start(?:_date|_datetime|_time)?$", re.I)


def _said(m: re.Match[str]) -> str:
    """'days from A to B'; a record's own start to its end ('condition_start_date,
    condition_end_date') stays as written: that is how long the record lasted, which the
    episode reader reads from the SQL form."""
    a, b = m["a"].strip(), m["b"].strip()
    one = _ONE_RECORD.match(a)
    if one is not None and re.fullmatch(rf"{re.escape(one['p'])}_?end\w*", b, re.I):
        return m[0]
    return f"{m['u'].lower()}s from {m['a']} to {m['b']}"


def date_diff_said(question: str) -> str:
    """``question`` with SQL's 'date_diff' said as the days (weeks, ...) from one date to another."""
    question = _DIFF_CALL.sub(_said, question)
    question = _DIFF_LISTED.sub(_said, question)
    return _DIFF_UNIT.sub(lambda m: f"{(m['u'] or m['v']).lower()}s", question)


def sql_said(question: str) -> str:
    """``question`` with the SQL words of the module docstring said plainly."""
    return date_diff_said(exists_asked(question))
