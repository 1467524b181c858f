"""Built-in understanding (no LLM): a clinical question → ranked QueryPlan readings.

Every phrase is grounded in what the source's catalog and vocabulary hold — concepts by exact
name or synonym (with descendants), by the same or contained words, by a spelling correction
against the source's own words, and finally by embedding similarity — and everything structural
(the aggregate, cohort, sexes, ages, values with units, counts, negation, time windows, encounter
scope, grouping) is read by general rules. A phrase that cannot be grounded makes the reading an
abstention that names it.

Example:
    >>> u = Understander(db, catalog)                                       # doctest: +SKIP
    >>> readings = u.understand("How many women had a GI bleed in 2015?")    # doctest: +SKIP
    >>> readings[0].plan.aggregate.op                                       # doctest: +SKIP
    'count'
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clinbridge.engine._number_accounting import account_numbers
from clinbridge.engine.understand._age_on_now import age_on_now
from clinbridge.engine.understand._aggregate_arith import guard_arith, range_words
from clinbridge.engine.understand._amount_read import read_amount
from clinbridge.engine.understand._asides import rewrite_asides
from clinbridge.engine.understand._assemble import Ctx, assemble, expand
from clinbridge.engine.understand._bare_ids import bare_patient_ids, integer_patient_ids
from clinbridge.engine.understand._between_read import read_between
from clinbridge.engine.understand._born import read_born
from clinbridge.engine.understand._categories import category_words, stream_categories
from clinbridge.engine.understand._change import read_change
from clinbridge.engine.understand._class_asides import class_by_members
from clinbridge.engine.understand._class_words import class_words
from clinbridge.engine.understand._code_displays import name_coded_displays
from clinbridge.engine.understand._code_mentions import drop_confirmed_codes
from clinbridge.engine.understand._code_said import say_codes
from clinbridge.engine.understand._concept_lists import join_concept_lists, lists_define
from clinbridge.engine.understand._count_difference import read_count_difference
from clinbridge.engine.understand._count_pair import read_count_pair
from clinbridge.engine.understand._data_words import data_words, names_not_given
from clinbridge.engine.understand._demographic_gap import demographic_gap
from clinbridge.engine.understand._demographics import read_demographics
from clinbridge.engine.understand._elapsed import read_elapsed
from clinbridge.engine.understand._enc_class import read_encounter_codes
from clinbridge.engine.understand._episode_read import read_episode
from clinbridge.engine.understand._event_end import event_end_asked
from clinbridge.engine.understand._exact import read_exact
from clinbridge.engine.understand._exists_words import exists_words
from clinbridge.engine.understand._facets import read_facets, stream_nouns
from clinbridge.engine.understand._fhir_words import administered_missing, fhir_plain_words
from clinbridge.engine.understand._field_any import drop_any_field
from clinbridge.engine.understand._ground import specific_streams
from clinbridge.engine.understand._hierarchy_words import hierarchy_words
from clinbridge.engine.understand._intersect_words import intersect_words
from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._list_appositives import appositive_lists
from clinbridge.engine.understand._meta_asides import drop_meta_asides
from clinbridge.engine.understand._names import replace_patient_names
from clinbridge.engine.understand._onset_words import onset_words
from clinbridge.engine.understand._patient_ranks import drop_id_asides
from clinbridge.engine.understand._patient_sex import read_patient_sex
from clinbridge.engine.understand._plain_words import plain_words
from clinbridge.engine.understand._plan_guards import guard_reading
from clinbridge.engine.understand._reading import Choice, Grounding, Reading
from clinbridge.engine.understand._schema_plain import (
    COUNT_STAR,
    plain_schema_words,
    tables_disagree,
)
from clinbridge.engine.understand._schema_rank import schema_ranking
from clinbridge.engine.understand._schema_read import read_schema, schema_lookup
from clinbridge.engine.understand._schema_roles import FIELD_ABSTAIN, per_patient_ratio, role_words
from clinbridge.engine.understand._senses import read_senses
from clinbridge.engine.understand._shorthand import expand_words
from clinbridge.engine.understand._slots import extract
from clinbridge.engine.understand._sql_said import sql_said
from clinbridge.engine.understand._stay_filter import read_stay_filter
from clinbridge.engine.understand._stay_read import read_stay
from clinbridge.engine.understand._stream_split import stream_choices
from clinbridge.engine.understand._stress_words import stress_words
from clinbridge.engine.understand._text import normalize
from clinbridge.engine.understand._time_columns import drop_time_columns, year_equals
from clinbridge.engine.understand._today_end import today_as_end
from clinbridge.engine.understand._typos import fix_question_typos, fix_structure_typos
from clinbridge.engine.understand._unit_asides import unit_asides
from clinbridge.engine.understand._unit_names import unit_names
from clinbridge.engine.understand._unread import untype_hospital
from clinbridge.engine.understand._who_list import ids_listed
from clinbridge.engine.understand._year_asked import year_asked
from clinbridge.engine.understand._yesno_value import threshold_yesno

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.embed import EmbeddingService

__all__ = [
    "Choice",
    "Grounding",
    "Lexicon",
    "Reading",
    "UnderstandContext",
    "Understander",
    "as_read",
    "understand",
]

logger = logging.getLogger(__name__)


@dataclass
class UnderstandContext:
    """What understanding needs besides the question: the source's lexicon and the subject."""

    lexicon: Lexicon
    catalog: Catalog | None = None
    patient_id: str | None = None
    now: dt.datetime | None = None
    embeddings: bool = True


