"""A dictionary sheet's columns, whatever its builder called them.

The header is read by name first (``Variable``, ``Label``, ``Codes``...), then by the words a
header holds (``Variable / Description / Units / Values / Visit / Study``, ``Field label``,
``Response options``, ``Assessment time``), and what its header leaves unnamed is found by
content: the column that lists the data sheet's own column names is the variable's; a column
of code lists (``1=Male; 2=Female``) the codes; a column of time points (``Day 3``, ``72 hours``)
the time point; the column of the longest free text the label.
"""

from __future__ import annotations

import re
from typing import Any

from clinbridge.adapters.trial._codes import parse_code_list
from clinbridge.adapters.trial._iso_time import time_point_of
from clinbridge.adapters.trial._missing_decl import in_table, is_missing_header

__all__ = ["by_content", "by_words"]

# (field, words any of which names it) — in order: 'missing codes' is missing, not codes;
# 'variable label' a label, not the variable
_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("missing", ("missing",)),
    ("label", ("label", "description", "descr", "question", "meaning", "definition", "wording")),
    ("unit", ("unit", "units", "uom")),
    (
        "codes",
        (
            "code",
            "codes",
            "coding",
            "values",
            "value",
            "choices",
            "categories",
            "options",
            "responses",
            "response",
            "levels",
            "allowed",
        ),
    ),
    ("time_point", ("time", "timepoint", "visit", "event", "assessment", "when", "collected")),
    ("trial", ("trial", "study", "protocol", "trials", "studies")),
    ("type", ("type", "format", "datatype")),
    ("form", ("form", "crf", "section", "instrument", "domain", "module")),
    ("variable", ("variable", "var", "varname", "field", "column", "name", "item", "code name")),
)
_MOST_FIELDS = 20
"""A dictionary's header names a few things; a row naming more columns is a data header."""


_PREFIXES = ("variable", "column", "field", "item", "var")
"""Run together with a field's word in SAS-style headers: ``VARLABEL``, ``VARTYPE``, ``FIELDLABEL``."""
_KNOWN = {w for _, names in _WORDS for w in names}


def _words(h: Any) -> set[str]:
    if h is None:
        return set()
    out = set(re.findall(r"[a-z]+", str(h).lower()))
    for w in list(out):
        for p in _PREFIXES:
            if w.startswith(p) and w[len(p) :] in _KNOWN:
                out.add(w[len(p) :])
                break
    return out


def by_words(row: list[Any], taken: dict[str, int]) -> dict[str, int]:
    """Fields named by a word of their header ('Field label' → label), beside those ``taken``."""
    if sum(1 for h in row if h is not None and str(h).strip()) > _MOST_FIELDS:
        return {}
    out = dict(taken)
    used = set(out.values())
    for j, h in enumerate(row):
        if j in used:
            continue
        if "missing" not in out and is_missing_header(h):  # 'Special codes' is not 'codes'
            if not in_table(row, j, used):
                continue
            out["missing"] = j
            used.add(j)
            continue
        words = _words(h)
        for fld, names in _WORDS:
            if fld not in out and words & set(names):
                out[fld] = j
                used.add(j)
                break
    return out


def _cells(rows: list[list[Any]], j: int) -> list[str]:
    return [
        str(r[j]).strip() for r in rows if j < len(r) and r[j] is not None and str(r[j]).strip()
    ]


def by_content(
    rows: list[list[Any]], header: int, cols: dict[str, int], wanted: set[str]
) -> dict[str, int]:
    """``cols`` with the fields its header left unnamed found by what the columns hold.

    ``wanted``: the data sheet's column names (lower case). Returns {} when no column lists them.
    """
    body = rows[header + 1 :]
    width = max((len(r) for r in rows[header : header + 200]), default=0)
    out = dict(cols)
    if "variable" not in out or not _lists_names(_cells(body, out["variable"]), wanted):
        best = max(
            range(width),
            key=lambda j: sum(c.lower() in wanted for c in _cells(body, j)),
            default=None,
        )
        if best is None or not _lists_names(_cells(body, best), wanted):
            return {}
        out = {f: j for f, j in out.items() if j != best}
        out["variable"] = best
    free = [j for j in range(width) if j not in out.values()]
    sample = {j: _cells(body[:300], j) for j in free}
    if "codes" not in out:
        coded = [j for j in free if _share(sample[j], lambda c: len(parse_code_list(c)) >= 2) > 0.5]
        if coded:
            out["codes"] = coded[0]
    if "time_point" not in out:
        timed = [
            j
            for j in free
            if j not in out.values()
            and _share(sample[j], lambda c: len(c) <= 24 and time_point_of(c) is not None) > 0.6
        ]
        if timed:
            out["time_point"] = timed[0]
    if "label" not in out:
        texts = [
            (sum(map(len, sample[j])) / max(1, len(sample[j])), j)
            for j in free
            if j not in out.values()
            and len(sample[j]) >= 0.5 * len(body[:300])  # a label on most rows, not a comment
            and _share(sample[j], lambda c: bool(re.search(r"[A-Za-z]{3}", c))) > 0.8
        ]
        if texts:
            out["label"] = max(texts)[1]
    return out if "label" in out else {}


def _lists_names(cells: list[str], wanted: set[str]) -> bool:
    hits = sum(c.lower() in wanted for c in cells)
    return hits >= 3 and hits >= 0.3 * len(cells)


def _share(cells: list[str], test: Any) -> float:
    return sum(1 for c in cells if test(c)) / len(cells) if cells else 0.0
