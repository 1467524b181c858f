"""Rows under the column names that describe the columns, not a subject: a row of variable labels
('Record status', 'Core temperature at 24 h'), as REDCap and SAS exports with labels and many
hand-made sheets write it, and a row of units ('(mmHg)', '°C', 'kg').

Such a row is read as one only when it cannot be data: no number or date stands in a column that
holds numbers or dates below it, and text does; its texts are checked against the dictionary's
labels (or units), and the report says how many agree and how many differ. A row of labels that
agrees with the dictionary nowhere is refused, naming the row and a column: the names and the
labels may then describe different columns.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

from clinbridge.adapters.trial._codes import MISSING_TEXT, is_number, is_special_missing
from clinbridge.adapters.trial._read import column_letter
from clinbridge.errors import LoadError

if TYPE_CHECKING:
    from collections.abc import Callable

    from clinbridge.adapters.trial._dictionary import Entry
    from clinbridge.adapters.trial._read import Sheet

__all__ = ["DescriptorRow", "describe", "descriptor_rows"]

_MOST_ROWS = 2
"""At most a row of labels and a row of units stand under the names."""
_BODY_ROWS = 80
"""Rows read below them to learn which columns hold numbers or dates."""

_DATE = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}([ T].*)?$|^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}$")
_UNIT_WORD = re.compile(
    r"(?:[kmcdµunp]?(?:g|l|mol|eq|osm|osmol|m)|mcg|m?iu|[mk]?u|mmhg|cmh2o|k?pa|bar|atm|ppm"
    r"|lbs?|oz|in|ft|bpm|beats?|breaths?|cells|copies|score|points|pts|ratio|x"
    r"|h|hrs?|hours?|mins?|minutes?|s|secs?|seconds?|d|days?|wks?|weeks?|mos?|months?|y|yrs?"
    r"|years?|°?[cf]|deg[cf]|%|‰)(?:\^?-?\d)?"
)
"""A word a units cell is made of ('mmol/L' is 'mmol' over 'L', 'cm2', 'mmHg'); labels' words
('Record', 'status', 'Age') are none of them."""
_STOP = frozenset(("a", "an", "the", "at", "of", "in", "on", "to", "for", "and", "or", "by"))
_TIME_WORDS = {
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "d": "d",
    "day": "d",
    "days": "d",
    "min": "min",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "m": "m",
    "mo": "m",
    "month": "m",
    "months": "m",
    "wk": "w",
    "week": "w",
    "weeks": "w",
    "y": "y",
    "yr": "y",
    "year": "y",
    "years": "y",
}


@dataclass
class DescriptorRow:
    """A row under the names that describes the columns (their labels or their units)."""

    index: int
    """0-based row of the sheet."""
    kind: str
    """'labels' or 'units'."""
    cells: dict[int, str]
    """Column index → the row's text there (filled cells only)."""
    agree: int = 0
    differ: list[tuple[int, str, str, str]] = field(default_factory=list)
    """(column, name, the row's text, the dictionary's) where they differ."""

    def line(self) -> str:
        """The report's line: 'row 3: variable labels, checked against the dictionary: ...'."""
        what = "variable labels" if self.kind == "labels" else "units"
        if not self.agree and not self.differ:
            return (
                f"row {self.index + 1}: {what} under the column names, read as such (no "
                "dictionary entry to check them against)"
            )
        text = (
            f"row {self.index + 1}: {what}, checked against the dictionary: {self.agree} "
            f"agree, {len(self.differ)} differ"
        )
        if self.differ:
            shown = "; ".join(
                f"column {column_letter(j)} ({name}) {cell!r}, dictionary {theirs!r}"
                for j, name, cell, theirs in self.differ[:3]
            )
            more = " ..." if len(self.differ) > 3 else ""
            text += f" ({shown}{more})"
        return text


