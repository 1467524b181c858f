"""Missing-code declarations as builders write them, wherever they write them.

A declaration pairs a code with a meaning that says the value is missing: ``-999 = not done``,
``8888: not applicable``, ``ND = not done``, ``'.' = missing``, ``-999 (not done)``,
``-99 means unknown``, ``Not done is coded as -999``, or a table row ``-999 | Not done``.
:func:`declarations_in_text` and :func:`declarations_in_row` find them in free text and in a
row of cells; :func:`is_missing_header` tells a dictionary column of missing codes by its header
(``Missing values``, ``Special codes``, ``Non-response codes``, ``NA codes``).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from typing import Any

from clinbridge.adapters.trial._codes import MISSING_TEXT, is_missing_label, parse_code_list

__all__ = [
    "declarations_in_row",
    "declarations_in_text",
    "in_table",
    "is_absence",
    "is_missing_header",
    "is_missing_meaning",
    "is_sentinel",
    "parse_missing_column",
    "sentence_declarations",
    "strip_declarations",
]

MISSING_HEADER_WORDS: tuple[str, ...] = (
    r"missing",
    r"special",
    r"non[\s-]?respon\w*",
    r"n/?a\s+(?:codes?|values?)",
    r"null\s+(?:codes?|values?)",
    r"sentinel\w*",
    r"reserved\s+(?:codes?|values?)",
    r"unknown\s+(?:codes?|values?)",
    r"skip\s+codes?",
    r"refusal\s+codes?",
    r"not[\s-]+(?:done|applicable|known)\s+codes?",
)
"""Header words that name a dictionary column of missing/special codes (a data list)."""
_HEADER = re.compile(r"\b(?:" + "|".join(MISSING_HEADER_WORDS) + r")\b", re.I)
_NOT_CODES = re.compile(
    r"%|\bpercent|\bpct\b|\bcount\b|\bnumber\b|\bn\s+missing|\bproportion", re.I
)
"""'% missing', 'n missing': a profile of the data, not a list of codes."""


def is_missing_header(header: Any) -> bool:
    """Whether a dictionary column header names missing/special codes ('Special codes')."""
    if header is None:
        return False
    text = str(header).strip()
    return bool(text) and bool(_HEADER.search(text)) and not _NOT_CODES.search(text)


def in_table(row: list[Any], j: int, taken: set[int]) -> bool:
    """Whether header cell ``j`` heads a column of the table, not a note beside it: it does not
    end with ':' ('Missing codes:' labels a note) and no blank cell parts it from the table's
    last column."""
    if str(row[j]).strip().endswith(":"):
        return False
    last = max(taken, default=-1)
    return j <= last + 1 or all(
        row[k] is not None and str(row[k]).strip() for k in range(last + 1, j)
    )


_MEANING = re.compile(
    r"\b(?:not\s+(?:done|applicable|known|recorded|assessed|available|measured|collected|"
    r"performed|obtained|tested|reported|asked|answered|evaluable|evaluated|ascertained|stated|"
    r"documented|given|entered)|n/a|unknown|missing|refused|declined|lost\s+to\s+follow[\s-]*up|"
    r"ltfu|don'?t\s+know|do\s+not\s+know|no\s+(?:data|response|answer)|non[\s-]?response|"
    r"unable\s+to\s+(?:assess|measure|obtain|test)|skipped|withheld|unobtainable)\b",
    re.I,
)


_DENIAL = re.compile(
    r"\bnot\s+(?:an?|the|a\s+usual)\s+(?:[\w-]+\s+){0,3}?(?:code|missing(?:\s+value)?)\b"
    r"|^\s*(?:is\s+|are\s+)?(?:an?\s+)?(?:true|real|genuine|valid|actual)\b",
    re.I,
)
"""A note that denies a code is missing: '-9 is a true base excess, not the unknown code'."""


def is_missing_meaning(text: str) -> bool:
    """Whether a short meaning says the value is missing ('not done', 'Lost to follow-up');
    never one that says the code is a value ('a true base excess, not the unknown code')."""
    t = text.strip()
    if _DENIAL.search(t):
        return False
    return 0 < len(t) <= 80 and (bool(_MEANING.search(t)) or t.lower() in MISSING_TEXT)


_ABSENCE = re.compile(
    r"\b(?:lost|fail(?:s|ed|ure)?|died|dead|death|deceased|unavailable|unreadable|"
    r"no\s+(?:\w+\s+)?(?:sample|scan|test|reading|result|measurement|value|record|image)s?|"
    r"not\s+(?:analy[sz]ed|imaged|scanned|sampled|seen|followed|traced|possible|derivable)|"
    r"(?:can\s*not|could\s+not|couldn'?t|can'?t)\s+be\s+(?:derived|determined|calculated|"
    r"measured|assessed|obtained|computed)|out\s+of\s+range|too\s+(?:low|high)\s+to\s+measure)\b",
    re.I,
)
"""Why a value is absent ('probe failure', 'no sample was analysed', 'if the child had died'):
a missing meaning only beside a code shaped like a sentinel (:func:`is_sentinel`), since
'1 = Died' is an ordinary code."""


def is_sentinel(code: str) -> bool:
    """Whether a code is shaped like a stand-in for a missing value: a negative number, or one
    written with a single repeated 7, 8 or 9 (9, 99, 999, 888, 777, 99.9, 9.99)."""
    try:
        x = float(code)
    except ValueError:
        return False
    if x < 0:
        return True
    digits = code.replace(".", "").lstrip("+")
    return bool(digits) and digits[0] in "789" and set(digits) == {digits[0]}


def is_absence(code: str, meaning: str) -> bool:
    """Whether ``code`` = ``meaning`` says the value is missing: a missing meaning, or a reason
    for an absent value beside a sentinel-shaped code."""
    if is_missing_meaning(meaning):
        return True
    t = meaning.strip()
    return (
        0 < len(t) <= 80
        and not _DENIAL.search(t)
        and is_sentinel(code)
        and bool(_ABSENCE.search(t))
    )


_NUM = r"[-+]?\d+(?:\.\d+)?"
_QUOTED = r"['\"‘“](?P<q>[^'\"’”\s]{1,8})['\"’”]"
_SHORT = r"\.[A-Za-z_]|[.*\-]{1,3}|[A-Z][A-Z/.]{0,4}|n/a|na|nd|nk|nr|unk"
_TOKEN = rf"(?:{_QUOTED}|(?P<n>{_NUM})|(?P<s>{_SHORT}))"
_CODE_FIRST = re.compile(
    rf"^\s*(?:codes?\s+)?{_TOKEN}\s*(?:=|:|–|—|->|→|\bmeans?\b|\bdenotes?\b|\bindicates?\b|"
    rf"\bis\b|\bfor\b)\s*(?P<meaning>[^=:]+?)\s*\.?\s*$"
)
_CODE_BRACKET = re.compile(rf"^\s*{_TOKEN}\s*\((?P<meaning>[^()]+)\)\s*\.?\s*$")
_CODE_SPACE = re.compile(
    rf"^\s*(?P<n>{_NUM})\s+(?P<meaning>[A-Za-z][\w'/-]*(?:\s+[\w'/()-]+){{0,4}})\s*\.?\s*$"
)
"""'-99 not done': a number, a space and a short meaning."""
_CODE_IF = re.compile(
    rf"^\s*(?:(?:please\s+)?(?:enter|use|record|code|write|put|type|set\s+to)\s+(?:as\s+)?)?"
    rf"{_TOKEN}\s+(?:if|when|where|whenever)\s+(?P<meaning>(?:(?!,\s*[-+]?\d)[^;|=])+?)\s*\.?\s*$",
    re.I,
)
"""'888 if the child had died', 'Enter 999 if not recorded', '777 where it cannot be derived'."""
_MEANING_FIRST = re.compile(
    rf"^\s*(?P<meaning>[^=:]+?)\s*(?:=|:|→|\b(?:is|are)\s+(?:coded|recorded|entered|written)"
    rf"(?:\s+as)?|\b(?:coded|recorded|entered)(?:\s+as)?)\s*{_TOKEN}\s*(?:throughout\b.*)?\.?\s*$",
    re.I,
)


def _token(m: re.Match[str]) -> str | None:
    groups = m.groupdict()
    quoted, number, short = groups.get("q"), groups.get("n"), groups.get("s")
    if quoted:
        return quoted
    if number:
        f = float(number)
        return str(int(f)) if f.is_integer() else number.lstrip("+")
    if short and (short.isupper() or short.lower() in MISSING_TEXT or not short.isalpha()):
        return short
    return None


def _segment(seg: str, test: Callable[[str], bool] | None = None) -> tuple[str, str] | None:
    seg = re.sub(r"^\s*(?:[•*·]|-\s)\s*", "", seg).strip()
    if not seg or len(seg) > 120:
        return None
    for pattern in (_CODE_BRACKET, _CODE_FIRST, _MEANING_FIRST, _CODE_IF, _CODE_SPACE):
        m = pattern.match(seg)
        if m:
            code, meaning = _token(m), m.group("meaning").strip(" .,;")
            if pattern is _CODE_IF:
                meaning = re.sub(
                    r"^(?:the\s+)?(?:value|item|test|field)\s+(?:is|was)\s+", "", meaning
                )
            ok = test(meaning) if test else code is not None and is_absence(code, meaning)
            if code and ok and code.lower() != meaning.lower():
                return code, meaning
    return None


def declarations_in_text(text: str) -> dict[str, str]:
    """{code: meaning} for every missing-code declaration in a free text (one or many lines)."""
    out: dict[str, str] = {}
    for line in _lines(text):
        found = _segment(line)
        if found:
            out.setdefault(*found)
            continue
        # several on a line: '-999 = not done; -888 = not applicable', 'Codes: ND (not done), ...'
        body = re.sub(r"^[^:=]{0,40}\bcodes?\b[^:=]{0,20}:\s*", "", line, flags=re.I)
        body = _LEAD.sub("", body)  # 'Special values: -999 not done | -888 not applicable'

        parts = [
            p for p in re.split(r"\s*[;|]\s*|,\s+(?=\S+\s*(?:=|:|\()|[-+]?\d)", body) if p.strip()
        ]
        hits = [p for p in (_segment(p) for p in parts) if p]
        if not hits and re.search(r"\d", body):
            pairs = parse_code_list(body)
            hits = [
                (c, m)
                for c, m in pairs.items()
                if m and c != m and len(m.split()) <= 5 and is_missing_meaning(m)
            ]
            hits = [(c, m) for c, m in hits if re.fullmatch(rf"{_NUM}|{_SHORT}|[.]", c)]
        if not hits:  # in a sentence: 'all fields use -999 for "not done" and -888 for ...'
            hits = _in_sentence(body)
        for code, meaning in hits:
            out.setdefault(code, meaning)
    return out


_SENTENCE_END = re.compile(r"(?<=[a-z)])\.\s+(?=[A-Z0-9'\"‘“-])")
"""Where one sentence ends and the next begins ('... a base deficit. 999 = not measured.')."""


def _lines(text: str) -> list[str]:
    """A text's lines, each cut into its sentences."""
    return [s for line in re.split(r"[\n\r]+", text) for s in _SENTENCE_END.split(line)]