def as_read(question: str, lex: Lexicon) -> str:
    """The question as every reader (and the validator's checks) reads it: its typing slips
    mended ('whch pt is homless', 'lsat year'), SQL's words said plainly ('exists', 'date_diff')
    and words that only stress ('the single highest', 'most recently') said as the readers read."""
    return stress_words(sql_said(fix_question_typos(question, lex)))


def understand(question: str, ctx: UnderstandContext) -> list[Reading]:
    """Read a question into ranked readings (best first); a single abstaining reading if none.

    Args:
        question: The question in plain clinical language.
        ctx: The source's lexicon, the patient (for patient-level questions) and 'now'.

    Returns:
        Readings, best first. Each has a plan and its grounding evidence, or an abstention reason.
    """
    question = as_read(question, ctx.lexicon)
    question = exists_words(question)  # 'exists drug_exposure for person_id 445 under X?'
    question = intersect_words(question)  # 'person_id with A INTERSECT person_id with B'
    question = bare_patient_ids(question, ctx.lexicon)  # 'what vaccines has 3516 had'
    difference = read_count_difference(question, lambda q: understand(q, ctx), ctx.catalog)
    if difference is not None:  # 'how many more patients with X than with Y'
        return [difference]
    paired = read_count_pair(question, lambda q: understand(q, ctx))  # 'the ratio of A to B'
    if paired is not None:
        return [paired]
    episode = read_episode(question, ctx, lambda q: understand(q, ctx))  # 'how long X lasts'
    if episode is not None:
        return [episode]
    stays = read_stay_filter(question, ctx, lambda q: understand(q, ctx))  # 'lasted > 1 day'
    if stays is not None:
        return [stays]
    sensed = read_senses(question, ctx.lexicon, lambda q: _understand(q, ctx))  # 'AD'
    if sensed is not None:
        return [guard_arith(question, guard_reading(r.question, r, ctx)) for r in sensed]
    readings = _understand(question, ctx)
    if (
        readings
        and readings[0].plan is None
        and FIELD_ABSTAIN.search(readings[0].abstain_reason or "")
    ):
        said = role_words(question, ctx.catalog, ctx.now)  # 'visit_end_date - visit_start_date'
        again = _understand(said, ctx) if said != question else []
        if again and again[0].plan is not None:
            readings = [
                r.model_copy(update={"notes": (*r.notes, f"columns said in words: {said!r}")})
                for r in again
            ]
    if readings and readings[0].plan is None:
        named = name_coded_displays(question, ctx.lexicon)  # 'RxNorm 477045 (Chlorphe...)'
        again = _understand(named, ctx) if named != question else []
        if again and again[0].plan is not None:
            readings = [
                r.model_copy(update={"notes": (*r.notes, f"codes said by their names: {named!r}")})
                for r in again
            ]
        coded = say_codes(named, ctx.lexicon, ctx.catalog)  # "where code = '367498001'"
        again = _understand(coded, ctx) if coded != named and readings[0].plan is None else []
        if again and again[0].plan is not None:
            readings = [
                r.model_copy(update={"notes": (*r.notes, f"codes said by their names: {coded!r}")})
                for r in again
            ]
    return [
        year_asked(question, guard_arith(question, guard_reading(question, r, ctx)))
        for r in readings
    ]


