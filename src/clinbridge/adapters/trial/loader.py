"""``clinbridge load trial FILE.xlsx|FILE.csv --db URL [--dictionary FILE|SHEET]``.

Reads the wide sheet and its data dictionary (found in the workbook by content, read from a
separate file or sheet, or inferred from the data and said so), checks every cell against the
dictionary, and writes:

* ``trial_data`` — the wide table as exported (one row per subject, codes and missing codes kept);
* ``trial_long`` — (subject, variable, time_point, value, raw) for every time-pointed numeric or
  coded variable, missing codes as NULL in ``value`` and kept in ``raw``;
* ``trial_variables`` / ``trial_codes`` — the dictionary the catalog is built from;
* ``trial_meta`` — where the data and dictionary came from, and the reconciled counts.

Nothing is dropped silently: a bad cell is an error naming sheet, row and column (or, with
``strict=False``, stored as NULL and listed in the report); rows and columns reconcile.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd

from clinbridge.adapters.trial._admin_columns import ADMIN_SOURCE, mark_admin_columns
from clinbridge.adapters.trial._banner import find_banner
from clinbridge.adapters.trial._codes import (
    MISSING_TEXT,
    SPECIAL_MISSING,
    is_special_missing,
    split_missing,
)
from clinbridge.adapters.trial._codes import is_number as _num
from clinbridge.adapters.trial._conventions import drop_notes, workbook_codes
from clinbridge.adapters.trial._descriptor_rows import describe, descriptor_rows
from clinbridge.adapters.trial._dict_rows import dictionary_entries, given_dictionary
from clinbridge.adapters.trial._dictionary import (
    Entry,
    code_key,
    infer_entry,
    keep_fitting_reading,
    mostly_numbers,
    role_of,
)
from clinbridge.adapters.trial._formats import apply_formats
from clinbridge.adapters.trial._list_sheets import codes_from_list_sheets, long_code_tables
from clinbridge.adapters.trial._listed_elsewhere import categories_from_values
from clinbridge.adapters.trial._problems import problem_at, raise_problems, unlisted_text_codes
from clinbridge.adapters.trial._ranges import check_range, usual_codes_beside
from clinbridge.adapters.trial._read import (
    Sheet,
    column_letter,
    dictionary_columns,
    find_dictionary,
    find_header,
    header_names,
    read_sheets,
)
from clinbridge.adapters.trial._report import TrialLoadReport
from clinbridge.adapters.trial._site_names import name_sites, site_numbers
from clinbridge.adapters.trial._sql_name import sql_name
from clinbridge.adapters.trial._undeclared_codes import NOT_DECLARED, codes_not_declared
from clinbridge.adapters.trial._visit_sheet import apply_visit_times
from clinbridge.adapters.trial._weeks_days import weeks_and_days
from clinbridge.adapters.trial._weeks_days_pair import derive_weeks_days
from clinbridge.errors import LoadError

__all__ = ["TrialLoadReport", "load_trial", "read_trial"]

logger = logging.getLogger(__name__)


@dataclass
class TrialTable:
    """The checked wide table and its dictionary, before it is written anywhere."""

    frame: pd.DataFrame
    """Columns renamed to safe SQL names (see ``entries``)."""
    entries: list[tuple[Entry, str]]
    """Each variable's dictionary entry with its SQL column name, in sheet order."""
    report: TrialLoadReport


def _blank(v: Any) -> bool:
    return (
        v is None
        or (isinstance(v, str) and not v.strip())
        or (isinstance(v, float) and math.isnan(v))
    )


