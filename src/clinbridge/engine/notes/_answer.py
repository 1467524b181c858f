"""Answer a patient-level question from the patient's notes, quoting and citing the chunks.

Steps: read the question (:mod:`._question`) and the input it names (:mod:`._target`); keep the
patient's chunks inside the encounter scope and time window; rank them by similarity to the
question and the structured evidence already found (concept names the tables matched); run the
calculator extractor's rules (:class:`~clinbridge.calculators.extract.rules.RuleExtractor`,
negation by negspacy) on every chunk that mentions the target; then decide:

* a value: one value (after unit conversion) across the evidence, or the first/last by time when
  the question says so; different values otherwise abstain, naming them;
* yes/no: an affirmed mention → yes; only negated mentions → no; only family-history or
  uncertain mentions → abstain; no mention → abstain, saying how much was read. With
  ``unmentioned='complete'`` a curated finding (a calculator input with its synonyms) no note
  mentions is *not documented in the notes* (accept, False) when the notes are a complete
  note — they hold a history and a presentation section that would record it
  (:mod:`._sections`) and the input has no recency window (``note_recent_only``: 'immobilized
  for 3 days' is often only implied) — and still abstains otherwise; ``'always'`` answers so whatever the
  notes hold (the chart-review convention MedCalc-Bench labels follow). An ad hoc phrase
  always abstains.

A wrong answer is worse than an abstention: every accepted answer carries the quotes it rests on.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from clinbridge.engine.answer import Answer, Check, Provenance, Timings
from clinbridge.engine.notes._absence import global_negation, negated_after
from clinbridge.engine.notes._chunk import Chunk
from clinbridge.engine.notes._question import NoteQuestion, read_question
from clinbridge.engine.notes._sections import Section, complete_note_sections
from clinbridge.engine.notes._slips import UnitSlip, relaxed, unit_slip
from clinbridge.engine.notes._source import read_encounters
from clinbridge.engine.notes._target import Target, find_target
from clinbridge.settings import NotesUnmentioned as Unmentioned

if TYPE_CHECKING:
    from clinbridge.calculators.extract import Evidence
    from clinbridge.engine.notes._index import ChunkIndex

__all__ = ["answer_from_notes"]

TOP_K = 8
"""Chunks ranked by similarity that are read even without a literal mention of the target."""
_VALUE_METHODS = ("rule:term+", "rule:pressure-pair", "rule:age-pattern", "rule:quantity+")
_BODY_DIMENSIONS = ("[length]", "[mass]")


@dataclass(frozen=True)
class Found:
    """One piece of evidence in one chunk."""

    chunk: Chunk
    evidence: Evidence
    score: float
    ambiguous: bool = False
    """The same sentence goes on to another value of it at another time."""

    @property
    def span(self) -> tuple[int, int] | None:
        ev = self.evidence
        if ev.start is None or ev.end is None:
            return None
        return self.chunk.start + ev.start, self.chunk.start + ev.end

    def citation(self) -> dict[str, Any]:
        note = self.chunk.note
        return {
            "text": self.evidence.text,
            "chunk_id": self.chunk.chunk_id,
            "note_id": note.note_id,
            "source": note.source,
            "time": note.time.isoformat() if note.time else None,
            "patient_id": note.patient_id,
            "encounter_id": note.encounter_id,
            "span": list(self.span) if self.span else None,
            "chunk_span": [self.chunk.start, self.chunk.end],
            "assertion": self.evidence.assertion or None,
            "method": self.evidence.method,
            "value": self.evidence.value,
            "similarity": round(self.score, 3),
        }


def _in_window(c: Chunk, nq: NoteQuestion, starts: dict[str, dt.datetime | None]) -> bool:
    """The note was written, or its encounter began, inside the question's days."""

    def inside(t: dt.datetime | None) -> bool:
        return (
            t is not None
            and (nq.start is None or t.date() >= nq.start)
            and (nq.end is None or t.date() <= nq.end)
        )

    if nq.start is None and nq.end is None:
        return True
    return inside(c.note.time) or inside(starts.get(c.note.encounter_id or ""))


