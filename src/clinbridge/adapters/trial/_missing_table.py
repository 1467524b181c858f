"""Missing codes declared once in a table that says where each applies.

A cover or readme sheet may hold one table of missing codes, each row a code, its meaning and
the variables it applies to::

    Code | Meaning      | Applies to
    -99  | Not recorded | All variables
    -9   | Not known    | Coded (categorical) variables only
    .N   | Not done     | Numeric variables

The table is found by its structure: a header naming a code, a meaning and a scope column
(``Applies to``, ``Scope``, ``Used for``, ``Variables``), or, without one, rows whose third cell
names kinds of variables. A scope names kinds of variable (all; coded, categorical or formatted;
continuous or measured; numeric; text or character; dates; follow-up items), variables by name,
a section or form of the dictionary, or visits (``follow-up items (P18M, P6Y)``), and may set some aside (``all except dates``, ``non-coded numeric``).
So -9 can be a missing code of every coded item and a real value of a continuous one. A scope
that names nothing the loader can tell is an error naming sheet, row and column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clinbridge.adapters.trial._iso_time import iso_duration
from clinbridge.adapters.trial._missing_decl import declarations_in_row, is_missing_meaning
from clinbridge.errors import LoadError
from clinbridge.timepoint import find_time_points

if TYPE_CHECKING:
    from clinbridge.adapters.trial._dictionary import Entry
    from clinbridge.adapters.trial._read import Sheet

__all__ = ["Scope", "ScopedCode", "find_scoped_codes"]

_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "categorical",
        re.compile(
            r"categor\w*|\bcoded\b|\bcodes?\b(?!\s*=)|code[ -]?lists?|format(?:s|ted)?\b|"
            r"value[ -]?labels?|labelled|discrete|nominal|ordinal|yes\s*/\s*no|binary|factors?|"
            r"pick[ -]?lists?|multiple[ -]choice|radio|drop[ -]?downs?|check[ -]?box(?:es)?",
            re.I,
        ),
    ),
    ("continuous", re.compile(r"continuous|measure(?:d|ments?)|quantitative|\bscales?\b", re.I)),
    ("numeric", re.compile(r"numeric\w*|\bnum\b|\bnumbers?\b|integers?|decimals?|floats?", re.I)),
    ("text", re.compile(r"\btext\b|\bchar(?:acter)?s?\b|strings?|free[ -]?text", re.I)),
    ("date", re.compile(r"\bdates?\b|date[ -]?times?", re.I)),
)
_ALL = re.compile(r"\ball\b|\bevery\b|\bany\b|\bglobal\w*|\bthroughout\b|\bwhole\b", re.I)
_NOT = re.compile(
    r"\b(?:except|excluding|exclude|but\s+not|not|other\s+than|apart\s+from)\b|\bnon-?\s*$", re.I
)
_FORM = re.compile(
    r"\b(?:section|form|part|module|domain|crf|page)\s*([0-9]+[a-z]?|[ivx]+)\b", re.I
)
_FOLLOW_UP = re.compile(r"follow[\s-]*up|\bvisits?\b|\btimed\b|repeated", re.I)
_SCOPE_HEAD = re.compile(
    r"^\s*(?:applies?(?:\s+to)?|applicable(?:\s+to)?|scope|used\s+(?:for|in|with|on)|"
    r"variables?(?:\s+types?)?|variable\s+classes?|where(?:\s+used)?|context|for|use)\s*:?\s*$",
    re.I,
)
_CODE_HEAD = re.compile(r"\b(?:code|value|missing|special|sentinel|flag)s?\b", re.I)


@dataclass(frozen=True)
class Scope:
    """Which variables a workbook-wide missing code applies to."""

    text: str
    kinds: frozenset[str] = frozenset()
    """all, categorical, continuous, numeric, text, date."""
    excluded: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()
    """Lower-case variable names."""
    forms: frozenset[str] = frozenset()
    """'section 2': sections or forms of the dictionary."""
    times: frozenset[str] = frozenset()
    """Canonical time points ('18 months'): the items collected at those visits."""

    def applies(self, entry: Entry) -> bool:
        """Whether the code applies to ``entry``."""
        kinds = _kinds_of(entry)
        if kinds & self.excluded:
            return False
        if entry.name.lower() in self.names:
            return True
        if self.forms and entry.form and _form_key(entry.form) in self.forms:
            return True
        if entry.time_point and entry.time_point in self.times:
            return True
        return "all" in self.kinds or bool(kinds & self.kinds)

    def words(self) -> str:
        """The scope in the report's words."""
        return self.text


def _kinds_of(entry: Entry) -> set[str]:
    out = {"all"}
    if entry.type == "categorical":
        out.add("categorical")
    elif entry.type in {"integer", "float"}:
        out.add("continuous")
    if entry.numeric:
        out.add("numeric")
    if entry.time_point and entry.time_point != "baseline":
        out.add("follow-up")
    if entry.type == "date":
        out.add("date")
    elif not entry.numeric:
        out.add("text")
    return out


