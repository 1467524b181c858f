"""Missing codes a workbook declares once for all its variables, found by what its sheets say.

A notes, readme, "codes" or "conventions" sheet (whatever its name), the title rows above the
data or the dictionary, or a footnote under the dictionary, may say ``-999 = not done``,
``8888: not applicable``, ``ND = not done`` or hold a small table ``Code | Meaning``. Each such
declaration applies to every variable, except where the variable itself declares the code (as
a category or as its own missing code), or where the code is one of a measured variable's values
(a 99 among heart rates of 80 to 180 is a heart rate). A row that also names a data column
declares the code for that column only. The load report says which sheet declared which code and
how many cells each turned to missing.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from clinbridge.adapters.trial._code_rows import code_rows
from clinbridge.adapters.trial._dictionary import Entry
from clinbridge.adapters.trial._missing_decl import declarations_in_row, sentence_declarations
from clinbridge.adapters.trial._missing_table import (
    Scope,
    ScopedCode,
    find_scoped_codes,
    parse_scope,
)
from clinbridge.adapters.trial._read import Sheet

__all__ = ["WorkbookCodes", "drop_notes", "find_workbook_codes", "report_lines", "workbook_codes"]


@dataclass
class WorkbookCodes:
    """Workbook-wide (and sheet-declared per-variable) missing codes, and what they did."""

    codes: dict[str, str] = field(default_factory=dict)
    """code → meaning, for every variable."""
    where: dict[str, str] = field(default_factory=dict)
    """code → "sheet 'Notes' row 3"."""
    per_variable: dict[str, dict[str, str]] = field(default_factory=dict)
    """lower-case column name → {code: meaning} from rows naming that column."""
    per_variable_where: dict[str, dict[str, str]] = field(default_factory=dict)
    """lower-case column name → {code: "sheet 'Item definitions' row 14"}."""
    rows_used: dict[str, set[int]] = field(default_factory=dict)
    """sheet name → 0-based rows that held declarations."""
    cells: dict[str, int] = field(default_factory=dict)
    """code → cells it turned to missing."""
    variables: dict[str, int] = field(default_factory=dict)
    """code → variables it was applied to."""
    not_applied: list[str] = field(default_factory=list)
    """'99 on hr_0 (one of its values)': where a workbook-wide code was kept as a value."""
    scoped: dict[str, ScopedCode] = field(default_factory=dict)
    """code → its meaning and the variables it applies to, from a table that says so."""
    outside: list[str] = field(default_factory=list)
    """'.L on bw': a text code in a numeric column its declared scope leaves out, read as
    missing all the same (no value can be text there)."""

    def __bool__(self) -> bool:
        return bool(self.codes or self.per_variable or self.scoped)

    def is_text_code(self, v: Any) -> bool:
        """Whether a cell holds a declared text code ('ND', '.')."""
        return (
            isinstance(v, str)
            and (v.strip() in self.codes or v.strip() in self.scoped)
            and not _number(v.strip())
        )

    def _extend_scoped(self, entry: Entry, raw: list[Any]) -> list[str]:
        """The scoped codes that apply to ``entry`` and that its column holds (added)."""
        present = {v.strip() if isinstance(v, str) else v for v in raw}
        added = []
        for code, sc in self.scoped.items():
            x = _number(code)
            if (code not in present and (x is None or x not in present)) or code in entry.missing:
                continue
            if not sc.scope.applies(entry) and (x is not None or not entry.numeric):
                self.not_applied.append(f"{code} on {entry.name} (not among {sc.scope.text!r})")
            elif not sc.scope.applies(entry):  # '.L' in a numeric column: a value it cannot be
                entry.missing[code] = sc.meaning
                added.append(code)
                self.outside.append(f"{code} on {entry.name}")
            elif code in entry.codes:
                self.not_applied.append(f"{code} on {entry.name} (one of its codes)")
            else:
                entry.missing[code] = sc.meaning
                added.append(code)
        return added

    def extend(self, entry: Entry, raw: list[Any]) -> list[str]:
        """Add the codes that apply to ``entry`` to its missing codes; returns the workbook-wide
        ones added (a code a sheet declares for this column alone counts as the dictionary's)."""
        added: list[str] = []
        for code, meaning in self.per_variable.get(entry.name.lower(), {}).items():
            if code not in entry.missing and code not in entry.codes:
                entry.missing[code] = meaning
        if self.scoped:
            added += self._extend_scoped(entry, raw)
            for code in added:
                self.variables[code] = self.variables.get(code, 0) + 1
        if not self.codes or not (entry.numeric or entry.type == "categorical"):
            return added
        n_scoped = len(added)
        hit = self._lookup.intersection(raw)  # which codes the column holds, at C speed
        pending = [
            (code, meaning)
            for code, meaning in self.codes.items()
            if code not in entry.missing
            and code not in entry.codes
            and (code in hit or f" {code}" in hit or _number(code) in hit)
        ]
        if not pending:  # a code the column never holds changes nothing: not listed for it
            return added
        numbers, _ = _column(raw)
        others = numbers[~np.isin(numbers, [*self._numeric, *_numbers(entry.missing)])]
        for code, meaning in pending:
            x = _number(code)
            if x is not None and entry.type != "categorical" and not _apart(x, others):
                self.not_applied.append(f"{code} on {entry.name} (near its values)")
                continue
            entry.missing[code] = meaning
            added.append(code)
        for code in added[n_scoped:]:
            self.variables[code] = self.variables.get(code, 0) + 1
        return added

    @property
    def _numeric(self) -> list[float]:
        return _numbers(self.codes)

    @functools.cached_property
    def _lookup(self) -> set[Any]:
        """The codes as cells hold them: numbers as numbers, and as text."""
        return {*self._numeric, *self.codes, *(f" {c}" for c in self.codes)}

    def count(self, added: list[str], raw: list[Any], arr: Any) -> None:
        """Add to ``cells`` the cells of one column that the added codes turned to missing."""
        numeric = isinstance(arr, np.ndarray) and arr.dtype.kind == "f"
        for code in added:
            x = _number(code)
            if numeric and x is not None:
                n = int(np.count_nonzero(arr == x))
            else:
                n = sum(1 for v in raw if _key(v) == code)
            self.cells[code] = self.cells.get(code, 0) + n

    def report(self) -> list[dict[str, Any]]:
        """One line per workbook-wide code: where declared, variables and cells it applied to."""
        every = [(c, m, self.where.get(c, ""), "all variables") for c, m in self.codes.items()]
        every += [(c, s.meaning, s.where, s.scope.text) for c, s in self.scoped.items()]
        return [
            {
                "code": code,
                "meaning": meaning,
                "declared": where,
                "applies_to": scope,
                "variables": self.variables.get(code, 0),
                "cells": self.cells.get(code, 0),
            }
            for code, meaning, where, scope in every
        ]


def _heading(v: Any) -> bool:
    """Whether a cell beside a table's header heads a column of it ('Notes'), not a note's
    label ('Missing codes:') nor a declaration ('-99 = not done')."""
    text = str(v).strip()
    return not text.endswith(":") and not declarations_in_row([text])


def _filled(v: Any) -> bool:
    return v is not None and bool(str(v).strip())


def _numbers(codes: dict[str, str]) -> list[float]:
    return [x for c in codes if (x := _number(c)) is not None]


def _column(raw: list[Any]) -> tuple[np.ndarray, set[str]]:
    """A column's numbers (text numbers included) and its other texts."""
    try:
        arr = np.array(raw, dtype=float)
        return arr[~np.isnan(arr)], set()
    except (TypeError, ValueError):
        pass
    nums: list[float] = []
    texts: set[str] = set()
    for v in raw:
        if isinstance(v, bool) or v is None:
            continue
        x = _number(v)
        if x is not None and not (isinstance(v, float) and np.isnan(v)):
            nums.append(x)
        elif isinstance(v, str) and v.strip():
            texts.add(v.strip())
    return np.array(nums, dtype=float), texts


def _apart(x: float, values: np.ndarray) -> bool:
    """Whether a code stands well apart from a measured variable's values: outside their span
    by more than half of it (9 beside temperatures of 33 to 37, -999 beside anything; not 9
    beside seizure counts of 0 to 8, nor 99 beside scores of 50 to 150)."""
    if not values.size:
        return True
    lo, hi = float(values.min()), float(values.max())
    gap = lo - x if x < lo else x - hi if x > hi else -1.0
    return gap > max(1.0, 0.5 * (hi - lo))


def _number(v: Any) -> float | None:
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _key(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip() if v is not None else ""


Part = tuple[str, list[list[Any]], list[int], dict[int, str]]
"""(sheet name, its rows, the row indexes to read, row index → the variable a row is about)."""


def find_workbook_codes(parts: list[Part], names: list[str]) -> WorkbookCodes:
    """The declarations in ``parts`` (see :data:`Part`).

    ``names``: the data sheet's column names; a row naming one (or a dictionary row's notes
    beside its table) declares for that column only. A sentence of prose that says where its
    code applies ('in any coded item the value 9 stands for unknown') declares it there only.
    """
    wanted = {n.lower(): n for n in names if n}
    out = WorkbookCodes()
    for sheet, rows, indexes, about in parts:
        for i in indexes:
            row = rows[i]
            found = declarations_in_row(row)
            if not found:
                continue
            named = [str(v).strip().lower() for v in row if isinstance(v, str)]
            target = about.get(i) or next((n for n in named if n in wanted), None)
            out.rows_used.setdefault(sheet, set()).add(i)
            where = f"sheet {sheet!r} row {i + 1}"
            scopes = {} if target is not None else _sentence_scopes(row, set(wanted))
            for code, meaning in found.items():
                if target is not None:
                    out.per_variable.setdefault(target, {}).setdefault(code, meaning)
                    out.per_variable_where.setdefault(target, {}).setdefault(code, where)
                elif code in scopes:
                    out.scoped.setdefault(code, ScopedCode(code, meaning, scopes[code], where))
                elif code not in out.codes:
                    out.codes[code] = meaning
                    out.where[code] = where
    return out


_SCOPE_CUE = re.compile(r"\b(?:in|for|on|across|within|to)\b", re.I)


def _sentence_scopes(row: list[Any], names: set[str]) -> dict[str, Scope]:
    """code → the scope its sentence gives ('in any coded item (one with Responses) the value 9
    stands for unknown': coded items), for sentences that name where the code applies other
    than everywhere."""
    out: dict[str, Scope] = {}
    for v in row:
        if not isinstance(v, str) or len(v) < 30:
            continue
        for code, _meaning, rest in sentence_declarations(v):
            if not _SCOPE_CUE.search(rest):
                continue
            scope = parse_scope(rest, names)
            if scope is not None and (scope.kinds - {"all"} or scope.names or scope.times):
                cue = _SCOPE_CUE.search(rest)
                words = rest[cue.start() if cue else 0 :].strip(" ,;:.")
                words = re.sub(r"\s*\b(?:the|a|an)\s+(?:value|code|entry)s?$", "", words)
                out.setdefault(code, dataclasses.replace(scope, text=words))
    return out


_MOST_ROWS = 300
_MOST_CELLS = 12
"""A notes or codes sheet is short and narrow; a second wide sheet is read only at its corner."""


def workbook_codes(
    sheets: list[Sheet],
    data: Sheet,
    header: int,
    dictionary: tuple[Sheet, int, dict[str, int]] | None,
    names: list[str],
) -> WorkbookCodes:
    """The declarations on every sheet that is neither data nor dictionary, in the title rows
    above the data's header, and above or under the dictionary's entries."""
    wanted = {n.lower() for n in names if n}
    parts: list[Part] = []
    apart = [s for s in sheets if s is not data and (dictionary is None or s is not dictionary[0])]
    scoped = find_scoped_codes(apart, names)  # a table saying where each code applies
    for s in sheets:
        if s is data:
            rows = [r[:_MOST_CELLS] for r in s.rows[:header]]
        elif dictionary is None or s is not dictionary[0]:
            rows = [r[:_MOST_CELLS] for r in s.rows[:_MOST_ROWS]]
        else:
            continue
        taken = scoped.rows_used.get(s.name, set())
        parts.append((s.name, rows, [i for i in range(len(rows)) if i not in taken], {}))
    if dictionary is not None:  # its title rows, its footnotes, and notes beside its columns
        sheet, top, cols = dictionary
        j, last = cols["variable"], max(cols.values())
        beside = range(last + 1, last + 1 + _MOST_CELLS)
        head = sheet.rows[top]
        headed = {  # a column's heading; 'Missing codes:' labels a note beside the table
            k for k in beside if k < len(head) and _filled(head[k]) and _heading(head[k])
        }
        # a row's cells under a heading beside the table ('Notes') are about its variable;
        # others are notes on the whole workbook
        about: dict[int, str] = {}
        rows = []
        notes: list[list[Any]] = []
        for i, r in enumerate(sheet.rows):
            name = str(r[j] or "").strip().lower() if j < len(r) else ""
            if i < top or name not in wanted:
                rows.append(r)
                notes.append([])
            else:
                rows.append([r[k] for k in beside if k < len(r) and k not in headed])
                notes.append([r[k] for k in beside if k < len(r) and k in headed])
                about[i] = name
        own = code_rows(sheet.rows, top, cols)  # a variable's codes, one a row beneath it
        indexes = [i for i in range(len(rows)) if i != top and i not in own]
        parts.append((sheet.name, rows, indexes, {}))
        parts.append((sheet.name, notes, sorted(about), about))
    out = find_workbook_codes(parts, names)
    out.scoped = {**{c: v for c, v in out.scoped.items() if c not in scoped.codes}, **scoped.codes}
    for code in out.scoped:
        out.codes.pop(code, None)  # (declared again in a note: the table's scope holds)
    for name, rows_used in scoped.rows_used.items():
        out.rows_used.setdefault(name, set()).update(rows_used)
    return out


def drop_notes(
    entries: dict[str, Entry], codes: WorkbookCodes, sheet: str, names: list[str]
) -> dict[str, Entry]:
    """The dictionary's entries without the rows that were declarations ('Note: -999 = not
    done' under the table), never an entry that names a data column."""
    used = codes.rows_used.get(sheet, set())
    wanted = {n.lower() for n in names if n}
    return {
        k: e for k, e in entries.items() if k in wanted or e.row is None or e.row - 1 not in used
    }


def report_lines(workbook: list[dict[str, Any]], not_applied: list[str]) -> list[str]:
    """The load report's lines about workbook-wide missing codes."""
    lines = [
        f"workbook-wide missing code {d['code']!r} ({d['meaning']}, {d['declared']}"
        + (
            f", for {d['applies_to']!r}"
            if d.get("applies_to", "all variables") != "all variables"
            else ""
        )
        + f"): {d['cells']} cell(s) in {d['variables']} variable(s) turned to missing"
        for d in workbook
    ]
    if not_applied:
        shown = ", ".join(not_applied[:5]) + (" ..." if len(not_applied) > 5 else "")
        lines.append(f"{len(not_applied)} workbook-wide code(s) kept as values: {shown}")
    return lines
