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
import re

from clinbridge.catalog import Catalog
from clinbridge.engine.plan import QueryPlan, ValueFilter
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._schema_asides import code_names, confirms, threshold_unit
from clinbridge.engine.understand._schema_lists import (
    CONTAINS,
    check_asides,
    code_list_joins,
    continue_code_list,
    label_contains,
    label_field,
)
from clinbridge.engine.understand._schema_plan import (
    Abstain,
    Lookup,
    State,
    build_plan,
    code_entries,
    same_rows,
    schema_lookup,
)
from clinbridge.engine.understand._schema_words import (
    AGG,
    BLOCK,
    COUNT,
    FIELD_ROLES,
    FILLER,
    LIST,
    OP1,
    OPWORDS,
    SEX_WORDS,
    SYSTEMS,
    UNIT_ENCOUNTERS,
    UNIT_PATIENTS,
    UNIT_ROWS,
    YESNO,
    Tok,
    _identifier,
    _snake,
    field_role,
    looks_schema,
    resource_streams,
    table_streams,
    tokenize,
)

__all__ = ["confirms", "read_schema", "schema_lookup"]


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
    text, unit = threshold_unit(question)
    text, named = code_names(text)
    toks = tokenize(text)
    if not looks_schema(toks, catalog):
        return None
    try:
        plan, st = _read(toks, lex, catalog, lookup, patient_id, now, question, (unit, named))
        if unit is not None and st.value is None:  # 'max … measurement (pg/mL)': the answer's
            if plan.measure.of != "value":
                raise Abstain(f"the unit {unit!r} goes with no value", unit, final=False)
            measure = plan.measure.model_copy(update={"unit": unit})
            plan = plan.model_copy(update={"measure": measure})
    except Abstain as exc:
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


def _kind_label(cat: Catalog, toks: list[Tok], k: int, st: State) -> bool:
    """A stream's kind before '(concept) name contains': the table the label is read in (it
    must agree with a table already named)."""
    words = [t.text.lower() for t in toks[k + 1 : k + 4]]
    if not (words[:2] == ["concept", "name"] and words[2:3] and words[2] in CONTAINS) and not (
        words[:1] and words[0] in {"name", "concept_name"} and words[1:2] and words[1] in CONTAINS
    ):
        return False
    kind = [s for s in cat.streams if s.kind == toks[k].text.lower()]
    if not kind:
        return False
    if st.streams is None:
        st.streams = kind
    return {s.name for s in st.streams} <= {s.name for s in kind}


