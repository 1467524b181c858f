"""The plan side of the schema reader: literal codes grounded exactly, the measure and cohort
built from what ``_schema_read`` bound, and the source look-ups it needs (vocabulary codes →
concept ids, the encounter type codes the source stores).

A literal code is grounded through the source's own events (the lexicon) — a code with no rows
abstains — and, for a vocabulary code (``SNOMED 65363002``), through the vocabulary table first.
An encounter type code is used only when no other stored code maps to the same canonical type
(the plan filters by canonical type, so it would count more than the code named).
"""

from __future__ import annotations

import datetime as dt
import re
import weakref
from collections.abc import Callable
from typing import Any

from clinbridge.catalog import Catalog, EventStream
from clinbridge.engine.plan import (
    AgeFilter,
    Aggregate,
    CalendarWindow,
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
from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._schema_words import SYSTEMS
from clinbridge.errors import UnderstandingError

__all__ = ["Abstain", "Lookup", "State", "build_plan", "code_entries", "same_rows", "schema_lookup"]

Lookup = Callable[[str, tuple[Any, ...]], list[tuple[Any, ...]]]
"""Runs one read-only statement with parameters on the source (vocabulary look-ups)."""


class Abstain(UnderstandingError):
    """Not read. ``final``: a schema word is not grounded (the answer is an abstention);
    otherwise a construct this reader does not express, left to the general reader."""

    def __init__(self, reason: str, phrase: str, *, final: bool = True) -> None:
        super().__init__(reason)
        self.reason, self.phrase, self.final = reason, phrase, final


class State:
    def __init__(self) -> None:
        self.lex: Lexicon | None = None
        self.streams: list[EventStream] | None = None
        self.table_word = ""
        self.target = ""  # "" | "encounters" | "patients"
        self.codes: list[tuple[str, str, str]] = []  # (text, system hint, via field)
        self.or_codes = False  # the codes are one list, any of them ('207, 208 or 212')
        self.exact_names = False  # the named concepts are exactly those (no descendants)
        self.value: ValueFilter | None = None
        self.measure_field = ""  # value | time | days_supply | quantity
        self.enc_code: str | None = None
        self.sex_code: str | None = None
        self.sex_word: str | None = None
        self.patient: str | None = None
        self.agg = ""
        self.unit = ""
        self.listing = False
        self.count_word = False
        self.show = False
        self.death = False
        self.yesno = False
        self.groundings: list[Grounding] = []
        self.year: int | None = None
        self.min_count = 1  # 'at least N rows' per patient
        self.matches: list[tuple[str, tuple[str, ...]]] = []  # "status = 'active'": stored values
        self.fields: list[str] = []  # stream fields named (checked against the stream read)
        self.date_from: dt.date | None = None
        self.date_to: dt.date | None = None
        self.unbound: list[str] = []
        self.names: list[
            tuple[str, list[int]]
        ] = []  # concept names: (phrase, entries)  # fields named that no literal was bound to yet


def _vocab_ids(cat: Catalog, lookup: Lookup | None, code: str, system: str) -> set[str]:
    """Concept ids of a vocabulary code (in the vocabulary named, or in any when none is)."""
    d = next((d for d in cat.dictionaries if d.system_column and d.source_code_column), None)
    if d is None or lookup is None:
        return set()
    sql = f'SELECT "{d.code_column}" FROM "{d.table}" WHERE "{d.source_code_column}" = ?'
    params: tuple[Any, ...] = (code,)
    if system:
        name = system.lower()
        if "://" in name:  # a FHIR system URI names its vocabulary ('http://snomed.info/sct')
            name = next((k for k, (frag, _) in SYSTEMS.items() if frag in name), name)
        sql += f' AND lower("{d.system_column}") = ?'
        params = (code, SYSTEMS.get(name, ("", name))[1])
    return {str(r[0]) for r in lookup(sql, params)}


def _entries(
    lex: Lexicon,
    code: str,
    system: str,
    st: State,
    cat: Catalog,
    lookup: Lookup | None,
    via: str = "",
) -> list[int]:
    """Indexes of lexicon entries that carry the literal code, in the named streams. On OMOP a
    bare number not bound to a concept id field may be an id or a vocabulary code: when it is
    both (of different concepts with rows) the reading abstains."""
    names = {s.name for s in st.streams} if st.streams else None
    omop_ids: set[str] = set()
    if cat.adapter != "fhir" and (system or via != "code_id"):
        omop_ids = _vocab_ids(cat, lookup, code, system)
    if cat.adapter != "fhir" and not system and via != "code_id" and omop_ids:
        as_code = [
            i
            for i, e in enumerate(lex.entries)
            if str(e.code) in omop_ids and e.direct and (names is None or e.stream_name in names)
        ]
        as_id = [
            i
            for i, e in enumerate(lex.entries)
            if str(e.code) == code and e.direct and (names is None or e.stream_name in names)
        ]
        if as_code and as_id and set(as_code) != set(as_id):
            raise Abstain(f"{code} is both a concept id and a vocabulary code here", code)
        return as_code or as_id
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


def build_plan(
    st: State, lex: Lexicon, cat: Catalog, question: str, now: dt.datetime | None
) -> QueryPlan:
    filters: list[Any] = []
    if st.sex_code is not None:
        pt = cat.patients
        sex = pt.sex_values.get(st.sex_code) if pt is not None else None
        if sex not in {"male", "female"}:
            raise Abstain(f"sex code {st.sex_code!r} is not male or female here", st.sex_code)
        filters.append(SexFilter(sex=sex))  # type: ignore[arg-type]
        st.groundings.append(Grounding(phrase=st.sex_code, kind="sex", target=str(sex)))
    if st.sex_word is not None and filters and filters[-1] == SexFilter(sex=st.sex_word):
        st.sex_word = None  # 'women (gender_concept_id 8532)': the word and its code agree
    if st.sex_word is not None:
        if st.sex_code is not None or (cat.patients is None or not cat.patients.sex_column):
            raise Abstain("the sex is named twice or not stored", st.sex_word)
        filters.append(SexFilter(sex=st.sex_word))  # type: ignore[arg-type]
        st.groundings.append(Grounding(phrase=st.sex_word, kind="sex", target=st.sex_word))
    enc_type = None
    if st.enc_code is not None:
        enc_type = _enc_type(cat, lex, st.enc_code)
        st.groundings.append(
            Grounding(phrase=st.enc_code, kind="encounter_type", target=str(enc_type))
        )
    concepts, stream = _concepts(st, lex, cat)
    _fields_of(st, cat, stream)
    if st.target == "death":
        if st.streams or st.codes or st.value is not None or st.measure_field:
            raise Abstain("the death table together with another table", st.table_word)
        if not lex.deaths:
            raise Abstain("the death table has no rows in this source", st.table_word)
        filters.insert(0, AgeFilter(op=">=", value=0, at=PatientAnchor(point="death")))
        st.target, st.death = "patients", True
    if st.unit == "encounters":
        if st.target != "encounters" or st.streams:
            raise Abstain("visits counted in another table", "visits", final=False)
        st.unit = "rows"
    count_rows = st.unit == "rows" or (st.unit == "" and st.target == "encounters")
    of_patients = st.unit == "patients" or st.listing or st.target == "patients"
    agg = st.agg or ("count" if not st.yesno else "")
    if st.yesno:
        if stream is None and st.death and st.patient is not None and not filters[1:]:
            # 'does person 7 appear in the death table'
            return _qp(question, st, filters, Measure(of="patients"), Aggregate(op="exists"), now)
        if stream is None:
            raise Abstain("a yes/no question needs one table or code", "does")
        measure = Measure(
            of="events", stream=stream, concepts=concepts, value=st.value, matches=tuple(st.matches)
        )
        return _qp(question, st, filters, measure, Aggregate(op="exists"), now)
    if st.show and not st.count_word and not st.agg:
        st.listing = True
    if st.listing and st.count_word:
        raise Abstain("a list and a count asked together", "list")
    if st.listing:
        if st.patient is not None or agg not in {"count", ""} or st.measure_field:
            raise Abstain("only lists of patients are read here", "list")
        agg = "list"
    if (
        agg in {"max", "min"}
        and st.measure_field == "time"
        and stream is not None
        and not _VALUE_NAMED.search(question)
    ):
        # 'max(condition_start_date) over X rows': the latest date, of one patient or of all
        # (not 'value_num of the row with the minimum effective_time': a value is asked)
        measure = Measure(of="date", stream=stream, concepts=concepts, value=st.value)
        op = "first" if agg == "min" else "last"
        return _qp(question, st, filters, measure, Aggregate(op=op), now)
    if agg in {"mean", "median", "max", "min", "sum"}:
        field = st.measure_field or "value"
        if stream is None or field == "time":
            raise Abstain(f"{agg} needs a numeric field of one table", agg)
        of = {"value": "value", "days_supply": "days_supply", "quantity": "quantity"}[field]
        measure = Measure(of=of, stream=stream, concepts=concepts)  # type: ignore[arg-type]
        if st.value is not None:
            raise Abstain("a value condition and a value summary together", agg)
        return _qp(question, st, filters, measure, Aggregate(op=agg), now)  # type: ignore[arg-type]
    if agg in {"first", "last"} and st.measure_field == "value" and st.value is None:
        if stream is None or st.patient is None or concepts is None:  # one patient's last value
            raise Abstain("an earliest/latest value needs one patient and one concept", agg)
        measure = Measure(of="value", stream=stream, concepts=concepts)
        return _qp(question, st, filters, measure, Aggregate(op=agg), now)
    if agg in {"first", "last"}:
        if stream is None or st.measure_field not in {"time", ""} or st.patient is None:
            raise Abstain("an earliest/latest date needs one patient and one table", agg)
        measure = Measure(of="date", stream=stream, concepts=concepts, value=st.value)
        return _qp(question, st, filters, measure, Aggregate(op=agg), now)
    if agg not in {"count", "list"}:
        raise Abstain("what is asked (count, value, date, list) is not clear", question)
    if st.target == "encounters" and stream is None and concepts is None:
        if enc_type is None and st.enc_code is None and not count_rows and not of_patients:
            raise Abstain("what to count is not clear", question)
        if count_rows and not of_patients:
            if st.value is not None:
                raise Abstain("a value condition on encounters", "value")
            m = Measure(of="encounters", encounter_type=enc_type)
            return _qp(question, st, filters, m, Aggregate(op="count"), now)
        filters.append(EncounterFilter(type=enc_type))
        return _qp(question, st, filters, Measure(of="patients"), Aggregate(op=agg), now)
    if enc_type is not None:
        raise Abstain("an encounter type together with another table", st.enc_code or "")
    if st.target == "encounters":
        raise Abstain(f"encounters together with {stream or 'another table'}", st.table_word)
    if stream is None:
        if st.target == "patients" and st.value is None:
            return _qp(question, st, filters, Measure(of="patients"), Aggregate(op=agg), now)
        raise Abstain("no table or code to count in", question)
    if count_rows and not of_patients:
        m = Measure(
            of="events", stream=stream, concepts=concepts, value=st.value, matches=tuple(st.matches)
        )
        return _qp(question, st, filters, m, Aggregate(op="count"), now)
    if not of_patients and st.unit == "" and st.target != "patients":
        raise Abstain("rows or patients? the count unit is not named", question)
    if st.patient is not None:
        raise Abstain("count of patients for one patient", st.patient)
    filters.append(
        EventFilter(
            stream=stream,
            concepts=concepts,
            value=st.value,
            min_count=st.min_count,
            matches=tuple(st.matches),
        )
    )
    return _qp(question, st, filters, Measure(of="patients"), Aggregate(op=agg), now)


def _fields_of(st: State, cat: Catalog, stream: str | None) -> None:
    """Every column named must be a column of the stream read (``condition_start_date`` is not
    a field of drug_exposure); FHIR element names are the adapter's, not columns."""
    from clinbridge.engine.understand._schema_words import FIELD_ROLES

    named = [f for f in st.fields if "_" in f and f.lower() not in FIELD_ROLES]
    if not named:
        return
    if stream is None:
        raise Abstain(f"{named[0]!r} names no table read here", named[0])
    s = cat.stream(stream)
    info = cat.table(s.table)
    cols = {c.name.lower() for c in info.columns} if info is not None else set()
    cols |= {
        str(c).lower()
        for c in (
            s.code_column,
            s.value_column,
            s.time_column,
            s.days_supply_column,
            s.quantity_column,
            s.source_value_column,
            s.patient_column,
        )
        if c
    }
    for f in named:
        if f.lower().split(".")[-1] not in cols:
            raise Abstain(f"{f!r} is not a field of {s.table}", f)


def _qp(
    question: str,
    st: State,
    filters: list[Any],
    measure: Measure,
    agg: Aggregate,
    now: dt.datetime | None,
) -> QueryPlan:
    if st.min_count != 1 and not any(
        isinstance(f, EventFilter) and f.min_count == st.min_count for f in filters
    ):
        raise Abstain("a per-patient row count with this kind of question", "rows")
    if (
        st.matches
        and not measure.matches
        and not any(isinstance(f, EventFilter) and f.matches for f in filters)
    ):
        raise Abstain(
            f"field {st.matches[0][0]!r} (the plan cannot filter on it)", st.matches[0][0]
        )
    window = None
    if st.year is not None and (st.date_from or st.date_to):
        raise Abstain("a year and a date condition together", str(st.year), final=False)
    if st.year is not None:
        st.date_from, st.date_to = dt.date(st.year, 1, 1), dt.date(st.year, 12, 31)
    if st.date_from is not None or st.date_to is not None:
        window = CalendarWindow(start=st.date_from, end=st.date_to)
        events = [f for f in filters if isinstance(f, EventFilter)]
        visits = [f for f in filters if isinstance(f, EncounterFilter)]
        if measure.of in {"events", "encounters"} and agg.op == "count" and not events + visits:
            pass  # the window of the counted events or encounters
        elif measure.of == "patients" and not events and len(visits) == 1:
            filters = [
                f.model_copy(update={"window": window}) if f is visits[0] else f for f in filters
            ]
            window = None
        elif measure.of == "patients" and len(events) == 1 and events[0].window is None:
            filters = [
                f.model_copy(update={"window": window}) if f is events[0] else f for f in filters
            ]
            window = None
        else:
            raise Abstain("a date window with this kind of question", "date", final=False)
        st.groundings.append(
            Grounding(phrase="date window", kind="time", target=f"{st.date_from}..{st.date_to}")
        )
    return QueryPlan(
        window=window,
        question=question,
        patient_id=st.patient,
        filters=tuple(filters),
        measure=measure,
        aggregate=agg,
        now=now,
    )


def _named_exactly(lex: Lexicon, text: str, st: State) -> list[int]:
    """Entries whose name is ``text`` itself (a concept's name given where a code goes)."""
    if not text or text.replace("-", "").replace(".", "").isdigit():
        return []
    names = {s.name for s in st.streams} if st.streams else None
    want = text.strip().lower()
    return [
        i
        for i, e in enumerate(lex.entries)
        if e.direct and e.name.lower() == want and (names is None or e.stream_name in names)
    ]


def _concepts(st: State, lex: Lexicon, cat: Catalog) -> tuple[ConceptSet | None, str | None]:
    """The literal codes as one exact concept set in one stream (or none)."""
    codes = [c for c in st.codes if c[0]]
    if any(not c[0] for c in st.codes):
        raise Abstain("a code system is named without a code", st.codes[0][1])
    if len(st.names) > 1:
        raise Abstain("several concepts named", st.names[-1][0], final=False)
    if st.names and not codes:
        return _stored_values(st, lex, st.names[0][1], _named(st, lex))
    stream_names = [s.name for s in st.streams] if st.streams else []
    if not codes:
        if st.value is not None and len(stream_names) == 1:
            raise Abstain("a value condition without a code", "value")
        return None, (stream_names[0] if len(stream_names) == 1 else None)
    if len(codes) > 1 and not st.or_codes:
        # "'Plain chest X-ray' (SNOMED 399208008)": a name and a code of one concept are one
        # concept said twice, not two codes
        coded = [
            frozenset(_entries(lex, c, sy, st, cat, _LOOKUP.get(id(lex)), v)) for c, sy, v in codes
        ]
        each = [
            h or frozenset(_named_exactly(lex, c[0], st)) for h, c in zip(coded, codes, strict=True)
        ]
        if not each[0] or len(set(each)) != 1 or not any(coded):
            raise Abstain(
                "several codes named (and / or between codes is not read here)", codes[1][0]
            )
        codes = [next(c for h, c in zip(coded, codes, strict=True) if h)]
    found: list[int] = []
    for code, system, _via in codes:
        hits = _entries(lex, code, system, st, cat, _LOOKUP.get(id(lex)), _via)
        if not hits:
            where = f" in {st.table_word}" if st.table_word else ""
            raise Abstain(f"code {code!r} has no rows{where} in this source", code)
        found += hits
    streams = {lex.entries[i].stream_name for i in found}
    if len(streams) != 1:
        raise Abstain(
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
    for phrase, entries in st.names:  # 'concept 4112343 (acute viral pharyngitis)'
        if not {lex.entries[i].code for i in entries} & set(seen):
            raise Abstain(f"code {codes[0][0]} is not {phrase!r} in this source", phrase)
    label = "; ".join(e.name for e in seen.values())
    exact = ConceptSet(concepts=refs, include_descendants=False, label=label)
    return _stored_values(st, lex, found, (exact, stream))


def _stored_values(
    st: State, lex: Lexicon, entries: list[int], out: tuple[ConceptSet, str]
) -> tuple[ConceptSet, str]:
    """A value condition needs values: a concept whose values are never stored abstains
    (counting its rows above a threshold would answer 0 for data that is not there)."""
    if st.value is not None and not any(lex.entries[i].values for i in entries):
        raise Abstain(f"no numeric values are stored for {out[0].describe()!r}", "value")
    return out


def _named(st: State, lex: Lexicon) -> tuple[ConceptSet, str]:
    """A concept named in words: the concept set with its descendants, as the general
    reader grounds names, in the one stream its events are in."""
    phrase, entries = st.names[0]
    streams = {lex.entries[i].stream_name for i in entries}
    if len(streams) != 1:
        raise Abstain(
            f"{phrase!r} is in several tables ({', '.join(sorted(streams))})", phrase, final=False
        )
    stream = streams.pop()
    seen: dict[Any, Any] = {}
    for i in entries:
        seen.setdefault(lex.entries[i].code, lex.entries[i])
    refs = tuple(ConceptRef(concept_id=e.code, name=e.name) for e in seen.values())
    st.groundings.append(
        Grounding(
            phrase=phrase,
            kind="concept",
            how="exact",
            target=f"{stream}: {'; '.join(e.name for e in list(seen.values())[:5])}",
            codes=tuple(str(c) for c in seen)[:50],
        )
    )
    return ConceptSet(concepts=refs, label=phrase, include_descendants=not st.exact_names), stream


_LOOKUP: dict[int, Lookup] = {}
_VALUE_NAMED = re.compile(r"\bvalue|\bresult|valuequantity", re.I)


def bind_lookup(lex: Lexicon, lookup: Lookup | None) -> None:
    """Remember the source's look-up for this lexicon (vocabulary codes → concept ids)."""
    if lookup is not None:
        _LOOKUP[id(lex)] = lookup


def _enc_type(cat: Catalog, lex: Lexicon, code: str) -> str:
    """The canonical encounter type of a stored type code, only when no other stored code
    maps to it (else the plan would count more than the code named)."""
    enc = cat.encounters
    if enc is None or not enc.type_map:
        raise Abstain("this source has no encounter types", code)
    canon = enc.type_map.get(code) or enc.type_map.get(code.upper())
    if canon is None:
        raise Abstain(f"encounter type {code!r} is not a type of this source", code)
    present = _ENC_CODES.get(id(lex))
    if present is None:
        raise Abstain("the source's encounter type codes are not known", code)
    if code not in present and code.upper() not in present:
        raise Abstain(f"encounter type {code!r} has no rows in this source", code)
    others = {c for c in present if enc.type_map.get(c) == canon and c not in {code, code.upper()}}
    if others:
        raise Abstain(
            f"encounter type {code!r} shares its type ({canon}) with {', '.join(sorted(others))}",
            code,
        )
    return canon


_ENC_CODES: dict[int, set[str]] = {}


def bind_encounter_codes(lex: Lexicon, cat: Catalog, lookup: Lookup | None) -> None:
    """Read (once) the encounter type codes the source stores."""
    enc = cat.encounters
    _ENC_CODES.pop(id(lex), None)
    if lookup is None or enc is None or not enc.type_column:
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


_ROWS: weakref.WeakKeyDictionary[Any, dict[tuple[str, str], bool]] = weakref.WeakKeyDictionary()


def same_rows(lex: Lexicon, table_a: str, table_b: str) -> bool | None:
    """Whether two tables hold the same number of rows (a stream view that is exactly one
    resource's table); None when the source cannot be asked."""
    lookup = _LOOKUP.get(id(lex))
    if lookup is None:
        return None
    cache = _ROWS.setdefault(lookup, {})
    if (table_a, table_b) not in cache:
        try:
            a = lookup(f'SELECT count(*) FROM "{table_a}"', ())[0][0]
            b = lookup(f'SELECT count(*) FROM "{table_b}"', ())[0][0]
        except Exception:
            return None
        cache[(table_a, table_b)] = a == b
    return cache[(table_a, table_b)]


def code_entries(
    lex: Lexicon, code: str, system: str, st: State, cat: Catalog, via: str = ""
) -> list[int]:
    """The lexicon entries of one literal code (see ``_entries``), with this source's look-up."""
    return _entries(lex, code, system, st, cat, _LOOKUP.get(id(lex)), via)
