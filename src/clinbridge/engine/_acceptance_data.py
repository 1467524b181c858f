"""Acceptance rules that look at the data: a choice the question leaves open, settled silently.

A reading has to pick one answer where the question allows several; when the data holds more
than one candidate, the pick is a guess and the answer is reported ``ambiguous`` with the
readings that remain (devset5: every such guess was scored wrong):

* one patient's *date* of an event ('when was pt 16 in hospital', 'on what date was she
  diagnosed with X'), or *value* of a measurement, with no 'first' / 'last' in the question,
  where the patient has several: the first, the most recent, or all of them;
* one patient's *age at an event that recurs* ('how old was pt 19 at her cardiac ablation' —
  she had four) with no 'first' / 'last': the age at the first or at the most recent, when the
  two differ. A diagnosis is made once (its later records follow it up): the age at it is the
  age at the first;
* one patient's *value* of a quantity whose name names several measured quantities in the data
  ('last cholesterol' when total, HDL and LDL cholesterol are all recorded): which one;
* a count of patients who 'are on' / 'take' a drug, with nothing saying when: currently (an
  exposure spanning today) or ever;
* two conditions of one cohort where one is a narrower kind of the other ('a seizure disorder
  (epilepsy counted as one)'), or, in another stream, names the other again ('BMI of 30 or
  more (obesity by BMI)'): the aside was read as a second condition every patient must meet.
  A wider restatement ('total cholesterol >= 200 (serum cholesterol, not LDL or HDL)') is
  implied by the narrower condition and changes nothing, so it passes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from clinbridge.engine import _acceptance_alts as alts
from clinbridge.engine._acceptance_alts import run_variant as _run
from clinbridge.engine._checks import _draft_ids, _streams_for, failed, resolve_concept_ids
from clinbridge.engine.plan import Aggregate, EventFilter, Measure

if TYPE_CHECKING:
    from clinbridge.engine._checks import Check, _Ctx
    from clinbridge.engine.answer import Alternative
    from clinbridge.engine.plan import QueryPlan

# A word choosing one of several events by time ('first', 'most recent', 'since', 'max(date)').
_ORDINAL = re.compile(
    r"\b(?:first|1st|earliest|initial|initially|last|latest|most\s+rec\w*|rec[ae]?nt(?:ly)?|"
    r"newest|oldest|final|previous|prior|start(?:ed|ing)?|began|begin|onset|since|again|"
    r"second|third|nth|\d+(?:st|nd|rd|th)|"
    r"min(?:imum)?|max(?:imum)?)\b",  # 'max(procedure_date)': the latest date
    re.I,
)
# Words that say when a drug was taken ('ever on', 'currently on', 'on X in 2019').
_TIME_FRAME = re.compile(
    r"\b(?:ever|been|history|previous(?:ly)?|prior|past|current(?:ly)?|now|still|today|active|"
    r"were|was|had|taken|took|exposed|prescribed|received|given|dispensed|started|since|"
    r"during|before|after|within|last|between|at\s+(?:any|some)\s+(?:time|point)|"
    r"(?:19|20)\d\d)\b",
    re.I,
)
# 'are on <drug>', 'take <drug>': a present state ('patients who are on aspirin'); the bare
# 'pts on amlodipine' names a group, read as ever exposed (devset_parser), and 'on any <drug>
# product' asks about the records
_ON_DRUG = re.compile(
    r"(?:\b(?:are|is)\s+(?:on|taking)|'re\s+(?:on|taking)|\btakes?)\s+"
    r"(?:an?\s+|the\s+|their\s+)?(?!any\b|what\b|which\b|average\b|the\b|each\b|"
    r"same\b|day\b|date\b|admission\b|\d)[a-z][\w-]*",
    re.I,
)
_TOTAL = re.compile(r"\btotal\b|\bwhole\b|\boverall\b", re.I)
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset({"in", "of", "by", "the", "a", "an", "and", "or", "for", "to", "with", "at"})


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower())) - _STOP


def _ambiguous(name: str, detail: str, alternatives: Sequence[Alternative]) -> Check:
    return failed(name, "ambiguous", detail, alternatives)


def _several_dates(ctx: _Ctx, plan: QueryPlan, question: str) -> list[Check]:
    """One patient's first/last date (or value) picked where the question names neither."""
    op, of = plan.aggregate.op, plan.measure.of
    if not plan.patient_id or of not in {"date", "value"} or op not in {"first", "last"}:
        return []
    if plan.aggregate.nth is not None or plan.minus is not None or _ORDINAL.search(question):
        return []
    found = _run(ctx, plan.model_copy(update={"aggregate": Aggregate(op="list")}))
    if not isinstance(found, list):
        return []
    n = len({str(d)[:10] if of == "date" else str(d) for d in found})
    if n < 2:
        return []  # one candidate: the first is the last
    what = "on {n} different dates" if of == "date" else "{n} different values"
    return [
        _ambiguous(
            "date_unique",
            f"the patient has {what.format(n=n)}: the first, the most recent, or all of them? "
            "say 'first', 'last' or 'all'",
            alts.first_last_all(ctx, plan, found),
        )
    ]


