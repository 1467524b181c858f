"""Data-management fields beside the variables: ``MRI_SCORE_QF``, ``MRI_SCORE_SDV``,
``MRI_SCORE_USR``, ``MRI_SCORE_TS``, ``MRI_SCORE__qry`` — a query flag, a verification flag, the last user and the
last change of each item, as EDC exports write them and dictionaries leave them out.

A column the dictionary does not list, whose name is a listed variable's name and a suffix, is
such a field when the same suffix follows at least ``MIN_STEMS`` listed names (and the suffix is
no time point: ``TEMP_24H`` beside ``TEMP`` is a variable). Such fields stay in ``trial_data``
as exported, are listed in ``trial_variables`` with ``source = 'data management'`` and in the
load report, and are no variable a question is read against (the catalog leaves them out), so
that 'MRI score' never means its query flag.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING

from clinbridge.timepoint import find_time_points

if TYPE_CHECKING:
    from clinbridge.adapters.trial._dictionary import Entry

__all__ = ["ADMIN_SOURCE", "MIN_STEMS", "mark_admin_columns"]

ADMIN_SOURCE = "data management"
MIN_STEMS = 3
"""A suffix must follow this many dictionary names to be a data-management convention."""
_SUFFIX = re.compile(r"^(?:[._]|__)([A-Za-z]{1,8})$")
"""Letters only: a digit makes it a visit or a repeat (``_D1``, ``_24H``), not a field kind."""


def mark_admin_columns(entries: list[tuple[Entry, str]]) -> list[str]:
    """Mark the inferred entries that are data-management fields of listed variables (their
    ``source`` and label); return the suffixes found, each with how many fields it marked."""
    listed = {e.name.lower(): e for e, _ in entries if e.source != "inferred"}
    if not listed:
        return []
    found: dict[str, list[tuple[Entry, Entry]]] = defaultdict(list)
    for entry, _ in entries:
        if entry.source != "inferred":
            continue
        low = entry.name.lower()
        for cut in range(len(low) - 1, 0, -1):
            stem = listed.get(low[:cut])
            if stem is None:
                continue
            m = _SUFFIX.match(entry.name[cut:])
            if m and not find_time_points(m.group(1).lower()):
                found[m.group(1).upper()].append((entry, stem))
            break
    lines = []
    for suffix, pairs in sorted(found.items()):
        if len({id(stem) for _, stem in pairs}) < MIN_STEMS:
            continue
        for entry, stem in pairs:
            entry.source = ADMIN_SOURCE
            entry.label = f"data-management field {suffix} of {stem.name}"
        lines.append(f"{suffix} ({len(pairs)})")
    return lines
