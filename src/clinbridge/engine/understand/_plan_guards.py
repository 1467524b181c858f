"""Last checks of a reading against its question: known misreadings become abstentions (or,
for a cut list, the repaired plan).

* **qualified siblings**: a phrase whose values or times are asked (not a yes/no or a count),
  whose concept set holds several concepts that each add a different qualifier to the words
  asked ('diastolic blood pressure' → *arterial* … diastolic and *non invasive* … diastolic),
  names two measurements, not one: their union mixes two series, and which one is meant is not
  known. A spelling or plural variant ('mesothelial cell(s)') adds no qualifier; an 'a, b or c'
  list names each concept on purpose.
* **a stored fact read as a loose concept**: a phrase grounded only by embedding similarity
  that is, word for word, a value an encounter attribute stores ('emergency room' as an
  admission location) names that fact, not the concept it resembles.
* **distinct concepts across tables**: 'how many unique drugs' over a kind whose tables name
  their concepts through different dictionaries (drug names, ICU item ids) counts codes of two
  kinds together.
* **an 'a, b, or c' list cut after its first item**: the first item read as the measure and the
  rest as a filter of the same table for one patient's yes/no ('has heparin, x, or y been
  prescribed') is one list: the plan is repaired to the union of the three, in the measure.
* **a kind where the question names one of its tables**: 'when did patient 7 last receive a
  prescription' read over every drug table (prescriptions and ICU inputs) is narrowed to the
  table the question names by its own name.
* **a test's result asked, not read**: 'HIV+ pts', 'tested positive for X', 'strep -ve': a
  result word on a test (a measurement or observation) asks for its result; a plan that only
  finds the test was done, with no value or result filter on it, answers another question.
* **encounters counted, their time read as a filter**: 'inpatient admissions (hospital stays)
  in 2018' read as the stays of patients who had one in 2018 — every stay of theirs counted. A
  count of encounters of a type with a windowed filter on encounters of that same type is the
  count of those in the window: the window moves to the plan.
* **ids or their number**: 'distinct person_id with X', no count or list word: either.
* **vaccines unread**: a question naming vaccines, on a source that keeps immunizations in
  their own table, read with no event of it ('hepatitis vaccine' as hepatitis tests).
* **a drug or its class**: 'penicillin' names stored penicillin G and V products and the
  penicillin class (amoxicillin, ampicillin...); where the source holds other members of the
  class, which is meant is not said.
* **a share of events**: 'what share of all visits were ER visits' read as a share of
  patients answers another question.
* **a hospital visit**: 'went to the hospital' read as an inpatient stay, where the source
  also records emergency visits: inpatient only, or emergency visits too, is not said.
* **a ratio of aggregates**: 'count(*) / count(DISTINCT x)' read as anything but events per
  patient lost its division.
* **a value on no named test**: 'how many results > 5.0', 'mean value of all labs': a value
  threshold or a numeric summary over a test table with no concept adds up values of every
  test in their own units — which test is meant was not read.
* **yes/no read as a count or list**: 'has patient 7 got a platelet count test' read as how many,
  or as a list, answers another question.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from clinbridge.engine.understand._between_read import time_counted
from clinbridge.engine.understand._child_at_event import child_word_at_event
from clinbridge.engine.understand._elided_object import elided_object
from clinbridge.engine.understand._guards_asked import (
    age_at_resolution,
    letter_variant,
    who_unanswered,
)
from clinbridge.engine.understand._guards_counting import (
    admission_for_concept,
    finding_and_its_threshold,
    visits_counted_as_records,
)
from clinbridge.engine.understand._guards_number import count_read_as_age, number_of_different
from clinbridge.engine.understand._method_variants import method_base
from clinbridge.engine.understand._name_variants import (
    counted_concept,
    hyphen_cut,
    narrow_variants,
)
from clinbridge.engine.understand._patient_extreme import patient_at_extreme
from clinbridge.engine.understand._reading import Reading
from clinbridge.engine.understand._universal import universal_threshold

if TYPE_CHECKING:
    from clinbridge.engine.plan import ConceptSet, QueryPlan

__all__ = ["guard_reading"]

_YESNO = re.compile(r"^\W*(has|have|had|did|does|do|was|were|is|are)\b", re.I)
_COHORT = re.compile(r"\b(?:patients?|people|persons?|those)\s+(?:with|who|whose|having)\b", re.I)
_STOP = {"of", "the", "a", "an", "and", "in", "on", "for", "to", "with", "by", "at"}


def _words(text: str) -> set[str]:
    out = set()
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w in _STOP:
            continue
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") else w)
    return out


def qualified_siblings(cs: ConceptSet, *, component: bool = False) -> list[str]:
    """The names of a concept set that each add a different qualifier to its label's words
    (``component``: only the quantity measured counts, the part of a LOINC-style name before its
    property — 'Glucose [Mass/volume] in Blood' and '... in Urine' both measure glucose)."""
    label = cs.label or ""
    if not label or re.search(r",|\bor\b|\band\b", label):
        return []
    asked = _words(label)
    extras: dict[str, frozenset[str]] = {}
    for c in cs.concepts:
        name = str(c.name or c.concept_id)
        # 'Hematocrit [..] of Blood by Automated count': a method of the same quantity, no qualifier
        key = name.split("[")[0] if component else (method_base(name) or name)
        words = _words(key)
        if not asked <= words:
            continue
        extras.setdefault(name, frozenset(words - asked))
    kinds = {e for e in extras.values() if e}
    if len(kinds) < 2:
        return []
    return sorted(n for n, e in extras.items() if e)


def _concept_sets(plan: QueryPlan) -> list[ConceptSet]:
    """The measure's concept set when its values or times are asked (which value is the first,
    the last, the highest): a yes/no or a count over any of them ('did patient 7 ever have a
    glucose above 200', 'had a fracture') is answered by their union."""
    m = plan.measure
    series = m.of in {"value", "date", "concept"} and plan.aggregate.op not in {"exists", "count"}
    return [m.concepts] if m.concepts is not None and series else []


def _threshold_sets(plan: QueryPlan) -> list[ConceptSet]:
    """Every concept set a value threshold applies to: a threshold on a union ('bp above 100':
    systolic or diastolic) compares one number with two quantities, whatever is counted."""
    m: Any = plan.measure
    out = [m.concepts] if m.concepts is not None and getattr(m, "value", None) is not None else []
    return out + [
        f.concepts
        for f in plan.filters
        if getattr(f, "concepts", None) is not None and getattr(f, "value", None) is not None
    ]


_STORED: dict[tuple[int, str, str], set[str]] = {}


def _attribute_value(phrase: str, ctx: Any) -> str | None:
    """The encounter attribute that stores ``phrase`` as one of its values, if any."""
    from clinbridge.engine.understand._schema_plan import _LOOKUP

    enc = ctx.catalog.encounters if ctx is not None and ctx.catalog is not None else None
    lookup = _LOOKUP.get(id(ctx.lexicon)) if enc is not None else None
    if enc is None or lookup is None:
        return None
    for name, column in enc.attributes.items():
        key = (id(ctx.lexicon), enc.table, column)
        if key not in _STORED:
            try:
                rows = lookup(f'SELECT DISTINCT "{column}" FROM "{enc.table}"', ())
            except Exception:
                rows = []
            _STORED[key] = {str(r[0]).strip().lower() for r in rows if r[0] is not None}
        if phrase.strip().lower() in _STORED[key]:
            return name
    return None


def guard_reading(question: str, reading: Reading, ctx: Any = None) -> Reading:
    """The reading, or an abstention when its plan is one of the known misreadings."""
    reading = patient_at_extreme(question, reading)  # 'which patient had the lowest Hb'
    plan = reading.plan
    if plan is None:
        return reading
    reason, phrase = "", ""
    for g in reading.groundings:
        if g.kind == "concept" and g.how == "embedding":
            fact = _attribute_value(g.phrase, ctx)
            if fact is not None:
                reason = f"{g.phrase!r} is a stored {fact}, read loosely as {g.target!r}"
                phrase = g.phrase
                break
    sets = [(cs, False) for cs in _concept_sets(plan)] + [
        (cs, True) for cs in _threshold_sets(plan)
    ]
    for cs, component in sets if not reason else []:
        names = qualified_siblings(cs, component=component)
        if names:
            reason = f"{cs.label!r} names several measurements ({', '.join(names[:4])}); say which"
            phrase = cs.label or ""
            break
    plan = narrow_variants(question, plan)
    if plan is not reading.plan:
        reading = reading.model_copy(update={"plan": plan})
    if not reason and (cut := hyphen_cut(question, plan)) is not None:
        reason, phrase = f"{cut!r} is one stored name, read in pieces", cut
    if not reason and (counted := counted_concept(question, plan)) is not None:
        reason, phrase = f"'how many {counted}' counts {counted}, not patients", counted
    narrowed = _named_table(question, plan, ctx)
    if narrowed is not None:
        plan = narrowed
        reading = reading.model_copy(update={"plan": plan})
    op = plan.aggregate.op
    m = plan.measure
    if not reason and m.of == "concept" and op == "count_distinct" and m.stream:
        kinds = _dictionaries(ctx, m.stream)
        if len(kinds) > 1:
            reason, phrase = (
                f"distinct {m.stream} concepts named by {len(kinds)} dictionaries",
                m.stream,
            )
    if not reason and (moved := _encounter_window(question, plan)) is not None:
        plan = moved
        reading = reading.model_copy(update={"plan": plan})
    if not reason and (narrow := elided_object(plan, ctx)) is not None:
        plan = narrow
        reading = reading.model_copy(update={"plan": plan})
    if not reason and (young := child_word_at_event(question, plan)) is not None:
        plan = young
        reading = reading.model_copy(update={"plan": plan})
    if not reason and (every := universal_threshold(question, plan)) is not None:
        plan = every
        reading = reading.model_copy(update={"plan": plan})
    if not reason and (merged := _cut_list(question, plan)) is not None:
        return reading.model_copy(update={"plan": merged})
    if (
        not reason
        and _YESNO.match(question)
        and op in {"count", "count_distinct", "list"}
        and not re.search(r"\bhow\s+(many|much)\b", question, re.I)
    ):
        reason, phrase = f"a yes/no question read as a {op}", question.split()[0]
    if (
        not reason
        and plan.aggregate.op == "proportion"
        and plan.measure.of == "patients"
        and (share := _SHARE_OF_EVENTS.search(question)) is not None
    ):
        reason, phrase = f"a share of {share['n']}, read as a share of patients", share[0]
    if (
        not reason
        and _IDS_ASKED.match(_QUOTED.sub(" ", question))
        and plan.aggregate.op in {"count", "list", "count_distinct"}
    ):
        reason = "ambiguous: 'distinct person_id' may ask for the ids or for their number; say 'list' or 'count'"
        phrase = "distinct"
    if not reason and (unused := _vaccine_unread(question, plan, ctx)) is not None:
        reason, phrase = unused
    if not reason and (klass := _class_or_drug(plan, ctx)) is not None:
        reason, phrase = klass
    if not reason and (loose := _hospital_visit(question, plan, ctx)) is not None:
        reason, phrase = loose
    if not reason and _RATIO_OF.search(question) and plan.measure.of != "events_per_patient":
        reason, phrase = "a ratio of two aggregates, read as one", "/"
    if not reason and (unnamed := _unnamed_test(plan)) is not None:
        reason, phrase = unnamed
    if not reason and (result := _result_unread(question, plan)) is not None:
        reason, phrase = result
    if not reason and (timed := time_counted(question, plan)) is not None:
        reason, phrase = timed
    if not reason and (visits := visits_counted_as_records(question, plan)) is not None:
        reason, phrase = visits
    if not reason and (stay := admission_for_concept(question, plan)) is not None:
        reason, phrase = stay
    if not reason and (different := number_of_different(question, plan)) is not None:
        reason, phrase = different
    if not reason and (aged := count_read_as_age(question, plan)) is not None:
        reason, phrase = aged
    if not reason and (twice := finding_and_its_threshold(plan)) is not None:
        reason, phrase = twice
    if not reason and (who := who_unanswered(question, plan)) is not None:
        reason, phrase = who
    if not reason and (ended := age_at_resolution(question, plan)) is not None:
        reason, phrase = ended
    if not reason and (variant := letter_variant(question, plan)) is not None:
        reason, phrase = variant
    if not reason:
        return reading
    return Reading(
        question=reading.question,
        abstain_reason=reason if reason.startswith("ambiguous:") else f"cannot answer: {reason}",
        unresolved=(phrase,),
        groundings=reading.groundings,
    )


def _dictionaries(ctx: Any, stream: str) -> set[str]:
    cat = ctx.catalog if ctx is not None else None
    if cat is None:
        return set()
    from clinbridge.engine.resolve import streams_for

    try:
        found = streams_for(cat, stream)
    except Exception:
        return set()
    return {s.dictionary or s.name for s in found}


def _cut_list(question: str, plan: QueryPlan) -> QueryPlan | None:
    """The repaired plan of an 'a, b, or c' list read as a and a filter 'b or c', or None."""
    from clinbridge.engine.plan import EventFilter

    m = plan.measure
    if plan.patient_id is None or plan.aggregate.op != "exists" or m.concepts is None:
        return None
    if len(plan.filters) != 1 or not isinstance(plan.filters[0], EventFilter):
        return None
    f = plan.filters[0]
    if f.stream != m.stream or f.concepts is None or f.value is not None or f.negate:
        return None
    if f.min_count != 1 or not re.search(r"\bor\b", f.concepts.label or ""):
        return None
    if f.window is not None and plan.window is not None and f.window != plan.window:
        return None
    first = re.escape(str(m.concepts.concepts[0].name or "")) if m.concepts.concepts else ""
    if not first or not re.search(rf"{first}\s*,", question, re.I) or len(m.concepts.concepts) != 1:
        return None
    union = m.concepts.model_copy(
        update={
            "concepts": (*m.concepts.concepts, *f.concepts.concepts),
            "label": f"{m.concepts.label}, {f.concepts.label}",
        }
    )
    return plan.model_copy(
        update={
            "filters": (),
            "window": plan.window or f.window,
            "measure": m.model_copy(update={"concepts": union}),
        }
    )


def _named_table(question: str, plan: QueryPlan, ctx: Any) -> QueryPlan | None:
    """The plan narrowed to the one stream of its measure's kind that the question names by
    the stream's own name ('prescription' → prescriptions), or None."""
    from clinbridge.engine.understand._text import stem

    cat = ctx.catalog if ctx is not None else None
    m = plan.measure
    if cat is None or not m.stream or any(s.name == m.stream for s in cat.streams):
        return None
    words = {stem(w) for w in re.findall(r"[a-z]+", question.lower())}
    named = [s for s in cat.streams_of(m.stream) if stem(s.name.lower()) in words]
    if len(named) != 1:
        return None
    return plan.model_copy(update={"measure": m.model_copy(update={"stream": named[0].name})})


_RESULT = re.compile(
    r"(?<=[a-z0-9])\s?\+(?:ve)?(?![\w\d])|(?<=[a-z0-9])\s?-ve\b"
    r"|\b(?:positive|negative|pos|neg|reactive|detected)\b",
    re.I,
)
_TESTS = frozenset({"measurement", "observation", "lab", "labs"})


_IDS_ASKED = re.compile(
    r"^\W*(?:select\s+)?(?:the\s+)?(?:distinct|unique)\s+(?:\w+\.)?(?:person|patient|subject)_?ids?\b"
    r"(?!\s+(?:values|list|count|number))(?![^?]*\b(?:count|number\s+of|how\s+many|list)\b)",
    re.I,
)
"""'distinct person_id in X with Y' with no word for a count or a list: askers mean both (the
ids a SELECT DISTINCT gives, or their number)."""
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\[[^\]]*\]")
"""A concept's name quoted in the question ('MCV [Entitic volume] by Automated count'): its
words are the name's, never the question's ('count' there asks for no count)."""
_SHARE_OF_EVENTS = re.compile(
    r"(?:share|percent(?:age)?|%|fraction|proportion|ratio|how\s+many)\s+of\s+(?:all\s+|the\s+|every\s+)?"
    r"(?:(?!(?:person|patient|subject)\b)\w+\s+){0,2}?(?P<n>visits|encounters|admissions|stays|records|rows|prescriptions|diagnoses|events|"
    r"procedures|measurements|results|exposures|immunizations|doses)\b",
    re.I,
)


