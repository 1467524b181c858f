"""Bad cells as the loader lists them (sheet, row, column, variable, value, reason) and the one
error that names them when a load is strict."""

from __future__ import annotations

from typing import Any

from clinbridge.adapters.trial._dictionary import Entry
from clinbridge.adapters.trial._read import Sheet, column_letter
from clinbridge.errors import LoadError

__all__ = ["MAX_PROBLEMS_SHOWN", "problem_at", "raise_problems"]

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
