"""Text categories without a code list of their own: a site column whose dictionary cell points
to another sheet ('see Centres sheet'), a column labelled as a site, centre or hospital, or a
trial column named or labelled 'Trial'/'Study' whose type is text (a SAS '$6.' character
format is a width, not a list of labels).

Such a column is a category all the same: its few distinct values (each on several rows) are
its codes, each its own label, so that a question can group by it ('at each centre'), filter on
one value ('at Glasgow') or list them ('which sites took part'). A column of many distinct or
one-off texts (free comments, names) stays text.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinbridge.adapters.trial._dictionary import Entry

__all__ = ["MAX_CATEGORIES", "categories_from_values", "points_elsewhere"]

MAX_CATEGORIES = 60
"""The most distinct values a text column may hold and still be read as categories."""
MIN_ROWS_EACH = 2
"""Each category must stand on at least this many rows on average (a list, not free text)."""

_POINTER = re.compile(r"^\W*(?:see|refer to|as listed|listed (?:in|on)|look ?up)\b", re.I)
_SITE_LABEL = re.compile(r"\b(site|centre|center|hospital|unit)s?\b", re.I)
_TRIAL_NAME = re.compile(r"^(trial|study)(_?id|_?name)?$", re.I)


def points_elsewhere(codes_text: str) -> bool:
    """Whether a dictionary's codes cell points to a list kept elsewhere ('see Centres sheet')."""
    return bool(_POINTER.match(codes_text or ""))


def categories_from_values(entry: Entry, values: list[Any]) -> bool:
    """Make a text ``entry`` categorical, its distinct values as codes, when the dictionary
    points its list elsewhere or labels it a site, and the values are few and repeated; return
    whether it did."""
    if entry.type != "string" or entry.codes or entry.role == "subject":
        return False
    if not (
        entry.listed_elsewhere
        or _SITE_LABEL.search(entry.label or "")
        or _TRIAL_NAME.match(entry.name.strip())
        or _TRIAL_NAME.match((entry.label or "").strip())
    ):
        return False
    counts = Counter(v for v in values if isinstance(v, str) and v and v not in entry.missing)
    if not counts or len(counts) > MAX_CATEGORIES:
        return False
    if sum(counts.values()) < MIN_ROWS_EACH * len(counts) or len(counts) < 2:
        return False
    entry.type = "categorical"
    entry.codes = {v: v for v in sorted(counts)}
    return True