def _read(
    toks: list[Tok],
    lex: Lexicon,
    cat: Catalog,
    lookup: Lookup | None,
    patient_id: str | None,
    now: dt.datetime | None,
    question: str,
    asides: tuple[str | None, list[tuple[str, str]]] = (None, []),
) -> tuple[QueryPlan, State]:
    st = State()
    st.lex = lex
    st.patient = patient_id
    pending = ""  # the role the next literal binds to
    op = ""
    words = [t.text.lower() for t in toks]
    st.yesno = bool(words) and words[0] in YESNO
    k = 0
    if words[:2] in (["yes", "no"], ["true", "false"]):  # 'yes/no: any fhir_allergy row for …'
        st.yesno = toks[0].used = toks[1].used = True
        k = 2
    while k < len(toks):
        t, w = toks[k], words[k]
        if t.role == "matched":  # the '= 'active'' of "status = 'active'", read with its field
            k += 1
            continue
        nxt = words[k + 1] if k + 1 < len(toks) else ""
        if (w, nxt) in {("yes", "no"), ("true", "false")}:  # '… for person_id 22 (yes/no)'
            st.yesno = t.used = toks[k + 1].used = True
            k += 2
            continue
        if (
            t.kind == "op"
            and t.text in {">=", ">", "≥"}
            and k + 2 < len(toks)
            and _count_of(words[k + 1]) is not None
            and (
                words[k + 2] in UNIT_ROWS
                or (
                    toks[k + 2].kind == "ident"
                    and words[k + 3 : k + 4]
                    and words[k + 3] in UNIT_ROWS
                )
            )
            and not pending
        ):  # 'having >= 20 procedure_occurrence rows': at least that many rows per patient
            n = _count_of(words[k + 1])
            assert n is not None
            if st.min_count != 1:
                raise Abstain("two row counts", t.text, final=False)
            st.min_count = n if t.text != ">" else n + 1
            t.used = toks[k + 1].used = True
            k += 2
            continue
        if t.kind == "op":
            op = {"==": "=", "<>": "!=", "=": "="}.get(t.text, t.text)
            if op == "!=":
                raise Abstain("a 'not equal' condition is not supported here", t.text)
            t.used = True
        elif w == "or" and k and code_list_joins(toks, k, st):
            t.used = True  # 'CVX 207, 208 or 212': one more code of the list
        elif (w, nxt) == ("at", "least") and k + 2 < len(toks) and words[k + 2] in {"one", "1"}:
            for t2 in toks[k : k + 3]:  # 'at least one row': any
                t2.used = True
            k += 3
            continue
        elif (
            (w, nxt) in {("at", "least"), ("more", "than")}
            and k + 3 < len(toks)
            and _count_of(words[k + 2]) is not None
            and (
                words[k + 3] in UNIT_ROWS
                or toks[k + 3].kind == "ident"
                or _is_name(cat, toks[k + 3].text)
            )
        ):  # 'at least 2 rows', 'more than one condition_occurrence record': per patient
            n = _count_of(words[k + 2])
            assert n is not None
            if st.min_count != 1:
                raise Abstain("two row counts", t.text, final=False)
            st.min_count = n + 1 if w == "more" else n
            for t2 in toks[k : k + 3]:
                t2.used = True
            k += 3
            continue
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
        elif w == "between" and pending == "time":
            lo_d, hi_d = _dates_between(toks, k)
            _window(st, lo_d, hi_d, "between")
            pending, k = "", k + 4
            continue
        elif w == "between" and pending == "value":
            lo, hi = _between(toks, k)
            if st.value is not None:
                raise Abstain("two value conditions", "between")
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
        elif (w in {"is", "equal", "equals"} and pending and pending != "value") or (
            w in {"code", "codes"} and pending == "enc_type"  # 'class code HH': one field
        ):
            t.used = True
        elif (
            pending.startswith("system:")
            and t.kind in {"word", "ident"}
            and any(ch.isdigit() for ch in w)
        ):  # 'ICD10 J02.9': a code with letters after its system
            pending, op = _literal(t, pending, op, st, lex, cat, lookup), ""
        elif (
            pending in {"enc_type", "sex", "code", "code_id"}
            and t.kind == "word"
            and w not in FILLER
            and w not in YESNO
            # a code written as a word has a digit or is in capitals ('E11', 'AMB'); 'the
            # ulcerative colitis concept, joined to person': no literal follows 'concept'
            and (
                pending in {"enc_type", "sex"} or any(ch.isdigit() for ch in w) or t.text.isupper()
            )
        ):
            pending, op = _literal(t, pending, op, st, lex, cat, lookup), ""
        elif nxt == "table" and t.kind == "word" and w not in FILLER:
            if not _set_table(st, cat, t.text):
                raise Abstain(f"table {t.text!r} is not in this source", t.text)
            t.used = True
        elif w in SYSTEMS:
            st.codes.append(("", w, "system"))
            pending, t.used = "system:" + w, True
            if w == "snomed" and nxt == "ct":
                toks[k + 1].used = True
                k += 1
        elif (
            t.kind == "code"
            and _year(t.text)
            and not pending
            and k
            and words[k - 1]
            in {
                "in",
                "during",
            }
        ):
            if st.year is not None:
                raise Abstain("two years named", t.text, final=False)
            st.year, t.used = int(t.text), True
        elif t.kind in {"syscode", "uuid", "ref", "code", "str"}:
            pending = continue_code_list(toks, k, st) or pending
            pending, op = _literal(t, pending, op, st, lex, cat, lookup), ""
        elif t.kind == "ident" and not _identifier(t.text):  # 'e.g', 'i.e'
            t.used = True
        elif label_field(cat, t.text) and nxt in CONTAINS and k + 2 < len(toks):
            k += label_contains(st, lex, toks, k)  # 'where the display contains lisinopril'
            continue
        elif (
            w == "by"
            and st.agg in {"first", "last"}
            and k + 1 < len(toks)
            and field_role(cat, None, toks[k + 1].text) == "time"
        ):  # 'latest Heart rate value (by measurement_date)': the order, not what is asked
            t.used = toks[k + 1].used = True
            k += 2
            continue
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
            st.count_word = True
            t.used = True
        elif w in {"distinct", "unique"}:
            t.used = True
        elif w in UNIT_ENCOUNTERS and not (t.text[:1].isupper() and cat.adapter == "fhir"):
            st.unit = st.unit or "encounters"
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
            if w in {"show", "display"}:  # 'show the number of …' / 'show the person_ids …'
                st.show = True
            elif w != "which" or k == 0:  # 'which' inside a sentence is a relative pronoun
                st.listing = True
            t.used = True
        elif _kind_label(cat, toks, k, st):  # "where the drug concept name contains 'x'"
            t.used = True
        elif w == "concept" or w == "concepts":
            pending, t.used = pending or "code", True
        elif w in SEX_WORDS:
            if st.sex_code is not None and _code_sex(cat, st.sex_code) != SEX_WORDS[w]:
                raise Abstain("two sexes named", t.text)
            st.sex_word, t.used = SEX_WORDS[w], True
        elif w in {"value", "values", "result", "results"}:
            if k > 0 and toks[k - 1].kind == "ident":  # 'the person_id values': the field's
                if field_role(cat, None, toks[k - 1].text) == "patient" and not st.count_word:
                    st.listing = True  # 'person_id values with …': the ids are asked
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
            raise Abstain(f"{t.text!r} (not expressed by the schema reader)", t.text, final=False)
        k += 1
    if st.unbound:  # a concept field may be followed by the concept's words: the general reader's
        concept = st.unbound[0].lower().endswith("concept_id")
        raise Abstain(f"no value is given for {st.unbound[0]!r}", st.unbound[0], final=not concept)
    _names(toks, st, lex, cat)
    check_asides(st, asides, lex, cat)
    left = [t.text for t in toks if not t.used]
    if left:
        raise Abstain(
            f"{' '.join(left)!r} is not grounded in the schema", " ".join(left), final=False
        )
    return build_plan(st, lex, cat, question, now), st


