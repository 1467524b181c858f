"""Read a question that names the schema into a QueryPlan, or abstain naming what is not grounded.

The tokens of ``_schema_words`` get roles left to right: a table or FHIR resource sets the
stream (or the encounter / patient table); a field sets what the next literal binds to (the
concept column, the value, the encounter type, the sex, the patient id); an operator or its
words ("greater than", "between … and …") binds to the value field; aggregate and unit words
("count", "distinct person_id", "rows", "mean", "earliest", "list", "does …") set the measure.
Literal codes are grounded exactly (no descendants) through the source's own events (the
lexicon) and, for a vocabulary code, through its vocabulary table; a code with no rows, a field
the plan cannot express, or any content word left over makes the reading an abstention that
names it. The plan then takes the ordinary road: compile, guard, validate.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from clinbridge.catalog import Catalog, EventStream
from clinbridge.engine.plan import (
    AgeFilter,
    Aggregate,
    ConceptRef,
    ConceptSet,
    EncounterFilter,
    EventFilter,
    Measure,
    PatientAnchor,
    QueryPlan,
    SexFilter,
    ValueFilter,
)
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._schema_words import (
    FIELD_ROLES,
    SYSTEMS,
    Tok,
    field_role,
    looks_schema,
    resource_streams,
    table_streams,
    tokenize,
)

__all__ = ["Lookup", "read_schema"]

Lookup = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]
"""Runs one read-only statement with parameters on the source (vocabulary look-ups)."""

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


class _Abstain(Exception):
    """Not read. ``final``: a schema word is not grounded (the answer is an abstention);
    otherwise a construct this reader does not express, left to the general reader."""

    def __init__(self, reason: str, phrase: str, *, final: bool = True) -> None:
        super().__init__(reason)
        self.reason, self.phrase, self.final = reason, phrase, final


class _State:
    def __init__(self) -> None:
        self.streams: list[EventStream] | None = None
        self.table_word = ""
        self.target = ""  # "" | "encounters" | "patients"
        self.codes: list[tuple[str, str, str]] = []  # (text, system hint, via field)
        self.value: ValueFilter | None = None
        self.measure_field = ""  # value | time | days_supply | quantity
        self.enc_code: str | None = None
        self.sex_code: str | None = None
        self.sex_word: str | None = None
        self.patient: str | None = None
        self.agg = ""
        self.unit = ""
        self.listing = False
        self.yesno = False
        self.groundings: list[Grounding] = []
        self.unbound: list[str] = []  # fields named that no literal was bound to yet


def read_schema(
    question: str,
    lex: Lexicon,
    catalog: Catalog | None,
    lookup: Lookup | None,
    *,
    patient_id: str | None = None,
    now: dt.datetime | None = None,
) -> Reading | None:
    """The reading of a schema-naming question; None when the question names no schema."""
    if catalog is None:
        return None
    toks = tokenize(question)
    if not looks_schema(toks, catalog):
        return None
    try:
        plan, st = _read(toks, lex, catalog, lookup, patient_id, now, question)
    except _Abstain as exc:
        if not exc.final:
            return None
        return Reading(
            question=question,
            abstain_reason=f"cannot answer: {exc.reason}",
            unresolved=(exc.phrase,),
        )
    return Reading(
        question=question,
        plan=plan,
        confidence=0.9,
        groundings=tuple(st.groundings),
        notes=("read by the schema reader (tables, fields and codes named in the question)",),
    )


def _read(
    toks: list[Tok],
    lex: Lexicon,
    cat: Catalog,
    lookup: Lookup | None,
    patient_id: str | None,
    now: dt.datetime | None,
    question: str,
) -> tuple[QueryPlan, _State]:
    st = _State()
    st.patient = patient_id
    pending = ""  # the role the next literal binds to
    op = ""
    words = [t.text.lower() for t in toks]
    st.yesno = bool(words) and words[0] in YESNO
    k = 0
    while k < len(toks):
        t, w = toks[k], words[k]
        nxt = words[k + 1] if k + 1 < len(toks) else ""
        if t.kind == "op":
            op = {"==": "=", "<>": "!=", "=": "="}.get(t.text, t.text)
            if op == "!=":
                raise _Abstain("a 'not equal' condition is not supported here", t.text)
            t.used = True
        elif (w, nxt) in OPWORDS and pending in {"value", ""}:
            op = OPWORDS[(w, nxt)]
            if w == "or":  # postfix: applies to the value just read
                st.value = _postfix(st.value, op, t.text)
                op = ""
            toks[k + 1].used = True
            t.used = True
            k += 1
        elif w in OP1 and pending == "value":
            op, t.used = OP1[w], True
        elif w == "between" and pending == "value":
            lo, hi = _between(toks, k)
            if st.value is not None:
                raise _Abstain("two value conditions", "between")
            if st.unbound:
                st.unbound.pop()
            st.value = ValueFilter(op="between", value=lo, value2=hi)
            st.groundings.append(
                Grounding(
                    phrase=f"between {lo:g} and {hi:g}",
                    kind="value",
                    target=f"between {lo:g} and {hi:g}",
                )
            )
            pending, k = "", k + 4
            continue
        elif w in {"is", "equal", "equals"} and pending and pending != "value":
            t.used = True
        elif (
            pending in {"enc_type", "sex", "code"}
            and t.kind == "word"
            and w not in FILLER
            and w not in YESNO
        ):
            pending, op = _literal(t, pending, op, st, lex, cat, lookup), ""
        elif nxt == "table" and t.kind == "word" and w not in FILLER:
            if not _set_table(st, cat, t.text):
                raise _Abstain(f"table {t.text!r} is not in this source", t.text)
            t.used = True
        elif w in SYSTEMS:
            st.codes.append(("", w, "system"))
            pending, t.used = "system:" + w, True
        elif t.kind in {"syscode", "uuid", "ref", "code", "str"}:
            pending, op = _literal(t, pending, op, st, lex, cat, lookup), ""
        elif t.kind == "ident" or (
            t.kind == "word"
            and (
                "_" in w
                or _is_name(cat, t.text)
                or _camel(t.text)
                or (w in FIELD_ROLES and w not in UNIT_PATIENTS)
            )
        ):
            pending = _name(t, toks, k, st, cat, pending)
        elif w in COUNT or (w == "how" and nxt == "many"):
            st.agg = st.agg or "count"
            t.used = True
        elif w in {"distinct", "unique"}:
            t.used = True
        elif w in UNIT_ROWS:
            st.unit = st.unit or "rows"
            t.used = True
        elif w in UNIT_PATIENTS:
            if (
                w in {"person", "patient"}
                and k + 1 < len(toks)
                and toks[k + 1].kind in {"code", "uuid", "ref"}
            ):
                pending = "patient"
            else:
                st.unit = st.unit or "patients"
            t.used = True
        elif w in AGG and not st.agg:
            st.agg = AGG[w]
            t.used = True
        elif w in LIST:
            st.listing = True
            t.used = True
        elif w == "concept" or w == "concepts":
            pending, t.used = pending or "code", True
        elif w in SEX_WORDS:
            if st.sex_code is not None:
                raise _Abstain("two sexes named", t.text)
            st.sex_word, t.used = SEX_WORDS[w], True
        elif w in {"value", "values", "result", "results"}:
            if k > 0 and toks[k - 1].kind == "ident":  # 'the person_id values': the field's
                pass
            elif st.agg in AGG.values() and not st.measure_field:
                st.measure_field = "value"
            elif st.agg not in AGG.values():
                pending = "value"
                st.unbound.append(t.text)
            t.used = True
        elif (
            t.kind == "word"
            and w not in FILLER
            and field_role(cat, None, w) in {"days_supply", "quantity", "other"}
        ):
            pending = _name(t, toks, k, st, cat, pending)  # a column named by a plain word
        elif w in FILLER or w in YESNO:
            t.used = True
        elif w in BLOCK:
            raise _Abstain(f"{t.text!r} (not expressed by the schema reader)", t.text, final=False)
        k += 1
    if st.unbound:
        raise _Abstain(f"no value is given for {st.unbound[0]!r}", st.unbound[0])
    left = [t.text for t in toks if not t.used]
    if left:
        raise _Abstain(
            f"{' '.join(left)!r} is not grounded in the schema", " ".join(left), final=False
        )
    return _plan(st, lex, cat, question, now), st


def _camel(word: str) -> bool:
    return word[:1].islower() and any(ch.isupper() for ch in word[1:])


def _is_name(cat: Catalog, word: str) -> bool:
    return bool(table_streams(cat, word)) or resource_streams(cat, word) is not None


def _postfix(v: ValueFilter | None, op: str, text: str) -> ValueFilter:
    if v is None or v.op != "=":
        raise _Abstain(f"{text!r} has no value to apply to", text)
    return ValueFilter(op=op, value=v.value)  # type: ignore[arg-type]


def _between(toks: list[Tok], k: int) -> tuple[float, float]:
    try:
        a, conj, b = toks[k + 1], toks[k + 2], toks[k + 3]
        if conj.text.lower() != "and":
            raise ValueError
        lo, hi = float(a.text), float(b.text)
    except (IndexError, ValueError):
        raise _Abstain("'between' needs two numbers", "between") from None
    for t in toks[k : k + 4]:
        t.used = True
    return lo, hi


def _name(t: Tok, toks: list[Tok], k: int, st: _State, cat: Catalog, pending: str) -> str:
    """A table/resource or a field: set the stream or what the next literal binds to."""
    text = t.text
    head, _, rest = text.partition(".")
    for name in (text, head) if rest else (text,):
        if _set_table(st, cat, name):
            t.used = True
            if not rest:
                return pending
            text = rest
            break
    stream = st.streams[0] if st.streams and len(st.streams) == 1 else None
    role = field_role(cat, stream, text)
    if role is None:
        raise _Abstain(f"{text!r} is not a table or field of this source", text)
    if role in {"other", "source"}:
        raise _Abstain(f"field {text!r} (the plan cannot filter on it)", text)
    t.used = True
    if role == "patient":
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        if nxt is not None and (nxt.kind in {"code", "uuid", "ref"} or nxt.kind == "op"):
            return "patient"
        st.unit = st.unit or "patients"
        return pending
    if role in {"time", "days_supply", "quantity"} or (role == "value" and st.agg in AGG.values()):
        st.measure_field = role
        return "value" if role == "value" else ""
    st.unbound.append(t.text)
    return role  # code | value | enc_type | sex


def _set_table(st: _State, cat: Catalog, name: str) -> bool:
    streams = table_streams(cat, name)
    enc, pt = cat.encounters, cat.patients
    low = name.lower()
    snake = "fhir_" + low
    if (
        enc is not None
        and low
        in {enc.table.lower(), enc.label.lower()}
        | ({"encounter"} if cat.adapter == "fhir" else set())
        and (name[:1].isupper() or "_" in name or enc.table.lower() == low or snake == enc.table)
    ):
        st.target, st.table_word = "encounters", name
        return True
    if pt is not None and (
        low == pt.table.lower()
        or (pt.death_table and low == pt.death_table.lower())
        or (cat.adapter == "fhir" and name == "Patient")
    ):
        st.target, st.table_word = (
            ("death" if low == (pt.death_table or "").lower() else "patients"),
            name,
        )
        return True
    res = resource_streams(cat, name) if name[:1].isupper() else None
    if res is not None:
        streams = res
    if not streams:
        res = resource_streams(cat, name)
        if res is None:
            return False
        if not res:
            raise _Abstain(f"{name!r} resources are not an event stream of this source", name)
        streams = res
    if st.streams is not None and {s.name for s in st.streams} != {s.name for s in streams}:
        raise _Abstain(f"two tables named ({st.table_word!r}, {name!r})", name)
    st.streams, st.table_word = streams, name
    return True


def _literal(
    t: Tok, pending: str, op: str, st: _State, lex: Lexicon, cat: Catalog, lookup: Lookup | None
) -> str:
    t.used = True
    if pending and pending != "patient" and st.unbound:
        st.unbound.pop()
    if pending == "patient" or t.kind in {"uuid", "ref"}:
        pid = t.text.split("/")[-1]
        if st.patient is not None and st.patient != pid:
            raise _Abstain("two patients named", t.text)
        st.patient = pid
        st.groundings.append(Grounding(phrase=t.text, kind="patient", target=pid))
        return ""
    if pending == "value":
        if st.value is not None:
            raise _Abstain("two value conditions", t.text)
        try:
            v = float(t.text)
        except ValueError:
            raise _Abstain(f"{t.text!r} is not a number", t.text) from None
        st.value = ValueFilter(op=op or "=", value=v)  # type: ignore[arg-type]
        st.groundings.append(
            Grounding(
                phrase=f"{op or '='} {t.text}", kind="value", target=f"value {op or '='} {v:g}"
            )
        )
        return ""
    if pending == "enc_type":
        st.enc_code = t.text
        return ""
    if pending == "sex":
        if st.sex_code is not None or st.sex_word is not None:
            raise _Abstain("two sexes named", t.text)
        st.sex_code = t.text
        return ""
    if op and op != "=":
        raise _Abstain(f"{op} {t.text} is not bound to a numeric field", t.text)
    system = pending.split(":", 1)[1] if pending.startswith("system:") else ""
    if not system:  # 'RxNorm code 140587': the system word waits for its code
        system = next((c[1] for c in st.codes if not c[0]), "")
    if t.kind == "syscode":
        system_uri, code = t.text.split("|", 1)
        st.codes.append((code, system_uri, "system|code"))
    else:
        st.codes = [c for c in st.codes if c[0]]  # the system word waits for its code
        st.codes.append((t.text, system, pending or "literal"))
    return ""


def _entries(
    lex: Lexicon, code: str, system: str, st: _State, cat: Catalog, lookup: Lookup | None
) -> list[int]:
    """Indexes of lexicon entries that carry the literal code, in the named streams."""
    names = {s.name for s in st.streams} if st.streams else None
    omop_ids: set[str] = set()
    if system and cat.adapter != "fhir" and lookup is not None:
        vocab = SYSTEMS.get(system.lower(), ("", system.lower()))[1]
        d = next((d for d in cat.dictionaries if d.system_column and d.source_code_column), None)
        if d is not None:
            rows = lookup(
                f'SELECT "{d.code_column}" FROM "{d.table}" WHERE "{d.source_code_column}" = ? '
                f'AND lower("{d.system_column}") = ?',
                (code, vocab),
            )
            omop_ids = {str(r[0]) for r in rows}
    out = []
    for i, e in enumerate(lex.entries):
        if not e.direct or (names is not None and e.stream_name not in names):
            continue
        if cat.adapter == "fhir":
            if str(e.code) != code:
                continue
            if system:
                frag = SYSTEMS.get(system.lower(), (system.lower(), ""))[0]
                if frag not in (e.system or "").lower():
                    continue
        elif system:
            if str(e.code) not in omop_ids:
                continue
        elif str(e.code) != code:
            continue
        out.append(i)
    return out


def _plan(
    st: _State, lex: Lexicon, cat: Catalog, question: str, now: dt.datetime | None
) -> QueryPlan:
    filters: list[Any] = []
    if st.sex_code is not None:
        pt = cat.patients
        sex = pt.sex_values.get(st.sex_code) if pt is not None else None
        if sex not in {"male", "female"}:
            raise _Abstain(f"sex code {st.sex_code!r} is not male or female here", st.sex_code)
        filters.append(SexFilter(sex=sex))  # type: ignore[arg-type]
        st.groundings.append(Grounding(phrase=st.sex_code, kind="sex", target=str(sex)))
    if st.sex_word is not None:
        if st.sex_code is not None or (cat.patients is None or not cat.patients.sex_column):
            raise _Abstain("the sex is named twice or not stored", st.sex_word)
        filters.append(SexFilter(sex=st.sex_word))  # type: ignore[arg-type]
        st.groundings.append(Grounding(phrase=st.sex_word, kind="sex", target=st.sex_word))
    enc_type = None
    if st.enc_code is not None:
        enc_type = _enc_type(cat, lex, st.enc_code)
        st.groundings.append(
            Grounding(phrase=st.enc_code, kind="encounter_type", target=str(enc_type))
        )
    concepts, stream = _concepts(st, lex, cat)
    if st.target == "death":
        if st.streams or st.codes or st.value is not None or st.measure_field:
            raise _Abstain("the death table together with another table", st.table_word)
        filters.append(AgeFilter(op=">=", value=0, at=PatientAnchor(point="death")))
        st.target = "patients"
    count_rows = st.unit == "rows" or (st.unit == "" and st.target == "encounters")
    of_patients = st.unit == "patients" or st.listing or st.target == "patients"
    agg = st.agg or ("count" if not st.yesno else "")
    if st.yesno:
        if st.patient is None or stream is None:
            raise _Abstain("a yes/no question needs one patient and one table", "does")
        measure = Measure(of="events", stream=stream, concepts=concepts, value=st.value)
        return _qp(question, st, filters, measure, Aggregate(op="exists"), now)
    if st.listing:
        if st.patient is not None or agg not in {"count", ""} or st.measure_field:
            raise _Abstain("only lists of patients are read here", "list")
        agg = "list"
    if agg in {"mean", "median", "max", "min", "sum"}:
        field = st.measure_field or "value"
        if stream is None or field == "time":
            raise _Abstain(f"{agg} needs a numeric field of one table", agg)
        of = {"value": "value", "days_supply": "days_supply", "quantity": "quantity"}[field]
        measure = Measure(of=of, stream=stream, concepts=concepts)  # type: ignore[arg-type]
        if st.value is not None:
            raise _Abstain("a value condition and a value summary together", agg)
        return _qp(question, st, filters, measure, Aggregate(op=agg), now)  # type: ignore[arg-type]
    if agg in {"first", "last"}:
        if stream is None or st.measure_field not in {"time", ""} or st.patient is None:
            raise _Abstain("an earliest/latest date needs one patient and one table", agg)
        measure = Measure(of="date", stream=stream, concepts=concepts, value=st.value)
        return _qp(question, st, filters, measure, Aggregate(op=agg), now)
    if agg not in {"count", "list"}:
        raise _Abstain("what is asked (count, value, date, list) is not clear", question)
    if st.target == "encounters" and stream is None and concepts is None:
        if enc_type is None and st.enc_code is None and not count_rows and not of_patients:
            raise _Abstain("what to count is not clear", question)
        if count_rows and not of_patients:
            if st.value is not None:
                raise _Abstain("a value condition on encounters", "value")
            m = Measure(of="encounters", encounter_type=enc_type)
            return _qp(question, st, filters, m, Aggregate(op="count"), now)
        filters.append(EncounterFilter(type=enc_type))
        return _qp(question, st, filters, Measure(of="patients"), Aggregate(op=agg), now)
    if enc_type is not None:
        raise _Abstain("an encounter type together with another table", st.enc_code or "")
    if stream is None:
        if st.target == "patients" and st.value is None:
            return _qp(question, st, filters, Measure(of="patients"), Aggregate(op=agg), now)
        raise _Abstain("no table or code to count in", question)
    if count_rows and not of_patients:
        m = Measure(of="events", stream=stream, concepts=concepts, value=st.value)
        return _qp(question, st, filters, m, Aggregate(op="count"), now)
    if not of_patients and st.unit == "" and st.target != "patients":
        raise _Abstain("rows or patients? the count unit is not named", question)
    if st.patient is not None:
        raise _Abstain("count of patients for one patient", st.patient)
    filters.append(EventFilter(stream=stream, concepts=concepts, value=st.value))
    return _qp(question, st, filters, Measure(of="patients"), Aggregate(op=agg), now)


def _qp(
    question: str,
    st: _State,
    filters: list[Any],
    measure: Measure,
    agg: Aggregate,
    now: dt.datetime | None,
) -> QueryPlan:
    return QueryPlan(
        question=question,
        patient_id=st.patient,
        filters=tuple(filters),
        measure=measure,
        aggregate=agg,
        now=now,
    )


def _concepts(st: _State, lex: Lexicon, cat: Catalog) -> tuple[ConceptSet | None, str | None]:
    """The literal codes as one exact concept set in one stream (or none)."""
    codes = [c for c in st.codes if c[0]]
    if any(not c[0] for c in st.codes):
        raise _Abstain("a code system is named without a code", st.codes[0][1])
    stream_names = [s.name for s in st.streams] if st.streams else []
    if not codes:
        if st.value is not None and len(stream_names) == 1:
            raise _Abstain("a value condition without a code", "value")
        return None, (stream_names[0] if len(stream_names) == 1 else None)
    if len(codes) > 1:
        raise _Abstain("several codes named (and / or between codes is not read here)", codes[1][0])
    found: list[int] = []
    for code, system, _via in codes:
        hits = _entries(lex, code, system, st, cat, lookup=_LOOKUP.get(id(lex)))
        if not hits:
            where = f" in {st.table_word}" if st.table_word else ""
            raise _Abstain(f"code {code!r} has no rows{where} in this source", code)
        found += hits
    streams = {lex.entries[i].stream_name for i in found}
    if len(streams) != 1:
        raise _Abstain(
            f"the codes are in several tables ({', '.join(sorted(streams))})", codes[0][0]
        )
    stream = streams.pop()
    seen: dict[Any, Any] = {}
    for i in found:
        seen.setdefault(lex.entries[i].code, lex.entries[i])
    refs = tuple(ConceptRef(concept_id=e.code, name=e.name) for e in seen.values())
    for code, system, _via in codes:
        st.groundings.append(
            Grounding(
                phrase=f"{system + ' ' if system else ''}{code}",
                kind="concept",
                target=f"{stream}: {'; '.join(e.name for e in seen.values())}",
                how="exact",
                codes=tuple(str(c) for c in seen),
            )
        )
    label = "; ".join(e.name for e in seen.values())
    return ConceptSet(concepts=refs, include_descendants=False, label=label), stream


_LOOKUP: dict[int, Lookup] = {}


def bind_lookup(lex: Lexicon, lookup: Lookup | None) -> None:
    """Remember the source's look-up for this lexicon (vocabulary codes → concept ids)."""
    if lookup is not None:
        _LOOKUP[id(lex)] = lookup


