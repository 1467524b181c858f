"""The dictionary's sheet and its rows: a dictionary given by name or as a file, and the entries
its rows hold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clinbridge.adapters.trial._dictionary import Entry, parse_entry
from clinbridge.adapters.trial._read import Sheet, dictionary_columns, read_sheets
from clinbridge.errors import LoadError

__all__ = ["dictionary_entries", "given_dictionary"]


def _blank(v: Any) -> bool:
    return v is None or (isinstance(v, str) and not v.strip()) or (isinstance(v, float) and v != v)


def given_dictionary(
    dictionary: str | Path | None, sheets: list[Sheet], path: str | Path, *, encoding: str | None
) -> tuple[Sheet, int, dict[str, int]] | None:
    """The dictionary the caller named (a file, or a sheet of the workbook): its sheet, header row
    and columns; None when none was named."""
    if dictionary is None:
        return None
    dict_sheet: Sheet | None = None
    dict_header = 0
    dict_cols: dict[str, int] = {}
    if Path(str(dictionary)).exists():
        for s in read_sheets(dictionary, encoding=encoding):
            for i, row in enumerate(s.rows[:10]):
                cols = dictionary_columns(row)
                if cols:
                    dict_sheet, dict_header, dict_cols = s, i, cols
                    break
            if dict_sheet:
                break
        if dict_sheet is None:
            raise LoadError(
                "the dictionary file has no header row with a variable-name and a label column",
                file=str(dictionary),
            )
    else:
        named = [s for s in sheets if s.name.lower() == str(dictionary).lower()]
        if not named:
            raise LoadError(
                f"no dictionary sheet or file {str(dictionary)!r} (sheets: "
                f"{', '.join(s.name for s in sheets)})",
                file=str(path),
            )
        dict_sheet = named[0]
        for i, row in enumerate(dict_sheet.rows[:10]):
            dict_cols = dictionary_columns(row)
            if dict_cols:
                dict_header = i
                break
        if not dict_cols:
            raise LoadError(
                "the dictionary sheet has no header row with a variable-name and a label column",
                **dict_sheet.where(),
            )
    return dict_sheet, dict_header, dict_cols


def dictionary_entries(sheet: Sheet, header: int, cols: dict[str, int]) -> dict[str, Entry]:
    """The entries of the dictionary's rows below its header, by lower-case name."""
    out: dict[str, Entry] = {}
    for i in range(header + 1, len(sheet.rows)):
        row = sheet.rows[i]
        j = cols["variable"]
        if j >= len(row) or _blank(row[j]):
            continue
        entry = parse_entry(row, cols, i)
        key = entry.name.lower()
        if key in out:
            raise LoadError(
                f"the dictionary lists variable {entry.name!r} twice (rows {out[key].row} and {i + 1})",
                **sheet.where(i, j),
            )
        out[key] = entry
    return out