_VACCINE_WORD = re.compile(
    r"\b(?:vaccines?|vaccinations?|vaccinated|immuni[sz]ations?|immuni[sz]ed|vax(?:ed|es)?|jabs?|vacc?ines?)\b",
    re.I,
)


def _streams(node: Any) -> list[str]:
    """Every stream a plan (as a dict) reads, at any depth."""
    if isinstance(node, dict):
        own = [node["stream"]] if isinstance(node.get("stream"), str) else []
        return own + [s for v in node.values() for s in _streams(v)]
    if isinstance(node, list | tuple):
        return [s for v in node for s in _streams(v)]
    return []


def _vaccine_unread(question: str, plan: QueryPlan, ctx: Any) -> tuple[str, str] | None:
    """'hepatitis vaccine' read as hepatitis tests: the question names vaccines, the source
    keeps them in their own table, and the plan reads no event of it."""
    m = _VACCINE_WORD.search(question)
    lex = getattr(ctx, "lexicon", None)
    if (
        m is None
        or lex is None
        or "immunization" not in set(getattr(lex, "stream_words", {}).values())
    ):
        return None
    meas: Any = plan.measure
    streams = set(_streams(plan.to_dict()))  # the measure's, the filters', every anchor's
    if "immunization" in streams or (meas.of in {"patients", "encounters"} and not plan.filters):
        return None
    return f"{m[0]!r} names immunizations, which the reading does not read", m[0]


