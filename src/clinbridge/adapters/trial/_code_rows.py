"""Codes written one to a row beneath their variable, as many codebooks lay them out.

::

    Field name | Description          | Format | ... | Code | Code label     | Missing?
    SEX        | Sex of infant        | coded  |     |      |                |
               |                      |        |     | 1    | Male           |
               |                      |        |     | 2    | Female         |
               |                      |        |     | 9    | Unknown        | Y

The dictionary's header names a column of codes (``Code``, ``Value``) and a column of their
labels (``Code label``, ``Value label``, ``Decode``); a row whose variable cell is blank and whose
code cell is not holds one code of the variable above it. A flag in the missing column (``Y``,
``Yes``, ``X``) makes that code a missing code; without a missing column a code whose label says
missing ('Unknown', 'Not done') is one. Such rows are the variable's, never a workbook-wide note.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from clinbridge.adapters.trial._codes import split_missing

if TYPE_CHECKING:
    from clinbridge.adapters.trial._dictionary import Entry

__all__ = ["code_columns", "code_rows", "has_code", "is_code_row", "take_code_row"]

_CODE_WORDS = frozenset({"code", "codes", "value", "values", "level", "category"})
_LABEL_WORDS = frozenset({"label", "labels", "meaning", "decode", "text", "description"})
_FLAGS = frozenset({"y", "yes", "x", "1", "true", "missing", "m", "*"})


def _words(h: Any) -> set[str]:
    return set(re.findall(r"[a-z]+", str(h).lower())) if h is not None else set()


def code_columns(row: list[Any], cols: dict[str, int]) -> dict[str, int]:
    """``cols`` with the column of one code per row (``codes``) and of its label
    (``code_label``), when the header names both ('Code' and 'Code label')."""
    if "code_label" in cols:
        return cols
    taken = {j for k, j in cols.items() if k != "codes"}
    label = next(
        (
            j
            for j, h in enumerate(row)
            if j not in taken and (w := _words(h)) & _LABEL_WORDS and w & _CODE_WORDS
        ),
        None,
    )
    if label is None:
        return cols
    code = cols.get("codes")
    if code is None or code == label:
        code = next(
            (
                j
                for j, h in enumerate(row)
                if j not in taken and j != label and (w := _words(h)) and w <= _CODE_WORDS
            ),
            None,
        )
    if code is None:
        return cols
    return {**cols, "codes": code, "code_label": label}


def _cell(row: list[Any], j: int | None) -> Any:
    if j is None or j >= len(row):
        return None
    v = row[j]
    if v is None or (isinstance(v, str) and not v.strip()) or (isinstance(v, float) and v != v):
        return None
    return v


def has_code(row: list[Any], cols: dict[str, int]) -> bool:
    """Whether a dictionary row holds a code in the one-code-a-row column."""
    return "code_label" in cols and _cell(row, cols["codes"]) is not None


def is_code_row(row: list[Any], cols: dict[str, int]) -> bool:
    """Whether a dictionary row holds one code of the variable above it (blank variable cell)."""
    return has_code(row, cols) and _cell(row, cols["variable"]) is None


def code_rows(rows: list[list[Any]], header: int, cols: dict[str, int]) -> set[int]:
    """The 0-based indexes of the rows below ``header`` that hold one code each."""
    if "code_label" not in cols:
        return set()
    return {i for i in range(header + 1, len(rows)) if is_code_row(rows[i], cols)}


def _key(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip()


def take_code_row(entry: Entry, row: list[Any], cols: dict[str, int]) -> None:
    """Add the code on ``row`` (and its label) to ``entry``'s codes or missing codes."""
    code = _key(_cell(row, cols["codes"]))
    label = _cell(row, cols["code_label"])
    label = "" if label is None else _key(label)
    if "missing" in cols:
        flag = _cell(row, cols["missing"])
        missing = flag is not None and _key(flag).lower() in _FLAGS
    else:
        missing = bool(split_missing({code: label})[1])
    if missing:
        entry.missing[code] = label
        entry.codes.pop(code, None)
        return
    entry.codes[code] = label
    if entry.type in {"integer", "float", "string"} or not entry.typed:
        entry.type, entry.typed = "categorical", True
