"""Code lists as dictionaries write them, in the notations builders use.

``1=Male; 2=Female`` · ``1, Male | 2, Female`` · ``0 = No, 1 = Yes`` · ``1: Mild / 2: Moderate`` ·
``(1) Male (2) Female`` · ``1) Male 2) Female`` · ``1 - Male, 2 - Female`` · ``Male=1, Female=2``
(label first) · ``Hypothermia (A) / Normothermia (B)``, ``No (0) / Yes (1)`` (label first, code in
brackets: :func:`label_first_bracketed`) · one pair per line. A code whose label says the value is missing (``99=Missing``,
``-9 = not known``, ``8 = N/A``) is a missing code, not a category: :func:`split_missing`.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "MISSING_TEXT",
    "SPECIAL_MISSING",
    "is_missing_label",
    "is_number",
    "is_special_missing",
    "label_first_bracketed",
    "parse_code_list",
    "split_missing",
]

_NUM = r"-?\d+(?:\.\d+)?"
# a numeric code opening a pair: at the start or after a separator, then '=', ':', ')', ' - ', ','
_OPENER = re.compile(
    rf"(?:^|(?<=[;|,/\n{{])|(?<=\s))\s*[(\[]?(?P<code>{_NUM})\s*"
    r"(?:=>|->|→|=|:|\)|\]|–|-(?=\s)|\.(?=\s+[A-Za-z])|,(?=\s*[^\d\s.-])"
    r"|\((?=\s*[A-Za-z][^()]*\))|(?=\s*[\"“][^\"”]+[\"”]))\s*"
)
"""'(1)' / '[1]' / '1=' / '1:' / '1 -' / '1.' / '1 ->' / '1,' before a label, '-999 (' before a
label in brackets, or '1' before a quoted label ('1 "Male" 2 "Female"')."""
_PAIR = re.compile(rf"^\s*({_NUM})\s*(?:=|:|,|-(?=\s)|\s)\s*(.+?)\s*$")
_TEXT_PAIR = re.compile(r"^\s*['\"‘“]?([\w./]+?|-)['\"’”]?\s*[=:]\s*(.+?)\s*$")
"""A text code needs its '=' or ':' ('M=Male', '-=Not applicable': a dash alone is a code too);
'Standard care' is no code 'Standard'."""
_BRACKET_PAIR = re.compile(r"\(([^()\s]{1,6})\)\s*([^()]+)")
_BRACKETED = re.compile(r"(?:\s*\(([^()\s]{1,6})\)\s*[^()]+)+")
_REFERENCE = re.compile(
    r"^\W*(?:see|refer to|as listed|listed (?:in|on)|look ?up|free[- ]?text|text)\b", re.IGNORECASE
)
"""A codes cell that points elsewhere ('(see Centres sheet)', 'refer to site list') or says the
values are free text: no code list of its own, so the column's values are not checked against it."""
_LABEL_FIRST = re.compile(rf"^\s*(?P<label>[^=:]*[A-Za-z][^=:]*?)\s*[=:]\s*(?P<code>{_NUM})\s*$")

MISSING_TEXT = frozenset(
    {
        "na",
        "n/a",
        "nan",
        "null",
        "none recorded",
        ".",
        "-",
        "nd",
        "nk",
        "nr",
        "missing",
        "unknown",
        "not known",
        "not done",
        "not recorded",
        "not assessed",
        "not available",
        "not applicable",
        "not measured",
        "not collected",
        "declined",
        "refused",
        "unk",
        "missing data",
        "data missing",
        "no data",
        "not evaluated",
        "not performed",
        "not obtained",
        "not tested",
        "not reported",
        "not asked",
        "no response",
        "lost to follow-up",
        "lost to follow up",
        "ltfu",
    }
)
"""Cell texts and code labels that say a value is missing, not what it is."""


SPECIAL_MISSING = "special missing value"
"""The meaning of a SAS special missing value ('.N') no sheet declares."""
_SPECIAL = re.compile(r"^\s*\.[A-Za-z_]?\s*$")


def is_special_missing(v: Any) -> bool:
    """Whether a cell holds a SAS special missing value: '.', '.A' to '.Z', '._'. In a numeric
    column no such text can be a value."""
    return isinstance(v, str) and bool(_SPECIAL.match(v))


def is_missing_label(label: str) -> bool:
    """'Missing', 'not known', 'N/A', 'unknown / not recorded', 'Missing data' — not 'Unknown cause'."""
    t = re.sub(r"\s+", " ", label.strip().lower()).strip(" ()[]")
    t = re.sub(r"^(.+?)\s*\([^()]*\)$", r"\1", t)  # 'not applicable (died)'

    if not t:
        return False
    parts = [p.strip() for p in re.split(r"\s*(?:/|,| or )\s*", t) if p.strip()]
    return bool(parts) and all(p in MISSING_TEXT for p in parts)


