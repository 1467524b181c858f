"""Columns a data manager names for what they hold — said in the words the readers read.

'mean of visit_end_date - visit_start_date over visit_occurrence rows with visit_concept_id =
9201', 'age from person.birth_datetime to the first condition_start_date of Essential
hypertension', 'year_of_birth < 1950', 'death_date < 2010-01-01', 'distinct drug concept_name
...'. The schema reader takes a question whole or abstains on a field it cannot filter on; these
say, in columns, what the plain readers understand in words. Only when the schema reader has
abstained on such a field is the question said again, driven by the catalog's own roles (the
encounter table's start and end columns, the patient table's birth and death columns, each
stream's time columns) — never by a list of questions:

* ``<end> - <start>`` of the encounter table, where both are dates, is the length of stay;
* 'age from <birth> to X' is the age at X ('... to <now>': the age);
  '(<birth> from person)' beside an age is dropped;
* ``<birth year> < 1950`` is 'born before 1950' (and the other comparisons, and a range
  '1930-1939'); ``<birth date> < DATE '1950-01-01'`` is 'born before 1950' (a whole year only);
* ``<death date> < 2010-01-01`` is 'died before 2010-01-01';
* a stream's time column before 'in 2020', a comparison with a date, or 'of X' is the event's
  date: the column is dropped, the time kept (``drug_exposure_start_date in 2020`` → 'in 2020');
  'earliest <time column>' is 'earliest date';
* ``concept_name`` is the names.

One more is said again before any reader runs, since no reader reads it otherwise:
``count(*) / count(DISTINCT person_id) over X`` (rows per patient id) is 'average number of X
per patient' (``per_patient_ratio``).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["FIELD_ABSTAIN", "per_patient_ratio", "role_words"]

FIELD_ABSTAIN = re.compile(
    r"\(the plan cannot filter on it\)|the plan cannot read it|two tables named", re.I
)
_Q = r"(?:\w+\.)?"  # 'person.birth_datetime'
_RATIO = re.compile(
    r"^\W*count\s*\(\s*\*\s*\)\s*/\s*count\s*\(\s*distinct\s+(?:\w+\.)?(?:person|patient|subject)_?id\s*\)"
    r"\s+(?:over|of|for|from|in|among|across)\s+(?P<rest>.+?)\s*\??\s*$",
    re.I,
)


def per_patient_ratio(question: str) -> str:
    """'count(*) / count(DISTINCT person_id) over X rows' said as 'average number of X rows
    per patient' (else the question unchanged)."""
    m = _RATIO.match(question)
    return f"average number of {m['rest']} per patient" if m else question


_DATE = r"'?(?P<d>\d{4}-\d{2}-\d{2})'?"
_BEFORE = {"<": "before", "<=": "on or before", ">": "after", ">=": "on or after"}


def _alt(cols: set[str]) -> str:
    return "|".join(re.escape(c) for c in sorted(cols, key=len, reverse=True))


def _born(m: re.Match[str]) -> str:
    y, op = int(m["y"]), m["op"]
    return {
        "<": f"born before {y}",
        "<=": f"born before {y + 1}",
        ">": f"born after {y}",
        ">=": f"born after {y - 1}",
        "=": f"born in {y}",
    }[op]