def read_trial(
    path: str | Path,
    *,
    dictionary: str | Path | None = None,
    sheet: str | None = None,
    encoding: str | None = None,
    strict: bool = True,
) -> TrialTable:
    """Read and check a trial workbook or CSV (no database involved).

    Args:
        path: .xlsx (or another calamine format) or .csv file.
        dictionary: A dictionary file (.xlsx/.csv), or the name of the workbook's dictionary sheet;
            default: found in the workbook by content, else inferred from the data.
        sheet: The data sheet's name (default: the widest sheet that is not the dictionary).
        encoding: Text encoding of CSV files (default UTF-8, with or without BOM).
        strict: Raise on the first bad cells (default); False stores them as NULL and lists them.

    Raises:
        LoadError: naming file, sheet, row and column of the problem.
    """
    start = time.perf_counter()
    sheets = read_sheets(path, encoding=encoding)
    given = given_dictionary(dictionary, sheets, path, encoding=encoding)
    dict_sheet, dict_header, dict_cols = given if given else (None, 0, {})
    data = _data_sheet(sheets, sheet, exclude=dict_sheet)
    header = find_header(data)
    names = header_names(data, header)
    if dict_sheet is None:
        found = find_dictionary(sheets, data, names)
        if found:
            dict_sheet, dict_header, dict_cols = found
    if dict_sheet is not None:
        where = (
            f"sheet {dict_sheet.name!r}"
            if dict_sheet.file == str(path)
            else f"file {dict_sheet.file} (sheet {dict_sheet.name!r})"
        )
        source = where
    else:
        source = "none found: inferred from the data (labels are the column names)"
    report = TrialLoadReport(file=str(path), sheet=data.name, dictionary_source=source)
    banner = find_banner(data, header)  # merged group cells over the names: each column's form
    report.title_rows_skipped = banner.top(header)
    report.banner_rows = banner.lines(column_letter)
    found_dict = (dict_sheet, dict_header, dict_cols) if dict_sheet is not None else None
    declared = workbook_codes(sheets, data, banner.top(header), found_dict, names)
    entries_by_name: dict[str, Entry] = {}
    if dict_sheet is not None:
        dict_rows = dictionary_entries(dict_sheet, dict_header, dict_cols, names)
        entries_by_name = dict_rows.entries
        report.dictionary_headings = dict_rows.headings
        report.dictionary_notes = dict_rows.notes
        report.names_matched = dict_rows.matched
        entries_by_name = drop_notes(entries_by_name, declared, dict_sheet.name, names)
        others = [s for s in sheets if s is not data and s is not dict_sheet]
        report.value_labels = apply_formats(
            entries_by_name, dict_sheet, dict_header, dict_cols, others
        ).lines()
        report.dictionary_entries = len(entries_by_name)
        report.visit_times = apply_visit_times(list(entries_by_name.values()), others)
        have = {n.lower() for n in names}
        lacking = [e for k, e in entries_by_name.items() if k not in have]
        if lacking:
            e = lacking[0]
            raise LoadError(
                f"the dictionary disagrees with the data: it lists {len(lacking)} variable(s) the "
                f"data sheet {data.name!r} lacks, first {e.name!r}",
                **dict_sheet.where(e.row - 1 if e.row else None, dict_cols["variable"]),
            )
    body = data.rows[header + 1 :]
    # rows of labels or units under the names describe the columns, not a subject
    described = descriptor_rows(data, header, names, entries_by_name)
    report.label_rows_skipped = len(described)
    report.descriptor_rows = [d.line() for d in described]
    skipped = {d.index - header - 1 for d in described}
    kept_rows: list[int] = []
    for i, row in enumerate(body):
        if i in skipped:
            continue
        if any(v != "" and v is not None for v in row) and any(
            not _blank(v) for v in row[: len(names)]
        ):
            kept_rows.append(i)
    report.blank_rows_skipped = len(body) - len(kept_rows) - report.label_rows_skipped
    report.rows_read = len(kept_rows)
    rows = [body[i] for i in kept_rows]
    report.columns_read = sum(1 for n in names if n)
    columns: dict[str, Any] = {}
    entries: list[tuple[Entry, str]] = []
    used_sql: dict[str, str] = {}
    problems: list[dict[str, Any]] = []
    width = len(names)
    transposed = (
        list(
            zip(
                *[
                    r[:width] if len(r) >= width else [*r, *([None] * (width - len(r)))]
                    for r in rows
                ],
                strict=True,
            )
        )
        if rows
        else [() for _ in names]
    )
    locate = partial(problem_at, data, header, kept_rows)
    others = [s for s in sheets if s is not data and s is not dict_sheet]
    code_rows = long_code_tables(others, names)  # 'Variable | Value | Label', a row per code
    for j, name in enumerate(names):
        if not name:
            continue
        raw = list(transposed[j])
        entry = entries_by_name.get(name.lower())
        if entry is not None:
            keep_fitting_reading(entry, raw)  # 'Hypothermia (A) / ...': the data decide
        if entry is None:
            entry = infer_entry(
                name,
                [None if declared.is_text_code(v) or is_special_missing(v) else v for v in raw],
            )
            report.inferred.append(name)
        elif not entry.typed:  # a dictionary without a type column: numbers are numbers
            seen = infer_entry(
                name,
                mostly_numbers(
                    [v for v in raw if not (_missing_text(v, entry) or declared.is_text_code(v))]
                ),
            )
            entry.type = "integer" if seen.type == "categorical" else seen.type
        entry.name = name
        entry.form = entry.form or banner.group(j)
        describe(entry, j, described)
        in_weeks = weeks_and_days(entry, raw)  # '38+4': completed weeks and days, as weeks
        if in_weeks is not None:
            raw = in_weeks
            report.weeks_and_days.append(name)
        col = sql_name(name)
        if col in used_sql:
            raise LoadError(
                f"columns {used_sql[col]!r} and {name!r} have the same name once spaces and "
                f"punctuation are set aside ({col!r}); rename one",
                **data.where(header, j),
            )
        used_sql[col] = name
        if name in code_rows and not entry.codes:
            entry.codes, more = split_missing(code_rows[name])
            entry.missing = {**more, **entry.missing}
            entry.type, entry.typed = "categorical", True
        codes_from_list_sheets(entry, sheets, raw)  # numeric codes labelled on a 'Centres' sheet
        added = declared.extend(entry, raw) if declared else []
        if codes_not_declared(entry, raw):  # 'categorical' with no codes: values as recorded
            report.codes_not_declared.append(name)
        values, stats = _convert(entry, raw, data, header, kept_rows, j, problems, strict)
        categories_from_values(entry, values)  # 'see Centres sheet': its few values are codes
        declared.count(added, raw, values)
        if entry.range and isinstance(values, np.ndarray):
            stats = check_range(entry, values, stats, partial(locate, j=j), report.out_of_range)
        report.cells += len(raw)
        report.blank_cells += stats[0]
        report.missing_code_cells += stats[1]
        report.value_cells += stats[2]
        columns[col] = values
        entries.append((entry, col))
    if problems and strict:
        raise_problems(problems, data)
    report.problems = problems
    report.workbook_missing, report.workbook_codes_kept = declared.report(), declared.not_applied
    report.codes_outside_scope = declared.outside
    report.notes_missing = {}
    for e, _ in entries:  # the codes a variable's own notes declared, and where
        kept = {
            c: where
            for c, where in declared.per_variable_where.get(e.name.lower(), {}).items()
            if c in e.missing
        }
        if kept:
            report.notes_missing[e.name] = kept
    derive_weeks_days(entries, columns, report)  # 'completed weeks' beside 'days (0-6)'
    frame = pd.DataFrame(columns)
    report.admin_columns = mark_admin_columns(entries)  # 'MRI_SCORE_QF' beside 'mri_score'
    admin = {e.name for e, _ in entries if e.source == ADMIN_SOURCE}
    report.inferred = [n for n in report.inferred if n not in admin]
    _design(entries, columns, frame, data, header, report, others)
    report.columns_loaded = frame.shape[1] - len(report.derived_columns)
    report.rows_loaded = frame.shape[0]
    report.seconds = time.perf_counter() - start
    return TrialTable(frame, entries, report)