def _scoped(
    index: ChunkIndex, patient_id: str, nq: NoteQuestion, chunks: list[Chunk]
) -> tuple[list[Chunk], str | None, str]:
    """Chunks inside the scope and window, the abstention reason if none can be, and a note."""
    needs = nq.scope or nq.start is not None or nq.end is not None
    encs = read_encounters(index.db, index.catalog, patient_id) if needs else []
    starts = {e.encounter_id: e.start for e in encs}
    chunks = [c for c in chunks if _in_window(c, nq, starts)]
    if not nq.scope or (nq.scope.get("which") in (None, "all") and not nq.scope.get("type")):
        return chunks, None, "all of the patient's notes"
    kind = nq.scope.get("type")
    encs = [e for e in encs if kind is None or e.type == kind]
    which, n = nq.scope.get("which") or "all", nq.scope.get("n")
    if which == "first":
        encs = encs[:1]
    elif which == "last":
        encs = encs[-1:]
    elif which == "nth":
        encs = encs[int(n) - 1 : int(n)] if n and len(encs) >= int(n) else []
    if not encs:
        return [], f"the patient has no {which} {kind or ''} encounter".replace("  ", " "), ""
    ids = {e.encounter_id for e in encs}

    def inside(c: Chunk) -> bool:
        if c.note.encounter_id is not None:
            return c.note.encounter_id in ids
        t = c.note.time
        return t is not None and any(
            e.start is not None and e.start <= t <= (e.end or e.start) + dt.timedelta(days=1)
            for e in encs
        )

    periods = ", ".join(
        f"{e.encounter_id} ({e.type}, {e.start:%Y-%m-%d})" if e.start else e.encounter_id
        for e in encs
    )
    return [c for c in chunks if inside(c)], None, f"encounter {periods} (from the encounter table)"


def _extract(target: Target, ranked: list[tuple[Chunk, float]]) -> list[Found]:
    from clinbridge.calculators.extract.rules import NoteIndex, RuleExtractor, input_terms
    from clinbridge.engine.notes._target import normal, own_names

    terms = tuple(input_terms(target.input))
    rules = RuleExtractor()
    own = own_names(target) if target.input.type == "boolean" and target.strong else None
    found: list[Found] = []
    seen: set[tuple[str, int | None]] = set()
    for rank, (chunk, score) in enumerate(ranked):
        idx = NoteIndex(_readable(chunk.text, target))
        if rank >= TOP_K and not idx.mentions(terms):
            continue
        ev = rules.extract_input(idx, target.calculator, target.input, set())
        if ev is None or ev.start is None:
            continue
        if own is not None and normal(chunk.text[ev.start : ev.end]) not in target.strong:
            named = rules.extract_input(idx, target.calculator, own, set())
            if named is not None and named.start is not None:
                ev = named  # the finding's own name beside a related one ('Alzheimer's dementia')
        key = (chunk.note.note_id, chunk.start + (ev.start or 0))
        ev = replace(ev, text=chunk.text[ev.start : ev.end])  # quote the note as written
        if key in seen:
            continue  # the same mention read again in an overlapping chunk
        seen.add(key)
        if ev.value is True and ev.end is not None:
            cue = negated_after(idx.text, ev.end)
            if cue is not None:  # a negation after the finding that NegEx did not read
                ev = replace(
                    ev, value=False, assertion="negated", method=f"{ev.method} (post: {cue!r})"
                )
        hit = Found(chunk, ev, score)
        if target.input.type != "boolean" and _another_value(hit, target):
            hit = Found(chunk, ev, score, ambiguous=True)
        if _plausible(hit, target):
            found.append(hit)
    return found