def _class_or_drug(plan: QueryPlan, ctx: Any) -> tuple[str, str] | None:
    """A drug word that is both the name of stored drugs and the name of their class
    ('penicillin': penicillin G and V products, or any penicillin-class antibiotic), where the
    source holds class members the word does not name: which is meant is not said."""
    from clinbridge.engine.understand._shorthand import drug_class

    lex = getattr(ctx, "lexicon", None)  # (the built-in class list only tells the class reading)
    if lex is None:
        return None
    sets = [f.concepts for f in plan.filters if getattr(f, "concepts", None) is not None]
    meas: Any = plan.measure
    sets += [meas.concepts] if meas.concepts is not None else []
    for cs in sets:
        label = " ".join((cs.label or "").lower().split())
        klass = drug_class(label)
        if klass is None or label != klass.name:
            continue
        others = [
            i
            for i in klass.ingredients
            if label not in i
            and any(
                m.how in {"exact", "synonym", "same_words"}
                and any(lex.entries[e].stream == "drug" for e in m.entries)
                for m in lex.match(i)
            )
        ]
        if others:
            return (
                f"ambiguous: {label!r} may mean the drugs named {label!r} or any {klass.name}-class "
                f"drug ({', '.join(others[:3])} included); say which",
                label,
            )
    return None