def _data_sheet(sheets: list[Sheet], name: str | None, *, exclude: Sheet | None) -> Sheet:
    if name is not None:
        for s in sheets:
            if s.name.lower() == name.lower():
                return s
        raise LoadError(
            f"no sheet {name!r} (sheets: {', '.join(s.name for s in sheets)})", file=sheets[0].file
        )
    candidates = [s for s in sheets if s is not exclude and s.rows]
    # a dictionary sheet has a few columns and many rows; the data sheet is the widest one
    candidates = [
        s for s in candidates if not any(dictionary_columns(r) for r in s.rows[:3])
    ] or candidates
    if not candidates:
        raise LoadError("the workbook has no sheet with data", file=sheets[0].file)
    return max(candidates, key=lambda s: (s.width, len(s.rows)))


def _convert(
    entry: Entry,
    raw: list[Any],
    sheet: Sheet,
    header: int,
    kept_rows: list[int],
    j: int,
    problems: list[dict[str, Any]],
    strict: bool,
) -> tuple[Any, tuple[int, int, int]]:
    """One column's values in their dictionary type; (blank, missing-code, value) cell counts."""

    def problem(i: int, value: Any, reason: str) -> None:
        problems.append(problem_at(sheet, header, kept_rows, i, j, entry, value, reason))

    if not entry.numeric:
        out: list[Any]
        if set(map(type, raw)) == {str}:  # the common case: a text column read as text
            out = [v or None for v in map(str.strip, raw)]
        else:
            out = []
            for v in raw:
                if type(v) is str:
                    out.append(v.strip() or None)
                elif v is None or (isinstance(v, float) and math.isnan(v)):
                    out.append(None)
                elif isinstance(v, bool):  # a TRUE/FALSE cell: the code list's spelling
                    out.append(_bool_code(v, entry))
                elif isinstance(v, dt.datetime | dt.date):
                    out.append(v.isoformat()[:10] if entry.type == "date" else v.isoformat())
                elif isinstance(v, float) and v.is_integer():
                    out.append(str(int(v)))
                else:
                    out.append(str(v).strip())
        unlisted = unlisted_text_codes(entry, out)  # 'X' in a column coded 'M = Male; F = Female'
        for i, reason in unlisted:
            problem(i, raw[i], reason)
            out[i] = None
        blank = out.count(None) - len(unlisted)
        missing = sum(1 for v in out if v in entry.missing) if entry.missing else 0
        return out, (blank, missing, len(raw) - blank - missing - len(unlisted))
    text_missing = 0  # 'NA', 'not done', '.' or a declared text code in a numeric column
    by_label = {lab.strip().lower(): c for c, lab in entry.codes.items() if lab and _num(c)}
    try:
        try:  # numbers and None (NaN) convert at once; a "" or a text cell takes the long way
            arr = np.array(raw, dtype=float)
        except (TypeError, ValueError):
            arr = np.array([np.nan if v == "" or v is None else v for v in raw], dtype=float)
        blank = int(np.isnan(arr).sum())
    except (TypeError, ValueError):
        arr = np.full(len(raw), np.nan)
        blank = 0
        for i, v in enumerate(raw):
            if _blank(v):
                blank += 1
                continue
            if _missing_text(v, entry):
                text_missing += 1
                if is_special_missing(v) and v.strip() not in entry.missing:
                    entry.missing[v.strip()] = SPECIAL_MISSING  # '.N' in a SAS numeric column
                continue
            if isinstance(v, str) and v.strip().lower() in by_label:  # 'Male' for code 1
                arr[i] = float(by_label[v.strip().lower()])
                continue
            try:
                arr[i] = float(str(v).strip()) if not isinstance(v, bool) else float("nan")
                if isinstance(v, bool):
                    raise ValueError
            except ValueError:
                problem(
                    i,
                    v,
                    f"text {str(v)!r} in a {entry.type} column",
                )
    missing_codes = np.array([float(c) for c in entry.missing if _num(c)], dtype=float)
    is_missing = np.isin(arr, missing_codes) if len(missing_codes) else np.zeros(len(arr), bool)
    present = ~np.isnan(arr) & ~is_missing
    if entry.type == "integer":
        bad = present & (np.abs(arr - np.round(arr)) > 1e-9)
        for i in np.flatnonzero(bad).tolist():
            problem(
                int(i),
                raw[i],
                f"{raw[i]!r} in an integer column",
            )
            arr[i] = np.nan
            present[i] = False
    if entry.type == "categorical" and entry.codes_declared:
        allowed = {float(c) for c in entry.codes if _num(c)}
        bad = present & ~np.isin(arr, list(allowed))
        if bad.any() and (usual := usual_codes_beside(entry, arr[bad], allowed)):
            is_missing |= np.isin(arr, usual)  # '-999' beside '0=No; 1=Yes', declared nowhere
            present &= ~is_missing
            bad &= present
        for i in np.flatnonzero(bad).tolist():
            shown = "; ".join(f"{k}={v}" for k, v in list(entry.codes.items())[:6])
            problem(
                int(i),
                raw[i],
                f"the dictionary disagrees with the data: value {code_key(raw[i])} is not one "
                f"of the codes ({shown}) or missing codes",
            )
            arr[i] = np.nan
            present[i] = False
    elif present.any():
        real = arr[present]
        guesses = np.array([-99.0, -88.0, -77.0, -999.0])
        undeclared = sorted(guesses[np.isin(guesses, real)].tolist())
        if undeclared and real[~np.isin(real, undeclared)].min(initial=0.0) >= 0:
            i = int(np.flatnonzero(present & np.isin(arr, undeclared))[0])
            if entry.missing:  # it declares others: the dictionary disagrees with the data
                problem(
                    i,
                    raw[i],
                    f"the dictionary disagrees with the data: {code_key(undeclared[0])} looks "
                    "like a missing code but the dictionary does not declare it for this variable",
                )
            # (declaring none, as a builder who states missing codes once for the workbook
            # does, a usual missing code is taken as one and said so in its label)
            for x in undeclared:
                entry.missing.setdefault(code_key(x), "undeclared: a usual missing code")
            is_missing = np.isin(arr, [float(c) for c in entry.missing if _num(c)])
            present = ~np.isnan(arr) & ~is_missing
    n_bad = sum(1 for p in problems if p["column_index"] == j)
    values_ok = int(present.sum())
    n_missing = int(is_missing.sum()) + text_missing
    # cells that were bad became NaN: keep counts exact (blank + missing + values + bad == cells)
    values_ok = len(raw) - blank - n_missing - n_bad
    return arr, (blank, n_missing, values_ok)


