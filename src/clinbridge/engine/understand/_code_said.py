"""A code named without its display: 'SNOMED 78275009', 'CVX 21', "where code = '367498001'",
'code in (807283, 1856546)'.

A data manager pins a concept by its code alone. The schema reader grounds such a code where it
takes the whole question, but a question in a frame it does not read ('min(onset_time) ...',
'age in years at ...') goes to the rules, for which '367498001' is one more phrase they cannot
ground. Only when the reading has abstained is the question said again, each code as the stored
name it stands for, in quotes (which the rules ground exactly) — and only where that is exact:

* the source stores the code with a code system (FHIR events do; OMOP's concept ids do not, so
  an OMOP source is never read this way), in the system named when one is;
* among the tables the question names, if it names any;
* the code has one stored name, that name is stored for no other code, and it carries no quote,
  comma, semicolon or bracket (the list readers would cut it);
* every code of a list ('code in (a, b)', 'CVX 207, 208 or 212') is such a code, and the words
  between them ('or', 'and', commas) are kept;
* the code stands alone: not an aside to words that name a concept ('an LDL cholesterol
  observation (LOINC 2093-3)'), not given with its display, after no content word — words
  beside a code must confirm it (``_code_mentions``, ``_code_displays``), never be overridden.

A code the source does not store, or one these do not pin, is left as written: the reading
abstains naming it. A question that asks for a table per patient ('group by patient_id', 'per
patient') is left whole: the rules would give one figure or the patients' ids for it.

In the question said again, the time column a code's event is dated by is said in words too,
as the rules read it: 'min(onset_time) as date' is 'earliest date' ('max(...)': 'latest date';
not inside another function, 'year(min(...))'), and 'age in years at <time column> of' ('age
from <birth date> to <time column> of') is 'age at'; 'date_diff('day') between <time column>
of X and Y' is 'days between X and Y' ('... to death_date': 'to death'); 'years between
birth_date and onset of X' is 'age at X'; 'min onset date' ('max effective date') is 'earliest
date' ('latest date'); 'count distinct code in <table of one kind of events>' is the number of
distinct drugs (conditions, procedures, measurements) in it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._schema_words import (
    FIELD_ROLES,
    SYSTEMS,
    resource_streams,
    table_streams,
)

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog, EventStream
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["say_codes"]

_SYS = r"loinc|snomed(?:[- ]?ct)?|sct|rxnorm|rx\s*norm|cvx"
_CODE = r"'?\d+(?:[.\-]\d+)?'?"
_SEP = r"\s*(?:,\s*(?:or\s+|and\s+)?|\s(?:or|and)\s)\s*"
# '[where|with] <system> [code[s]] <codes>' or '[where|with] code[s] [=|in|is] <codes>'
_MENTION = re.compile(
    rf"(?P<lead>\b(?:where|with|whose)\s+)?"
    rf"(?:\b(?P<sys>{_SYS})(?:\s+codes?)?(?:\s*(?:=|:|in|is)\s*|\s+)|\bcodes?(?:\s*(?:=|in|is)\s*|\s+)"
    rf"|\b(?P<tbl>[a-z]+_[a-z_]+)\s+)"
    rf"(?P<open>\(\s*)?(?P<list>{_CODE}(?:{_SEP}{_CODE})*)(?(open)\s*\))(?![\w.\-])",
    re.I,
)
_ITEM = re.compile(r"'?(\d+(?:[.\-]\d+)?)'?")
_TABLE = re.compile(r"\b\w+_\w+\b")
_PER_PATIENT = re.compile(
    r"\b(?:group(?:ed)?\s+by|per|for\s+each|each)\s+(?:\w+\.)?(?:patient|person|subject|pt)s?(?:_?id)?\b",
    re.I,
)
_FIELD_BEFORE = re.compile(r"\b[a-z]+_(?:code|system|display|concept_id)\s*(?:=\s*)?$", re.I)


def _fragment(system: str) -> str:
    key = re.sub(r"[\s\-]", "", system.lower())
    for name, (frag, _) in SYSTEMS.items():
        if key.startswith(name):
            return frag
    return key


def _stored_name(lex: Lexicon, code: str, system: str, streams: set[str] | None) -> str | None:
    """The one stored name of ``code`` that no other code shares, or None."""
    frag = _fragment(system) if system else ""
    hits = [
        e
        for e in lex.entries
        if str(e.code) == code
        and e.direct
        and e.system
        and (not frag or frag in e.system.lower())
        and (streams is None or e.stream_name in streams)
    ]
    names = {e.name for e in hits}
    if len(names) != 1:
        return None
    name = next(iter(names))
    if any(ch in name for ch in "',;[]") or not name.strip():
        return None
    if any(e.name.lower() == name.lower() and str(e.code) != code for e in lex.entries):
        return None
    return name


# what may stand before a code said alone (a content word there names the concept in words)
_BEFORE_OK = frozenset(
    [
        "with",
        "where",
        "whose",
        "for",
        "of",
        "in",
        "and",
        "or",
        "from",
        "has",
        "had",
        "have",
        "a",
        "an",
        "any",
        "the",
        "is",
        "are",
        "was",
        "were",
        "than",
        "without",
        "no",
        "not",
        "by",
        "patient",
        "patients",
        "pt",
        "pts",
        "row",
        "rows",
        "record",
        "records",
    ]
)


def _bare(text: str, m: re.Match[str]) -> bool:
    """True when the code stands alone: not an aside in parentheses, not given with its
    display, and after no content word (only a structural word, a table or field identifier, an
    operator or the question's start)."""
    if re.match(r"\s*\(", text[m.end() :]):
        return False  # 'SNOMED 1234 (Display)': the display is for name_coded_displays to confirm
    before = text[: m.start()].rstrip()
    if before.endswith(("(", "[")):
        return False
    word = re.search(r"([\w.\-']+|[=<>,:])$", before)
    if word is None:
        return True
    w = word.group(1).strip("'").lower()
    return w in _BEFORE_OK or "_" in w or not w.isalpha() or bool(m.group("lead") or m.group("tbl"))


def _streams(catalog: Catalog, word: str) -> list[EventStream]:
    """The streams of a table named in the question ('fhir_medication_request': its resource's)."""
    found = table_streams(catalog, word)
    if not found and catalog.adapter == "fhir" and word.lower().startswith("fhir_"):
        camel = "".join(p.capitalize() for p in word.lower()[5:].split("_"))
        found = resource_streams(catalog, camel) or []
    return found


def _named_streams(text: str, catalog: Catalog | None) -> set[str] | None:
    """The streams of the tables the question names (None when it names none of them)."""
    if catalog is None:
        return None
    found = {s.name for w in _TABLE.findall(text) for s in _streams(catalog, w)}
    return found or None


def say_codes(text: str, lex: Lexicon, catalog: Catalog | None = None) -> str:
    """``text`` with each code that pins one stored concept said as its name, quoted, and the
    time columns beside it in words."""
    if _PER_PATIENT.search(text):
        return text
    streams = _named_streams(text, catalog)
    out, last = [], 0
    for m in _MENTION.finditer(text):
        if _FIELD_BEFORE.search(text[: m.start()]):
            continue  # 'reason_code SNOMED 55822004': a field's value, not an event
        if not _bare(text, m):
            continue  # 'an LDL cholesterol observation (LOINC 2093-3)': words the code must confirm
        table = m.group("tbl")
        if table and (catalog is None or not _streams(catalog, table)):
            continue  # 'fhir_condition 64859006': only a table of events before a bare code
        said, pos, ok = [], 0, True
        body = m.group("list")
        for item in _ITEM.finditer(body):
            name = _stored_name(lex, item.group(1), m.group("sys") or "", streams)
            if name is None:
                ok = False
                break
            said.append(body[pos : item.start()])
            said.append(f"'{name}'")
            pos = item.end()
        if not ok or not said:
            continue
        if not re.search(r"\band\b", body, re.I):  # 'code in (a, b)': one of them
            said = [" or " if k % 2 == 0 and k else part for k, part in enumerate(said)]
        lead = ("with " if m.group("lead") else "") + (f"{table} " if table else "")
        out.append(text[last : m.start()])
        out.append(lead + "".join(said) + body[pos:])
        last = m.end()
    out.append(text[last:])
    return re.sub(r"\s{2,}", " ", _time_words(_distinct_codes("".join(out), catalog), catalog))


_KIND_NOUN = {
    "condition": "conditions",
    "drug": "drugs",
    "procedure": "procedures",
    "measurement": "measurements",
}
_DISTINCT_CODE = re.compile(
    r"\bcount\s*(?:\(\s*distinct\s+code\s*\)|\s+(?:of\s+)?distinct\s+codes?)\s+"
    r"(?P<w>in|from|of|over)\s+(?P<table>\w+)",
    re.I,
)


def _distinct_codes(text: str, catalog: Catalog | None) -> str:
    """'count distinct code in fhir_medication_request' said 'number of distinct drugs in ...'
    (a table of one kind of events only)."""

    def said(m: re.Match[str]) -> str:
        kinds = {s.kind for s in _streams(catalog, m["table"])} if catalog else set()
        if len(kinds) != 1 or next(iter(kinds)) not in _KIND_NOUN:
            return m.group(0)
        return f"number of distinct {_KIND_NOUN[next(iter(kinds))]} in {m['table']}"

    return _DISTINCT_CODE.sub(said, text)


def _time_words(text: str, catalog: Catalog | None) -> str:
    """'min(onset_time) as date' said 'earliest date', 'age in years at onset_time of' 'age at'."""
    if catalog is None:
        return text
    cols = {s.time_column for s in catalog.streams} | {
        s.end_time_column for s in catalog.streams if s.end_time_column
    }
    cols |= {f for f, role in FIELD_ROLES.items() if role == "time"}  # 'authored_on'
    cols = {c for c in cols if c and "_" in c}
    if not cols:
        return text
    alt = "|".join(re.escape(c) for c in sorted(cols, key=len, reverse=True))
    text = re.sub(
        rf"(?<![\w(])(?P<f>min|max)\s*\(\s*(?:\w+\.)?(?:{alt})\s*\)(?:\s+as\s+date)?(?!\s*\))",
        lambda m: "earliest date" if m["f"].lower() == "min" else "latest date",
        text,
        flags=re.I,
    )
    text = re.sub(  # 'min onset date', 'max effective date'
        r"\b(?P<f>min|max)(?:imum)?\s+(?:(?:onset|effective|occurrence|start|authored|recorded|"
        r"performed)\s+)?date\b",
        lambda m: "earliest date" if m["f"].lower() == "min" else "latest date",
        text,
        flags=re.I,
    )
    text = re.sub(  # 'date_diff('day') between', 'date_diff in days from'
        r"\bdate_diff\s*(?:\(\s*'days?'\s*\)|\s+in\s+days)?\s+(?P<w>between|from)\b",
        lambda m: f"days {m['w'].lower()}",
        text,
        flags=re.I,
    )
    # 'days between onset_time of fhir_condition X and Y': the events' dates
    text = re.sub(
        rf"\b(?P<w>between|from)\s+(?:the\s+)?(?:\w+\.)?(?:{alt})\s+of\s+",
        lambda m: f"{m['w']} ",
        text,
        flags=re.I,
    )
    pt = catalog.patients
    if pt is not None and pt.death_date_column:  # '... to death_date for patient X'
        text = re.sub(
            rf"\b(?P<w>to|and)\s+(?:the\s+)?(?:\w+\.)?{re.escape(pt.death_date_column)}\b",
            lambda m: f"{m['w']} death",
            text,
            flags=re.I,
        )
    birth = re.escape(pt.birth_date_column) if pt is not None and pt.birth_date_column else None
    span = rf"(?:from|between)\s+(?:\w+\.)?{birth}\s+(?:to|and)\s+" if birth else "(?!)"
    if birth:  # 'years between birth_date and onset of X': the age at X
        text = re.sub(
            rf"\b(?:age\s+in\s+(?:whole\s+)?years|years)\s+{span}(?:the\s+)?"
            r"(?:onset|start|date)\s+of\s+",
            "age at ",
            text,
            flags=re.I,
        )
    return re.sub(
        rf"\bage\s+(?:in\s+(?:whole\s+)?years\s+)?(?:at\s+|{span})(?:the\s+)?"
        rf"(?:\w+\.)?(?:{alt})\s+(?:of|for)\b",
        "age at",
        text,
        flags=re.I,
    )