_LEAD = re.compile(r"^\s*[A-Za-z][A-Za-z /-]{3,40}:\s*(?=[-+]?\d|['\"‘“])")
"""A label before a colon ('Special values: '), when a code follows it."""
_SENTENCE = re.compile(
    rf"(?:(?P<n>(?<![\w.]){_NUM})|{_QUOTED}|"
    r"\b(?:[Cc]ells?|[Vv]alues?|[Cc]odes?|[Ee]ntry|[Ee]ntries|[Rr]esponses?)\s+"
    r"(?:reading\s+|of\s+|containing\s+|holding\s+|written\s+as\s+)?(?P<s>[A-Z]{1,4})\b)"
    r"\s*(?:=|\bfor\b|\bmeans\b|\bindicates\b|\bdenotes\b|\bstands?\s+for\b|"
    r"\brepresents?\b|\bsignif(?:y|ies)\b|\bis\s+used\s+(?:for|to\s+mean)\b|\()\s*"
    r"(?:that\s+)?['\"‘“]?(?P<meaning>[A-Za-z][\w /'’-]{2,80}?)['\"’”]?\s*"
    r"(?=[,;.)]|\band\b|\bor\b|$)"
)
"""A code and its meaning anywhere in a sentence: a number or a quoted code ('all fields use
-999 for "not done"'), or a short capital code after the word for a cell or value ('a cell
reading NC means that the item was not collected', 'the value 9 stands for unknown')."""


