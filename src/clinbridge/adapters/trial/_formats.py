"""Value labels kept as SAS formats: a sheet in PROC FORMAT style, the dictionary naming each
variable's format.

A formats sheet holds, in any of the layouts SAS users paste or export:

* ``value armf`` (or ``VALUE $SEXF``) then ``1 = 'Hypothermia'`` pairs, one per row or several
  in a cell, a ``;`` closing the format;
* the format's name alone (``ARMF.``), its pairs beside it and in the rows below;
* a CNTLOUT table (``FMTNAME | START | END | LABEL | TYPE``), a row per value.

The dictionary names a variable's format in one of its columns (``Format``, ``Value labels``;
found as the column whose cells name the sheet's formats): ``YNF.``, ``$SEXF.``, ``ynf``. A format
that groups ranges (``low -< 36 = 'Hypothermic'``) labels no codes: its variables stay numeric.
SAS's own formats (``BEST12.``, ``8.1``, ``$20.``) label nothing; a date format (``DATE9.``) makes
the variable a date. A format the dictionary names that no sheet defines, a format defined
twice, or a value listed twice with two labels, is an error naming sheet, row and column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clinbridge.adapters.trial._codes import parse_code_list, split_missing
from clinbridge.adapters.trial._read import column_letter
from clinbridge.errors import LoadError

if TYPE_CHECKING:
    from clinbridge.adapters.trial._dictionary import Entry
    from clinbridge.adapters.trial._read import Sheet

__all__ = ["Format", "FormatUse", "apply_formats", "format_ref", "read_formats"]


@dataclass
class Format:
    """One format: its codes and labels, and where it was defined."""

    name: str
    """Upper case, ``$`` first for a character format."""
    codes: dict[str, str] = field(default_factory=dict)
    grouping: bool = False
    """Whether it labels ranges (``low -< 36``) or ``other``, not single values."""
    sheet: str = ""
    row: int = 0
    """1-based row where its definition starts."""

    def where(self) -> str:
        return f"sheet {self.sheet!r} row {self.row}"


@dataclass
class FormatUse:
    """What the formats did, for the load report."""

    sheets: list[str] = field(default_factory=list)
    formats: int = 0
    column: str = ""
    """The dictionary column that names each variable's format ('column D')."""
    labelled: dict[str, list[str]] = field(default_factory=dict)
    """format name → variables it labelled."""
    grouping: dict[str, list[str]] = field(default_factory=dict)
    """range format name → variables kept numeric."""
    dates: list[str] = field(default_factory=list)
    """Variables a SAS date format made dates."""

    def lines(self) -> list[str]:
        """The load report's lines about value labels."""
        if not self.formats:
            return []
        n = sum(len(v) for v in self.labelled.values())
        out = [
            f"value labels: {self.formats} format(s) in PROC FORMAT style on sheet(s) "
            f"{', '.join(repr(s) for s in self.sheets)}, named in {self.column} of the "
            f"dictionary; {len(self.labelled)} format(s) label {n} variable(s)"
        ]
        for name, names in self.grouping.items():
            out.append(
                f"format {name} groups ranges, labels no codes: {', '.join(names)} kept numeric"
            )
        if self.dates:
            out.append(f"{len(self.dates)} variable(s) with a SAS date format read as dates")
        return out


_NAME = r"\$?[A-Za-z_][A-Za-z0-9_]{0,31}"
_VALUE = re.compile(
    rf"^\s*(?:proc\s+format\b[^;]*;\s*)?value\s+(?P<name>{_NAME})\.?\s*(?:\([^)]*\))?\s*(?P<rest>.*)$",
    re.I | re.S,
)
_OPENS = re.compile(r"^\s*(?:$|\(|[-+\d'\".;]|(?:low|high|other)\b)", re.I)
"""What follows ``value NAME``: nothing, options, a value, or ';' ('Value labels: ...' is prose)."""
_NAME_CELL = re.compile(rf"^\s*(?P<name>{_NAME}?)\d*\.?\s*$")
_REF = re.compile(
    r"^\s*(?P<char>\$?)(?P<name>[A-Za-z_][A-Za-z0-9_]*?)?(?P<w>\d*)(?:\.(?P<d>\d*))?\s*$"
)
_NOT_NAMES = frozenset({"RUN", "PROC", "QUIT", "VALUE", "FORMAT", "FORMATS", "LIBRARY", "END"})
_TOKEN = re.compile(
    r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|[=;,<]|(?<![\w.])[-+]?\d+(?:\.\d+)?(?![\w.])"
    r"|\.[A-Za-z_]?(?!\w)|-|[^\s=;,'\"<-]+"
)
_RANGE_WORDS = frozenset({"LOW", "HIGH", "OTHER"})

