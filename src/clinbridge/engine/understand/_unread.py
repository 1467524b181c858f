"""Question shapes the plan cannot express yet, marked so the reading abstains naming them.

Each entry is a general shape of question — a per-day aggregate, two events at the same time or
in the same visit, a cost, a discharge, who is admitted right now — never a phrase from one
question set. Without these marks the words would be dropped as filler, the rest of the question
read, and a different question answered (a wrong answer accepted is far worse than an
abstention).
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._pieces import Piece, Slot, split_pieces

__all__ = ["UNREAD_DAYS", "mark_unread", "mark_unread_days", "untype_hospital"]

_ENCOUNTER = r"(?:hospital\s+|icu\s+|intensive\s+care\s+|er\s+|emergency\s+)?(?:visits?|admissions?|encounters?|stays?|hospitali[sz]ations?)"
_SHAPES: tuple[tuple[str, str], ...] = (
    (
        r"\b(?:costs?|costing|costly|price[sd]?|pricing|charges?|charged|expenses?|expensive|"
        r"bill(?:ed|ing)?|paid|pay)\b",
        "costs",
    ),
    (
        r"\b(?:daily|weekly|monthly|hourly|nightly)\b|\b(?:per|each|every|a)\s+(?:day|week|month|hour)\b",
        "an aggregate per day, week or month",
    ),
    (
        r"\bat\s+the\s+same\s+time\b|\bsimultaneous(?:ly)?\b|\bconcurrent(?:ly)?\b|"
        # ('on the same day as X' is a window read by ._time; 'the same day' alone is not)
        rf"\bsame\s+(?:calendar\s+)?(?:{_ENCOUNTER}|week|month|year|time|(?:day|date)(?!\s+(?:as|that)\b))\b"
        # 'started on the day of her AF diagnosis': two events on one day
        r"|\bon\s+the\s+(?:very\s+)?(?:day|date)\s+(?:of|that|when|she|he|they)\b(?!\s+birth)",
        "two events at the same time or in the same visit or period",
    ),
    (
        r"\b(?:hospital\s+)?discharg(?:ed|es|ing)\b|\b(?:hospital\s+)?discharge\b(?!\s+(?:date|minus|time))"
        r"|\b(?:depart(?:ed|s|ing)?|left|leave|leaves|leaving)\s+(?:from\s+)?(?:the\s+)?hospital\b",
        "discharges (the end of an encounter)",
    ),
    (
        r"\b(?:hospitali[sz]ed|admitted|inpatients?|in\s+(?:the\s+)?(?:hospital|icu|ward))\b[^?.]{0,40}\bnow\b|"
        r"\bnow\b[^?.]{0,40}\b(?:hospitali[sz]ed|admitted|inpatients?|in\s+(?:the\s+)?(?:hospital|icu|ward))\b",
        "who is admitted now (an open encounter)",
    ),
    (  # 'how many operating rooms are there now': a census of the present, not of records
        r"\b(?:are|is)\s+there\s+(?:\w+\s+){0,2}now\b|\b(?:in\s+(?:operation|use|service)|open|"
        r"available|occupied)\s+now\b|\bnow\s+(?:in\s+(?:operation|use|service)|open|available|occupied)\b",
        "what exists now (a census of the present)",
    ),
)
_SHAPES += (
    (
        r"\b(?:greater|less|more|higher|lower|bigger|smaller)\s+than\s+(?:the\s+|it\s+was\s+)?"
        r"(?:(?:value|one|reading|level|result|measurement)\s+)?"
        r"(?:first|last|second|previous|initial)\b|\bcompared\s+(?:to|with)\b",
        "a comparison of two measurements",
    ),
    (
        r"\b(?:hospital\s+)?admission\s+(?:type|location|source)\b|\b(?:insurance(?:\s+(?:plan|name|type))?|marital\s+status|language)\b",
        "attributes of an encounter or a patient (type, location, insurance)",
    ),
)
_PATTERNS = tuple((re.compile(rx), what) for rx, what in _SHAPES)
# a calendar day or month left over after the time expressions took theirs: never dropped
UNREAD_DAYS = re.compile(
    r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b\d{1,2}/\d{4}\b"
    r"|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{4}\b"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4}\b"
)


def _mark(pieces: list[Piece], pattern: re.Pattern[str], what: str) -> list[Piece]:
    if what == "costs":  # read by ._costs where the source records charges per event
        return split_pieces(pieces, pattern, lambda m: Slot("cost", {}, m[0]))
    if what.startswith("discharges"):  # read by ._facts for one patient's encounter
        return split_pieces(pieces, pattern, lambda m: Slot("discharge", {}, m[0]))
    if what.startswith("attributes"):

        def fact(m: re.Match[str]) -> Slot:
            name = re.sub(r"^hospital\s+", "", re.sub(r"\s+", " ", m[0]))
            name = re.sub(r"^insurance\s+\w+$", "insurance", name)  # 'insurance plan'
            return Slot("attribute", {"name": name}, m[0])

        return split_pieces(pieces, pattern, fact)
    return split_pieces(pieces, pattern, lambda m: Slot("unsupported", {"what": what}, m[0]))


# 'what did they receive 2 or more times': which things, by how often each was recorded
_LIST_BY_COUNT = re.compile(
    r"^(?:what|which|name|list|show|tell|give|identify)\b.*?\b(\d+\s+or\s+more\s+times|at\s+least\s+\d+\s+times)"
)
# 'how many doses of X were prescribed', 'the total amount of X prescribed': doses summed
_DOSE_TOTAL = re.compile(
    r"\b(how\s+many\s+doses)\b|\b(total\s+(?:amount|dose|doses))\s+of\b.*\bprescribed\b|"
    r"\b(how\s+much)\b.*\bprescribed\b|\bprescribed\b.*\b(in\s+total)\b"
)
_POLITE = re.compile(r"^(?:can|could|would|will)\s+(?:you|i|we|anyone|someone)\s+(?:please\s+)?")


def mark_unread(pieces: list[Piece]) -> list[Piece]:
    """Mark the question shapes the plan cannot express as ``unsupported`` slots (and drop a
    polite 'could you': 'could you list ...' asks for the list, not whether one can)."""
    if pieces and isinstance(pieces[0], str):
        pieces = [_POLITE.sub("", pieces[0]), *pieces[1:]]
    joined = " ".join(p.text if isinstance(p, Slot) else p for p in pieces)
    m = _LIST_BY_COUNT.search(joined)
    if m:
        what = "the things recorded a number of times each"
        pieces = _mark(pieces, re.compile(re.escape(m[1])), what)
    m = _DOSE_TOTAL.search(joined)
    if m:
        what = "the total amount of a drug prescribed (its doses summed)"
        words = next(g for g in m.groups() if g)
        pieces = _mark(pieces, re.compile(re.escape(words)), what)
    for pattern, what in _PATTERNS:
        pieces = _mark(pieces, pattern, what)
    return pieces


def mark_unread_days(pieces: list[Piece]) -> list[Piece]:
    """Mark calendar days and months no time expression read (run after the time passes)."""
    return _mark(pieces, UNREAD_DAYS, "events on one calendar day or month")


_INPATIENT = re.compile(r"\bin-?patients?\b")  # the type named: kept
_HOSPITAL = re.compile(r"\b(?:hospital|hospitali[sz]\w*|admissions?|admitted)\b")


def untype_hospital(pieces: list[Piece], encounter_label: str | None) -> list[Piece]:
    """Where every encounter the source records is a hospital admission (its catalog says so),
    'hospital visit', 'admission' and 'admitted' name every encounter, not the inpatient type
    only: the type filter is dropped from those slots."""
    if not encounter_label or "hospital" not in encounter_label.lower():
        return pieces
    for p in pieces:
        if (
            isinstance(p, Slot)
            and p.kind in {"encounter", "scope", "measure"}
            and p.data.get("type") == "inpatient"
            and _HOSPITAL.search(p.text)
            and not _INPATIENT.search(p.text)
        ):
            p.data["type"] = None
    return pieces