def descriptor_rows(
    sheet: Sheet, header: int, names: list[str], entries: dict[str, Entry]
) -> list[DescriptorRow]:
    """The rows of labels or units directly under the header row (at most one of each), with
    their texts checked against the dictionary ``entries`` (by lower-case name).

    Raises:
        LoadError: a row of labels that agrees with the dictionary in no column it can be
            checked in (naming sheet, row and the first column that differs).
    """
    width = len(names)
    start = header + 1
    body = sheet.rows[start + _MOST_ROWS : start + _MOST_ROWS + _BODY_ROWS]
    if len(body) < 3:
        body = sheet.rows[start + 1 : start + 1 + _BODY_ROWS]
    if not body:
        return []
    known: dict[int, bool] = {}

    def typed(j: int) -> bool:  # read a column only when a row asks (a data row asks once)
        if j not in known:
            known[j] = _typed_column([r[j] if j < len(r) else None for r in body])
        return known[j]

    named = sum(1 for n in names if n)
    out: list[DescriptorRow] = []
    for k in range(start, min(start + _MOST_ROWS, len(sheet.rows))):
        row = sheet.rows[k]
        kinds = {}
        for j in range(width):
            if names[j] and j < len(row):
                kinds[j] = (_kind(row[j]), row[j])
        if any(kind in {"number", "date"} and typed(j) for j, (kind, _) in kinds.items()):
            break  # a number where numbers stand below: a subject's row
        cells = {j: str(v).strip() for j, (kind, v) in kinds.items() if kind in {"text", "sign"}}
        in_typed = sum(1 for j in cells if typed(j))
        if not in_typed:
            break
        seen = {d.kind for d in out}
        units = _as_units(k, cells, names, entries, typed) if "units" not in seen else None
        if units is not None:
            out.append(units)
            continue
        if "labels" in seen:
            break
        labels = _check(DescriptorRow(k, "labels", cells), names, entries, _resembles, "label")
        compared = labels.agree + len(labels.differ)
        by_dictionary = labels.agree >= 2 and labels.agree >= 0.5 * compared
        by_layout = (
            len(cells) >= 0.6 * named
            and in_typed >= 0.5 * sum(typed(j) for j in range(width))
            and len(set(cells.values())) >= 0.8 * len(cells)  # each column its own label
        )
        if not (by_dictionary or by_layout):
            break
        if compared >= 3 and not labels.agree:
            j, name, cell, theirs = labels.differ[0]
            raise LoadError(
                f"row {k + 1} of sheet {sheet.name!r} reads as a row of variable labels (text "
                f"where the rows below hold numbers), but none of its {compared} labels agrees "
                f"with the dictionary's: column {column_letter(j)} ({name}) says {cell!r}, the "
                f"dictionary {theirs!r}; the names and the labels may describe different "
                "columns: correct the row or remove it",
                **sheet.where(k, j),
            )
        out.append(labels)
    return out