def _code_entries(st: State, lex: Lexicon, cat: Catalog) -> set[int]:
    """Entries of the literal codes named (empty when none, or when one does not ground)."""
    out: set[int] = set()
    for code, system, via in st.codes:
        if not code:
            continue
        try:
            out |= set(code_entries(lex, code, system, st, cat, via))
        except Abstain:
            return set()
    return out


def _names(toks: list[Tok], st: State, lex: Lexicon, cat: Catalog) -> None:
    """Ground each run of words left over as one concept name (exact name, synonym or the same
    words, after shorthand expansion), in the named table's stream when one is named."""
    from clinbridge.engine.understand._shorthand import expand_words
    from clinbridge.engine.understand._text import normalize

    names = {s.name for s in st.streams} if st.streams else None
    coded = _code_entries(st, lex, cat)
    k = 0
    while k < len(toks):
        if toks[k].used or toks[k].kind != "word":
            k += 1
            continue
        # the run: left-over words and the filler between them ('CT of head' is one phrase)
        j = k
        while (
            j < len(toks)
            and toks[j].kind == "word"
            and (not toks[j].used or toks[j].text.lower() in FILLER)
        ):
            j += 1
        while j > k + 1 and toks[j - 1].used:
            j -= 1
        if j == k + 1 and toks[k].text.lower() in _table_parts(st.table_word):
            toks[k].used = True  # 'a MedicationRequest whose medication display …': the table's
            k = j
            continue
        span = " ".join(t.text for t in toks[k:j])
        if coded and confirms(lex, span, coded):
            for t in toks[k:j]:  # 'BMI (LOINC 39156-5)': the name of the code named
                t.used = True
            k = j
            continue
        good = []
        for m in lex.match(expand_words(normalize(span))):
            entries = [i for i in m.entries if names is None or lex.entries[i].stream_name in names]
            if m.score >= 0.97 and entries:
                good.append((m.label, entries))
        found = good[0][1] if good and all(set(e) == set(good[0][1]) for _, e in good) else None
        if found is None and names is not None:
            found = _grounded(span, lex, names)
        if found:
            st.names.append((span, found))
            for t in toks[k:j]:
                t.used = True
        k = j


