"""Read a trial workbook (xlsx via python-calamine) or CSV into sheets, and find its parts.

A sheet is a grid of cells with its name; the data sheet and the dictionary sheet are found by
what they hold (the dictionary lists the data sheet's column names), never by position or name.
Every problem is a :class:`~clinbridge.errors.LoadError` naming file, sheet, row and column.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinbridge.adapters.trial._banner import find_banner, is_banner_row
from clinbridge.adapters.trial._code_rows import code_columns
from clinbridge.adapters.trial._dict_header import by_content, by_words
from clinbridge.adapters.trial._missing_decl import in_table, is_missing_header
from clinbridge.errors import LoadError

__all__ = ["Sheet", "column_letter", "find_dictionary", "find_header", "read_sheets"]


@dataclass
class Sheet:
    file: str
    name: str
    rows: list[list[Any]]
    merged: list[tuple[int, int, int, int]] = field(default_factory=list)
    """Merged ranges as (first row, first col, last row, last col), 0-based."""

    def where(self, row: int | None = None, col: int | None = None) -> dict[str, Any]:
        """Keyword fields for a LoadError: sheet, 1-based row, column letter."""
        out: dict[str, Any] = {"file": self.file, "sheet": self.name}
        if row is not None:
            out["record"] = f"sheet {self.name!r} row {row + 1}"
        if col is not None:
            out["field"] = f"column {column_letter(col)}"
        return out

    @property
    def width(self) -> int:
        return max((len(r) for r in self.rows), default=0)


def column_letter(index: int) -> str:
    """0 → A, 25 → Z, 26 → AA (the way a spreadsheet names columns)."""
    out = ""
    n = index + 1
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(65 + r) + out
    return out


def _blank(v: Any) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def read_sheets(path: str | Path, *, encoding: str | None = None) -> list[Sheet]:
    """All sheets of an .xlsx/.xlsm/.xls/.ods workbook, or the one 'sheet' of a CSV file."""
    p = Path(path)
    if not p.exists():
        raise LoadError(f"no such file {str(p)!r}", file=str(p))
    suffix = p.suffix.lower()
    if suffix in {".csv", ".tsv", ".txt"}:
        return [_read_csv(p, encoding=encoding)]
    if suffix not in {".xlsx", ".xlsm", ".xls", ".xlsb", ".ods"}:
        raise LoadError(
            f"cannot read {p.suffix!r} files as a trial table: use .xlsx or .csv", file=str(p)
        )
    from python_calamine import CalamineWorkbook

    try:
        book = CalamineWorkbook.from_path(str(p))
    except Exception as exc:  # calamine raises its own error types per format
        raise LoadError(f"not a readable workbook: {exc}", file=str(p)) from exc
    sheets = []
    for name in book.sheet_names:
        sheet = book.get_sheet_by_name(name)
        rows = sheet.to_python(skip_empty_area=False)
        merged = []
        for rng in sheet.merged_cell_ranges or []:
            (r0, c0), (r1, c1) = rng
            merged.append((r0, c0, r1, c1))
        sheets.append(Sheet(str(p), name, [list(r) for r in rows], merged))
    return sheets


def _read_csv(p: Path, *, encoding: str | None) -> Sheet:
    raw = p.read_bytes()
    enc = encoding or "utf-8-sig"
    try:
        text = raw.decode(enc)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        bad = raw[exc.start : exc.start + 1].hex()
        raise LoadError(
            f"the file is not {enc.replace('-sig', '')} text: byte 0x{bad} at line {line}, "
            f"character {col} cannot be decoded; pass the file's encoding (e.g. --encoding cp1252 "
            "or latin-1)",
            file=str(p),
            record=f"line {line}",
            field=f"character {col}",
        ) from exc
    except LookupError as exc:
        raise LoadError(f"unknown encoding {enc!r}", file=str(p)) from exc
    if "\ufffd" in text:
        line = text[: text.index("\ufffd")].count("\n") + 1
        raise LoadError(
            "the file holds U+FFFD replacement characters (it was decoded with the wrong "
            "encoding before it was saved); fix the text at its source",
            file=str(p),
            record=f"line {line}",
        )
    sample = text[:4096]
    delimiter = (
        "\t" if p.suffix.lower() == ".tsv" or sample.count("\t") > sample.count(",") else ","
    )
    if delimiter == "," and sample.count(";") > sample.count(","):
        delimiter = ";"
    rows = [list(r) for r in csv.reader(io.StringIO(text), delimiter=delimiter)]
    while rows and not any(c.strip() for c in rows[-1]):
        rows.pop()
    return Sheet(str(p), p.stem, rows)


# -- header ---------------------------------------------------------------------------------


def find_header(sheet: Sheet) -> int:
    """The 0-based index of the header row: the first row that names most of the columns.

    Title rows above the header are skipped (and reported by the loader), and so is a banner of
    merged group cells over blocks of columns when the row below names every column (see
    :mod:`~clinbridge.adapters.trial._banner`). A header split over two rows (group labels that
    are the only names of their columns) or with blank names is refused.
    """
    width = sheet.width
    if width == 0 or not sheet.rows:
        raise LoadError("the sheet is empty", **sheet.where())
    header = None
    for i, row in enumerate(sheet.rows[:20]):
        if is_banner_row(sheet, i):  # merged group cells over blocks of columns
            continue
        filled = sum(not _blank(v) for v in row)
        if filled >= max(1, 0.5 * width):
            header = i
            break
    if header is None:
        raise LoadError(
            "no header row (a row naming the columns) in the first 20 rows", **sheet.where()
        )
    banner = find_banner(sheet, header)
    for r0, c0, r1, c1 in sheet.merged:
        if (r0, c0, r1, c1) in banner.ranges:
            continue
        if r0 <= header + 1 and r1 >= max(0, header - 1):
            text = sheet.rows[r0][c0] if r0 < len(sheet.rows) and c0 < len(sheet.rows[r0]) else ""
            raise LoadError(
                f"merged header cells {column_letter(c0)}{r0 + 1}:{column_letter(c1)}{r1 + 1} "
                f"({str(text)!r}): the header must be one row with one name per column; "
                "unmerge the cells and give each column its own name",
                **sheet.where(r0, c0),
            )
    row = sheet.rows[header]
    for i in range(banner.top(header) - 1, -1, -1):
        # a title sits alone in column A; a label over other columns groups them (a header
        # split over two rows, as merged group cells leave it)
        above = sheet.rows[i]
        groups = [j for j, v in enumerate(above) if not _blank(v) and j > 0]
        if groups:
            j = groups[0]
            raise LoadError(
                f"two header rows: row {i + 1} holds group labels ({str(above[j])!r} in column "
                f"{column_letter(j)}) above the column names in row {header + 1}, as a merged "
                "header does; keep only the row of column names",
                **sheet.where(i, j),
            )
    blanks = [j for j in range(width) if j >= len(row) or _blank(row[j])]
    if blanks:
        used = [
            j
            for j in blanks
            if any(j < len(r) and not _blank(r[j]) for r in sheet.rows[header + 1 :])
        ]
        if used:
            j = used[0]
            raise LoadError(
                f"column {column_letter(j)} holds data but has no name in the header row "
                f"({len(used)} such column(s)); a merged header cell leaves its neighbours "
                "blank like this",
                **sheet.where(header, j),
            )
    return header


def header_names(sheet: Sheet, header: int) -> list[str]:
    row = sheet.rows[header]
    names = [str(v).strip() if not _blank(v) else "" for v in row]
    while names and not names[-1]:
        names.pop()
    seen: dict[str, int] = {}
    for j, n in enumerate(names):
        if not n:
            continue
        key = n.lower()
        if key in seen:
            i = seen[key]
            same = (
                "the same name"
                if names[i] == n
                else f"names that differ only in case ({names[i]!r})"
            )
            banner = find_banner(sheet, header)  # 'HR' under 'Day 1' and under 'Day 3'
            groups = (banner.group(i), banner.group(j))
            under = (
                f" (under the banner groups {groups[0]!r} and {groups[1]!r}: a name must be "
                "unique without its group)"
                if all(groups) and groups[0] != groups[1]
                else ""
            )
            raise LoadError(
                f"duplicate column name {n!r}: columns {column_letter(i)} and {column_letter(j)} "
                f"have {same}{under}; every variable needs its own name",
                **sheet.where(header, j),
            )
        seen[key] = j
    return names


# -- the dictionary -------------------------------------------------------------------------

_DICT_FIELDS: dict[str, tuple[str, ...]] = {
    "variable": (
        "variable",
        "variable name",
        "field",
        "field name",
        "name",
        "column",
        "var",
        "item",
    ),
    "label": ("label", "description", "variable label", "field label", "meaning", "definition"),
    "type": ("type", "data type", "field type", "format"),
    "unit": ("unit", "units", "uom"),
    "codes": (
        "codes",
        "code list",
        "values",
        "value labels",
        "allowed values",
        "choices",
        "categories",
    ),
    "missing": ("missing", "missing codes", "missing values", "missing value codes"),
    "range": (
        "range",
        "valid range",
        "plausible range",
        "allowed range",
        "range of values",
        "limits",
    ),
    "time_point": ("time point", "timepoint", "time", "visit", "time_point", "event"),
    "trial": ("trial", "study", "trials", "collected in", "source trial"),
    "form": ("form", "crf", "crf form", "crf module", "module", "section", "instrument"),
}


def _norm(h: Any) -> str:
    return re.sub(r"[\s_]+", " ", str(h).strip().lower()) if not _blank(h) else ""


def dictionary_columns(row: list[Any]) -> dict[str, int]:
    """Map dictionary fields to column indexes, from a header row; {} if it is not one."""
    out: dict[str, int] = {}
    for j, h in enumerate(row):
        key = _norm(h)
        for fld, names in _DICT_FIELDS.items():
            if fld not in out and key in names:
                out[fld] = j
    # 'Format | Type' (SAS): the type is the 'Type' column; 'Format' names value-label formats
    typed = [j for j, h in enumerate(row) if _norm(h) in _DICT_FIELDS["type"][:3]]
    if typed and "type" in out and out["type"] not in typed:
        out["type"] = typed[0]
    if "variable" not in out or "label" not in out:
        out = by_words(row, out)  # 'Field label', 'Response options', 'Assessment time'
    if "missing" not in out:  # 'Special codes', 'Non-response codes', 'NA codes'
        taken = set(out.values())
        found = [j for j, h in enumerate(row) if j not in taken and is_missing_header(h)]
        if found and in_table(row, found[0], taken):
            out["missing"] = found[0]
    if "variable" not in out or "label" not in out:
        return {}
    return code_columns(row, out)  # 'Code | Code label': one code a row, beneath its variable


def find_dictionary(
    sheets: list[Sheet], data: Sheet, names: list[str]
) -> tuple[Sheet, int, dict[str, int]] | None:
    """The sheet whose rows describe the data sheet's columns (most names in common), if any."""
    wanted = {n.lower() for n in names if n}
    best: tuple[int, Sheet, int, dict[str, int]] | None = None
    for s in sheets:
        if s is data:
            continue
        for i, row in enumerate(s.rows[:10]):
            if is_banner_row(s, i):  # merged group cells above the dictionary's header
                continue
            named = by_words(row, {})
            below = s.rows[i + 1] if i + 1 < len(s.rows) else []
            # a header of unknown words still stands above the first row naming a column
            filled = sum(not _blank(v) for v in row)
            if len(named) < 2 and (
                filled < 2 or not any(str(v).strip().lower() in wanted for v in below)
            ):
                continue
            # what the header leaves unnamed (or names loosely) is found by content
            cols = by_content(s.rows, i, dictionary_columns(row) or named, wanted)
            if not cols:
                continue
            j = cols["variable"]
            listed = {
                str(r[j]).strip().lower()
                for r in s.rows[i + 1 :]
                if j < len(r) and not _blank(r[j])
            }
            hits = len(listed & wanted)
            if hits and (best is None or hits > best[0]):
                best = (hits, s, i, cols)
            break
    if best is None:
        return None
    return best[1], best[2], best[3]