def _in_sentence(text: str) -> list[tuple[str, str]]:
    """(code, meaning) pairs anywhere in a sentence (see ``_SENTENCE``)."""
    return [(code, meaning) for code, meaning, _ in sentence_declarations(text)]


def sentence_declarations(text: str) -> list[tuple[str, str, str]]:
    """(code, meaning, the rest of its sentence) for each missing-code declaration that a
    sentence of prose makes: 'In any coded item the value 9 stands for unknown' gives
    ('9', 'unknown', 'In any coded item the'); the rest may say where the code applies."""
    out = []
    for sentence in _lines(text):
        found = [
            (m, code, m.group("meaning").strip())
            for m in _SENTENCE.finditer(sentence)
            if (code := _token(m)) is not None
        ]
        found = [
            (m, c, meaning)
            for m, c, meaning in found
            if is_absence(c, meaning) and c.lower() != meaning.lower()
        ]
        # a list of codes ('-777 lost to follow-up / 9999 unknown') states no scope: the rest
        # of a sentence is what no declaration of it says
        rest = sentence
        for m, _, _ in reversed(found):
            rest = rest[: m.start()] + " " + rest[m.end() :]
        listed = sum(1 for p in re.split(r"\s*[;|]\s*|\s+/\s+|,\s+", sentence) if _segment(p))
        rest = "" if len(found) > 1 or listed > 1 else rest.strip()
        out += [(code, meaning, rest) for _, code, meaning in found]
    return out