def _several_ages(ctx: _Ctx, plan: QueryPlan, question: str) -> list[Check]:
    """One patient's age at the first of an event that recurs, where the question names no order."""
    m = plan.measure
    at = getattr(m, "age_at", None)
    if not plan.patient_id or m.of != "age" or at is None or getattr(at, "kind", "") != "event":
        return []
    if at.which != "first" or "condition" in (at.stream or "") or _ORDINAL.search(question):
        return []
    filters = tuple(
        f.model_copy(update={"first_only": False}) if getattr(f, "first_only", False) else f
        for f in plan.filters
    )
    last = plan.model_copy(
        update={
            "measure": m.model_copy(update={"age_at": at.model_copy(update={"which": "last"})}),
            "filters": filters,
        }
    )
    later = _run(ctx, last)
    if later is None or str(later) == str(ctx.value):
        return []  # once, or every time at the same age
    return [
        _ambiguous(
            "age_at_unique",
            f"the patient had it more than once: the age at the first ({ctx.value}) or at the "
            f"most recent ({later})? say 'first' or 'last'",
            [
                alts.reading(ctx, "the age at the first", plan, ctx.value),
                alts.reading(ctx, "the age at the most recent", last, later),
            ],
        )
    ]


def _component(name: str) -> str:
    """A measured quantity's name without its property, specimen and method (LOINC style)."""
    return re.split(r"\s*\[|\s+by\s+", name, maxsplit=1)[0].strip().lower()


def _several_quantities(ctx: _Ctx, plan: QueryPlan, question: str) -> list[Check]:
    """One patient's value of a name that several measured quantities answer to."""
    m = plan.measure
    if not plan.patient_id or m.of != "value" or m.stream is None or m.concepts is None:
        return []
    label = _words(m.concepts.describe())
    if not label or _TOTAL.search(question):
        return []
    variant = plan.model_copy(
        update={
            "filters": (),
            "measure": Measure(of="concept", stream=m.stream),
            "aggregate": Aggregate(op="list"),
        }
    )
    names = _run(ctx, variant)
    if not isinstance(names, list):
        return []
    # only names that say their property apart ('Cholesterol in HDL [Mass/volume] in Serum'):
    # the part before it is the quantity; a bare item label ('Non Invasive Blood Pressure
    # diastolic') may name a method or a site of the same quantity
    kinds = sorted(
        {
            _component(str(n))
            for n in names
            if "[" in str(n) and label <= _words(str(n)) and "/" not in _component(str(n))
        }
    )
    if len(kinds) < 2:
        return []
    return [
        _ambiguous(
            "quantity_unique",
            f"{m.concepts.describe()!r} names {len(kinds)} quantities recorded for this patient "
            f"({', '.join(kinds)}): say which",
            alts.per_quantity(ctx, plan, kinds, names, _component),
        )
    ]


