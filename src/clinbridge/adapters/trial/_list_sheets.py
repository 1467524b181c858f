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

__all__ = ["cell_key", "codes_from_list_sheets", "long_code_tables"]

_MOST_ROWS = 200
"""A list sheet is short; a longer sheet is data or a dictionary."""
_DESIGN_WORDS = re.compile(r"\b(trial|study|site|centre|center|hospital|arm|group)s?\b", re.I)


def _words(text: Any) -> set[str]:
    out = set()
    for w in re.findall(r"[a-z]+", str(text or "").lower()):
        out.add(w[:-1] if w.endswith("s") and len(w) > 3 else w)
    return out - {"see", "sheet", "tab", "list", "code", "codes", "the", "of", "for", "name", "id"}


def cell_key(v: Any) -> str | None:
    """A cell as a code: whole numbers without '.0', text stripped; None for blanks and booleans."""
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
    rows = [r for r in sheet.rows if any(cell_key(v) for v in r)]
    if len(rows) < 2 or len(rows) > _MOST_ROWS:
        return None
    body = rows[1:]
    width = max(len(r) for r in rows)
    for j in range(width - 1):
        keys = [cell_key(r[j]) if j < len(r) else None for r in body]
        if not all(k is not None and is_number(k) for k in keys):
            continue
        for k in range(j + 1, width):
            labels = [cell_key(r[k]) if k < len(r) else None for r in body]
            if all(lab and re.search(r"[A-Za-z]", lab) for lab in labels):
                out = {c: lab for c, lab in zip(keys, labels, strict=True) if c and lab}
                return out if len(out) == len(body) else None
        return None
    return None


def codes_from_list_sheets(entry: Entry, sheets: list[Sheet], values: list[Any]) -> bool:
    """Give a numeric design column (trial, centre...) without codes the labels of the list
    sheet it points to; return whether it did."""
    if entry.codes or entry.role == "subject" or entry.type == "date":
        return False
    pointer = _words(entry.listed_in)
    own = _words(entry.name) | _words(entry.label)
    if not entry.listed_in and not _DESIGN_WORDS.search(f"{entry.name} {entry.label}"):
        return False
    seen = {k for k in map(cell_key, values) if k is not None} - set(entry.missing)
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


_CODE_HEAD = re.compile(r"\b(code|value|level|category|option)s?\b", re.I)
_LABEL_HEAD = re.compile(r"\b(label|meaning|description|text|decode|name)s?\b", re.I)


def long_code_tables(sheets: list[Sheet], names: list[str]) -> dict[str, dict[str, str]]:
    """Code lists kept as one row per code on a sheet of their own (``Variable | Value | Label``,
    the variable's name written on its first row or on every row): {column name: codes}."""
    wanted = {n.lower(): n for n in names if n}
    out: dict[str, dict[str, str]] = {}
    for sheet in sheets:
        found = _long_table(sheet, wanted)
        for name, codes in found.items():
            out.setdefault(name, codes)
    return out


def _long_table(sheet: Sheet, wanted: dict[str, str]) -> dict[str, dict[str, str]]:
    for i, head in enumerate(sheet.rows[:10]):
        body = sheet.rows[i + 1 :]
        width = max((len(r) for r in body[:300]), default=0)
        if width < 3 or len(body) < 3:
            continue

        var = None
        for j in range(width):
            filled = [k for r in body if (k := cell_key(r[j] if j < len(r) else None)) is not None]
            hits = sum(k.lower() in wanted for k in filled)
            if hits >= 2 and hits == len(filled):
                var = j
                break
        if var is None:
            continue
        rows = [r for r in body if any(cell_key(v) for k, v in enumerate(r) if k != var)]
        heads = [str(h or "") for h in head]
        code = next(
            (
                j
                for j in range(width)
                if j != var and j < len(heads) and _CODE_HEAD.search(heads[j])
            ),
            None,
        )
        label = next(
            (
                j
                for j in range(width)
                if j not in {var, code} and j < len(heads) and _LABEL_HEAD.search(heads[j])
            ),
            None,
        )
        if code is None or label is None:
            continue
        table: dict[str, dict[str, str]] = {}
        current: str | None = None
        for r in rows:
            name = cell_key(r[var]) if var < len(r) else None
            if name is not None:
                current = wanted.get(name.lower())
                if current is None:
                    return {}
            c = cell_key(r[code]) if code < len(r) else None
            lab = cell_key(r[label]) if label < len(r) else None
            if current is None or c is None or lab is None:
                return {}  # a row this reading cannot place: not a code table
            if c in table.setdefault(current, {}):
                return {}
            table[current][c] = lab
        if table:
            return table
    return {}