def _bool_code(v: bool, entry: Entry) -> str:
    """A spreadsheet's TRUE/FALSE cell as the code its list writes (``TRUE=Yes|FALSE=No``,
    ``true``), else 'TRUE' / 'FALSE'."""
    text = "TRUE" if v else "FALSE"
    return next((c for c in entry.codes if c.strip().upper() == text), text)


def _missing_text(v: Any, entry: Entry) -> bool:
    """A cell whose text says the value is missing ('NA', 'not done', a declared code, a SAS
    special missing value '.N')."""
    return isinstance(v, str) and (
        v.strip().lower() in MISSING_TEXT or v.strip() in entry.missing or is_special_missing(v)
    )


def _design(
    entries: list[tuple[Entry, str]],
    columns: dict[str, Any],
    frame: pd.DataFrame,
    sheet: Sheet,
    header: int,
    report: TrialLoadReport,
    others: list[Sheet] | None = None,
) -> None:
    """Roles (subject, trial, site, arm), and each variable's trial scope checked against the data."""
    roles: dict[str, tuple[Entry, str]] = {}
    for entry, col in entries:
        role = role_of(entry) if entry.source != ADMIN_SOURCE else None
        if role and role not in roles:
            roles[role] = (entry, col)
    if "subject" not in roles:
        for entry, col in entries:
            s = frame[col]
            if s.notna().all() and s.is_unique:
                roles["subject"] = (entry, col)
                break
    if "subject" not in roles:
        raise LoadError(
            "no subject identifier: no column is named or labelled as one, and none has a "
            "distinct value on every row",
            **sheet.where(header),
        )
    sentry, scol = roles["subject"]
    ids = frame[scol]
    dup = ids[ids.duplicated(keep=False) & ids.notna()]
    if ids.isna().any() or len(dup):
        i = int(np.flatnonzero(ids.isna())[0]) if ids.isna().any() else int(dup.index[1])
        what = "a blank" if ids.isna().any() else f"duplicate {ids.iloc[i]!r}"
        raise LoadError(
            f"the subject identifier column {sentry.name!r} has {what} value; each row must be "
            "one subject",
            file=sheet.file,
            record=f"sheet {sheet.name!r} data row {i + 1}",
            field=sentry.name,
        )
    numbered_site = "site" not in roles
    if numbered_site:  # 'SITE_NO', 'Site number within trial': numbers, no codes
        site = site_numbers(entries, frame)
        if site is not None:
            roles["site"] = site
    for role, (entry, _) in roles.items():
        entry.role = role
    if numbered_site and "site" in roles and "trial" in roles:
        name_sites(roles, entries, columns, frame, others or [], report)
    if "trial" in roles:
        tentry, tcol = roles["trial"]
        tvals = [None if v is None or v != v else code_key(v) for v in columns[tcol]]
        labels = {k: (tentry.codes.get(k) or k) for k in set(tvals) if k is not None}
        rows_of = {
            lab: np.flatnonzero(np.array([t == k for t in tvals])) for k, lab in labels.items()
        }
        # a dictionary's study column may write the trial's code ('KES/MON') where the trial
        # variable's label is its name ('KESTREL'): scopes speak in the labels
        named = {k.lower(): lab for k, lab in tentry.codes.items() if lab}
        for entry, _ in entries:
            if entry.trials:
                entry.trials = tuple(dict.fromkeys(named.get(t.lower(), t) for t in entry.trials))
        for entry, col in entries:
            if entry is tentry or entry.role:
                continue
            have = sorted(lab for lab, rows in rows_of.items() if _filled_in(columns[col], rows))
            if entry.trials:
                extra = [t for t in have if t not in entry.trials]
                if extra:
                    report.trial_scope_from_data.append(entry.name)
                    entry.trials = tuple(sorted(set(entry.trials) | set(extra)))
            elif have and len(have) < len(labels):
                report.trial_scope_from_data.append(entry.name)
                entry.trials = tuple(have)