_ION = re.compile(r"\b(?:Na|K|Cl|Ca|Mg|Li|Fe|Zn|Cu|P)(\d?[+\-\u2212])(?=[\s:,;)=]|$)")
"""An ion's charge written after its symbol ('Na+', 'Ca2+', 'Cl-'): the symbol names the analyte."""
_HYPO_HYPER = re.compile(r"\b(hypo|hyper)(?=[a-z]+a?emia\b)", re.I)
"""'hyponatremia of 130 mEq/L' gives the value of what the '-emia' word names ('natremia')."""
_UNIT_SPELLING = re.compile(r"(?<=\d)(\s?)(kgs|kgm|Kgs|KGs)\b")
"""'135 kgm', '60 kgs': kilograms as case notes spell them (read as 'kg', offsets kept)."""
_HYPHEN_UNIT = re.compile(r"(?<=\d)-(?=(cm|m|mm|kg|g|lb|lbs|in|ft)\b)")
"""'a 163-cm tall man': a number and its unit joined as one adjective."""


def _readable(text: str, target: Target) -> str:
    """``text`` with ion charges (where the bare symbol is one of the target's terms),
    hypo-/hyper- prefixes of a value's '-emia' word and the
    hyphen of an adjectival quantity blanked out, so the extractor's terms and quantities
    match them; every character keeps its offset, so spans still quote the note."""

    def blank(m: re.Match[str]) -> str:
        return " " * len(m.group(0))

    terms = set(_terms(target))

    def charge(m: re.Match[str]) -> str:
        symbol = m.group(0)[: m.start(1) - m.start()]
        if symbol not in terms:
            return m.group(0)  # 'K+' is the term itself where a bare 'K' is not one
        return symbol + " " * len(m.group(1))

    text = _ION.sub(charge, text)
    text = _UNIT_SPELLING.sub(lambda m: m.group(1) + "kg" + " " * (len(m.group(2)) - 2), text)
    text = _HYPHEN_UNIT.sub(" ", text)
    if target.input.type != "boolean":
        text = _HYPO_HYPER.sub(blank, text)
    return text


_CHANGE = re.compile(
    r"\b(lost|gained|loss of|gain of|(increase|decrease|drop|fall|rise|reduction|change)[a-z]* "
    r"(by|of)|up by|down by)\s*$",
    re.I,
)
"""A change in a quantity is not the quantity ('lost 17 kg of body weight')."""
_LINKING = {
    "is",
    "was",
    "were",
    "of",
    "at",
    "measured",
    "level",
    "levels",
    "value",
    "count",
    "noted",
    "recorded",
    "documented",
    "found",
    "to",
    "be",
    "been",
    "about",
    "approximately",
}
_GRADE = re.compile(r"\s?\+")
"""'albumin 1+' (a dipstick) is a grade, not a concentration."""
_EVENT_AGE = re.compile(r"\b(at|since|from|until|by|before|after|when|between)\s+(the\s+)?$", re.I)
"""'an infarction at 58 years of age', 'diagnosed at the age of 40': the age at an event,
not the patient's age."""
_HYPOTHETICAL = re.compile(
    r"\b(to prevent|prevent(s|ing|ion of)?|prophyla\w*|in case of|if|should|would|to avoid|"
    r"to exclude|risk of|in order to)\b[^.;]*$",
    re.I,
)
"""A finding named as what is to be prevented or avoided is not present."""


def _plausible(found: Found, target: Target) -> bool:
    """Guards the extractor's generous calculator reading takes no care of in a question."""
    ev, text = found.evidence, found.chunk.text
    if ev.start is None:
        return True
    before = text[max(0, ev.start - 40) : ev.start]
    if target.input.type == "boolean":
        return not (ev.value is True and _HYPOTHETICAL.search(before[-60:]))
    if _CHANGE.search(before) or _GRADE.match(text, ev.end or 0):
        return False
    if target.input.name == "age" and _EVENT_AGE.search(before):
        return False
    if "(unit assumed)" in ev.method or "(no unit)" in ev.method:
        words = re.findall(r"[A-Za-z]+", re.sub(r"[\d.].*$", "", ev.text))
        terms = {w.lower() for t in _terms(target) for w in re.findall(r"[A-Za-z]+", t)}
        return all(w.lower() in terms or w.lower() in _LINKING for w in words)
    return True


