"""Sites numbered within each trial and named on a list sheet by trial and number.

A pooled export may number its sites from 1 in each trial (site 3 of one trial is not site 3 of
the other) and name them only on a sheet of their own, one row per site::

    Trial   | Site no. | Site    | Country
    SAKURA  | 1        | Sendai  | Japan
    MERIDIAN| 1        | Boston  | United States

The number alone names no site, so the site column keeps its numbers (unlabelled) and a column
of the sites' names is derived beside it, each row's name looked up by its trial and its number;
that derived column is the site. The sheet is taken only when one of its columns holds the
trial's labels (or codes), one whole numbers and one names, when its (trial, number) pairs are
distinct, and when they cover every pair the data holds. Anything less leaves the site as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from clinbridge.adapters.trial._codes import is_number
from clinbridge.adapters.trial._dictionary import Entry, code_key, site_label
from clinbridge.adapters.trial._list_sheets import cell_key as _key
from clinbridge.adapters.trial._sql_name import sql_name

if TYPE_CHECKING:
    from clinbridge.adapters.trial._read import Sheet
    from clinbridge.adapters.trial._report import TrialLoadReport

__all__ = ["SUPERSEDED", "SiteNames", "name_sites", "named_sites", "site_numbers"]

_MOST_ROWS = 300
_NAME_HEAD = re.compile(r"\b(?:site|centre|center|hospital|name|unit|institution)s?\b", re.I)


@dataclass
class SiteNames:
    """The sites' names, one per data row, and where they were found."""

    names: list[str | None]
    sheet: str
    header: str
    """The heading of the names' column ('Site')."""


def named_sites(
    site: Entry,
    site_values: list[Any],
    trial: Entry,
    trial_values: list[Any],
    sheets: list[Sheet],
) -> SiteNames | None:
    """Each row's site name from a sheet naming sites by trial and number, or None."""
    trial_of = {k.lower(): k for k in trial.codes} | {
        lab.lower(): k for k, lab in trial.codes.items() if lab
    }
    pairs = {
        (t, s)
        for t, s in zip(map(_key, trial_values), map(_key, site_values), strict=True)
        if t is not None and s is not None and s not in site.missing
    }
    if not pairs or len({s for _, s in pairs}) == len(pairs):
        return None  # numbers that name their sites alone need no trial to tell them apart
    for sheet in sheets:
        found = _table(sheet, trial_of)
        if found is None:
            continue
        table, header = found
        if not pairs <= set(table):
            continue
        names = [
            table.get((t, s)) if t is not None and s is not None else None
            for t, s in zip(map(_key, trial_values), map(_key, site_values), strict=True)
        ]
        return SiteNames(names, sheet.name, header)
    return None


def _table(sheet: Sheet, trial_of: dict[str, str]) -> tuple[dict[tuple[str, str], str], str] | None:
    """{(trial code, number): name} from the sheet's rows under its header, or None."""
    rows = [r for r in sheet.rows[:_MOST_ROWS] if any(_key(v) for v in r)]
    if len(rows) < 3 or len(sheet.rows) > _MOST_ROWS:
        return None
    head, body = rows[0], rows[1:]
    width = max(len(r) for r in rows)

    def col(j: int) -> list[str | None]:
        return [_key(r[j]) if j < len(r) else None for r in body]

    cols = [col(j) for j in range(width)]
    t_col = next(
        (j for j, c in enumerate(cols) if all(v is not None and v.lower() in trial_of for v in c)),
        None,
    )
    n_col = next(
        (
            j
            for j, c in enumerate(cols)
            if j != t_col and all(v is not None and is_number(v) for v in c)
        ),
        None,
    )
    if t_col is None or n_col is None:
        return None
    texts = [
        j
        for j, c in enumerate(cols)
        if j not in {t_col, n_col} and all(v is not None and re.search(r"[A-Za-z]", v) for v in c)
    ]
    named = [j for j in texts if j < len(head) and _NAME_HEAD.search(str(head[j] or ""))]
    if not (named or texts):
        return None
    j = (named or texts)[0]
    table: dict[tuple[str, str], str] = {}
    for t, n, name in zip(cols[t_col], cols[n_col], cols[j], strict=True):
        key = (trial_of[str(t).lower()], str(n))
        if key in table or name is None:
            return None  # a pair named twice: no lookup
        table[key] = name
    return table, str(head[j] or "").strip() if j < len(head) else ""


SUPERSEDED = "numbers named by"
"""``trial_variables.source`` of a site-number column whose names were derived by trial."""


def name_sites(
    roles: dict[str, tuple[Entry, str]],
    entries: list[tuple[Entry, str]],
    columns: dict[str, Any],
    frame: pd.DataFrame,
    others: list[Sheet],
    report: TrialLoadReport,
) -> None:
    """Sites numbered within each trial and named on a list sheet by trial and number: a column
    of their names is derived beside the numbers, and it is the site (``_site_names.py``)."""
    (site, scol), (trial, tcol) = roles["site"], roles["trial"]
    found = named_sites(site, list(columns[scol]), trial, list(columns[tcol]), others)
    if found is None:
        return
    taken = {e.name.lower() for e, _ in entries}
    name = found.header if found.header and found.header.lower() not in taken else ""
    name = name or f"{site.name}_name"
    col = sql_name(name)
    if col in columns or name.lower() in taken:
        return
    values = sorted({n for n in found.names if n is not None})
    entry = Entry(
        name=name,
        label=f"{found.header or 'Site'} (named on sheet {found.sheet!r} by trial and {site.name})",
        type="categorical",
        codes={v: v for v in values},
        source="derived",
        role="site",
        form=site.form,
    )
    site.role = None  # its numbers name no site alone: left out of the catalog
    site.source = f"{SUPERSEDED} {name}"
    roles["site"] = (entry, col)
    columns[col] = found.names
    frame[col] = found.names
    entries.append((entry, col))
    report.derived_columns.append(
        f"{name}: the site's name from sheet {found.sheet!r}, by {trial.name} and {site.name} "
        f"(the numbers restart in each trial; {len(values)} sites)"
    )


def site_numbers(entries: list[tuple[Entry, str]], frame: pd.DataFrame) -> tuple[Entry, str] | None:
    """A whole-number column named or labelled as the study site that the dictionary gives no
    codes: the site, its numbers its codes, unlabelled ('codes not declared'), so that a group
    by site is never a group by some other column whose label says 'site'."""
    for entry, col in entries:
        if entry.source != "dictionary" or entry.codes or entry.type not in {"integer", "float"}:
            continue
        if not (
            re.fullmatch(r"(?i)(?:site|centre|center)(?:_?(?:id|no|num|number|code))?", entry.name)
            or site_label(entry.label)
        ):
            continue
        values = pd.to_numeric(frame[col], errors="coerce").dropna()
        values = values[~values.isin([float(c) for c in entry.missing if is_number(c)])]
        if values.empty or not (values == values.round()).all() or values.nunique() > 60:
            continue
        entry.type, entry.codes_declared = "categorical", False
        entry.codes = {code_key(float(x)): "" for x in sorted(values.unique())}
        return entry, col
    return None