BUILTIN: frozenset[str] = frozenset(
    [
        "BEST",
        "F",
        "E",
        "D",
        "COMMA",
        "COMMAX",
        "DOLLAR",
        "DOLLARX",
        "EURO",
        "PERCENT",
        "PERCENTN",
        "Z",
        "NUMX",
        "PVALUE",
        "ROMAN",
        "WORDS",
        "WORDF",
        "HEX",
        "BINARY",
        "OCTAL",
        "SSN",
        "NEGPAREN",
        "FRACT",
        "SIZEK",
        "BESTD",
        "CHAR",
        "UPCASE",
        "QUOTE",
        "VARYING",
        "ASCII",
        "EBCDIC",
        "W",
        "FLOAT",
        "IB",
        "PD",
        "RB",
        "PIB",
        "S370FF",
    ]
)
DATE_FORMATS: frozenset[str] = frozenset(
    [
        "DATE",
        "DATETIME",
        "DTDATE",
        "YYMMDD",
        "YYMMDDN",
        "DDMMYY",
        "DDMMYYN",
        "MMDDYY",
        "MMDDYYN",
        "E8601DA",
        "E8601DT",
        "E8601DN",
        "IS8601DA",
        "IS8601DT",
        "B8601DA",
        "B8601DT",
        "MONYY",
        "WEEKDATE",
        "WORDDATE",
        "WORDDATX",
        "NLDATE",
        "NLDATM",
        "JULIAN",
        "YYQ",
        "DATEAMPM",
        "YYMMDDD",
        "DDMMYYD",
        "MMDDYYD",
        "YYMMDDS",
        "DDMMYYS",
        "MMDDYYS",
        "TIME",
        "TOD",
        "HHMM",
        "E8601TM",
        "IS8601TM",
        "TIMEAMPM",
        "DTWKDATX",
        "YEAR",
        "MONTH",
    ]
)
"""SAS formats of dates, date-times and times."""


def format_ref(cell: Any) -> str | None:
    """The format a dictionary cell names, upper case without width: ``$sexf8.`` → ``$SEXF``;
    ``8.1`` → ``''`` (a width alone); None when the cell names no format."""
    if cell is None or isinstance(cell, bool | int | float):
        return None
    m = _REF.match(str(cell))
    if not m or not (m.group("name") or m.group("w") or m.group("char")):
        return None
    if not m.group("name") and m.group("d") is None and not m.group("char"):
        return None  # a bare number is no format
    return (m.group("char") + (m.group("name") or "")).upper()


def _cell_text(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v).strip()


def _blank(v: Any) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def _value(tok: str) -> bool:
    return (
        tok[0] in "'\"" or tok.upper() in _RANGE_WORDS or tok.startswith(".") or _is_num(tok)
    ) and tok not in {"-", "<"}