_STOP = re.compile(r"(?<=[^\d\s][.!?])\s+(?=[A-Z])")
"""A sentence end the sentencizer can miss after a unit ('11.3 mmol/l. Furthermore ...')."""
_TIME_CUE = re.compile(
    r"\b(then|later|subsequently|rose|fell|increas\w*|decreas\w*|dropp\w*|improv\w*|"
    r"worsen\w*|peak\w*|day|days|week|weeks|hours?|after|before|admission|discharge|"
    r"follow-?up|repeat\w*|previous\w*|baseline|from|to)\b",
    re.I,
)


_BASELINE = re.compile(
    r"\b(?:from\s+)?(?:an?\s+|the\s+|his\s+|her\s+)?(?:usual\s+)?baseline"
    r"(?:\s+value)?(?:\s+(?:of|was|is))?\s*:?\s*(?:about|approximately|~)?\s*$",
    re.I,
)
"""A value named as the patient's baseline is a reference for the reading before it."""


def _another_value(found: Found, target: Target) -> bool:
    """The same sentence goes on, past a word of time or change, to a second value in the
    input's unit ('0.8 mg/dL on admission and 1.9 mg/dL on day three', 'rose to 2.1 mg/dL'):
    which one the question means is not known. A list of other analytes is not that."""
    from clinbridge.calculators.extract.text import find_quantities, sentences
    from clinbridge.calculators.units import convert

    ev, text, unit = found.evidence, found.chunk.text, target.input.unit
    if ev.end is None or not unit or not isinstance(ev.value, list):
        return False
    end = next((b for a, b in sentences(text) if a <= ev.end - 1 < b), len(text))
    rest = _STOP.split(text[ev.end : end], maxsplit=1)[0]
    if re.match(r"[.!?]\s+[A-Z]", rest):
        return False  # the sentence ends right after the value ('11.3 mmol/l. Furthermore')
    prev = 0
    for q in find_quantities(rest):
        if not _TIME_CUE.search(rest[: q.start]):
            prev = q.end
            continue
        if _BASELINE.search(rest[: q.start]):
            continue  # 'of 2.79 mg/dL from a baseline of 2.15': a reference, not another reading
        gap = rest[prev : q.start]
        prev = q.end
        if _other_analyte(target).search(gap):
            continue  # '...; CBC showed hemoglobin at 9.5 g/dL': another analyte's value
        written = q.after.split()[0].rstrip(".,;") if q.after.split() else ""
        try:
            convert(q.value, written, unit, molar_mass=target.input.molar_mass)
        except Exception:
            continue
        return True
    return False


def _other_analyte(target: Target) -> re.Pattern[str]:
    """Names of the measurements the extractor's vocabulary knows, other than the target's."""
    return _analytes_but(frozenset(t.lower() for t in _terms(target)))


