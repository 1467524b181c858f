"""The dictionary's sheet and its rows: a dictionary given by name or as a file, and the entries
its rows hold."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinbridge.adapters.trial._code_rows import has_code, is_code_row, take_code_row
from clinbridge.adapters.trial._dictionary import Entry, parse_entry
from clinbridge.adapters.trial._iso_time import looks_iso
from clinbridge.adapters.trial._read import Sheet, dictionary_columns, read_sheets
from clinbridge.errors import LoadError

__all__ = ["DictionaryRows", "dictionary_entries", "given_dictionary", "loose_key"]


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


@dataclass
class DictionaryRows:
    """The dictionary's entries and the rows that hold no variable."""

    entries: dict[str, Entry]
    """By the lower-case name of the data column each describes."""
    headings: list[str] = field(default_factory=list)
    """Section dividers ('SECTION 2 - BASELINE' alone on its row), each the form of the entries
    below it that name none."""
    notes: list[str] = field(default_factory=list)
    """Lone texts under the last entry (a footnote), read as notes, not variables."""
    matched: list[str] = field(default_factory=list)
    """'gest_age = GestAge': names that match a data column once case and punctuation are set
    aside."""


def loose_key(name: str) -> str:
    """A name with case and punctuation set aside: 'Gest_Age' and 'gestage' meet."""
    return re.sub(r"[^0-9a-z]+", "", name.lower())


_IDENTIFIER = re.compile(r"^[$]?[A-Za-z_][A-Za-z0-9_.$]*$")


def _lone_text(row: list[Any]) -> str | None:
    """The text of a row that holds one cell and nothing else, if it is text with a letter."""
    filled = [v for v in row if not _blank(v)]
    if len(filled) != 1 or not isinstance(filled[0], str) or not re.search("[A-Za-z]", filled[0]):
        return None
    return filled[0].strip()


def _names_a_variable(text: str) -> bool:
    """Whether a lone text reads as a variable's name (``skin_24h``, ``bw2``), not as a heading
    (``SECTION 2 - BASELINE``, ``Outcomes``): one word with a digit or an underscore."""
    return bool(_IDENTIFIER.match(text)) and bool(re.search(r"[\d_.$]", text))


def dictionary_entries(
    sheet: Sheet, header: int, cols: dict[str, int], names: list[str]
) -> DictionaryRows:
    """The entries of the dictionary's rows below its header, keyed by the data column each
    describes (``names``: the data sheet's columns). A row holding one text alone that names no
    column is a section heading (or, under the last entry, a note), never a variable."""
    wanted = {n.lower() for n in names if n}
    loose: dict[str, str | None] = {}
    for n in names:
        if n:
            k = loose_key(n)
            loose[k] = n.lower() if k not in loose else None  # two columns meet: no match
    out = DictionaryRows({})
    lone: list[tuple[int, str]] = []
    section: str | None = None
    j = cols["variable"]
    last: Entry | None = None
    # one code a row ('Code | Code label'): the entry row's own cells hold no code list
    entry_cols = (
        {k: v for k, v in cols.items() if k not in {"codes", "code_label", "missing"}}
        if "code_label" in cols
        else cols
    )
    for i in range(header + 1, len(sheet.rows)):
        row = sheet.rows[i]
        if is_code_row(row, cols):
            if last is not None:
                take_code_row(last, row, cols)
            continue
        text = _lone_text(row)
        if (
            text is not None
            and text.lower() not in wanted
            and not loose.get(loose_key(text))
            and not _names_a_variable(text)
        ):
            lone.append((len(out.entries), text))
            section = text
            continue
        if j >= len(row) or _blank(row[j]):
            continue
        entry = parse_entry(row, entry_cols, i)
        if has_code(row, cols):
            take_code_row(entry, row, cols)  # the first code beside the variable's name
        last = entry
        if entry.time_point is None and looks_iso(entry.time_point_text):
            raise LoadError(
                f"variable {entry.name!r} has time point {entry.time_point_text!r}, written like "
                "an ISO 8601 duration but not one time point (hours and minutes follow a 'T': "
                "PT24H, PT30M; years, months, weeks and days precede it: P2Y, P18M, P3D; one "
                "duration holds months or days, not both)",
                **sheet.where(i, cols.get("time_point")),
            )
        if section and not entry.form:
            entry.form = section
        key = entry.name.lower()
        if key not in wanted and (match := loose.get(loose_key(entry.name))):
            out.matched.append(f"{entry.name} = {names[[n.lower() for n in names].index(match)]}")
            key = match
        if key in out.entries:
            raise LoadError(
                f"the dictionary lists variable {entry.name!r} twice (rows "
                f"{out.entries[key].row} and {i + 1})",
                **sheet.where(i, j),
            )
        out.entries[key] = entry
    for before, text in lone:
        (out.headings if before < len(out.entries) else out.notes).append(text)
    return out