def _understand(question: str, ctx: UnderstandContext) -> list[Reading]:
    question = ids_listed(question)  # 'distinct patient ids with X': the ids, listed
    question = age_on_now(question, ctx.now)  # 'aged 18 to 64 today (completed years on <now>)'
    question = onset_words(question)  # 'a diagnosis with an onset date in 2022': its start
    question = year_equals(question)  # 'year(authored_on) = 2020'
    question = today_as_end(question, ctx.now.date() if ctx.now else None)  # '... and today'
    question = drop_any_field(question, ctx.catalog)  # '..., any status'
    question = range_words(question)  # 'max minus min', 'the highest minus the lowest value'
    question = schema_ranking(question, ctx.catalog)  # 'top 3 person_id by count(*) in visit'
    question = per_patient_ratio(question)  # 'count(*) / count(DISTINCT person_id) over X'
    demographic = read_demographics(question, ctx, lambda q: _understand(q, ctx))
    if demographic is not None:  # 'Asian men with X', 'by race': the rest read without them
        return demographic
    born = read_born(question, ctx, lambda q: _understand(q, ctx))
    if born is not None:  # 'men born before 1950 with X': the rest read without those words
        return born
    gap = demographic_gap(question)
    question, units_differ = unit_asides(question)  # '(1 kg = 2.20462 lb)', '(stored in cm)'
    if gap or units_differ:
        return [Reading(question=question, abstain_reason=gap or units_differ)]
    question, not_named = hierarchy_words(question, ctx.lexicon)  # 'under ingredient X (920293)'
    if not_named:
        return [Reading(question=question, abstain_reason=not_named)]
    question = stream_nouns(question, ctx.lexicon)
    faceted = read_patient_sex(question, ctx) or read_facets(question, ctx, understand)
    if faceted is not None:
        return faceted
    plain, no_rows = fhir_plain_words(question, ctx.catalog)
    if no_rows:
        return [Reading(question=question, abstain_reason=no_rows)]
    plain, tables_named = plain_schema_words(plain, ctx.catalog, ctx.lexicon)
    plain = category_words(drop_confirmed_codes(plain, ctx.lexicon, ctx.catalog), ctx.lexicon)
    plain = class_by_members(plain, ctx.lexicon)  # 'a benzodiazepine (clonazepam or diazepam)'
    text = replace_patient_names(data_words(expand_words(normalize(plain))), ctx.lexicon)
    today = (ctx.now.date() if ctx.now else None) or _data_today(ctx.catalog) or dt.date.today()
    text = drop_id_asides(text)  # 'which patient (id) ...'
    text = drop_meta_asides(plain_words(text, ctx.lexicon), today)  # '(count readings not pts)'
    text = class_words(fix_structure_typos(text, ctx.lexicon), ctx.lexicon)
    text = appositive_lists(text)  # 'a statin, that is simvastatin or atorvastatin'
    text = lists_define(join_concept_lists(text, ctx.lexicon), ctx.lexicon)  # 'MI, CHD or IHD'
    text = drop_time_columns(text, ctx.catalog)
    text, not_exact = read_encounter_codes(text, ctx.lexicon, ctx.catalog)
    if not_exact:
        return [Reading(question=question, abstain_reason=not_exact)]
    c = Ctx(
        question=question,
        lex=ctx.lexicon,
        patient_id=ctx.patient_id,
        now=ctx.now,
        today=today,
        embeddings=ctx.embeddings,
    )
    stay = read_stay(question, ctx) or read_between(question, ctx)  # stays, days between, whole
    if stay is not None:
        return [stay]
    try:  # 'with count(*) >= 2 among ... rows': a per-patient count, read in plain words
        schema = (
            None
            if COUNT_STAR.search(question)
            else read_schema(
                question, ctx.lexicon, ctx.catalog, None, patient_id=ctx.patient_id, now=ctx.now
            )
        )
    except Exception as exc:  # a reader bug must not become an answer
        logger.exception("schema reading failed for %r", question)
        return [Reading(question=question, abstain_reason=f"could not read the question ({exc})")]
    if schema is not None:  # the question names tables, fields or codes: read as such only
        ended = (
            event_end_asked(question, schema.plan)
            or administered_missing(question, schema.plan, ctx.catalog)
            or names_not_given(question, schema.plan)
        )
        return [Reading(question=question, abstain_reason=ended) if ended else schema]
    for reader in (read_elapsed, read_change, read_amount):  # one patient's times, changes, totals
        timed = reader(question, ctx.lexicon, ctx.catalog, patient_id=ctx.patient_id, now=ctx.now)
        if timed is not None:
            return [timed]
    exact = read_exact(question, ctx.lexicon, ctx.catalog, ctx.now)
    if exact is not None:  # one or two concepts named exactly, in a frame read whole
        return [exact]
    try:
        pieces = unit_names(_rejoin_names(extract(text), ctx.lexicon), ctx.lexicon)
        enc = ctx.catalog.encounters if ctx.catalog is not None else None
        pieces = untype_hospital(pieces, enc.label if enc is not None else None)
        items = expand(pieces, c)
        specific_streams(items, ctx.lexicon)
    except Exception as exc:  # a parsing bug must not become an answer
        logger.exception("understanding failed for %r", question)
        return [Reading(question=question, abstain_reason=f"could not read the question ({exc})")]
    first = assemble(items, c)
    ended = (
        event_end_asked(question, first.plan)
        or administered_missing(question, first.plan, ctx.catalog)
        or threshold_yesno(question, first.plan)
        or tables_disagree(first.plan, tables_named)
        or names_not_given(question, first.plan)
    )
    if ended:
        return [Reading(question=question, abstain_reason=ended)]
    if first.plan is not None and c.ambiguities:
        first = _with_choices(items, c, first)
    first = stream_choices(items, first, ctx.lexicon, lambda its: assemble(its, _fresh(c)))
    readings = [first]
    if first.plan is not None:
        readings.extend(_alternatives(items, c, first))
    # the question as the rules read it: each of its numbers must be used
    return account_numbers(readings, rewrite_asides(text))