def _table_parts(table_word: str) -> set[str]:
    """The words of a table or resource name ('drug_exposure', 'MedicationRequest')."""
    return {p.lower() for p in re.split(r"_|(?<=[a-z])(?=[A-Z])", table_word) if len(p) > 2}


def _grounded(span: str, lex: Lexicon, names: set[str]) -> list[int] | None:
    """The general reader's grounding of a phrase (shorthand, contained words), taken only
    inside the table the question names, when it is one concept, not tied with another label,
    and its best label's entries are all in that table."""
    from clinbridge.engine.understand._ground import Concept, ground_text

    items = ground_text(span, lex, embeddings=False)
    if len(items) != 1 or not isinstance(items[0], Concept):
        return None
    c = items[0]
    if c.score < 0.6 or c.how == "embedding" or len(c.tied) > 1:
        return None
    best = c.primary or c.entries
    if not best or any(lex.entries[i].stream_name not in names for i in best):
        return None
    return list(best)


def _quoted_name(text: str, lex: Lexicon) -> list[int] | None:
    """The entries of a quoted phrase that is a concept's own label (several words, one exact
    label, no code of that text stored): None otherwise, and the literal stays a code."""
    if len(text.split()) < 2 or any(str(e.code) == text for e in lex.entries):
        return None
    exact = [m for m in lex.match(text) if m.how in {"exact", "synonym"}]
    if not exact or any(set(m.entries) != set(exact[0].entries) for m in exact):
        return None
    return list(exact[0].entries)


def _date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def _dates_between(toks: list[Tok], k: int) -> tuple[dt.date, dt.date]:
    try:
        a, conj, b = toks[k + 1], toks[k + 2], toks[k + 3]
    except IndexError:
        raise Abstain("'between' needs two dates", "between") from None
    lo, hi = _date(a.text), _date(b.text)
    if conj.text.lower() != "and" or lo is None or hi is None:
        raise Abstain("'between' needs two dates", "between")
    for t in toks[k : k + 4]:
        t.used = True
    return lo, hi


def _window(st: State, lo: dt.date | None, hi: dt.date | None, phrase: str) -> None:
    """Narrow the date window of the events (one lower and one upper bound at most)."""
    if (lo is not None and st.date_from is not None) or (hi is not None and st.date_to is not None):
        raise Abstain("two date conditions", phrase, final=False)
    st.date_from = lo or st.date_from
    st.date_to = hi or st.date_to
    st.measure_field = ""


_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10}


def _count_of(word: str) -> int | None:
    if word.isdigit() and 0 < int(word) < 1000:
        return int(word)
    return _NUMBER_WORDS.get(word)


