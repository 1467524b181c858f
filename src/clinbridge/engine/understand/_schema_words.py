"""The words of a question that name the schema: tables, resources, fields, literal codes, ids.

A data manager asks in the source's own terms ("distinct person_id in condition_occurrence with
condition_concept_id 4112343", "Observation resources with code 8480-6", "Encounter.class =
EMER"). This module splits such a question into typed tokens and resolves the schema words
against the *catalog* (table and column names, stream tables and descriptions, the encounter
and patient tables), never against a list of expected questions. ``_schema_read`` turns the
tokens into a QueryPlan.

What is general knowledge here, not tuning: comparison operators, the FHIR element names of
the resources the FHIR adapter flattens (``valueQuantity.value``, ``effectiveDateTime``,
``class``, ``gender``...), and the names of the common code systems (LOINC, SNOMED, RxNorm,
CVX, ICD) with a fragment of their FHIR system URI.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clinbridge.catalog import Catalog, EventStream

__all__ = [
    "AGG",
    "BLOCK",
    "COUNT",
    "FIELD_ROLES",
    "FILLER",
    "LIST",
    "OP1",
    "OPWORDS",
    "SEX_WORDS",
    "SYSTEMS",
    "UNIT_ENCOUNTERS",
    "UNIT_PATIENTS",
    "UNIT_ROWS",
    "YESNO",
    "Tok",
    "field_role",
    "looks_schema",
    "resource_streams",
    "table_streams",
    "tokenize",
]

# a token: a system|code pair, a uuid, a FHIR reference, a quoted string, an operator, a
# dotted/underscored identifier, a code (digits with dashes/dots), a number or a word
_TOKEN = re.compile(
    r"""(?P<syscode>https?://[^\s|]+\|[A-Za-z0-9.\-]+)
      | (?P<ref>[A-Z][A-Za-z]+/[0-9a-fA-F][0-9a-fA-F\-]{7,})
      | (?P<uuid>[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})
      | '(?P<sq>[^']*)' | "(?P<dq>[^"]*)"
      | (?P<op>>=|<=|!=|<>|==|=|>|<)
      | (?P<ident>[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+)
      | (?P<code>(?<![\w.])-?\d+(?:[-.]\d+)*[A-Za-z]?)
      | (?P<word>[A-Za-z][A-Za-z0-9']*(?:-[a-z]+|-[A-Z]+(?=-\d)|-\d+(?![\d.\-]))*(?:\.\d+)?)
      | (?P<hash>\#)
    """,
    re.VERBOSE,
)


@dataclass
class Tok:
    """One token: its text, kind (syscode, ref, uuid, str, op, ident, code, word) and use."""

    text: str
    kind: str
    used: bool = False
    role: str = ""
    gap: str = ""  # the text between the previous token and this one (',' '/' ' or ')


def tokenize(question: str) -> list[Tok]:
    """The question's tokens (punctuation other than operators and quotes is dropped)."""
    out: list[Tok] = []
    end = 0
    for m in _TOKEN.finditer(question):
        kind = m.lastgroup or "word"
        text = m.group(kind)
        if kind in {"sq", "dq"}:
            kind = "str"
        elif kind == "hash":
            kind, text = "word", "#"
        out.append(Tok(text, kind, gap=question[end : m.start()]))
        end = m.end()
    return out


# FHIR element names (of the resources the adapter flattens) → the field role they play
FIELD_ROLES: dict[str, str] = {
    "valuequantity.value": "value",
    "valuequantity": "value",
    "value_num": "value",
    "effectivedatetime": "time",
    "onsetdatetime": "time",
    "authoredon": "time",
    "authored_on": "time",  # the flattened MedicationRequest.authoredOn
    "occurrencedatetime": "time",
    "recordeddate": "time",
    "performeddatetime": "time",
    "code": "code",
    "vaccinecode": "code",
    # FHIR search parameters (kebab-case)
    "vaccine-code": "code",
    "value-quantity": "value",
    "onset-date": "time",
    "effective": "time",
    "medicationcodeableconcept": "code",
    "class": "enc_type",
    "class_code": "enc_type",
    "gender": "sex",
    "subject": "patient",
    "patient": "patient",
    "patient_id": "patient",
    "person_id": "patient",
}

# code system names → a fragment of their FHIR system URI (and the OMOP vocabulary_id, lower)
SYSTEMS: dict[str, tuple[str, str]] = {
    "loinc": ("loinc.org", "loinc"),
    "snomed": ("snomed", "snomed"),
    "sct": ("snomed", "snomed"),
    "rxnorm": ("rxnorm", "rxnorm"),
    "cvx": ("cvx", "cvx"),
    "icd10": ("icd-10", "icd10cm"),
    "icd10cm": ("icd-10", "icd10cm"),
    "icd9": ("icd-9", "icd9cm"),
    "icd9cm": ("icd-9", "icd9cm"),
    "ndc": ("ndc", "ndc"),
    "cpt": ("cpt", "cpt4"),
    "cpt4": ("cpt", "cpt4"),
}


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def table_streams(catalog: Catalog, word: str) -> list[EventStream]:
    """The streams stored in the table named ``word`` (any case), or named ``word``."""
    w = word.lower()
    return [s for s in catalog.streams if s.table.lower() == w or s.name.lower() == w]


def resource_streams(catalog: Catalog, word: str) -> list[EventStream] | None:
    """For a FHIR resource type (CamelCase, as written): the streams its rows are in — the
    table ``<prefix>_<snake>`` or any stream whose description names the resource. None when
    ``word`` is not a resource type of this catalog."""
    if not word[:1].isupper() or not any(ch.islower() for ch in word) or catalog.adapter != "fhir":
        return None
    snake = _snake(word)
    hits = [s for s in catalog.streams if s.table.lower().endswith("_" + snake)]
    if not hits:
        pat = re.compile(rf"\b{re.escape(word)}\b")
        for s in catalog.streams:
            info = catalog.table(s.table)
            text = f"{s.description} {info.description if info else ''}"
            if pat.search(text):
                hits.append(s)
    if hits:
        return hits
    if catalog.table(f"fhir_{snake}") is not None:
        return []  # a table of this resource, but no event stream: named, not groundable
    return None


def field_role(catalog: Catalog, stream: EventStream | None, name: str) -> str | None:
    """The role of a field named in the question: ``code`` (the concept column), ``value``,
    ``time``, ``days_supply``, ``quantity``, ``source`` (source value), ``patient``, ``sex``,
    ``enc_type``; ``other`` for a column of the catalog the plan cannot use; None when no table
    of the catalog has such a column."""
    n = name.lower()
    if n.endswith("_ids"):
        n = n[:-1]
    last = n.split(".")[-1]
    if stream is not None:
        for col, role in _stream_roles(stream):
            if col and col.lower() in {n, last}:
                return role
    pt, enc = catalog.patients, catalog.encounters
    if pt is not None and (pt.id_column.lower() == n or n in {"person_id", "patient_id"}):
        return "patient"
    if pt is not None and pt.sex_column and pt.sex_column.lower() in {n, last}:
        return "sex"
    if enc is not None and enc.type_column and enc.type_column.lower() in {n, last}:
        return "enc_type"
    for key in (n, last, n.split(".", 1)[-1]):
        if key in FIELD_ROLES:
            return FIELD_ROLES[key]
    for s in catalog.streams:  # a column of a stream not named yet: its role there
        for col, role in _stream_roles(s):
            if col and col.lower() == n:
                return role
    snake = _snake(name.split(".")[-1])
    if any(c.name.lower() in {n, last, snake} for t in catalog.tables for c in t.columns):
        return "other"
    return None


def _stream_roles(s: EventStream) -> list[tuple[str | None, str]]:
    """A stream's columns with their roles, the concept column first (FHIR stores the code
    as its source value too)."""
    return [
        (s.code_column, "code"),
        (s.value_column, "value"),
        (s.time_column, "time"),
        (s.days_supply_column, "days_supply"),
        (s.quantity_column, "quantity"),
        (s.patient_column, "patient"),
        (s.source_value_column, "source"),
    ]


def _identifier(text: str) -> bool:
    """A schema identifier (``value_as_number``, ``Encounter.class``), not an abbreviation
    written with dots (``e.g``, ``i.e``)."""
    if "_" in text:
        return True
    parts = text.split(".")
    return len(parts[0]) >= 3 and all(len(p) >= 2 for p in parts[1:])


def looks_schema(toks: list[Tok], catalog: Catalog) -> bool:
    """True when the question names the schema: an underscored/dotted identifier, a FHIR
    resource type or reference, or a system|code pair."""
    for k, t in enumerate(toks):
        if t.kind in {"syscode", "ref"} or (t.kind == "ident" and _identifier(t.text)):
            return True
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        if nxt is not None and nxt.text.lower() in {"code", "codes"} and k + 2 < len(toks):
            nxt = toks[k + 2]  # 'SNOMED codes 283371005, …'
        if (
            t.text.lower() in set(SYSTEMS) | {"concept", "concept_id"}
            and nxt is not None
            and nxt.kind == "code"
        ):
            return True
        if (  # 'condition code 19169002': a code literal named as such
            t.text.lower() in {"code", "codes"}
            and nxt is not None
            and nxt.kind == "code"
            and len(nxt.text.replace("-", "").replace(".", "")) >= 4
        ):
            return True
        if (
            t.kind == "word"
            and resource_streams(catalog, t.text) is not None
            and (t.text not in {"Patient"} or catalog.adapter == "fhir")
        ):
            return True
    return False


# -- the structural words of a schema question (everything else is content) ----
FILLER = frozenset(
    [
        "how",
        "many",
        "number",
        "of",
        "the",
        "in",
        "with",
        "where",
        "for",
        "a",
        "an",
        "and",
        "is",
        "are",
        "have",
        "has",
        "had",
        "does",
        "do",
        "did",
        "there",
        "any",
        "in",
        "from",
        "that",
        "which",
        "what",
        "whose",
        "whom",
        "who",
        "table",
        "tables",
        "field",
        "column",
        "me",
        "give",
        "show",
        "all",
        "their",
        "its",
        "at",
        "least",
        "one",
        "to",
        "equal",
        "equals",
        "on",
        "by",
        "coded",
        "code",
        "codes",
        "having",
        "entry",
        "entries",
        "total",
        "each",
        "of",
        "set",
        "as",
        "be",
        "than",
        "person's",
        "patient's",
        "with",
    ]
)
# 'per' is not filler for grouping; it is handled before (a grouping aborts)
COUNT = {"count", "number", "#", "many"}
FILLER = FILLER | frozenset(
    [
        "ever",
        "recorded",
        "stored",
        "present",
        "exist",
        "exists",
        "existing",
        "got",
        "find",
        "get",
        "return",
        "retrieve",
        "select",
        "query",
        "please",
        "database",
        "data",
        "cdm",
        "omop",
        "fhir",
        "contain",
        "contains",
        "containing",
        "listed",
        "appear",
        "appears",
        "recent",
        "appearing",
        "belonging",
        "belong",
        "among",
        "pull",
        "joined",
        "join",
    ]
)
UNIT_ENCOUNTERS = {"visits", "visit", "encounters", "encounter", "admissions", "stays"}
UNIT_ROWS = {
    "row",
    "rows",
    "record",
    "records",
    "resource",
    "resources",
    "entries",
    "entry",
    "events",
    "event",
    "occurrences",
    "instances",
    "observations",
}
UNIT_PATIENTS = {
    "person",
    "persons",
    "patient",
    "patients",
    "people",
    "subjects",
    "individuals",
    "person_id",
    "patient_id",
    "ids",
    "id",
    "person_ids",
    "patient_ids",
}
AGG = {
    "mean": "mean",
    "average": "mean",
    "avg": "mean",
    "median": "median",
    "max": "max",
    "maximum": "max",
    "highest": "max",
    "largest": "max",
    "min": "min",
    "minimum": "min",
    "lowest": "min",
    "smallest": "min",
    "sum": "sum",
    "earliest": "first",
    "first": "first",
    "latest": "last",
    "last": "last",
    "most": "last",
}
SEX_WORDS = {"female": "female", "women": "female", "male": "male", "men": "male"}
LIST = {"list", "which", "show", "enumerate"}
YESNO = {"does", "is", "are", "has", "have", "do", "was", "were", "did"}
OPWORDS = {
    ("greater", "than"): ">",
    ("more", "than"): ">",
    ("less", "than"): "<",
    ("fewer", "than"): "<",
    ("at", "least"): ">=",
    ("at", "most"): "<=",
    ("or", "more"): ">=",
    ("or", "higher"): ">=",
    ("or", "less"): "<=",
    ("or", "lower"): "<=",
    ("or", "above"): ">=",
    ("or", "below"): "<=",
}
OP1 = {"over": ">", "above": ">", "exceeding": ">", "under": "<", "below": "<"}
BLOCK = {
    "not",
    "no",
    "without",
    "never",
    "except",
    "excluding",
    "null",
    "per",
    "group",
    "grouped",
    "or",
    "ratio",
    "percent",
    "percentage",
    "proportion",
    "before",
    "after",
    "during",
    "since",
    "between_dates",
    "year",
    "years",
    "month",
    "months",
    "days",
}
