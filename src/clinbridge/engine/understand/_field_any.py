"""'..., any status': a field said to take any value filters nothing.

A data manager closes a count with 'any status', 'regardless of status', 'whatever the
intent', 'all statuses' to say that no value of that column is left out. The schema reader
reads a field named without a value as one it cannot filter on and abstains; the phrase says
there is no filter. It is dropped when the word is a column of the source (a table's column,
as the catalog lists it), never otherwise.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["drop_any_field"]

_ANY = re.compile(
    r"[,;]?\s*\(?\b(?:any|all|every|regardless\s+of(?:\s+the)?|whatever\s+the|irrespective\s+of"
    r"(?:\s+the)?|of\s+any)\s+(?P<field>[a-z_]+)\b\)?(?=\s*(?:[,;.?!)]|$))",
    re.I,
)


def _columns(catalog: Catalog) -> set[str]:
    return {c.name.lower() for t in catalog.tables for c in t.columns}


def drop_any_field(text: str, catalog: Catalog | None) -> str:
    """``text`` without a closing 'any <field>' where the field is a column of the source."""
    if catalog is None or not _ANY.search(text):
        return text
    columns = _columns(catalog)

    def repl(m: re.Match[str]) -> str:
        word = m["field"].lower()  # 'all statuses': the column 'status'
        said = {word, word.removesuffix("s"), word.removesuffix("es")}
        return "" if said & columns else m[0]

    return _ANY.sub(repl, text)
