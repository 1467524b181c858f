"""Counts over one concept named by its exact dictionary name, and plain rankings: 'how many
patients underwent X since 2100?', 'the top three most frequent lab tests this year'.

Counts ('how many patients underwent X since 2100?', 'how many times was X carried out this
year?'): the name is spotted word for word (:func:`._follow_read.spot_names`), so a long name
with commas and 'via ... or ...' stays one concept. Said of patients ('patients', 'people'), the count is of
the patients with such an event; said of events ('times', 'how often', 'cases', 'prescriptions'),
of the events. At most one calendar time holds for the events. Every other word must be a word
of this frame; anything else (a sex, an age, 'first', a negation, a patient id) leaves the
question to the general reader (None). Rankings: 'the top N' of one kind of thing
(:data:`._follow_read.RANK`), no concept named, at most one calendar time.
"""

from __future__ import annotations

import datetime as dt
import re

from clinbridge.engine.plan import (
    Aggregate,
    ConceptSet,
    EncounterScope,
    EventFilter,
    Measure,
    QueryPlan,
)
from clinbridge.engine.understand._age_group import age_group
from clinbridge.engine.understand._follow_read import (
    GLUE,
    RANK,
    TIME,
    calendar_window,
    concept_of,
    kinds_of,
    one_match,
    one_name,
    or_none,
    question_words,
    spot_names,
    target_stream,
)
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._reading import Choice, Grounding, Reading