def _code_sex(cat: Catalog, code: str) -> str | None:
    """The sex a stored sex code stands for ('8532' → female), None when unknown."""
    return cat.patients.sex_values.get(code) if cat.patients is not None else None


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _year(text: str) -> bool:
    return len(text) == 4 and text.isdigit() and 1900 <= int(text) <= 2100


def _camel(word: str) -> bool:
    return word[:1].islower() and any(ch.isupper() for ch in word[1:])


def _is_name(cat: Catalog, word: str) -> bool:
    pt = cat.patients
    if pt is not None and pt.death_table and word.lower() == pt.death_table.lower():
        return True
    return bool(table_streams(cat, word)) or resource_streams(cat, word) is not None


def _postfix(v: ValueFilter | None, op: str, text: str) -> ValueFilter:
    if v is None or v.op != "=":
        raise Abstain(f"{text!r} has no value to apply to", text)
    return ValueFilter(op=op, value=v.value)  # type: ignore[arg-type]


def _between(toks: list[Tok], k: int) -> tuple[float, float]:
    try:
        a, conj, b = toks[k + 1], toks[k + 2], toks[k + 3]
        if conj.text.lower() != "and":
            raise ValueError
        lo, hi = float(a.text), float(b.text)
    except (IndexError, ValueError):
        raise Abstain("'between' needs two numbers", "between") from None
    for t in toks[k : k + 4]:
        t.used = True
    return lo, hi


def _stored_value(toks: list[Tok], k: int) -> str | None:
    """The quoted value of "<field> = 'value'" after the field at ``k`` (both tokens marked
    used), else None."""
    if k + 2 >= len(toks) or toks[k + 1].kind != "op" or toks[k + 1].text not in {"=", "=="}:
        return None
    if toks[k + 2].kind != "str":
        return None
    for t in toks[k + 1 : k + 3]:
        t.used, t.role = True, "matched"
    return toks[k + 2].text


def _name(t: Tok, toks: list[Tok], k: int, st: State, cat: Catalog, pending: str) -> str:
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
    if role is None and cat.table(text) is not None:
        raise Abstain(f"table {text!r} is in the source but the plan cannot read it", text)
    if role is None:
        raise Abstain(f"{text!r} is not a table or field of this source", text)
    enc = cat.encounters
    if enc is not None and text.lower() == enc.start_column.lower() and st.target == "encounters":
        t.used = True  # 'visit_start_date in 2010': the window of the encounters named
        return "time"
    if role in {"other", "source"}:
        said = _stored_value(toks, k)
        if said is None or stream is None:
            raise Abstain(f"field {text!r} (the plan cannot filter on it)", text)
        st.matches.append((text.lower(), (said,)))  # "status = 'active'": rows holding that value
        t.used = True
        return pending
    t.used = True
    if role in {"code", "value", "time", "days_supply", "quantity"}:
        st.fields.append(text)
    if role == "patient":
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        if nxt is not None and (nxt.kind in {"code", "uuid", "ref"} or nxt.kind == "op"):
            return "patient"
        st.unit = st.unit or "patients"
        return pending
    if role == "time":
        st.measure_field = role
        return "time"  # a date comparison may follow ('condition_start_date >= 2015-01-01')
    if role in {"days_supply", "quantity"} or (role == "value" and st.agg in AGG.values()):
        st.measure_field = role
        return ""
    st.unbound.append(t.text)
    if role == "code" and text.lower().endswith("concept_id"):
        return "code_id"  # a concept id field: the literal is an id, not a vocabulary code
    return role  # code | value | enc_type | sex