@functools.cache
def _analytes_but(own: frozenset[str]) -> re.Pattern[str]:
    from clinbridge.calculators.extract.rules import _synonyms

    names = {n for k, vs in _synonyms().items() for n in (k, *vs) if len(n) > 3}
    words = sorted((n for n in names if n.lower() not in own), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b", re.I)


def _terms(target: Target) -> list[str]:
    from clinbridge.calculators.extract.rules import input_terms

    return input_terms(target.input)


def _value_ok(target: Target, ev: Evidence) -> bool:
    if ev.method.startswith(_VALUE_METHODS):
        return True
    if ev.method == "rule:quantity-in-unit" and target.input.unit:
        from clinbridge.calculators.units import normalize_unit, registry

        dim = str(registry().Quantity(1, normalize_unit(target.input.unit)).dimensionality)
        return dim in _BODY_DIMENSIONS
    return ev.method == "rule:feet-inches"


def _number(target: Target, ev: Evidence) -> tuple[float, str | None]:
    """The value in the input's own unit when it has one (else as written)."""
    from clinbridge.calculators.units import convert

    value, unit = (ev.value[0], ev.value[1]) if isinstance(ev.value, list) else (ev.value, None)
    i = target.input
    if unit and i.unit and unit != i.unit:
        got = convert(
            float(value),
            str(unit),
            i.unit,
            molar_mass=i.molar_mass,
            valence=i.valence,
            iu_amount=i.iu_amount,
        )
        return float(f"{got:.6g}"), i.unit
    return float(value), unit or i.unit


def _decide_value(
    nq: NoteQuestion, target: Target, found: list[Found]
) -> tuple[Any, list[Found], str | None]:
    good = [f for f in found if _value_ok(target, f.evidence)]
    if not good:
        return None, [], f"no note in scope gives a value for {nq.target!r}"
    several = [f for f in good if f.ambiguous]
    if several and nq.order is None:
        return (
            None,
            several,
            (
                f"a note gives {nq.target!r} at more than one time in one sentence "
                f"({several[0].evidence.text[:80]!r}...); ask for the first or the last"
            ),
        )
    values = {id(f): _number(target, f.evidence) for f in good}
    distinct = {round(v[0], 6) for v in values.values()}
    if len(distinct) == 1:
        return values[id(good[0])], good, None
    timed = [f for f in good if f.chunk.note.time is not None]
    if nq.order and timed:
        pick = (min if nq.order == "first" else max)(
            timed, key=lambda f: f.chunk.note.time or dt.datetime.min
        )
        same_time = [f for f in timed if f.chunk.note.time == pick.chunk.note.time]
        if len({round(values[id(f)][0], 6) for f in same_time}) == 1:
            return values[id(pick)], [pick], None
    shown = ", ".join(
        f"{values[id(f)][0]:g} ({f.chunk.note.time:%Y-%m-%d})"
        if f.chunk.note.time
        else f"{values[id(f)][0]:g}"
        for f in good[:6]
    )
    return None, good, f"the notes give different values for {nq.target!r}: {shown}"


def _decide_finding(
    nq: NoteQuestion,
    target: Target,
    found: list[Found],
    chunks: list[Chunk],
    unmentioned: Unmentioned,
    sections: tuple[list[Section], list[str]],
) -> tuple[Any, list[Found], str | None]:
    from clinbridge.engine.notes._target import normal

    searched = len(chunks)

    def named(f: Found) -> bool:
        ev = f.evidence
        return ev.start is not None and normal(f.chunk.text[ev.start : ev.end]) in target.strong

    direct = [f for f in found if named(f)]
    affirmed = [f for f in direct if f.evidence.value is True]
    negated = [f for f in direct if "negated" in f.evidence.assertion]
    if affirmed:
        return True, affirmed, None
    if negated:
        return False, negated, None
    if not found or (direct and len(direct) == len(found)):
        denial = _global_denial(nq, target, chunks)
        if denial is not None:
            return False, [denial], None
    if found and not direct:
        words = sorted({f.chunk.text[f.evidence.start or 0 : f.evidence.end or 0] for f in found})
        return (
            None,
            found,
            (
                f"the notes mention only findings related to {nq.target!r} "
                f"({', '.join(repr(w) for w in words[:4])}), not {nq.target!r} itself"
            ),
        )
    if found:
        how = ", ".join(sorted({f.evidence.assertion for f in found}))
        return None, found, f"the notes mention {nq.target!r} only as {how}"
    why = f"no note in scope mentions {nq.target!r} ({searched} chunks read)"
    if not (target.curated and searched):
        return None, [], why
    if unmentioned == "always":
        return False, [], None
    notes = len({c.note.note_id for c in chunks})
    looked = ", ".join(repr(t) for t in _terms(target)[:6])
    said = (
        f"not documented: no mention of {nq.target!r} (looked for {looked}) in {searched} "
        f"chunk(s) of {notes} note(s) searched"
    )
    if unmentioned == "abstain":
        held = (
            "the notes hold a history and a presentation section"
            if sections[0] and not sections[1]
            else f"the notes have no {' or '.join(sections[1])} section"
        )
        return (
            None,
            [],
            f"{said}; {held}. An unmentioned finding is not read as 'no' (setting "
            "notes_unmentioned)",
        )
    if target.input.note_recent_only:
        return (
            None,
            [],
            (
                f"{said}; a criterion with a recency window is not one a history or an "
                "examination records by name (it is often only implied), so its absence is not read"
            ),
        )
    if not sections[1]:
        return False, [], None
    missing = " or ".join(sections[1])
    return (
        None,
        [],
        f"{said}, and they are not a complete note: no {missing} section that would record it",
    )


_SPECIMEN = re.compile(
    r"\b(urine|urinary|CSF|cerebrospinal|fluid|pleural|ascitic|peritoneal|dipstick|stool|"
    r"sputum|drain|dialysate|24-?h(our)?)\b",
    re.I,
)


def _slipped(
    target: Target, ranked: list[tuple[Chunk, float]]
) -> tuple[list[Found], list[UnitSlip]]:
    """Values whose written unit is a metric-prefix slip, re-read in the input's unit."""
    found, slips = [], []
    for f in _extract(relaxed(target), ranked):
        before = f.chunk.text[max(0, (f.evidence.start or 0) - 60) : f.evidence.start or 0]
        if _SPECIMEN.search(before):
            continue  # 'urine albumin 3 mg/dL' is plausible as written, for another specimen
        slip = unit_slip(target, f.evidence)
        if slip is not None:
            found.append(Found(f.chunk, slip.evidence, f.score, f.ambiguous))
            slips.append(slip)
    return found, slips


def _global_denial(nq: NoteQuestion, target: Target, chunks: list[Chunk]) -> Found | None:
    """A statement of absence that covers the finding without naming it (:mod:`._absence`)."""
    from clinbridge.calculators.extract import Evidence

    names = [nq.target, target.input.label, *target.input.aliases]
    got = global_negation(names, sorted(chunks, key=lambda c: (c.note.note_id, c.start)))
    if got is None:
        return None
    ev = Evidence(
        target.input.name,
        False,
        got.start,
        got.end,
        got.text,
        f"rule:global-negation ({got.kind})",
        assertion="negated (global)",
    )
    return Found(got.chunk, ev, 0.0)


def answer_from_notes(
    question: str,
    patient_id: str,
    index: ChunkIndex,
    *,
    structured: Answer | None = None,
    unmentioned: Unmentioned = "abstain",
) -> Answer | None:
    """The notes' answer to a patient-level question (None when it is not one notes can answer:
    neither a value nor a yes/no question, or the source has no notes).

    Args:
        question: The question as asked.
        patient_id: The patient, as the user names them.
        index: The database's chunk index.
        structured: The tables' answer, when there is one: its plan's encounter scope and time
            window bound the notes, and the concepts it matched steer retrieval.
        unmentioned: A curated finding no note in scope mentions: ``abstain`` (saying so),
            ``complete`` (*not documented*, False, when the notes hold a history and a
            presentation section, else abstain) or ``always`` (*not documented*, False).
    """
    start = time.perf_counter()
    nq = read_question(question, structured.plan if structured is not None else None)
    if nq is None:
        return None
    every = index.chunks(patient_id)
    if not every:
        return None
    target = find_target(nq.target, nq.kind, nq.unit)
    chunks, scope_error, scope_text = _scoped(index, patient_id, nq, every)
    checks = [
        Check(
            name="notes_in_scope",
            passed=bool(chunks),
            detail=(
                scope_error
                if scope_error
                else f"{len(chunks)} of {len(every)} chunks in scope: {scope_text}"
            ),
            code="" if chunks else "scope_empty",
        )
    ]
    query = " ".join([question, *_structured_terms(structured)])
    ranked = index.rank(patient_id, query, chunks)
    found = _extract(target, ranked)
    if nq.kind == "value" and not any(_value_ok(target, f.evidence) for f in found):
        found, slips = _slipped(target, ranked)
        checks.extend(
            Check(
                name="unit_as_written",
                passed=True,
                detail=sl.detail(target.input.label, target.input.unit or "", *target.input.range),
            )
            for sl in slips[:1]
            if target.input.range
        )
    sections: tuple[list[Section], list[str]] = ([], [])
    if nq.kind == "value":
        value, cited, why = _decide_value(nq, target, found)
    else:
        if unmentioned != "always":
            sections = complete_note_sections(chunks)
        value, cited, why = _decide_finding(nq, target, found, chunks, unmentioned, sections)
    if scope_error or not chunks:
        value, why = None, scope_error or "no note of the patient is inside the question's scope"
    details: dict[str, Any] = {
        "citations": [f.citation() for f in cited[:6]],
        "note_answer": {
            "kind": nq.kind,
            "target": nq.target,
            "input": target.via,
            "scope": scope_text or scope_error,
            "chunks_in_scope": len(chunks),
            "chunks_total": len(every),
            "documented": bool(cited),
            "retrieval": [
                {"chunk_id": c.chunk_id, "similarity": round(s, 3)} for c, s in ranked[:TOP_K]
            ],
            "window": [
                nq.start.isoformat() if nq.start else None,
                nq.end.isoformat() if nq.end else None,
            ],
        },
    }
    if not cited and ((value is False and why is None) or (why or "").startswith("not documented")):
        details["note_answer"]["not_documented"] = _not_documented(
            nq, target, len(chunks), sections[0], answered=value is False
        )
    if structured is not None:
        details["structured"] = {
            "decision": structured.decision,
            "value": structured.value,
            "reason": structured.reason,
        }
    return _answer(question, structured, nq, value, why, details, checks, start)


def _not_documented(
    nq: NoteQuestion,
    target: Target,
    searched: int,
    sections: list[Section],
    *,
    answered: bool = True,
) -> dict[str, Any]:
    """What a *not documented* answer rests on: the names looked for, how much was read and
    the sections of a complete note that would have recorded the finding."""
    where = "; ".join(
        f"{s.name} section ({s.chunk.note.note_id}: {s.chunk.text[s.start : s.end]!r})"
        for s in sections
    )
    if not answered:
        how = f"sections present: {where}" if sections else "no history or presentation section"
        tail = f"({how}); not read as 'no'"
    elif sections:
        tail = f"of a complete note, searched: {where}"
    else:
        tail = "(absent by convention)"
    summary = (
        f"not documented in the notes: no mention of {nq.target!r} in {searched} chunk(s) {tail}"
    )
    return {
        "answer": "not documented in the notes",
        "summary": summary,
        "terms": _terms(target)[:12],
        "chunks_read": searched,
        "sections": [s.cite() for s in sections],
    }


def _structured_terms(structured: Answer | None) -> list[str]:
    out: list[str] = []
    for cs in (structured.concept_sets if structured is not None else [])[:3]:
        for c in (cs.get("concepts") or [])[:3] if isinstance(cs, dict) else []:
            name = c.get("name") if isinstance(c, dict) else None
            if name:
                out.append(re.sub(r"\s*\([^)]*\)$", "", str(name)))
    return out


def _answer(
    question: str,
    structured: Answer | None,
    nq: NoteQuestion,
    value: Any,
    why: str | None,
    details: dict[str, Any],
    checks: list[Check],
    start: float,
) -> Answer:
    timings = Timings()
    timings.steps_ms["notes"] = round((time.perf_counter() - start) * 1000, 3)
    prov = structured.provenance.model_copy() if structured is not None else Provenance()
    prov.question = question
    prov.understanding = "parser+notes"
    if why is not None or value is None:
        checks.append(Check(name="note_evidence", passed=False, detail=why or "", code="no_data"))
        return Answer(
            decision="abstain",
            reason=why,
            reason_code="no_data",
            details=details,
            checks=checks,
            timings=timings,
            provenance=prov,
        )
    if isinstance(value, tuple):
        value, details["unit"] = value
        written = details["citations"][0].get("value") if details["citations"] else None
        if written is not None:
            details["as_written"] = written
    absent = details["note_answer"].get("not_documented")
    if absent:
        detail = absent["summary"]
    else:
        detail = f"{len(details['citations'])} cited passage(s)"
    checks.append(Check(name="note_evidence", passed=True, detail=detail))
    return Answer(
        decision="accept",
        value=value,
        shape="scalar",
        columns=["value"],
        rows=[[value]],
        details=details,
        checks=checks,
        timings=timings,
        provenance=prov,
    )