def _filled_in(values: Any, rows: np.ndarray) -> bool:
    """Whether the column has a value (not blank) on any of these rows."""
    if isinstance(values, np.ndarray):
        return bool((~np.isnan(values[rows])).any())
    return any(values[i] is not None for i in rows.tolist())


# -- writing ----------------------------------------------------------------------------------


def missing_conventions(report: TrialLoadReport) -> str:
    """Where the workbook declared its missing codes, in a line for the catalog: each
    workbook-wide code with its sheet, row and scope, and the variables whose own notes declare
    codes ('' when none is declared outside the dictionary's codes columns)."""
    parts = [
        f"{d['code']} = {d['meaning']} ({d['declared']}"
        + (
            f", for {d['applies_to']}"
            if d.get("applies_to", "all variables") != "all variables"
            else ""
        )
        + ")"
        for d in report.workbook_missing
        if d.get("variables")
    ]
    if report.notes_missing:
        wheres = sorted(
            {w.rsplit(" row ", 1)[0] for d in report.notes_missing.values() for w in d.values()}
        )
        parts.append(
            f"per-variable codes in the notes beside the dictionary ({', '.join(wheres)}) for "
            f"{len(report.notes_missing)} variable(s)"
        )
    return "; ".join(parts)


def load_trial(
    path: str | Path,
    url: str,
    *,
    dictionary: str | Path | None = None,
    sheet: str | None = None,
    encoding: str | None = None,
    strict: bool = True,
) -> TrialLoadReport:
    """Read, check and write a trial table into the database at ``url`` (see :func:`read_trial`)."""
    from clinbridge.db import Database, parse_url

    table = read_trial(path, dictionary=dictionary, sheet=sheet, encoding=encoding, strict=strict)
    start = time.perf_counter()
    in_sql = parse_url(url).backend == "duckdb"  # DuckDB builds the long view itself (UNPIVOT)
    variables, codes, long = _side_tables(table, build_long=not in_sql)
    report = table.report
    report.long_rows = len(long)
    meta = pd.DataFrame(
        {
            "key": [
                "file",
                "sheet",
                "dictionary_source",
                "rows",
                "columns",
                "loaded_at",
                "missing_conventions",
            ],
            "value": [
                str(path),
                report.sheet,
                report.dictionary_source,
                str(report.rows_loaded),
                str(report.columns_loaded),
                dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                missing_conventions(report),
            ],
        }
    )
    with Database.open(url, read_only=False) as db:
        frames = {
            "trial_data": table.frame,
            "trial_variables": variables,
            "trial_codes": codes,
            "trial_meta": meta,
        }
        if not in_sql:
            frames["trial_long"] = long
        _write(db, frames)
        if in_sql:
            report.long_rows = _long_in_duckdb(db, table)
    report.seconds += time.perf_counter() - start
    return report


