"""Code lists kept on sheets of their own: a trial or centre column holding numbers whose
labels stand on a ``Trials`` or ``Centres`` sheet (``Code | Name`` rows), the dictionary cell
saying ``see Centres sheet`` or nothing at all.

A sheet is taken as the column's list only when it is named by the pointer (or its header or
name shares a word with the column's name or label), it has a column of codes and a column of
text labels, and its codes cover every value the column holds. Anything less leaves the column
as it was.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from clinbridge.adapters.trial._codes import is_number

if TYPE_CHECKING:
    from clinbridge.adapters.trial._dictionary import Entry
    from clinbridge.adapters.trial._read import Sheet

__all__ = ["codes_from_list_sheets"]

_MOST_ROWS = 200
"""A list sheet is short; a longer sheet is data or a dictionary."""
_DESIGN_WORDS = re.compile(r"\b(trial|study|site|centre|center|hospital|arm|group)s?\b", re.I)


def _words(text: Any) -> set[str]:
    out = set()
    for w in re.findall(r"[a-z]+", str(text or "").lower()):
        out.add(w[:-1] if w.endswith("s") and len(w) > 3 else w)
    return out - {"see", "sheet", "tab", "list", "code", "codes", "the", "of", "for", "name", "id"}


def _key(v: Any) -> str | None:
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    text = str(v).strip()
    if not text:
        return None
    if is_number(text) and float(text).is_integer():
        return str(int(float(text)))
    return text


def _pairs(sheet: Sheet) -> dict[str, str] | None:
    """The sheet's (code → label) rows: the first column of whole numbers beside a text column."""
    rows = [r for r in sheet.rows if any(_key(v) for v in r)]
    if len(rows) < 2 or len(rows) > _MOST_ROWS:
        return None
    body = rows[1:]
    width = max(len(r) for r in rows)
    for j in range(width - 1):
        keys = [_key(r[j]) if j < len(r) else None for r in body]
        if not all(k is not None and is_number(k) for k in keys):
            continue
        for k in range(j + 1, width):
            labels = [_key(r[k]) if k < len(r) else None for r in body]
            if all(lab and re.search(r"[A-Za-z]", lab) for lab in labels):
                out = {c: lab for c, lab in zip(keys, labels, strict=True) if c and lab}
                return out if len(out) == len(body) else None
        return None
    return None


def codes_from_list_sheets(entry: Entry, sheets: list[Sheet], values: list[Any]) -> bool:
    """Give a numeric design column (trial, centre...) without codes the labels of the list
    sheet it points to; return whether it did."""
    if entry.codes or entry.role == "subject" or entry.type not in {"integer", "float", "string"}:
        return False
    pointer = _words(entry.listed_in)
    own = _words(entry.name) | _words(entry.label)
    if not entry.listed_in and not _DESIGN_WORDS.search(f"{entry.name} {entry.label}"):
        return False
    seen = {k for k in map(_key, values) if k is not None} - set(entry.missing)
    if not seen or not all(is_number(k) for k in seen):
        return False
    found: list[dict[str, str]] = []
    for sheet in sheets:
        head = " ".join(str(v) for v in (sheet.rows[0] if sheet.rows else []) if v is not None)
        named = _words(sheet.name)
        if pointer:
            if not named & pointer:
                continue
        elif not (named | _words(head)) & own:
            continue
        pairs = _pairs(sheet)
        if pairs and seen <= set(pairs):
            found.append(pairs)
    if len(found) != 1:
        return False
    entry.codes = found[0]
    entry.type = "categorical"
    entry.typed = True
    return True