def _rejoin_names(pieces: list[Any], lex: Lexicon) -> list[Any]:
    """'miscarriage in the first trimester': an order word inside a concept's own name is part
    of the name, not 'the first event' (only when the source has a concept by that name); so
    are a negation ('..., not elsewhere classified') and a value ('greater than 96 hours')."""
    from clinbridge.engine.understand._slots import Slot
    from clinbridge.engine.understand._text import tokens

    out: list[Any] = []
    k = 0
    while k < len(pieces):
        p = pieces[k]
        if (
            isinstance(p, Slot)
            and p.kind in {"order", "neg", "value", "count", "status"}
            and out
            and isinstance(out[-1], str)
        ):
            nxt = pieces[k + 1] if k + 1 < len(pieces) else None
            left = tokens(out[-1])[-6:]
            right = tokens(nxt)[:4] if isinstance(nxt, str) else []
            word = tokens(p.text)
            found = False
            for a in range(len(left) + 1):
                for b in range(len(right), -1, -1):
                    span = " ".join(left[a:] + word + right[:b])
                    if any(
                        word
                        and set(word) <= set(tokens(m.label))
                        and (
                            (m.score >= 0.97 and b > 0)
                            # 'body mass index (bmi) [ratio]': two words or more before the
                            # slot's, and they with it in order in the name
                            or (
                                a <= len(left) - 2
                                and m.score >= 0.75
                                and f" {span} " in f" {' '.join(tokens(m.label))} "
                            )
                        )
                        for m in lex.match(span)
                    ):
                        found = True
                        break
                if found:
                    break
            if found and isinstance(nxt, str):
                out[-1] = f"{out[-1]} {p.text} {nxt}"
                k += 2
                continue
            if found:  # 'body mass index' before a value: the name ends with the slot's word
                out[-1] = f"{out[-1]} {p.text} "
                k += 1
                continue
        out.append(p)
        k += 1
    return out


def _fresh(c: Ctx) -> Ctx:
    return Ctx(
        question=c.question,
        lex=c.lex,
        patient_id=c.patient_id,
        now=c.now,
        today=c.today,
        embeddings=c.embeddings,
    )