def role_words(question: str, cat: Catalog | None, now: dt.datetime | None = None) -> str:
    """``question`` with the role columns above said in words (unchanged when none is named)."""
    if cat is None:
        return question
    text = question
    enc, pt = cat.encounters, cat.patients
    # dates only: '(end_time - start_time) in days' over timestamps asks for the exact span,
    # not the whole days a length of stay counts
    if enc is not None and enc.end_column and "time" not in enc.end_column.lower():
        end, start = re.escape(enc.end_column), re.escape(enc.start_column)
        text = re.sub(
            rf"\(?\s*{_Q}{end}\s*-\s*{_Q}{start}\s*\)?", " the length of stay ", text, flags=re.I
        )
    if pt is not None:
        births = {c for c in (pt.birth_date_column, pt.birth_year_column) if c}
        if births:
            b = _alt(births)
            text = re.sub(rf"\s*\(\s*{_Q}(?:{b})(?:\s+from\s+\w+)?\s*\)", "", text, flags=re.I)
            today = now.date().isoformat() if now is not None else None

            def age_to(m: re.Match[str]) -> str:
                if m["d"] and m["d"] == today:
                    return "age "
                return f"age at {m['d']} " if m["d"] else "age at "

            text = re.sub(
                rf"\bage\s+(?:in\s+years\s+)?(?:computed\s+|calculated\s+)?from\s+{_Q}(?:{b})\s+"
                rf"(?:to|until|at)\s+(?:the\s+)?(?:{_DATE}\s*)?",
                age_to,
                text,
                flags=re.I,
            )
        if pt.death_date_column:  # 'the age at death_date'
            text = re.sub(
                rf"\bage\s+at\s+(?:the\s+)?{_Q}{re.escape(pt.death_date_column)}\b",
                "age at death",
                text,
                flags=re.I,
            )
        if pt.birth_year_column:
            y = re.escape(pt.birth_year_column)
            text = re.sub(
                rf"{_Q}{y}\s*(?P<op><=|>=|<|>|=)\s*(?P<y>\d{{4}})\b", _born, text, flags=re.I
            )
            text = re.sub(  # 'year_of_birth 1930-1939', 'year_of_birth between 1930 and 1939'
                rf"{_Q}{y}\s+(?:between\s+)?(?P<a>\d{{4}})\s*(?:-|–|and|to)\s*(?P<b>\d{{4}})\b",
                r"born between \g<a> and \g<b>",
                text,
                flags=re.I,
            )
        if pt.birth_date_column:  # 'birth_date < DATE '1950-01-01'': a whole year only
            text = re.sub(
                rf"{_Q}{re.escape(pt.birth_date_column)}\s*(?P<op><|>=)\s*(?:date\s+)?"
                rf"'?(?P<y>\d{{4}})-01-01'?",
                lambda m: f"born {'before' if m['op'] == '<' else 'in or after'} {m['y']}",
                text,
                flags=re.I,
            )
        if pt.death_date_column:
            dcol = re.escape(pt.death_date_column)
            text = re.sub(
                rf"{_Q}{dcol}\s*(?P<op><=|>=|<|>)\s*{_DATE}",
                lambda m: f"died {_BEFORE[m['op']]} {m['d']}",
                text,
                flags=re.I,
            )
    times = {s.time_column for s in cat.streams} | {
        s.end_time_column for s in cat.streams if s.end_time_column
    }
    times = {t for t in times if t and "_" in t}
    if times:
        t = _alt(times)
        text = re.sub(
            rf"{_Q}\b(?:{t})\s*(?P<op><=|>=|<|>)\s*{_DATE}",
            lambda m: f"{_BEFORE[m['op']]} {m['d']}",
            text,
            flags=re.I,
        )
        text = re.sub(
            rf"\b(?P<o>earliest|latest|first|last|min|max)\s+{_Q}(?:{t})(?:\s+dates?)?\b",
            lambda m: f"{m['o']} date",
            text,
            flags=re.I,
        )
        text = re.sub(
            rf"\s+(?:with\s+|whose\s+)?{_Q}\b(?:{t})\b(?=\s+(?:in|during|between|of|before|after)\b)",
            " ",
            text,
            flags=re.I,
        )
    text = re.sub(r"\bconcept_names?(?:\s+values?)?\b", "names", text, flags=re.I)
    text = re.sub(r"\b(at|the)\s+(?:the\s+)?of\b", r"\1", text, flags=re.I)  # a column dropped
    return re.sub(r"\s{2,}", " ", text).strip()