def is_number(text: str) -> bool:
    """Whether a text reads as a number ('-99', '2.5')."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _key(code: str) -> str:
    try:
        f = float(code)
    except ValueError:
        return code.strip()
    return str(int(f)) if f.is_integer() else code.strip()


_BRACKET_CODE_ITEM = re.compile(
    rf"^(?P<label>[^()=:]*[A-Za-z][^()=:]*?)\s*\(\s*(?P<code>{_NUM}|[A-Za-z][A-Za-z0-9]{{0,3}})\s*\)$"
)
"""'Hypothermia (A)', 'No (0)': a label, then its code alone in brackets (a number, or a short
code of letters: 'A', 'TH', 'Y')."""


def label_first_bracketed(text: Any) -> dict[str, str] | None:
    """'Hypothermia (A) / Normothermia (B)' → {'A': 'Hypothermia', 'B': 'Normothermia'}, read so
    only when the whole list is written that way: items apart by one separator ('/', ';', ',',
    '|' or new lines), at least two, every one a label then its own code in brackets, and no two
    codes the same. Else None: 'Severe (grade 3)' or '1=Yes (Y); 0=No' are no such list."""
    s = "" if text is None else str(text).strip()
    for sep in (r"\n", r"\|", ";", "/", ","):
        if not re.search(sep, s):
            continue
        items = [p.strip() for p in re.split(rf"\s*{sep}\s*", s)]
        if len(items) < 2 or not all(items):
            continue
        found = [_BRACKET_CODE_ITEM.match(p) for p in items]
        if not all(found):
            continue
        out = {_key(m.group("code")): m.group("label").strip() for m in found if m}
        if len(out) == len(items):
            return out
    return None


def _inside_label_bracket(s: str, m: re.Match[str]) -> bool:
    """Whether an opener like '3)' only closes a bracket already open before it."""
    opened = m.group(0).lstrip().startswith(("(", "["))
    closes = ")" in m.group(0)[m.start("code") - m.start() :]
    before = s[: m.start()]
    return closes and not opened and before.count("(") > before.count(")")


def parse_code_list(text: Any, *, bracketed: bool = True) -> dict[str, str]:
    """A code list in any of the notations above → {'1': 'Male', '2': 'Female'}; with
    ``bracketed=False`` not read as 'Label (code)' items (the other reading, for the data to
    decide between: :func:`fits_values`)."""
    if text is None or not str(text).strip():
        return {}
    s = str(text).strip()
    if bracketed and (bracketed := label_first_bracketed(s)) is not None:
        return bracketed
    # a number closing a bracket a label opened ('3=Severe (grade 3)') opens no pair
    openers = [m for m in _OPENER.finditer(s) if not _inside_label_bracket(s, m)]
    # numeric codes each opening a pair, found wherever they stand ('0 = No, 1 = Yes')
    if len(openers) >= 2 or (len(openers) == 1 and openers[0].start() == 0 and "\n" not in s):
        out: dict[str, str] = {}
        for m, nxt in zip(openers, [*openers[1:], None], strict=True):
            end = nxt.start() if nxt is not None else len(s)
            label = s[m.end() : end].strip().strip(";|,/{}").strip()
            if len(label) > 1 and label[0] in '"“' and label[-1] in '"”':
                label = label[1:-1].strip()
            if label.endswith(")") and "(" not in label:  # '-999 (not done)'
                label = label[:-1].strip()
            out[_key(m.group("code"))] = label
        if all(out.values()) or len(out) > 1:
            return out
    # text codes in brackets: '(M) Male (F) Female'
    if _BRACKETED.fullmatch(s):
        return {m.group(1): m.group(2).strip(" ;,|/") for m in _BRACKET_PAIR.finditer(s)}
    # pairs apart by ';', '|', new lines, or by ',' '/' before the next 'CODE=' ('Y=Yes / N=No')
    parts = [p.strip() for p in re.split(r"[;|\n]+|[,/](?=\s*[^\s,/=:]+\s*[=:])", s) if p.strip()]
    # label first: 'Male=1, Female=2'
    firsts = [_LABEL_FIRST.match(p) for p in parts]
    if parts and all(firsts):
        return {_key(m.group("code")): m.group("label").strip() for m in firsts if m}
    if _REFERENCE.match(s):
        return {}
    if not re.search(r"[=:]", s) and not re.search(r"\d", s):
        # words alone ('Cooling, Control', 'Yes/No'): each is its own code and label; one
        # phrase alone ('Site name', 'free text') lists no categories
        words = [w.strip() for w in re.split(r"[;|\n,/]+", s) if w.strip()]
        return {w: w for w in words} if len(words) > 1 else {}
    out = {}
    for part in parts:
        bare = re.fullmatch(rf"(?:{_NUM}[\s,]*)+", part)
        pair = None if bare else (_PAIR.match(part) or _TEXT_PAIR.match(part))
        if pair:
            out[_key(pair.group(1))] = pair.group(2).strip()
        else:
            for code in re.split(r"[,\s]+", part):
                if code:
                    out[_key(code)] = ""
    return out


def split_missing(codes: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(categories, missing codes): codes whose label says missing leave the categories."""
    keep = {k: v for k, v in codes.items() if not (v and is_missing_label(v))}
    gone = {k: v for k, v in codes.items() if k not in keep}
    return keep, gone