def _long_columns(table: TrialTable) -> list[tuple[Entry, str]]:
    return [(e, c) for e, c in table.entries if e.time_point and e.numeric and not e.role]


def _long_in_duckdb(db: Any, table: TrialTable) -> int:
    """trial_long from trial_data with one UNPIVOT (missing codes NULL in ``value``)."""
    subject = next(c for e, c in table.entries if e.role == "subject")
    cols = [c for _, c in _long_columns(table)]
    prefix = f'"{db.schema}".' if db.schema else ""
    if not cols:
        db.conn.execute(
            f"CREATE OR REPLACE TABLE {prefix}trial_long (subject VARCHAR, variable VARCHAR, "
            "time_point VARCHAR, value DOUBLE, raw DOUBLE)"
        )
        return 0
    quoted = ", ".join(f'"{c}"' for c in cols)
    db.conn.execute(
        f"CREATE OR REPLACE TABLE {prefix}trial_long AS "
        "SELECT CAST(u.subject AS VARCHAR) AS subject, v.name AS variable, v.time_point, "
        "CASE WHEN m.code IS NULL THEN u.raw END AS value, u.raw "
        f'FROM (UNPIVOT (SELECT "{subject}" AS subject, {quoted} FROM {prefix}trial_data) '
        f"ON {quoted} INTO NAME column_name VALUE raw) AS u "
        f"JOIN {prefix}trial_variables AS v ON v.column_name = u.column_name "
        "LEFT JOIN (SELECT variable, TRY_CAST(code AS DOUBLE) AS code "
        f"FROM {prefix}trial_codes WHERE missing) AS m "
        "ON m.variable = v.name AND m.code = u.raw"
    )
    return int(db.conn.execute(f"SELECT COUNT(*) FROM {prefix}trial_long").fetchone()[0])