_HOSPITAL_VISIT = re.compile(
    r"\b(?:went|go|goes|going|gone|been|trips?|visits?|visited|presented|came|come|comes)\s+(?:to\s+)?"
    r"(?:the\s+|a\s+)?hospital\b(?!\s+(?:stays?|admissions?))"
    r"|\bhospital\s+(?:visits?|encounters?|trips?|attendances?)\b",
    re.I,
)


def _hospital_visit(question: str, plan: QueryPlan, ctx: Any) -> tuple[str, str] | None:
    """'went to the hospital', 'hospital visits' read as inpatient stays where the source also
    records emergency visits: which of the two is meant is not said."""
    m = _HOSPITAL_VISIT.search(question)
    types = getattr(getattr(ctx, "lexicon", None), "encounter_types", None) or {}
    if m is None or not types.get("emergency") or not types.get("inpatient"):
        return None
    meas: Any = plan.measure
    read = [getattr(f, "type", None) for f in plan.filters] + [meas.encounter_type]
    if "inpatient" not in read or re.search(
        r"\b(?:admi|inpatient|hospitali[sz]|stay)", question, re.I
    ):
        return None
    return (
        f"ambiguous: {m[0]!r} may mean inpatient admissions only or inpatient and emergency "
        "visits; say which",
        m[0],
    )