def _current_or_ever(ctx: _Ctx, plan: QueryPlan, question: str) -> list[Check]:
    """A count of patients 'on <drug>' where nothing says currently or ever."""
    from clinbridge.engine._acceptance_on_drug import drug_count_filter

    f = drug_count_filter(plan)
    if f is None:
        return []
    if _TIME_FRAME.search(question):
        return []
    drug = f.concepts.describe() if f.concepts is not None else "the drug"
    found = alts.current_or_ever(ctx, plan, drug)
    if not _ON_DRUG.search(question):
        # the bare 'pts on amlodipine' names the group of patients ever given it, unless the
        # data makes the present real: someone is on it today and the two counts differ. Only a
        # 'now' the asker gives is a today: without one, today is the data's last date, where
        # every exposure the export cut short looks current
        if plan.now is None or not _bare_on(question, drug):
            return []
        current = found[0].value
        if not isinstance(current, int) or current <= 0 or current == ctx.value:
            return []
    return [
        _ambiguous(
            "time_frame_unique",
            f"'on {drug}' reads as currently on it (an exposure spanning today) or as ever "
            "exposed: say 'currently on' or 'ever given'",
            found,
        )
    ]


def _bare_on(question: str, drug: str) -> bool:
    """'pts on amlodipine', 'number of patients on a statin': 'on' directly before the drug."""
    first = next(iter(_WORD.findall(drug.lower())), "")
    if not first:
        return False
    return re.search(rf"\bon\s+(?:an?\s+|the\s+)?{re.escape(first)}", question, re.I) is not None


def _filter_ids(ctx: _Ctx, f: EventFilter) -> set[Any]:
    assert f.concepts is not None
    ids = _draft_ids(ctx.draft, f.concepts)
    if ids is None:
        ids = []
        for s in _streams_for(ctx.catalog, f.stream):
            ids += resolve_concept_ids(ctx.catalog, ctx.db, s, f.concepts)
    return set(ids)


def _kind_of_another(ctx: _Ctx, plan: QueryPlan) -> list[Check]:
    """Two conditions of one cohort where one is a kind of, or renames, the other."""
    positive = [
        f
        for f in plan.filters
        if isinstance(f, EventFilter) and f.concepts is not None and not f.negate
    ]
    seen: dict[str, EventFilter] = {}
    for f in positive:
        seen.setdefault(f.concepts.describe().lower(), f)  # type: ignore[union-attr]
    if len(seen) < 2:
        return []
    items = list(seen.items())
    ids = {label: _filter_ids(ctx, f) for label, f in items if f.window is None}
    for a, fa in items:
        for b, fb in items:
            if a == b:
                continue
            if fa.stream == fb.stream and ids.get(a) and ids.get(b):
                # b plain and wider than a: a implies it, the conjunction is a alone (harmless);
                # b plain and strictly narrower: the cohort shrinks to b's kinds
                kind = fb.value is None and ids[b] < ids[a]
                renames = False
            else:
                kind, renames = False, _words(a) < _words(b)
            if kind or renames:
                how = "is a kind of" if kind else "names again"
                return [
                    _ambiguous(
                        "conditions_distinct",
                        f"{b!r} {how} {a!r}, yet the reading asks for both: is {b!r} part of "
                        f"{a!r} (one condition) or a second condition?",
                        alts.one_or_two(ctx, plan, a, b),
                    )
                ]
    return []


def check_choices(ctx: _Ctx) -> list[Check]:
    """Failed checks for a choice the question leaves open and the data makes real."""
    plan, question = ctx.plan, ctx.question
    if plan is None or not question:
        return []
    from clinbridge.engine._acceptance_on_drug import on_drug_now
    from clinbridge.engine._acceptance_ranked import ranked_units
    from clinbridge.engine._acceptance_visits import check_visits

    out = _current_or_ever(ctx, plan, question)
    out = out or on_drug_now(ctx, _TIME_FRAME, _ON_DRUG)
    out = out or check_visits(ctx)
    out = out or ranked_units(ctx)
    out = out or _several_dates(ctx, plan, question)
    out = out or _several_ages(ctx, plan, question)
    out = out or _several_quantities(ctx, plan, question)
    return out or _kind_of_another(ctx, plan)
