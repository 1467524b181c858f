"""Group banners above a sheet's header: merged cells naming forms or visits over blocks of columns.

Exports from REDCap- or OpenClinica-style systems put one or more rows of merged cells above the
column names (``DEVICE & MONITOR DOWNLOADS`` over EC1:OF1), each naming the form, section or visit
of the columns under it; the header (one name per column) is the row below. Such rows are read
as a banner, and each column keeps its groups as metadata (its form), when

* every text in the row sits in a merged cell, or alone over one column: under a block of the row
  above (a one-column group inside 'DAY 2'), or beside the row's blocks as a one-column form; a
  row with more such lone labels than blocks is a header with a merged cell in it, not a banner,
* at least one merged cell spans a block of columns,
* no merged cell reaches down into the header row, and
* the header row under it gives every column under a merged cell its own name.

Columns no banner cell covers (unmerged blank cells, gaps) have no group. A merged cell across
the whole width is a title, not a group. A workbook whose merged cells are the only names of
their columns is still refused by :func:`~clinbridge.adapters.trial._read.find_header`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from clinbridge.adapters.trial._read import Sheet

__all__ = ["Banner", "find_banner", "is_banner_row"]


def _blank(v: Any) -> bool:
    return v is None or (isinstance(v, str) and not v.strip()) or (isinstance(v, float) and v != v)


@dataclass(frozen=True)
class Banner:
    """The banner rows above a header and the groups they give each column."""

    rows: tuple[int, ...] = ()
    """0-based indexes of the banner rows, top first."""
    cells: dict[tuple[int, int, int, int], str] = field(default_factory=dict)
    """Each banner cell's merged range (first row, first col, last row, last col) → its text."""
    titles: frozenset[tuple[int, int, int, int]] = frozenset()
    """Merged cells across the whole width right above the banner or header: titles."""

    @property
    def ranges(self) -> frozenset[tuple[int, int, int, int]]:
        """Every merged range read here (the caller's merged-cell check leaves them be)."""
        return frozenset(self.cells) | self.titles

    def top(self, header: int) -> int:
        """The first row of the banner (the header's own row when there is none)."""
        return self.rows[0] if self.rows else header

    def group(self, col: int) -> str | None:
        """The column's groups as one text, outermost first ('Visit 2 / Vital signs'); None
        under a gap."""
        texts = [t for (_r0, c0, _r1, c1), t in sorted(self.cells.items()) if c0 <= col <= c1]
        return " / ".join(texts) if texts else None

    def lines(self, letter: Callable[[int], str]) -> list[str]:
        """The load report's lines: each banner row and the groups it gives."""
        out = []
        for r in self.rows:
            texts = [
                f"{t!r} over {letter(c0)}:{letter(c1)}"
                for (r0, c0, _r1, c1), t in sorted(self.cells.items(), key=lambda x: x[0][1])
                if r0 == r
            ]
            if texts:
                out.append(f"row {r + 1}: " + "; ".join(texts))
        return out


def _anchors(sheet: Sheet) -> dict[tuple[int, int], tuple[int, int, int, int]]:
    return {(r0, c0): (r0, c0, r1, c1) for r0, c0, r1, c1 in sheet.merged}


def _cell(sheet: Sheet, r: int, c: int) -> Any:
    row = sheet.rows[r] if r < len(sheet.rows) else []
    return row[c] if c < len(row) else None


def _row_ranges(sheet: Sheet, i: int) -> list[tuple[int, int, int, int]] | None:
    """The cells whose texts fill row ``i``, each as its merged range; None when a text there is
    neither merged nor a one-column group inside a block of the row above."""
    anchors = _anchors(sheet)
    row = sheet.rows[i] if i < len(sheet.rows) else []
    out = []
    lone = 0
    for j, v in enumerate(row):
        if _blank(v):
            continue
        rng = anchors.get((i, j))
        if rng is None or (rng[3] == rng[1] and rng[2] == rng[0]):
            if not _under_block(sheet, i - 1, j):
                lone += 1  # a one-column form beside the blocks ('Design' over one column)
            rng = (i, j, i, j)  # or 'Blood pressure' alone under 'DAY 2'
        out.append(rng)
    blocks = sum(c1 > c0 for _r0, c0, _r1, c1 in out)
    if lone and lone > blocks:
        return None  # mostly single names with a merged cell among them: a header, not a banner
    return out


def _under_block(sheet: Sheet, i: int, j: int) -> bool:
    """Whether cell (i, j) lies in a merged cell that spans a block of columns."""
    return i >= 0 and any(
        r0 <= i <= r1 and c0 <= j <= c1 and c1 > c0 for r0, c0, r1, c1 in sheet.merged
    )


def is_banner_row(sheet: Sheet, i: int) -> bool:
    """Whether every text of row ``i`` is a banner cell and one of them spans a block of columns.

    (A row whose texts each stand alone under a block of the row above is read as a banner row
    only above a header found below it: on its own it looks just like a header under a banner.)
    """
    ranges = _row_ranges(sheet, i) or []
    return any(c1 > c0 for _r0, c0, _r1, c1 in ranges)


def find_banner(sheet: Sheet, header: int) -> Banner:
    """The banner directly above row ``header``; an empty Banner when there is none (or when
    what stands above is not one: the caller's checks then refuse its merged cells)."""
    header_row = sheet.rows[header]
    named = [j for j, v in enumerate(header_row) if not _blank(v)]
    if not named:
        return Banner()
    last = max(named)
    rows: list[int] = []
    spans: list[tuple[int, int, int, int]] = []
    titles: list[tuple[int, int, int, int]] = []
    i = header - 1
    while i >= 0:
        found = _row_ranges(sheet, i)
        if found is None:
            break
        if found and all(c0 == 0 and c1 >= last for _r0, c0, _r1, c1 in found):
            titles.extend(found)  # a title merged across the whole width
            break
        rows.insert(0, i)
        spans.extend(found)
        i -= 1
    while rows and not any(r0 == rows[0] for r0, *_ in spans):
        rows.pop(0)  # blank rows above the banner are title rows
    spans = [r for r in spans if r[0] in rows]
    for _r0, c0, r1, c1 in spans + titles:
        if r1 >= header:
            return Banner()  # the merged cell reaches into the header: it names columns
        for j in range(c0, min(c1, last) + 1):
            v = header_row[j] if j < len(header_row) else None
            if _blank(v) or not isinstance(v, str):
                return Banner()  # merged cells are the only names here (or this is data)
    if spans and not any(c1 > c0 for _r0, c0, _r1, c1 in spans):
        return Banner()
    cells = {rng: " ".join(str(_cell(sheet, rng[0], rng[1])).split()) for rng in spans}
    return Banner(tuple(rows), cells, frozenset(titles))
