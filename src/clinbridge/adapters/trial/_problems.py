"""Bad cells as the loader lists them (sheet, row, column, variable, value, reason) and the one
error that names them when a load is strict."""

from __future__ import annotations

from typing import Any

from clinbridge.adapters.trial._codes import MISSING_TEXT
from clinbridge.adapters.trial._dictionary import Entry
from clinbridge.adapters.trial._read import Sheet, column_letter
from clinbridge.errors import LoadError

__all__ = ["MAX_PROBLEMS_SHOWN", "problem_at", "raise_problems", "unlisted_text_codes"]

MAX_PROBLEMS_SHOWN = 8


def problem_at(
    sheet: Sheet,
    header: int,
    kept_rows: list[int],
    i: int,
    j: int,
    entry: Entry,
    value: Any,
    reason: str,
) -> dict[str, Any]:
    row = header + 1 + kept_rows[i]
    return {
        "file": sheet.file,
        "sheet": sheet.name,
        "row": row + 1,
        "column": column_letter(j),
        "column_index": j,
        "variable": entry.name,
        "value": value if isinstance(value, str | int | float) else str(value),
        "reason": reason,
    }


def raise_problems(problems: list[dict[str, Any]], sheet: Sheet) -> None:
    first = problems[0]
    shown = "; ".join(
        f"row {p['row']} column {p['column']} ({p['variable']}): {p['reason']}"
        for p in problems[:MAX_PROBLEMS_SHOWN]
    )
    more = (
        f" (and {len(problems) - MAX_PROBLEMS_SHOWN} more)"
        if len(problems) > MAX_PROBLEMS_SHOWN
        else ""
    )
    raise LoadError(
        f"{len(problems)} bad cell(s) in sheet {sheet.name!r}: {shown}{more}; fix them, or load "
        "with --lenient to store them as NULL and list them in the report",
        file=first["file"],
        record=f"sheet {first['sheet']!r} row {first['row']}",
        field=f"column {first['column']} ({first['variable']})",
        problems=problems,
    )


def unlisted_text_codes(entry: Entry, values: list[str | None]) -> list[tuple[int, str]]:
    """(index, reason) of each text in a text-coded column that is none of the dictionary's codes
    or labels (in any case), none of its missing codes, and says no missing value ('NA')."""
    if entry.type != "categorical" or not entry.codes or entry.source != "dictionary":
        return []
    known = {k.lower() for k in entry.codes} | {v.lower() for v in entry.codes.values() if v}
    known |= {k.lower() for k in entry.missing} | MISSING_TEXT
    shown = "; ".join(f"{k}={v}" if v and v != k else k for k, v in list(entry.codes.items())[:6])
    return [
        (
            i,
            f"the dictionary disagrees with the data: value {v!r} is not one of the codes "
            f"({shown}) or missing codes",
        )
        for i, v in enumerate(values)
        if v is not None and v.lower() not in known
    ]