def _form_key(text: str) -> str | None:
    m = _FORM.search(text)
    return f"{m.group(0).split()[0].lower()} {m.group(1).lower()}" if m else None


def parse_scope(text: str, names: set[str]) -> Scope | None:
    """The scope a cell names, or None when it names nothing ('see protocol')."""
    t = re.sub(r"\s+", " ", text.strip())
    kinds: set[str] = set()
    excluded: set[str] = set()
    for kind, pattern in _KINDS:
        for m in pattern.finditer(t):
            before = t[max(0, m.start() - 24) : m.start()]
            (excluded if _NOT.search(before) else kinds).add(kind)
    if "numeric" in kinds and "categorical" in excluded:
        kinds.discard("numeric")
        kinds.add("continuous")
        excluded.discard("categorical")
    words = {w.lower() for w in re.findall(r"[A-Za-z_][\w.]*", t)}
    named = frozenset(words & names)
    forms = frozenset(
        k for k in (_form_key(m.group(0)) for m in _FORM.finditer(t)) if k is not None
    )
    times = frozenset(
        tp.text() for w in re.split(r"[\s,;/()]+", t) if (tp := iso_duration(w)) is not None
    ) or frozenset(tp.text() for tp, _ in find_time_points(t) if tp.scale != "baseline")
    follow_up = None if times else _FOLLOW_UP.search(t)
    if follow_up is not None:
        (excluded if _NOT.search(t[: follow_up.start()][-24:]) else kinds).add("follow-up")
    if not kinds and _ALL.search(t):
        kinds.add("all")
    if not (kinds or named or forms or times):
        return None
    return Scope(t, frozenset(kinds), frozenset(excluded), named, forms, times)


@dataclass
class ScopedCode:
    """A missing code, its meaning, and where the table says it applies."""

    code: str
    meaning: str
    scope: Scope
    where: str
    """"sheet 'README' row 6"."""


@dataclass
class ScopedTable:
    """The scoped codes a workbook declares, and the rows that held them."""

    codes: dict[str, ScopedCode] = field(default_factory=dict)
    rows_used: dict[str, set[int]] = field(default_factory=dict)


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip()


def find_scoped_codes(sheets: list[Sheet], names: list[str]) -> ScopedTable:
    """The missing codes declared with their scope on ``sheets`` (cover, readme, notes sheets)."""
    wanted = {n.lower() for n in names if n}
    out = ScopedTable()
    for sheet in sheets:
        scope_col: int | None = None
        for i, row in enumerate(sheet.rows[:300]):
            cells = [_text(v) for v in row[:12]]
            filled = [(j, c) for j, c in enumerate(cells) if c]
            if not filled:
                scope_col = None  # a blank row ends a table
                continue
            heads = [j for j, c in filled if _SCOPE_HEAD.match(c)]
            if heads and any(_CODE_HEAD.search(c) for j, c in filled if j not in heads):
                scope_col = heads[0]
                out.rows_used.setdefault(sheet.name, set()).add(i)
                continue
            found = declarations_in_row([c for j, c in filled if j != scope_col])
            if len(found) != 1:
                continue
            code, meaning = next(iter(found.items()))
            if scope_col is not None:
                text = cells[scope_col] if scope_col < len(cells) else ""
                if not text:
                    continue  # no scope written: the code applies to all (read elsewhere)
            else:  # no header: a cell besides the code and its meaning that names kinds
                rest = [
                    c
                    for _, c in filled
                    if c != meaning and _text(c) != code and not is_missing_meaning(c)
                ]
                text = next((c for c in rest if parse_scope(c, wanted)), "")
                if not text:
                    continue
            scope = parse_scope(text, wanted)
            if scope is None:
                raise LoadError(
                    f"the missing-code table says code {code!r} ({meaning}) applies to "
                    f"{text!r}, which names no kind of variable (all, coded, continuous, "
                    "numeric, text, dates, follow-up), no variable, section or time point",
                    **sheet.where(i, scope_col),
                )
            if len(scope.names) == 1 and not (scope.kinds or scope.forms):
                continue  # a row naming one column declares for it alone (read elsewhere)
            where = f"sheet {sheet.name!r} row {i + 1}"
            if code in out.codes:
                first = out.codes[code]
                if first.meaning.lower() != meaning.lower() or first.scope != scope:
                    raise LoadError(
                        f"missing code {code!r} is declared twice, differently: "
                        f"{first.meaning!r} for {first.scope.text!r} ({first.where}) and "
                        f"{meaning!r} for {text!r}",
                        **sheet.where(i, scope_col),
                    )
                continue
            out.codes[code] = ScopedCode(code, meaning, scope, where)
            out.rows_used.setdefault(sheet.name, set()).add(i)
    return out