def _set_table(st: State, cat: Catalog, name: str) -> bool:
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
    if res is None and not streams and cat.adapter == "fhir" and low.startswith("fhir_"):
        # 'fhir_medication_request': the table of a resource type, read as that resource
        name = "".join(p.capitalize() for p in low[5:].split("_"))
        res = resource_streams(cat, name)
    if res is not None:
        streams = res
        own = f"fhir_{_snake(name)}"
        if (
            len(res) == 1
            and not res[0].table.lower().endswith(own[4:])
            and cat.table(own) is not None
            and st.lex is not None
            and same_rows(st.lex, res[0].table, own) is not True
        ):
            raise Abstain(f"{name} resources are stored with others in {res[0].table}", name)
    if not streams:
        res = resource_streams(cat, name)
        if res is None:
            return False
        if not res:
            raise Abstain(f"{name!r} resources are not an event stream of this source", name)
        streams = res
    if st.streams is not None and {s.name for s in st.streams} != {s.name for s in streams}:
        # two event tables, each with its own concept: a cohort of two events, the general
        # reader's (which names what it cannot read)
        raise Abstain(f"two tables named ({st.table_word!r}, {name!r})", name, final=False)
    st.streams, st.table_word = streams, name
    return True


def _literal(
    t: Tok, pending: str, op: str, st: State, lex: Lexicon, cat: Catalog, lookup: Lookup | None
) -> str:
    t.used = True
    if pending and pending != "patient" and st.unbound:
        st.unbound.pop()
    if pending == "patient" or t.kind in {"uuid", "ref"}:
        pid = t.text.split("/")[-1]
        if st.patient is not None and st.patient != pid:
            raise Abstain("two patients named", t.text)
        st.patient = pid
        st.groundings.append(Grounding(phrase=t.text, kind="patient", target=pid))
        return ""
    if pending == "value":
        if st.value is not None:
            raise Abstain("two value conditions", t.text)
        try:
            v = float(t.text)
        except ValueError:
            raise Abstain(f"{t.text!r} is not a number", t.text) from None
        st.value = ValueFilter(op=op or "=", value=v)  # type: ignore[arg-type]
        st.groundings.append(
            Grounding(
                phrase=f"{op or '='} {t.text}", kind="value", target=f"value {op or '='} {v:g}"
            )
        )
        return ""
    if pending == "time":
        day = _date(t.text)
        if day is None and _year(t.text):  # 'visit_start_date in 2010': the calendar year
            y = int(t.text)
            first, last = dt.date(y, 1, 1), dt.date(y, 12, 31)
            lo, hi = {
                ">=": (first, None),
                ">": (dt.date(y + 1, 1, 1), None),
                "<=": (None, last),
                "<": (None, dt.date(y - 1, 12, 31)),
            }.get(op, (first, last))
            _window(st, lo, hi, f"{op or 'in'} {t.text}")
            return ""
        if day is None:
            raise Abstain(f"{t.text!r} is not a date", t.text)
        lo, hi = {
            ">=": (day, None),
            ">": (day + dt.timedelta(days=1), None),
            "<=": (None, day),
            "<": (None, day - dt.timedelta(days=1)),
            "=": (day, day),
            "": (day, day),
        }[op]
        _window(st, lo, hi, f"{op or '='} {t.text}")
        return ""
    if pending == "enc_type":
        st.enc_code = t.text
        return ""
    if pending == "sex":
        if st.sex_code is not None or st.sex_word not in {None, _code_sex(cat, t.text)}:
            raise Abstain("two sexes named", t.text)
        st.sex_code = t.text
        return ""
    if op and op != "=" and not st.yesno and st.agg not in {"first", "last"} and _number(t.text):
        # 'a Hemoglobin observation (LOINC 718-7) < 13': the value of the measurement named
        return _literal(t, "value", op, st, lex, cat, lookup)
    if op and op != "=":
        raise Abstain(f"{op} {t.text} is not bound to a numeric field", t.text)
    if t.kind == "code" and not pending and _year(t.text):
        raise Abstain(f"{t.text} reads as a year", t.text, final=False)
    if t.kind == "str" and not pending and (named := _quoted_name(t.text, lex)) is not None:
        st.names.append((t.text, named))  # "a Procedure 'Suture open wound'": a label, not a code
        return ""
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