def _is_num(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def _unquote(tok: str) -> str:
    if len(tok) >= 2 and tok[0] in "'\"" and tok[-1] == tok[0]:
        return tok[1:-1].replace(tok[0] * 2, tok[0])
    return tok


def _code(tok: str) -> str:
    if _is_num(tok):
        f = float(tok)
        return str(int(f)) if f.is_integer() else tok.lstrip("+")
    return _unquote(tok).strip() if tok[0] in "'\"" else tok.upper()


def _pairs(text: str) -> tuple[list[tuple[list[str], str]], bool]:
    """(value tokens, label) pairs of ``1 = 'Yes' 2 = 'No'``, and whether a ``;`` closes it."""
    toks = _TOKEN.findall(text)
    eqs = [p for p, t in enumerate(toks) if t == "="]
    lhs: list[tuple[int, int]] = []  # (start, end) of each '=''s left-hand side
    for p in eqs:
        k = p - 1
        if k < 0 or not _value(toks[k]):
            lhs.append((p, p))
            continue
        j = k - 1
        while j >= 0 and toks[j] in {"-", "<"}:
            j -= 1
        start = j if j < k - 1 and j >= 0 and _value(toks[j]) else k
        lhs.append((start, p))
    out = []
    for n, (p, (start, _)) in enumerate(zip(eqs, lhs, strict=True)):
        end = lhs[n + 1][0] if n + 1 < len(lhs) else len(toks)
        body = [t for t in toks[p + 1 : end] if t != ","]
        if ";" in body:
            body = body[: body.index(";")]
        label = " ".join(_unquote(t) for t in body).strip()
        out.append((toks[start:p], label))
    return out, bool(toks) and ";" in toks[(eqs[-1] if eqs else 0) :]


def written_list(text: str) -> dict[str, str] | None:
    """A code list written in a cell in one of the notations dictionaries use, not SAS's
    (``HT=Hypothermia|NT=Normothermia``, ``Y=Yes; N=No``: text codes unquoted), read so only
    when SAS's reading finds a pair with no value before its '=' and the list's own reading
    gives at least two codes, each a short token with a label; else None."""
    pairs, _ = _pairs(text)
    if not pairs or all(lhs for lhs, _ in pairs):
        return None
    codes = parse_code_list(text)
    if len(codes) < 2 or not all(
        label and code and len(code) <= 12 and not re.search(r"\s", code)
        for code, label in codes.items()
    ):
        return None
    return codes


class _Reader:
    """Formats read off one sheet, row by row."""

    def __init__(self, sheet: Sheet) -> None:
        self.sheet = sheet
        self.found: list[Format] = []
        self.cur: Format | None = None
        self.orphan: int | None = None

    def start(self, name: str, i: int) -> None:
        self.cur = Format(name.upper().rstrip("."), sheet=self.sheet.name, row=i + 1)
        self.found.append(self.cur)

    def add(self, lhs: list[str], label: str, i: int, j: int) -> None:
        if self.cur is None:
            self.orphan = i if self.orphan is None else self.orphan
            return
        fmt = self.cur
        if len(lhs) != 1 or lhs[0].upper() in _RANGE_WORDS:
            fmt.grouping = True
            return
        self.put(_code(lhs[0]), label, i, j)

    def put(self, code: str, label: str, i: int, j: int) -> None:
        fmt = self.cur
        assert fmt is not None
        if code in fmt.codes and fmt.codes[code] != label:
            raise LoadError(
                f"format {fmt.name} lists value {code!r} twice, as {fmt.codes[code]!r} and "
                f"{label!r}",
                **self.sheet.where(i, j),
            )
        fmt.codes[code] = label

    def row(self, i: int, row: list[Any]) -> None:
        cells = [(j, _cell_text(v)) for j, v in enumerate(row) if not _blank(v)]
        if not cells:
            return
        j0, first = cells[0]
        rest = cells[1:]
        m = _VALUE.match(first)
        named = _NAME_CELL.match(first)
        if m and m.group("name") and _OPENS.match(m.group("rest")):
            self.start(m.group("name"), i)
            rest = [(j0, m.group("rest")), *rest]
        elif (
            named
            and named.group("name")
            and named.group("name").upper().lstrip("$") not in _NOT_NAMES
            and not _value(first)
            and (not rest or all("=" in t for _, t in rest))
        ):
            self.start(named.group("name"), i)
        else:
            rest = cells
        if len(rest) == 2 and not any("=" in t for _, t in rest) and _value(rest[0][1]):
            self.add([rest[0][1]], _unquote(rest[1][1]), i, rest[0][0])  # 'M' | 'Male'
            return
        text = " ".join(t for _, t in rest)
        listed = written_list(text) if self.cur is not None else None
        if listed is not None:  # 'HT=Hypothermia|NT=Normothermia' beside the list's name
            for code, label in listed.items():
                self.put(code, label, i, rest[0][0])
            return
        pairs, closed = _pairs(text)
        for lhs, label in pairs:
            self.add(lhs, label, i, rest[0][0] if rest else j0)
        if closed or text.strip().lower().startswith("run"):
            self.cur = None


_CNTL_HEADS = {
    "fmt": re.compile(r"^(?:fmt ?name|format(?: ?name)?|fmt)$", re.I),
    "start": re.compile(r"^(?:start|values?|codes?|values? labels?|pairs|labels)$", re.I),
    "end": re.compile(r"^end$", re.I),
    "label": re.compile(r"^(?:label|meaning|description|decode|text)$", re.I),
    "type": re.compile(r"^(?:type|fmt ?type)$", re.I),
    "hlo": re.compile(r"^hlo$", re.I),
}


def _get(cols: dict[str, int], r: list[Any], key: str) -> str:
    j = cols.get(key)
    return "" if j is None or j >= len(r) or _blank(r[j]) else _cell_text(r[j])


def _cntlout(sheet: Sheet) -> list[Format] | None:
    """A CNTLOUT-style table (``FMTNAME | START | END | LABEL``), a row per value; None if the
    sheet holds none."""
    for h, head in enumerate(sheet.rows[:10]):
        cols: dict[str, int] = {}
        for j, v in enumerate(head):
            for key, pat in _CNTL_HEADS.items():
                if key not in cols and not _blank(v) and pat.match(str(v).strip()):
                    cols[key] = j
        if not {"fmt", "start"} <= cols.keys():
            continue
        out: dict[str, Format] = {}
        name = ""
        reader = _Reader(sheet)

        for i in range(h + 1, len(sheet.rows)):
            r = sheet.rows[i]
            if all(_blank(v) for v in r):
                continue
            name = (format_ref(_get(cols, r, "fmt")) or "") or name  # 'centre.' → CENTRE
            if not name:
                continue
            if _get(cols, r, "type").upper() == "C" and not name.startswith("$"):
                name = "$" + name
            if name not in out:
                out[name] = Format(name, sheet=sheet.name, row=i + 1)
            reader.cur = out[name]
            start, end = _get(cols, r, "start"), _get(cols, r, "end")
            if "=" in start and (listed := written_list(start)) is not None:
                for code, label in listed.items():  # 'Codelist | Values': Y=Yes|N=No
                    reader.put(code, label, i, cols["start"])
                continue
            if "=" in start:  # 'Format | Values' with the pairs written out: 1 = 'Yes'
                for lhs, label in _pairs(start)[0]:
                    reader.add(lhs, label, i, cols["start"])
                continue
            if "label" not in cols or not start:
                continue
            hlo = _get(cols, r, "hlo").upper()
            quoted = start if _is_num(start) else f"'{start}'"
            ranged = (end and end != start) or any(c in hlo for c in "LHO")
            lhs = [quoted, "-", quoted] if ranged else [quoted]
            reader.add(lhs, _get(cols, r, "label"), i, cols["start"])
        return list(out.values())
    return None


def read_formats(sheets: list[Sheet]) -> dict[str, Format]:
    """Every format defined on ``sheets`` (each a candidate formats sheet), by name."""
    out: dict[str, Format] = {}
    for sheet in sheets:
        found = _cntlout(sheet)
        if found is None:
            reader = _Reader(sheet)
            for i, row in enumerate(sheet.rows[:5000]):
                reader.row(i, row)
            found = [f for f in reader.found if f.codes or f.grouping]
            if found and reader.orphan is not None and reader.orphan < found[-1].row:
                raise LoadError(
                    "value = 'label' pairs before any format name: each format's values "
                    "must follow its name (VALUE name, or the name alone on its row)",
                    **sheet.where(reader.orphan),
                )
        found = [f for f in found if f.codes or f.grouping]
        if len(found) < 1 or not any(len(f.codes) >= 2 or f.grouping for f in found):
            continue
        for fmt in found:
            if fmt.name in out and out[fmt.name].codes != fmt.codes:
                first = out[fmt.name]
                raise LoadError(
                    f"format {fmt.name} is defined twice, differently ({first.where()} and "
                    f"row {fmt.row})",
                    **sheet.where(fmt.row - 1),
                )
            out.setdefault(fmt.name, fmt)
    return out


def _lookup(ref: str, formats: dict[str, Format]) -> Format | None:
    return formats.get(ref) or formats.get(ref.lstrip("$")) or formats.get("$" + ref.lstrip("$"))


def _format_column(
    sheet: Sheet, header: int, entries: list[Entry], formats: dict[str, Format]
) -> int | None:
    """The dictionary column whose cells name the formats: the most cells that name one."""
    width = max((len(sheet.rows[e.row - 1]) for e in entries if e.row), default=0)
    best, hits = None, 0
    for j in range(width):
        n = 0
        for e in entries:
            row = sheet.rows[e.row - 1] if e.row else []
            ref = format_ref(row[j]) if j < len(row) else None
            if ref and _lookup(ref, formats):
                n += 1
        if n > hits:
            best, hits = j, n
    if best is None:  # no format defined anywhere: a column headed 'Format' for date formats
        head = sheet.rows[header]
        best = next(
            (j for j, v in enumerate(head) if re.fullmatch(r"\s*formats?\s*", str(v or ""), re.I)),
            None,
        )
    return best


def apply_formats(
    entries: dict[str, Entry],
    sheet: Sheet,
    header: int,
    cols: dict[str, int],
    others: list[Sheet],
) -> FormatUse:
    """Label each variable whose dictionary row names a format defined on one of ``others``."""
    formats = read_formats(others)
    use = FormatUse(sheets=sorted({f.sheet for f in formats.values()}), formats=len(formats))
    listed = [e for e in entries.values() if e.row]
    j = _format_column(sheet, header, listed, formats)
    if j is None:
        return use
    use.column = f"column {column_letter(j)}"
    for entry in listed:
        row = sheet.rows[entry.row - 1] if entry.row else []
        ref = format_ref(row[j]) if j < len(row) else None
        if ref is None:
            continue
        fmt = _lookup(ref, formats) if ref else None
        if fmt is not None:
            if fmt.grouping or not fmt.codes:
                use.grouping.setdefault(fmt.name, []).append(entry.name)
                _reset_type(entry, cols, j)
                continue
            entry.codes, more = split_missing(dict(fmt.codes))
            entry.missing = {**more, **entry.missing}
            entry.type, entry.typed = "categorical", True
            entry.range = None
            use.labelled.setdefault(fmt.name, []).append(entry.name)
            continue
        bare = ref.lstrip("$")
        if bare in DATE_FORMATS:
            if entry.type != "date":
                entry.type, entry.typed = "date", True
                use.dates.append(entry.name)
            continue
        if not bare or bare in BUILTIN or bare in DATE_FORMATS:
            _reset_type(entry, cols, j)
            continue
        if formats:
            shown = ", ".join(sorted(formats)[:8]) + (" ..." if len(formats) > 8 else "")
            raise LoadError(
                f"variable {entry.name!r} has format {str(row[j]).strip()!r}, which the formats "
                f"sheet(s) {', '.join(repr(s) for s in use.sheets)} do not define (they "
                f"define {shown})",
                **sheet.where(entry.row - 1 if entry.row else None, j),
            )
    return use


def _reset_type(entry: Entry, cols: dict[str, int], j: int) -> None:
    """A type or codes column that holds format names told nothing of the type: from the data."""
    if cols.get("type") == j or cols.get("codes") == j:
        if cols.get("codes") == j:
            entry.codes = {}
        if entry.type in {"categorical", "string"} or cols.get("type") == j:
            entry.type, entry.typed = "float", False