def _side_tables(
    table: TrialTable, *, build_long: bool = True
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    var_rows = []
    code_rows = []
    subject_col = next(c for e, c in table.entries if e.role == "subject")
    long_parts = []
    ids_arr = table.frame[subject_col].astype(str).to_numpy()
    for entry, col in table.entries:
        role = entry.role
        var_rows.append(
            {
                "name": entry.name,
                "column_name": col,
                "label": entry.label,
                "type": entry.type,
                "unit": entry.unit,
                "codes": orjson.dumps(entry.codes).decode(),
                "missing": orjson.dumps(entry.missing).decode(),
                "time_point": entry.time_point,
                "time_point_text": entry.time_point_text,
                "trials": orjson.dumps(list(entry.trials)).decode(),
                "form": entry.form,
                "role": role,
                "source": entry.source
                if entry.codes_declared
                else f"{entry.source}: {NOT_DECLARED}",
            }
        )
        for k, v in entry.codes.items():
            code_rows.append({"variable": entry.name, "code": k, "label": v, "missing": False})
        for k, v in entry.missing.items():
            code_rows.append({"variable": entry.name, "code": k, "label": v, "missing": True})
        if build_long and entry.time_point and entry.numeric and not role:
            raw = table.frame[col].to_numpy(dtype=float)
            keep = ~np.isnan(raw)
            if not keep.any():
                continue
            miss = [float(c) for c in entry.missing if _num(c)]
            clean = np.where(np.isin(raw, miss), np.nan, raw)
            kept = int(keep.sum())
            long_parts.append(
                (
                    ids_arr[keep],
                    [entry.name] * kept,
                    [entry.time_point] * kept,
                    clean[keep],
                    raw[keep],
                )
            )
    long = pd.DataFrame(
        {
            "subject": np.concatenate([p[0] for p in long_parts]) if long_parts else [],
            "variable": [x for p in long_parts for x in p[1]],
            "time_point": [x for p in long_parts for x in p[2]],
            "value": np.concatenate([p[3] for p in long_parts]) if long_parts else [],
            "raw": np.concatenate([p[4] for p in long_parts]) if long_parts else [],
        }
    )
    return pd.DataFrame(var_rows), pd.DataFrame(code_rows), long


def _write(db: Any, frames: dict[str, pd.DataFrame]) -> None:
    if db.backend == "duckdb":
        conn = db.conn
        prefix = f'"{db.schema}".' if db.schema else ""
        for name, df in frames.items():
            view = f"_cb_{name}"
            conn.register(view, df)
            try:
                conn.execute(f'CREATE OR REPLACE TABLE {prefix}"{name}" AS SELECT * FROM "{view}"')
            finally:
                conn.unregister(view)
        return
    if db.backend == "sqlite":
        for name, df in frames.items():
            df.to_sql(name, db.conn, if_exists="replace", index=False, chunksize=20)
        db.conn.commit()
        return
    import sqlalchemy

    engine = sqlalchemy.create_engine(
        "postgresql+psycopg://",
        creator=lambda: _pg_conn(db.url),
        poolclass=sqlalchemy.pool.NullPool,
    )
    with engine.begin() as conn:
        for name, df in frames.items():
            df.to_sql(name, conn, schema=db.schema, if_exists="replace", index=False, chunksize=100)
    engine.dispose()


def _pg_conn(url: str) -> Any:
    import psycopg

    from clinbridge.db import parse_url

    parsed = parse_url(url)
    conn = psycopg.connect(parsed.dsn or "")
    if parsed.schema:
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{parsed.schema}"')
        conn.execute(f'SET search_path TO "{parsed.schema}", public')
    return conn