def _enc_type(cat: Catalog, lex: Lexicon, code: str) -> str:
    """The canonical encounter type of a stored type code, only when no other stored code
    maps to it (else the plan would count more than the code named)."""
    enc = cat.encounters
    if enc is None or not enc.type_map:
        raise _Abstain("this source has no encounter types", code)
    canon = enc.type_map.get(code) or enc.type_map.get(code.upper())
    if canon is None:
        raise _Abstain(f"encounter type {code!r} is not a type of this source", code)
    present = _ENC_CODES.get(id(lex))
    if present is None:
        raise _Abstain("the source's encounter type codes are not known", code)
    if code not in present and code.upper() not in present:
        raise _Abstain(f"encounter type {code!r} has no rows in this source", code)
    others = {c for c in present if enc.type_map.get(c) == canon and c not in {code, code.upper()}}
    if others:
        raise _Abstain(
            f"encounter type {code!r} shares its type ({canon}) with {', '.join(sorted(others))}",
            code,
        )
    return canon


_ENC_CODES: dict[int, set[str]] = {}


def bind_encounter_codes(lex: Lexicon, cat: Catalog, lookup: Lookup | None) -> None:
    """Read (once) the encounter type codes the source stores."""
    enc = cat.encounters
    if lookup is None or enc is None or not enc.type_column or id(lex) in _ENC_CODES:
        return
    rows = lookup(f'SELECT DISTINCT "{enc.type_column}" FROM "{enc.table}"', ())
    _ENC_CODES[id(lex)] = {str(r[0]) for r in rows if r[0] is not None}


def schema_lookup(db: Any, cat: Catalog, lex: Lexicon) -> None:
    """Bind the source's vocabulary look-up and encounter type codes to ``lex`` (read-only
    statements on the open database; a failure leaves them unbound, and codes then abstain)."""
    prefix = f'"{cat.schema_name}".' if cat.schema_name and db.backend != "sqlite" else ""
    mark = "%s" if db.backend == "postgres" else "?"

    def lookup(sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        sql = sql.replace('FROM "', f'FROM {prefix}"').replace("?", mark)
        return list(db.execute(sql, params, max_rows=None).rows)

    try:
        bind_lookup(lex, lookup)
        bind_encounter_codes(lex, cat, lookup)
    except Exception:  # a look-up that fails must not stop understanding
        _LOOKUP.pop(id(lex), None)