__all__ = ["read_count", "read_current", "read_rank"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ASK = re.compile(r"\b(?:how\s+many|how\s+often|number|count)\b")
_PATIENTS = _words("patients people individuals subjects persons")
_EVENTS = _words(
    "times often cases instances occurrences prescriptions procedures treatments diagnoses "
    "tests events records"
)
_GLUE = _words(
    """what what's is was are were the a an of for to in on with who that they their them there
    how many much often number count counted total overall calculate tell me show give can could
    you please get retrieve provide find list had have has having been being be got getting
    underwent undergone undergo undergoing received receiving receive given giving administered
    prescribed prescription ordered performed done conducted carried out executed made took
    taken take place occurred occur happened tested diagnosed diagnosis procedure treatment drug
    medication lab laboratory test did do does s involved involving involve during throughout
    since year ago this last previous current all any stayed staying careunit at provided tally
    up"""
)


@or_none
def read_count(question: str, lex: Lexicon, now: dt.datetime | None) -> Reading | None:
    """The reading of a count over one exactly named concept; None when it is not one."""
    if not _ASK.search(question.lower()):
        return None
    words = question_words(question)
    found = one_name(words, lex)
    if found is None:
        return None
    text, when, span = found
    if not _ASK.search(text):
        return None
    rest = [w for w in text.split() if w != "@0"]
    if any(w not in _GLUE and w not in _PATIENTS and w not in _EVENTS for w in rest):
        return None
    of_patients, of_events = bool(_PATIENTS & set(rest)), bool(_EVENTS & set(rest))
    if of_patients == of_events:
        return None  # neither said, or both ('how many times were patients ...')
    stream, concepts = concept_of(span, lex, kinds_read=True)
    window = calendar_window(when, now)

    def count(of: ConceptSet) -> QueryPlan:
        if of_patients:
            return QueryPlan(
                question=question,
                filters=(EventFilter(stream=stream, concepts=of, window=window),),
                now=now,
            )
        return QueryPlan(
            question=question,
            measure=Measure(of="events", stream=stream, concepts=of),
            aggregate=Aggregate(op="count"),
            window=window,
            now=now,
        )

    plan = count(concepts)
    # 'hypertension' on a source without a hierarchy: that one code, or its kinds too? Both
    # readings go to validation, which asks the user when their answers differ.
    wide = kinds_of(span, lex)
    choices = (
        (
            Choice(description=f"{concepts.label!r} exactly", plan=plan),
            Choice(description=f"{wide.label!r}", plan=count(wide)),
        )
        if wide is not None
        else ()
    )
    what = "patients with" if of_patients else "events of"
    return Reading(
        question=question,
        plan=plan,
        confidence=0.9,
        groundings=(
            Grounding(phrase=concepts.label or "", kind="concept", target=f"{what} {stream}"),
        ),
        notes=("read as a count over one concept named exactly",),
        choices=choices,
    )


_RANK_GLUE = _words(
    "occurring unfold occur events event records recorded happened taken expose share reveal "
    "medical"
)
# a second kind of thing or a second ranking: not one list ranked
_OTHER = _words(
    "and or procedure procedures treatment treatments diagnosis diagnoses drug drugs "
    "medication medications prescription prescriptions test tests specimen specimens"
)


# what each place is counted in ('by number of patients', 'counting records'): the general
# reader's rank marks read it (``_rank_marks``), never dropped here
_UNIT = _words(
    "by number count counting counted distinct unique times records rows doses largest highest "
    "greatest"
)


@or_none
def read_rank(question: str, lex: Lexicon, now: dt.datetime | None) -> Reading | None:
    """'the top N <kind of thing> [in a calendar time]': the concepts of one stream ranked by
    their number of events (dense rank); None when the question says more, or names a concept."""
    words = question_words(question)
    if spot_names(words, lex):
        return None  # a concept named: not a plain ranking
    age, text, said = age_group(" ".join(words))
    if said == "*":
        return None
    rank = one_match(RANK, text)
    if rank is None:
        return None
    when = one_match(TIME, text[: rank.start()] + " " * len(rank[0]) + text[rank.end() :])
    rest = (text[: rank.start()] + " " + text[rank.end() :]).split()
    if when is not None:
        rest = text[: rank.start()] + " " * len(rank[0]) + text[rank.end() :]
        rest = (rest[: when.start()] + " " + rest[when.end() :]).split()
    if any(w not in GLUE and w not in _RANK_GLUE for w in rest) or (_OTHER | _UNIT) & set(rest):
        return None
    stream = target_stream(rank["noun"], words, lex)
    top = int(rank["n1"] or rank["n2"]) if (rank["n1"] or rank["n2"]).isdigit() else None
    if top is None:
        from clinbridge.engine.understand._text import NUMBER_WORDS

        top = NUMBER_WORDS[rank["n1"] or rank["n2"]]
    plan = QueryPlan(
        question=question,
        measure=Measure(of="concept", stream=stream),
        aggregate=Aggregate(op="list", top=top),
        window=calendar_window(when, now),
        scope=EncounterScope(age=age) if age is not None else None,
        now=now,
    )
    groundings = [Grounding(phrase=rank[0], kind="aggregate", target=f"top {top} of {stream}")]
    notes = ["read as a ranking of one kind of thing by how often it is recorded"]
    if age is not None:
        groundings.append(Grounding(phrase=said.strip(), kind="age", target="age at each visit"))
        notes.append("the age group is the age the source records at each visit")
    return Reading(
        question=question,
        plan=plan,
        confidence=0.9,
        groundings=tuple(groundings),
        notes=tuple(notes),
    )


_CURRENT = re.compile(r"\bcurrent(?:ly)?\b")
_CURRENT_GLUE = _words("current currently admitted hospitalized from into fall falls")


@or_none
def read_current(question: str, lex: Lexicon, now: dt.datetime | None) -> Reading | None:
    """'how many current patients are in their 30s?': the patients with an encounter still open
    now whose recorded age at that encounter is in the group; None when the question says more
    (a concept, a time, a second age group) or no age group."""
    low = question.lower()
    if not (_ASK.search(low) and _CURRENT.search(low)):
        return None
    words = question_words(question)
    if spot_names(words, lex):
        return None
    age, text, said = age_group(" ".join(words))
    if age is None:
        return None
    rest = text.split()
    if not _PATIENTS & set(rest) or not _CURRENT.search(text):
        return None
    if any(w not in _GLUE and w not in _PATIENTS and w not in _CURRENT_GLUE for w in rest):
        return None
    plan = QueryPlan(
        question=question,
        measure=Measure(of="patients"),
        aggregate=Aggregate(op="count"),
        scope=EncounterScope(which="current", age=age),
        now=now,
    )
    return Reading(
        question=question,
        plan=plan,
        confidence=0.9,
        groundings=(
            Grounding(phrase="current", kind="scope", target="an encounter open now"),
            Grounding(phrase=said.strip(), kind="age", target="age recorded at that encounter"),
        ),
        notes=("read as a count of the patients admitted now, by the age recorded then",),
    )
