"""A stream's own time column named in the question ('condition_start_date', 'procedure_date').

A data manager says the date of an event by its column: 'earliest Pneumonia condition_start_date
is >= 2000-01-01', 'by year of procedure_date', 'earliest visit_start_date of an ER visit'. The
rules read an event as dated by that column anyway, so the name adds nothing but a word ('date')
nobody can ground. These rewrites, driven by the catalog's time columns (never a list of
questions), say the same in the words the rules read: 'by year', 'date of the earliest ER
visit', or the event alone. End columns are left alone: they mean a discharge or a stop.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["drop_time_columns", "year_equals"]

_YEAR_OF = re.compile(
    r"\b(?:year|extract\s*\(\s*year\s+from)\s*\(?\s*(?P<col>[a-z][\w.]*)\s*\)\s*=\s*'?"
    r"(?P<y>(?:18|19|20)\d\d)\b'?",
    re.I,
)


def year_equals(text: str) -> str:
    """'year(authored_on) = 2020' said as 'authored_on in 2020' (the calendar year), which the
    readers read."""
    return _YEAR_OF.sub(lambda m: f"{m['col']} in {m['y']}", text)


_ORDER = r"(earliest|latest|first|last|most\s+recent|min|max|minimum|maximum)"
# the least / greatest of a date column: its earliest / latest
_WHICH = {"min": "earliest", "minimum": "earliest", "max": "latest", "maximum": "latest"}


def _names(catalog: Catalog) -> list[str]:
    from clinbridge.engine.understand._schema_words import FIELD_ROLES

    names = {s.time_column.lower() for s in catalog.streams if "_" in s.time_column}
    if catalog.adapter == "fhir":  # a resource's own time element, flattened ('authored_on')
        names |= {k for k, role in FIELD_ROLES.items() if role == "time" and "_" in k}
    enc = catalog.encounters
    if enc is not None and "_" in enc.start_column:
        names.add(enc.start_column.lower())
    return sorted(names, key=len, reverse=True)


def drop_time_columns(text: str, catalog: Catalog | None) -> str:
    """``text`` with each start-time column of the catalog said as the rules read it."""
    if catalog is None or "_" not in text:
        return text
    for n in _names(catalog):
        if n not in text:
            continue
        # 'start_time (date)': the column, asked as a date
        col = re.escape(n) + r"(?:\s*\(\s*(?:as\s+an?\s+)?(?:date|day)\s*\))?"
        text = re.sub(rf"\bby\s+(year|month)\s+of\s+(?:the\s+)?{col}\b", r"by \1", text)
        text = re.sub(
            rf"\b{_ORDER}\s*\(?\s*{col}\s*\)?\s+(?:of|for)\s+(?:an?\s+|the\s+)?",
            # the least date asked ('max start_time (date) of X' at the start) is the latest;
            # inside a condition ('persons whose min(date) for X is at age >= 40') it is left
            lambda m: f"date of the {_WHICH.get(m[1].lower(), m[1]) if m.start() == 0 else m[1]} ",
            text,
        )
        text = re.sub(rf"^\s*(?:the\s+)?{col}\s+of\s+(?:an?\s+|the\s+)?", "date of the ", text)
        text = re.sub(rf"\s*\b{col}\b", " ", text)
    return text
