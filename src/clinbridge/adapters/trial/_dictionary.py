"""Data-dictionary entries: parsed from a dictionary sheet or file, or inferred from the data."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from clinbridge.adapters.trial._codes import is_number as _is_number
from clinbridge.adapters.trial._codes import label_first_bracketed, parse_code_list, split_missing
from clinbridge.adapters.trial._iso_time import looks_iso, time_point_in_name, time_point_text
from clinbridge.adapters.trial._label_unit import unit_in_label
from clinbridge.adapters.trial._listed_elsewhere import points_elsewhere
from clinbridge.adapters.trial._missing_decl import parse_missing_column, strip_declarations
from clinbridge.adapters.trial._ranges import split_range
from clinbridge.timepoint import time_in_label, time_in_name

__all__ = [
    "Entry",
    "infer_entry",
    "keep_fitting_reading",
    "mostly_numbers",
    "normalise_type",
    "parse_codes",
    "parse_entry",
    "role_of",
    "site_label",
]

VarType = str  # integer | float | string | date | categorical


@dataclass
class Entry:
    name: str
    label: str = ""
    type: VarType = "string"
    unit: str | None = None
    codes: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    time_point: str | None = None
    time_point_text: str | None = None
    trials: tuple[str, ...] = ()
    form: str | None = None
    source: str = "dictionary"
    """'dictionary' or 'inferred' (no dictionary entry: type, codes and time point from the data)."""
    typed: bool = True
    """Whether the dictionary declared the type (else the loader takes it from the data)."""
    row: int | None = None
    """1-based row of the dictionary entry."""
    role: str | None = None
    """subject, trial, site or arm (see :func:`role_of`)."""
    range: tuple[float, float] | None = None
    """The allowed values a numeric field declares ('range 30 to 40'), if any."""
    listed_elsewhere: bool = False
    """Whether the codes cell points to a list kept elsewhere ('see Centres sheet')."""
    listed_in: str = ""
    """The codes cell's words when it points elsewhere ('see Centres sheet'), else ''."""
    codes_other: tuple[dict[str, str], dict[str, str]] | None = None
    """(codes, missing codes) the dictionary row gives when not read as 'Label (code)' items, where it was
    so read ('Hypothermia (A) / Normothermia (B)'): the loader keeps the reading the data fit."""
    codes_declared: bool = True
    """False for a categorical variable the dictionary lists no codes for (values as recorded)."""

    @property
    def numeric(self) -> bool:
        return self.type in {"integer", "float"} or (
            self.type == "categorical" and all(_is_number(c) for c in self.codes)
        )


_TYPES = {
    "integer": ("integer", "int", "count", "whole number", "number (integer)"),
    "float": ("float", "numeric", "number", "continuous", "decimal", "real", "double", "num"),
    "categorical": (
        "categorical",
        "category",
        "coded",
        "code",
        "radio",
        "dropdown",
        "yesno",
        "yes/no",
        "boolean",
        "binary",
        "factor",
        "ordinal",
        "nominal",
    ),
    "string": ("string", "text", "char", "character", "free text", "str", "varchar"),
    "date": ("date", "datetime", "date/time", "time"),
}


def normalise_type(text: Any) -> VarType | None:
    t = str(text or "").strip().lower()
    if not t:
        return None
    for out, names in _TYPES.items():
        if t in names:
            return out
    # 'Numeric (continuous)', 'Categorical (nominal)', 'decimal(5,1)', 'Yes/No item'
    for out, pattern in _TYPE_WORDS:
        if re.search(pattern, t):
            return out
    return None


_TYPE_WORDS = (
    ("date", r"\bdate|\bdatetime|\btimestamp"),
    ("categorical", r"categor|\bcode|nominal|ordinal|yes\s*/\s*no|binary|radio|dropdown|factor"),
    ("integer", r"\bint|whole number|\bcount"),
    ("float", r"numer|\bnum\b|float|decimal|continuous|\breal\b|double"),
    ("string", r"\btext|string|\bchar|free"),
)


