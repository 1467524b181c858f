"""The load report: what was read, what was written, and whether the counts reconcile."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from clinbridge.adapters.trial._conventions import report_lines
from clinbridge.adapters.trial._ranges import range_lines

__all__ = ["TrialLoadReport"]


@dataclass
class TrialLoadReport:
    """What was read, what was written, and whether the counts reconcile."""

    file: str
    sheet: str
    dictionary_source: str
    rows_read: int = 0
    rows_loaded: int = 0
    blank_rows_skipped: int = 0
    title_rows_skipped: int = 0
    banner_rows: list[str] = field(default_factory=list)
    """Rows of merged group cells above the header, each with its groups (read as the forms of
    the columns under them)."""
    label_rows_skipped: int = 0
    """Rows of labels or units under the column names (read as such, not as subjects)."""
    descriptor_rows: list[str] = field(default_factory=list)
    """Each such row, and how its texts compare with the dictionary's labels or units."""
    columns_read: int = 0
    columns_loaded: int = 0
    dictionary_entries: int = 0
    dictionary_headings: list[str] = field(default_factory=list)
    """Section dividers in the dictionary (each the form of the entries below it)."""
    dictionary_notes: list[str] = field(default_factory=list)
    """Lone texts under the dictionary's last entry, read as notes."""
    value_labels: list[str] = field(default_factory=list)
    """Where the value labels came from when a formats sheet held them (PROC FORMAT style)."""
    visit_times: list[str] = field(default_factory=list)
    """Where visit codes ('V3') were read as time points (a visit schedule sheet)."""
    names_matched: list[str] = field(default_factory=list)
    """Dictionary names matched to data columns once case and punctuation are set aside."""
    inferred: list[str] = field(default_factory=list)
    """Columns without a dictionary entry (type, codes and time point inferred from the data)."""
    codes_not_declared: list[str] = field(default_factory=list)
    """Categorical columns whose dictionary entry lists no codes (their values kept as they are)."""
    admin_columns: list[str] = field(default_factory=list)
    """Data-management fields beside listed variables, by suffix ('QF (203)'): kept in the
    data, left out of the catalog."""
    trial_scope_from_data: list[str] = field(default_factory=list)
    """Columns the dictionary says all trials collected but which are blank in some trial."""
    cells: int = 0
    blank_cells: int = 0
    missing_code_cells: int = 0
    value_cells: int = 0
    problems: list[dict[str, Any]] = field(default_factory=list)
    """Bad cells stored as NULL (strict=False only), each with sheet, row and column."""
    workbook_missing: list[dict[str, Any]] = field(default_factory=list)
    """Missing codes declared once for the workbook: code, meaning, where, variables, cells."""
    workbook_codes_kept: list[str] = field(default_factory=list)
    weeks_and_days: list[str] = field(default_factory=list)
    """Text columns of gestations in completed weeks and days ('38+4') read as weeks."""
    derived_columns: list[str] = field(default_factory=list)
    """Columns the loader added beside those read (the sites' names looked up by trial and
    number), each with how it was derived; not counted among the columns read or loaded."""
    notes_missing: dict[str, dict[str, str]] = field(default_factory=dict)
    """Missing codes a variable's own notes declare beside the dictionary's table: column name →
    {code: "sheet 'Item definitions' row 14"}."""
    codes_outside_scope: list[str] = field(default_factory=list)
    """Text missing codes ('.L') found in numeric columns their declared scope leaves out."""
    """Workbook-wide codes kept as values where they are one of a variable's values."""
    out_of_range: list[dict[str, Any]] = field(default_factory=list)
    """Values outside their variable's declared range (sheet, row, column, what was done)."""
    long_rows: int = 0
    seconds: float = 0.0

    @property
    def reconciled(self) -> bool:
        """Whether every row, column and cell read is accounted for."""
        return (
            self.rows_read == self.rows_loaded
            and self.columns_read == self.columns_loaded
            and self.cells
            == self.blank_cells + self.missing_code_cells + self.value_cells + len(self.problems)
            and sum(d["cells"] for d in self.workbook_missing) <= self.missing_code_cells
        )

    def summary_lines(self) -> list[str]:
        """The report as short lines for the terminal."""
        lines = [
            f"read {self.rows_read} subject row(s) x {self.columns_read} column(s) from sheet "
            f"{self.sheet!r} of {self.file}",
            f"dictionary: {self.dictionary_source} ({self.dictionary_entries} entries)",
            f"loaded {self.rows_loaded} row(s) x {self.columns_loaded} column(s) into trial_data; "
            f"{self.long_rows} row(s) into trial_long",
            f"cells: {self.value_cells} values, {self.missing_code_cells} missing codes, "
            f"{self.blank_cells} blank, {len(self.problems)} bad (stored as NULL)",
        ]
        if self.dictionary_headings:
            lines.append(
                f"{len(self.dictionary_headings)} section heading row(s) in the dictionary read as "
                f"the form of the entries below them: {_shown(self.dictionary_headings, 4)}"
            )
        if self.dictionary_notes:
            lines.append(f"dictionary notes (not variables): {_shown(self.dictionary_notes, 3)}")
        if self.names_matched:
            lines.append(
                f"{len(self.names_matched)} dictionary name(s) matched to data columns with "
                f"punctuation set aside: {_shown(self.names_matched, 5)}"
            )
        lines += self.value_labels
        lines += self.visit_times
        if self.title_rows_skipped:
            lines.append(f"{self.title_rows_skipped} title row(s) above the header skipped")
        if self.banner_rows:
            lines.append(
                f"{len(self.banner_rows)} banner row(s) above the header read as the forms of "
                f"the columns under them: {_shown(self.banner_rows, 3)}"
            )
        lines += self.descriptor_rows  # 'row 3: variable labels, checked against ...'
        if self.blank_rows_skipped:
            lines.append(f"{self.blank_rows_skipped} entirely blank row(s) skipped")
        if self.inferred:
            shown = ", ".join(self.inferred[:10]) + (" ..." if len(self.inferred) > 10 else "")
            lines.append(
                f"{len(self.inferred)} column(s) have no dictionary entry; inferred from the data: {shown}"
            )
        if self.codes_not_declared:
            lines.append(
                f"{len(self.codes_not_declared)} categorical column(s) have no codes in the "
                "dictionary; their values are kept as recorded: "
                f"{_shown(self.codes_not_declared, 5)}"
            )
        if self.admin_columns:
            lines.append(
                "data-management fields beside dictionary variables (kept in the data, not "
                f"read as variables): {', '.join(self.admin_columns)}"
            )
        if self.trial_scope_from_data:
            lines.append(
                f"{len(self.trial_scope_from_data)} column(s) are blank in one trial although the "
                "dictionary lists them for all; their trial scope was taken from the data"
            )
        lines += report_lines(self.workbook_missing, self.workbook_codes_kept)
        lines += [f"derived column {d}" for d in self.derived_columns]
        if self.weeks_and_days:
            lines.append(
                "read as weeks from completed weeks+days ('38+4' = 38 4/7 weeks): "
                + ", ".join(self.weeks_and_days)
            )
        if self.notes_missing:
            codes = sorted({c for d in self.notes_missing.values() for c in d})
            lines.append(
                f"missing codes declared in the notes beside the dictionary's entries of "
                f"{len(self.notes_missing)} variable(s): {', '.join(codes)}"
            )
        if self.codes_outside_scope:
            lines.append(
                f"{len(self.codes_outside_scope)} text missing code(s) stand in numeric columns "
                "their declared scope leaves out; read as missing all the same: "
                f"{_shown(self.codes_outside_scope, 5)}"
            )
        lines += range_lines(self.out_of_range)
        lines.append("counts reconcile" if self.reconciled else "COUNTS DO NOT RECONCILE")
        return lines

    def to_json(self) -> str:
        """The report as JSON."""
        data = dict(self.__dict__)
        data["reconciled"] = self.reconciled
        return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()


def _shown(items: list[str], most: int) -> str:
    return ", ".join(repr(x) for x in items[:most]) + (" ..." if len(items) > most else "")