_RATIO_OF = re.compile(r"\)\s*/\s*(?:count|sum|avg|mean|min|max)\s*\(", re.I)
_NUMERIC_OPS = frozenset({"mean", "median", "min", "max", "sum", "stddev", "range"})


def _unnamed_test(plan: QueryPlan) -> tuple[str, str] | None:
    """A value threshold or numeric summary over a test table with no concept (see above)."""
    meas: Any = plan.measure
    summarised = meas.of == "value" and plan.aggregate.op in _NUMERIC_OPS
    if (
        (meas.stream or "") in _TESTS
        and meas.concepts is None
        and (meas.value is not None or summarised)
    ):
        return f"a value of {meas.stream} results is asked, but of no named test", meas.stream
    for f in plan.filters:
        stream = getattr(f, "stream", "") or ""
        if (
            stream in _TESTS
            and getattr(f, "value", None) is not None
            and getattr(f, "concepts", None) is None
        ):
            return f"a value threshold on {stream} results, but on no named test", stream
    return None


def _result_unread(question: str, plan: QueryPlan) -> tuple[str, str] | None:
    """A result word on a test the plan reads with no value or result filter (see above)."""
    m = _RESULT.search(question)
    if m is None:
        return None
    word = m[0].strip()
    sets = []
    meas: Any = plan.measure
    if meas.concepts is not None and (meas.stream or "") in _TESTS and meas.value is None:
        sets.append(meas.concepts)
    sets += [
        f.concepts
        for f in plan.filters
        if getattr(f, "concepts", None) is not None
        and (getattr(f, "stream", "") or "") in _TESTS
        and getattr(f, "value", None) is None
    ]
    said = word.lower().lstrip("+-") or "positive"
    for cs in sets:
        names = " ".join(str(c.name or "") for c in cs.concepts).lower()
        if said in names or word.lower() in names:
            continue  # 'HER2 positive ...' named so: the word is the concept's own
        return (
            f"the question asks for a result ({word!r}) of {cs.label!r}, which the reading does not read",
            word,
        )
    return None


def _encounter_window(question: str, plan: QueryPlan) -> QueryPlan | None:
    """The plan counting encounters in the window its same-type encounter filter holds, or None
    (also when the question names a cohort: 'the visits of patients with a visit in 2018')."""
    from clinbridge.engine.plan import EncounterFilter

    m: Any = plan.measure
    if m.of != "encounters" or plan.window is not None or _COHORT.search(question):
        return None
    same = [
        f
        for f in plan.filters
        if isinstance(f, EncounterFilter)
        and not f.negate
        and f.min_count == 1
        and f.window is not None
        and f.type == getattr(m, "encounter_type", None)
    ]
    if len(same) != 1:
        return None
    rest = tuple(f for f in plan.filters if f is not same[0])
    return plan.model_copy(update={"window": same[0].window, "filters": rest})