def code_key(value: Any) -> str:
    """The text form of a stored code: 1.0 → '1', ' 2 ' → '2'."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value).strip()
    if _is_number(text) and float(text).is_integer():
        return str(int(float(text)))
    return text


def keep_fitting_reading(entry: Entry, raw: list[Any]) -> None:
    """A codes cell read as 'Label (code)' items ('Hypothermia (A) / Normothermia (B)') is kept
    so only where the data's values are among those codes; where they are not and fit the
    cell's other reading (whole items as codes: 'Hypothermia (A)'), that reading is taken."""
    if entry.codes_other is None:
        return
    seen = {code_key(v) for v in raw if v is not None and str(v).strip()}
    if seen <= set(entry.codes) | set(entry.missing):
        return
    codes, missing = entry.codes_other
    if seen and seen <= set(codes) | set(missing):
        entry.codes, entry.missing = codes, missing


def parse_codes(text: Any) -> dict[str, str]:
    """'1=Male; 2=Female' (and the other notations of :mod:`._codes`) → {'1': 'Male', ...}."""
    return parse_code_list(text)


def parse_entry(row: list[Any], cols: dict[str, int], index: int) -> Entry:
    def get(fld: str) -> str:
        j = cols.get(fld)
        if j is None or j >= len(row) or row[j] is None:
            return ""
        v = row[j]
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        return str(v).strip()

    name = get("variable")
    # a range where codes would go ('range 30 to 40', '30-40; -999 = not done') is no code list
    allowed, codes_text = split_range(get("codes"))
    if allowed is None:
        allowed = split_range(get("range"))[0]
    # a code whose label says missing ('99=Missing') is a missing code, not a category
    text_missing, codes_text = strip_declarations(codes_text)  # 'ND (not done)' beside codes
    codes, missing = split_missing(parse_codes(codes_text))
    missing = {**text_missing, **missing, **parse_missing_column(get("missing"))}
    other = None
    if label_first_bracketed(codes_text) is not None:
        o_codes, o_missing = split_missing(parse_code_list(codes_text, bracketed=False))
        other = (o_codes, {**text_missing, **o_missing, **parse_missing_column(get("missing"))})
    declared = normalise_type(get("type"))
    if allowed and not codes and declared == "categorical":
        lo, hi = allowed
        if lo.is_integer() and hi.is_integer() and hi - lo <= 20:  # '1-5' on a coded item
            codes = {str(k): "" for k in range(int(lo), int(hi) + 1)}
    vtype = declared or ("categorical" if codes else "float" if allowed else "string")
    if codes and vtype in {"integer", "float", "string"}:
        vtype = "categorical"
    trial_text = get("trial")
    trials: tuple[str, ...] = ()
    if trial_text and trial_text.strip().lower() not in {"both", "all", "any", "both trials"}:
        trials = tuple(t.strip() for t in re.split(r"[;,/&+]| and ", trial_text) if t.strip())
    tp_text = get("time_point") or None
    tp = time_point_text(tp_text) if tp_text else None  # 'Day 3', 'PT72H'
    if (
        tp is None
        and tp_text is not None
        and not looks_iso(tp_text)
        and (coded := time_in_name(tp_text.strip()))
    ):
        tp = coded.text()  # a visit written as a column would name it: 'D3', 'M18', 'H72'
    if tp is None and tp_text is None:
        # no time point written: from the name ('Temp (24 h)'), and where the dictionary has
        # no time-point column at all, from the label ('Lactate at 72 hours')
        found = time_point_in_name(name) or (
            time_in_label(get("label")) if "time_point" not in cols else None
        )
        tp = found.text() if found else None
    return Entry(
        name=name,
        label=get("label") or name,
        type=vtype,
        unit=get("unit") or unit_in_label(get("label")),
        codes=codes,
        missing=missing,
        codes_other=other,
        time_point=tp,
        time_point_text=tp_text,
        trials=trials,
        form=get("form") or None,
        typed=declared is not None or bool(codes),
        row=index + 1,
        range=allowed,
        listed_elsewhere=points_elsewhere(get("codes")),
        listed_in=get("codes") if points_elsewhere(get("codes")) else "",
    )


def mostly_numbers(values: list[Any]) -> list[Any]:
    """A column of numbers with a few stray texts ('n.q.' in 200 weights) keeps only its numbers,
    so that it is read as numeric and each stray text becomes a bad cell naming its row; any
    other column is returned as it is."""
    filled = [v for v in values if v is not None and not (isinstance(v, str) and not v.strip())]
    numbers = [v for v in filled if not isinstance(v, bool) and _number_like(v)]
    if len(numbers) >= 10 and len(numbers) < len(filled) and len(numbers) >= 0.9 * len(filled):
        return numbers
    return values


