"""A patient named by a bare number: 'what vaccines has 3516 had', 'how old was 16 at her first
pregnancy', '5153 - celecoxib start to GI bleed, # days'.

A clinician types the record number alone where a noun phrase would name the patient. A bare
integer is read as 'patient N' only when all of these hold:

* it stands where the subject of the sentence stands — right after an auxiliary ('has', 'did',
  'was', 'is', 'does') and before a verb, an adverb, 'at' or 'with' ('how old was 2847 w the
  wrist sprain'); or first in the question before 'ever', 'never', 'currently' or 'still'
  ('445 ever on celebrex?'); or first in the question before a dash or colon, or before what is asked of the patient ('1655 age at ...', '1655 last med');
  or with a possessive ('3516's'); or last, after 'for' ('# of courses for 1655');
* it is the id of a patient in the connected source (checked against the patient table's ids,
  read once when the understander is built);
* it is not a plausible year (1900–2100) and the question names no other patient and asks
  nothing about patients in the plural — otherwise the number is a threshold, a year or a count,
  or could be, and the question is left as written (it then abstains on the unread number).
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["bare_patient_ids", "integer_patient_ids"]

logger = logging.getLogger(__name__)

_MAX_IDS = 500_000
"""Beyond this many patients the ids are not read; a bare number then stays unread."""

_AFTER = (
    r"(?:had|has|have|ever|never|been|got|gotten|get|gets|receive[ds]?|received|take|taken|took|"
    r"die[ds]?|died|start(?:ed)?|begin|began|break|broke|undergo|underwent|undergone|visit(?:ed)?|"
    r"at|when|first|last|currently|still|on|in|diagnosed|dx|admitted|prescribed|given|w|with)"
)
# first in the question before what is asked of the patient: '1655 age at asthma dx?',
# '1655 last med given when?'
_LEAD = (
    r"(?:age|aged|last|first|latest|earliest|most\s+recent|dob|birth\s*date|born|current|recent)"
)
_SUBJECT = re.compile(
    rf"\b(?P<aux>has|had|did|does|was|is)\s+(?P<n>\d{{1,12}})(?=\s+{_AFTER}\b)"
    r"|^(?P<n2>\d{1,12})(?=\s*(?:-+>?|:|—|–)\s)"
    r"|(?<![\w.-])(?P<n3>\d{1,12})(?='s\b)"
    # ('5 most recent visits': a number of things, not a patient)
    rf"|^(?P<n4>\d{{1,12}})(?=\s+{_LEAD}\b(?!\s+[a-z]+s\b))"
    # '445 ever on celebrex?': first in the question before an adverb of the patient's history
    r"|^(?P<n6>\d{1,12})(?=\s+(?:ever|never|currently|still)(?![\w-]))"
    # '# of pen VK courses for 1655': the patient the question ends on
    r"|\bfor\s+(?P<n5>\d{1,12})(?=\s*\??\s*$)",
    re.I,
)
_OTHER_PATIENT = re.compile(
    r"\b(?:patients?|pts?|persons?|people|subjects?|person_id|patient_id)\b", re.I
)


def integer_patient_ids(db: Database, catalog: Catalog) -> frozenset[str]:
    """The patient table's integer ids as text (empty when there are none or too many)."""
    from sqlglot import exp

    pt = catalog.patients
    if pt is None:
        return frozenset()
    column = pt.external_id_column or pt.id_column
    try:
        sql = exp.select(exp.column(column)).from_(pt.table).limit(_MAX_IDS + 1).sql(db.dialect)
        rows = db.execute(sql, max_rows=_MAX_IDS + 1).rows
    except Exception as exc:  # an unreadable patient table: no bare ids are read
        logger.debug("patient ids unreadable: %s", exc)
        return frozenset()
    if len(rows) > _MAX_IDS:
        return frozenset()
    return frozenset(str(r[0]) for r in rows if _integer(r[0]))


def _integer(value: Any) -> bool:
    return isinstance(value, int) or (isinstance(value, str) and value.isdigit())


def bare_patient_ids(question: str, lex: Lexicon) -> str:
    """``question`` with a bare patient number in subject position written 'patient N'."""
    ids: frozenset[str] = getattr(lex, "patient_ids", None) or frozenset()
    if not ids or _OTHER_PATIENT.search(question):
        return question
    hits = list(_SUBJECT.finditer(question))
    numbers = {next(g for g in m.group("n", "n2", "n3", "n4", "n5", "n6") if g) for m in hits}
    if len(numbers) != 1:
        return question
    n = numbers.pop()
    if n not in ids or 1900 <= int(n) <= 2100:
        return question
    m = hits[0]
    start, end = m.span(next(k for k in ("n", "n2", "n3", "n4", "n5", "n6") if m[k]))
    return f"{question[:start]}patient {n}{question[end:]}"