def _kind(v: Any) -> str:
    """blank | missing | number | date | text (has a letter) | sign ('%', '‰')."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "blank"
    if isinstance(v, bool | int | float):
        return "number"
    if isinstance(v, dt.date | dt.time | dt.timedelta):
        return "date"
    s = str(v).strip()
    if not s:
        return "blank"
    if s.lower() in MISSING_TEXT or is_special_missing(s):
        return "missing"
    if is_number(s):
        return "number"
    if _DATE.match(s):
        return "date"
    return "text" if re.search(r"[^\W\d_]", s) else "sign"


def _typed_column(values: list[Any]) -> bool:
    """Whether a column holds numbers or dates (a few stray texts aside)."""
    kinds = [_kind(v) for v in values]
    filled = [k for k in kinds if k not in {"blank", "missing"}]
    typed = sum(1 for k in filled if k in {"number", "date"})
    return typed >= 2 and typed >= 0.8 * len(filled)


def _check(
    row: DescriptorRow,
    names: list[str],
    entries: dict[str, Entry],
    same: Any,
    attr: str,
) -> DescriptorRow:
    for j, cell in row.cells.items():
        entry = entries.get(names[j].lower())
        theirs = (getattr(entry, attr) or "") if entry is not None else ""
        if not theirs or theirs.strip().lower() == names[j].lower():
            continue  # the dictionary gives no label (or unit) of its own
        if same(cell, theirs):
            row.agree += 1
        else:
            row.differ.append((j, names[j], cell, theirs))
    return row


def _as_units(
    k: int,
    cells: dict[int, str],
    names: list[str],
    entries: dict[str, Entry],
    typed: Callable[[int], bool],
) -> DescriptorRow | None:
    """The row as a row of units, if every text in it is one ('kg', '(mmHg)', '°C', 'mmol/L')."""
    row = _check(DescriptorRow(k, "units", cells), names, entries, _same_unit, "unit")
    if not all(_unit_like(c) or _unit_agrees(j, c, names, entries) for j, c in cells.items()):
        return None
    if len(cells) < 2 or not any(typed(j) for j in cells):
        return None
    return row


def _unit_agrees(j: int, cell: str, names: list[str], entries: dict[str, Entry]) -> bool:
    entry = entries.get(names[j].lower())
    return entry is not None and bool(entry.unit) and _same_unit(cell, entry.unit or "")


def _unit_text(text: str) -> str:
    s = text.strip().strip("()[]{} ").strip().lower()
    return re.sub(r"\s+", "", s).replace("μ", "µ").replace("º", "°").replace("×", "x")


def _unit_like(text: str) -> bool:
    s = _unit_text(text)
    if not s or len(s) > 16:
        return False
    s = re.sub(r"^x?10\^?\d+", "", s)  # '10^9/L', 'x10^9/L'
    parts = [p for p in re.split(r"[/.·*]", s) if p]
    return bool(parts) and all(_UNIT_WORD.fullmatch(p) for p in parts)


def _same_unit(a: str, b: str) -> bool:
    x, y = _unit_text(a), _unit_text(b)
    x, y = (re.sub(r"^(deg|degrees?)", "°", t) for t in (x, y))
    return x == y or x.replace("°", "") == y.replace("°", "")


def _tokens(text: str) -> list[str]:
    words = re.findall(r"[^\W\d_]+|\d+(?:\.\d+)?", text.lower())
    return [_TIME_WORDS.get(w, w) for w in words if w not in _STOP]


def _resembles(cell: str, label: str) -> bool:
    """Whether a label row's text is the dictionary's label, or close to it ('Temp at 24h' and
    'Core temperature at 24 hours'); numbers in both must be the same numbers."""
    a, b = " ".join(_tokens(cell)), " ".join(_tokens(label))
    if not a or not b:
        return False
    if a == b or (min(len(a), len(b)) >= 4 and (a in b or b in a)):
        return True
    ta, tb = _tokens(cell), _tokens(label)
    na = {t for t in ta if t[0].isdigit()}
    nb = {t for t in tb if t[0].isdigit()}
    if na and nb and na != nb:
        return False
    if SequenceMatcher(None, a, b).ratio() >= 0.8:
        return True
    words_a = [t for t in ta if not t[0].isdigit()]
    words_b = [t for t in tb if not t[0].isdigit()]
    if not words_a or not words_b:
        return False
    matched = sum(1 for w in words_a if any(_word_match(w, v) for v in words_b))
    return matched >= max(1, 0.6 * min(len(words_a), len(words_b)))


def _word_match(a: str, b: str) -> bool:
    return a == b or (min(len(a), len(b)) >= 2 and (a.startswith(b) or b.startswith(a)))


def describe(entry: Entry, j: int, rows: list[DescriptorRow]) -> None:
    """Give ``entry`` the label or unit the rows write for column ``j`` where the dictionary
    gives none (or there is no dictionary entry)."""
    for row in rows:
        text = row.cells.get(j)
        if not text:
            continue
        if row.kind == "labels" and (
            entry.source == "inferred" or not entry.label or entry.label == entry.name
        ):
            entry.label = text
        elif row.kind == "units" and not entry.unit:
            entry.unit = text.strip().strip("()[]").strip() or None