def _number_like(v: Any) -> bool:
    return isinstance(v, int | float) or (isinstance(v, str) and _is_number(v.strip()))


_MISSING_GUESSES = (-99.0, -88.0, -77.0, -999.0, -9.0)


def infer_entry(name: str, values: list[Any]) -> Entry:
    """An entry from the values alone (no dictionary): said so in ``source='inferred'``."""
    present = [v for v in values if v is not None and not (isinstance(v, str) and not v.strip())]
    nums: list[float] = []
    numeric = True
    for v in present:
        if isinstance(v, bool):
            numeric = False
            break
        if isinstance(v, int | float):
            nums.append(float(v))
            continue
        try:
            nums.append(float(str(v).strip()))
        except ValueError:
            numeric = False
            break
    tp = time_point_in_name(name)
    entry = Entry(name=name, label=name, source="inferred", time_point=tp.text() if tp else None)
    if not present or not numeric:
        entry.type = "string"
        return entry
    real = [x for x in nums if x not in _MISSING_GUESSES]
    if real and min(real) >= 0:
        entry.missing = {code_key(x): "" for x in sorted(set(nums) & set(_MISSING_GUESSES))}
    integral = all(x.is_integer() for x in real)
    distinct = sorted(set(real))
    if integral and 0 < len(distinct) <= 6 and max(distinct) <= 10:
        entry.type = "categorical"
        entry.codes = {code_key(x): "" for x in distinct}
    else:
        entry.type = "integer" if integral else "float"
    return entry


_ROLE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "subject",
        re.compile(
            r"\b(subject|participant|patient|infant|baby|study|record)[ _-]*(id|identifier|number|no)\b"
            r"|^(subj_?id|id|usubjid|record_id|subj|subj_?no|pid|pt_?id|pat_?id|screening_?(no|id))$",
            re.I,
        ),
    ),
    (
        "arm",
        re.compile(
            r"\b(arm|allocation|randomi[sz](ed|ation) (treatment|group|arm)|treatment (group|arm)"
            r"|intervention group|(study|trial) (arm|group)|allocated (group|treatment))\b"
            r"|^(rand_?arm|arm|trt|treatment|group|grp|trt_?grp|tx|alloc|allocation|rand_?(grp|group))$",
            re.I,
        ),
    ),
    ("site", re.compile(r"\b(site|centre|center|hospital)\b|^site(_?id)?$", re.I)),
    ("trial", re.compile(r"^(trial|study)(_?id|_?name)?$|^(trial|study)$", re.I)),
)


_BODY_SITE = re.compile(
    r"\b(?:probe|sensor|electrode|injection|insertion|catheter|cannula|line|sampling|sample|"
    r"measurement|recording|monitoring|body|anatomical|infection|puncture|biopsy|surgical|lesion|"
    r"bleed(?:ing)?|skin|pain|tumou?r|primary)\s+sites?\b|\bsites?\s+of\s+(?:the\s+)?(?:probe|"
    r"sensor|injection|insertion|infection|measurement|sampling|lesion|bleed\w*|pain|catheter)\b",
    re.I,
)
"""'Core temperature probe site', 'site of infection': a place on the body or of a device, not
a study site."""


def site_label(label: str) -> bool:
    """Whether a label names the study site ('Recruiting centre', 'Site number within trial'),
    not a place on the body or of a device ('Core temperature probe site') nor a place said
    in passing ('Died before 18 months (including in hospital)')."""
    text = re.sub(r"\([^()]*\)", " ", label)
    m = re.search(r"\b(site|centre|center|hospital)s?\b", text, re.I)
    if m is None or _BODY_SITE.search(label):
        return False
    before = text[: m.start()].split()
    return len(before) <= 3 and not (
        before
        and before[-1].lower()
        in {"in", "at", "to", "from", "before", "after", "during", "of", "another", "other"}
    )


def role_of(entry: Entry) -> str | None:
    """The design part a variable plays, from its name and label: subject, arm, site or trial."""
    for role, pattern in _ROLE_PATTERNS:
        if role == "site" and not site_label(entry.label) and not pattern.search(entry.name):
            continue
        if role == "subject":
            if pattern.search(entry.name) or pattern.search(entry.label):
                return role
            continue
        if entry.type != "categorical":
            continue
        if pattern.search(entry.name) or (role != "trial" and pattern.search(entry.label)):
            return role
        if role == "trial" and entry.label.strip().lower() in {"trial", "study"}:
            return role
    return None