def _cell_token(v: Any) -> str | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int | float):
        f = float(v)
        return str(int(f)) if f.is_integer() else str(f)
    m = re.fullmatch(_TOKEN, str(v).strip())
    return _token(m) if m else None


def declarations_in_row(cells: list[Any]) -> dict[str, str]:
    """{code: meaning} from one row: a table row (``-999 | Not done``) or its cells' texts."""
    filled = [v for v in cells if v is not None and str(v).strip()]
    out: dict[str, str] = {}
    for a, b in itertools.pairwise(filled):
        code, meaning = _cell_token(a), str(b).strip()
        if code is None:  # 'Not done | -999'
            code, meaning = _cell_token(b), str(a).strip()
        if (
            code is not None
            and is_missing_meaning(meaning)
            and meaning.lower() != code.lower()
            and _cell_token(meaning) is None
        ):
            out.setdefault(code, meaning)
    for v in filled:
        if isinstance(v, str):
            for code, meaning in declarations_in_text(v).items():
                out.setdefault(code, meaning)
    return out


@functools.lru_cache(maxsize=4096)
def parse_missing_column(text: Any) -> dict[str, str]:
    """A dictionary's missing-codes cell: every code in it is missing, whatever its label.

    ``-99=Not done; -88=N/A`` · ``-999 (not done)`` · ``'.' = missing`` · ``ND, NA`` · ``-9``.
    (Cached: a dictionary repeats its cells; never change the result.)
    """
    if text is None or not str(text).strip():
        return {}
    if isinstance(text, int | float) and not isinstance(text, bool):
        return {_cell_token(text) or str(text): ""}
    s = str(text).strip()
    # label first, codes numbers or short texts: 'not recorded: 99; not known: NK'
    parts = [p for p in re.split(r"\s*[;|\n]\s*", s) if p]
    firsts = [_LABEL_THEN_CODE.match(p) for p in parts]
    if parts and all(m and _says_missing(m.group("label")) for m in firsts):
        return {m.group("code"): m.group("label").strip() for m in firsts if m}
    found = declarations_in_text(s)
    if found:
        rest = parse_code_list(s)
        return {**{k: v for k, v in rest.items() if k not in found and v != k}, **found}
    return parse_code_list(s)


_LABEL_THEN_CODE = re.compile(
    r"^\s*(?P<label>[A-Za-z][A-Za-z /()\-]*?)\s*[:=]\s*(?P<code>-?\d+(?:\.\d+)?|[A-Za-z.]{1,4})\s*$"
)
"""A missing meaning, then its code: 'not recorded: 999', 'not known: NK'."""


def _says_missing(label: str) -> bool:
    return is_missing_label(label) or is_missing_meaning(label)


_PARTS = re.compile(r"\s*[;|\n]\s*|\s+/\s+|,\s+(?=\S{1,8}\s*(?:=|:|\())")


@functools.lru_cache(maxsize=4096)
def strip_declarations(text: str) -> tuple[dict[str, str], str]:
    """(missing codes, the rest) of a codes cell that mixes them with value codes.

    ``0=No; 1=Yes; ND (not done)`` → ({'ND': 'not done'}, '0=No; 1=Yes'). Only a meaning that
    says nothing but missing counts ('not done', not 'Unknown cause'): the rest is left as written
    when nothing is taken out. (Cached: a dictionary repeats its cells; never change the result.)
    """
    if not text:
        return {}, text
    parts = [p for p in _PARTS.split(text.strip()) if p]
    found: dict[str, str] = {}
    kept: list[str] = []
    for part in parts:
        hit = _segment(part, is_missing_label)
        if hit:
            found.setdefault(*hit)
        else:
            kept.append(part)
    return (found, "; ".join(kept)) if found else ({}, text)