def _with_choices(items: list[Any], c: Ctx, first: Reading) -> Reading:
    """One reading per candidate of the first ambiguous phrase ('blood pressure' → systolic,
    diastolic), each assembled the same way with that candidate chosen."""
    phrase, names = c.ambiguities[0]
    choices: list[Choice] = []
    for j, name in enumerate(names):
        ctx = _fresh(c)
        ctx.choices = {phrase: j}
        reading = first if j == 0 else assemble(items, ctx)
        if reading.plan is not None:
            choices.append(Choice(description=f"{phrase!r} read as {name!r}", plan=reading.plan))
    if len(choices) < 2:
        return first
    return first.model_copy(update={"choices": tuple(choices), "answer_when_agreed": False})


def _alternatives(items: list[Any], c: Ctx, first: Reading) -> list[Reading]:
    """Next readings: each ambiguous concept swapped for its next-best grounding."""
    from clinbridge.engine.understand._ground import Concept

    out: list[Reading] = []
    for k, item in enumerate(items):
        if not isinstance(item, Concept) or not item.alternatives:
            continue
        alt = item.alternatives[0]
        if alt.score < 0.5 or set(alt.entries) == set(item.entries):
            continue
        swapped = Concept(
            item.phrase, alt.label, list(alt.entries), alt.score, alt.how, hints=item.hints
        )
        new_items = list(items)
        new_items[k] = swapped
        ctx = _fresh(c)
        reading = assemble(new_items, ctx)
        if reading.plan is not None and reading.plan != first.plan:
            out.append(
                reading.model_copy(
                    update={"confidence": round(min(reading.confidence, first.confidence) * 0.8, 4)}
                )
            )
        if len(out) >= 2:
            break
    return out


def _has_hierarchy(db: Database, catalog: Catalog) -> bool:
    """Whether a dictionary's ancestor table exists and holds at least one row."""
    from sqlglot import exp

    for d in catalog.dictionaries:
        if not d.ancestor_table:
            continue
        q = exp.select(exp.Literal.number(1)).from_(d.ancestor_table).limit(1)
        try:
            if db.execute(q.sql(db.dialect), max_rows=1).rows:
                return True
        except Exception as exc:  # an unreadable table is no hierarchy
            logger.debug("no hierarchy in %s: %s", d.ancestor_table, exc)
    return False


def _data_today(catalog: Catalog | None) -> dt.date | None:
    return catalog.data_end_date() if catalog is not None else None


class Understander:
    """Understanding bound to one database: builds (or loads) its lexicon once.

    Args:
        db: The open source database.
        catalog: Its catalog.
        cache_dir: Where the lexicon and embeddings are cached (default ~/.cache/clinbridge).
        embeddings: Use embedding similarity as the last grounding resort.
        embedder: The embedding service (default: the process's for the environment's settings).
        builtin_drug_classes: Also ground drug classes through the built-in ingredient lists
            (on sources with a concept hierarchy); by default a class is grounded only through
            the source's own vocabulary, and abstains otherwise.
    """

    def __init__(
        self,
        db: Database,
        catalog: Catalog,
        *,
        cache_dir: str | Path | None = None,
        embeddings: bool = True,
        embedder: EmbeddingService | None = None,
        builtin_drug_classes: bool = False,
    ) -> None:
        if embeddings and embedder is None:
            from clinbridge.embed import service_for

            embedder = service_for()
        self.catalog = catalog
        self.lexicon = Lexicon.load(
            db, catalog, cache_dir=cache_dir, embedder=embedder if embeddings else None
        )
        # built-in drug classes stand in for a vocabulary's classes only when asked for, and
        # only where a vocabulary (a concept hierarchy with rows) is attached: an answer from
        # the built-in lists comes from outside the data
        # (an empty CONCEPT_ANCESTOR is no hierarchy)
        self.lexicon.has_hierarchy = _has_hierarchy(db, catalog)
        self.lexicon.categories = stream_categories(db, catalog, self.lexicon)
        self.lexicon.patient_ids = integer_patient_ids(db, catalog)
        self.lexicon.class_list_allowed = builtin_drug_classes and self.lexicon.has_hierarchy
        self.embeddings = embeddings
        schema_lookup(db, catalog, self.lexicon)

    def understand(
        self, question: str, *, patient_id: str | None = None, now: dt.datetime | None = None
    ) -> list[Reading]:
        """Read a question into ranked readings (best first); see :func:`understand`."""
        ctx = UnderstandContext(
            self.lexicon, self.catalog, patient_id=patient_id, now=now, embeddings=self.embeddings
        )
        return understand(question, ctx)
