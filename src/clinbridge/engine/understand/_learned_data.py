"""Silver training data for the learned reader: tagged questions with their intent.

Two sources, neither written against a dev set:

* **generated**: question patterns for each plan shape (the shapes of ``QueryPlan``: counts,
  aggregates of a measurement, proportions, one patient's first/last value or date, yes/no,
  lists, group-by, time windows), filled with the concept names of the project's synthetic
  generators (``clinbridge.synthetic``) and of the EHRSQL silver file, numbers with units,
  comparators, time expressions, identifiers and encounter types; fillers, hedges and
  parentheticals vary the wording. Spans are known by construction.
* **EHRSQL-2024 train** (``data/reader/ehrsql_silver.jsonl.gz``, derived once by
  ``scripts/build_ehrsql_silver.py``; CC-BY-4.0, see that folder's SOURCE.md): each question's
  intent read from the shape of its gold SQL, and the SQL's literals (item and drug names,
  patient ids, numbers) aligned back to the question as spans.

Span kinds (BIO): CONCEPT (a measure or clinical concept), VALUE, UNIT, COMP (comparator), TIME,
ID (an identifier), ENC (an encounter type), AGG (aggregate words), GROUP (group-by); anything
else is filler (O).
"""

from __future__ import annotations

import gzip
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

__all__ = [
    "INTENTS",
    "SPAN_KINDS",
    "TAGS",
    "Example",
    "ehrsql_examples",
    "generated_examples",
    "silver",
]

SPAN_KINDS = ("CONCEPT", "VALUE", "UNIT", "COMP", "TIME", "ID", "ENC", "AGG", "GROUP")
TAGS = ("O", *[f"{p}-{k}" for k in SPAN_KINDS for p in ("B", "I")])
INTENTS = (
    "count",
    "mean",
    "median",
    "min",
    "max",
    "sum",
    "proportion",
    "first",
    "last",
    "date",
    "exists",
    "list",
    "time_between",
    "unanswerable",
)


@dataclass
class Example:
    """One silver question: text, character spans ``(start, end, kind)`` and the intent."""

    text: str
    spans: list[tuple[int, int, str]] = field(default_factory=list)
    intent: str | None = None
    """None when the source does not say (the intent loss skips it)."""
    source: str = "generated"
    names: dict[str, list[str]] = field(default_factory=dict)
    """Concept names by kind (drug, lab, cond, proc) its SQL used (EHRSQL rows)."""

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "spans": self.spans, "intent": self.intent, "src": self.source}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Example:
        spans = [(int(a), int(b), str(k)) for a, b, k in d["spans"]]
        return cls(d["text"], spans, d.get("intent"), d.get("src", ""), d.get("names") or {})


# -- word lists shared by both sources (rule labels for closed-class words) -------------------

_RULE_PHRASES: dict[str, tuple[str, ...]] = {
    "AGG": (
        "how many",
        "number of",
        "count",
        "average",
        "mean",
        "median",
        "minimum",
        "maximum",
        "lowest",
        "highest",
        "smallest",
        "largest",
        "total",
        "sum of",
        "proportion",
        "percentage",
        "fraction",
        "share",
        "first",
        "last",
        "latest",
        "most recent",
        "earliest",
        "initial",
        "most frequent",
        "most common",
        "top",
    ),
    "COMP": (
        "more than",
        "less than",
        "greater than",
        "fewer than",
        "at least",
        "at most",
        "above",
        "below",
        "over",
        "under",
        "or more",
        "or higher",
        "or greater",
        "or above",
        "or less",
        "or lower",
        "or below",
        "exceeding",
        "between",
        ">=",
        "<=",
        ">",
        "<",
    ),
    "ENC": (
        "hospital visit",
        "hospital encounter",
        "hospital stay",
        "admission",
        "inpatient stay",
        "inpatient visit",
        "icu stay",
        "icu",
        "intensive care",
        "emergency room visit",
        "emergency visit",
        "er visit",
        "ed visit",
        "outpatient visit",
        "clinic visit",
        "office visit",
    ),
    "GROUP": (
        "by sex",
        "by gender",
        "by year",
        "per year",
        "each year",
        "by age group",
        "per age group",
        "by decade of age",
        "by encounter type",
        "per visit type",
        "for each drug",
        "for each condition",
        "broken down by sex",
        "split by gender",
    ),
}
_UNITS = (
    "mg/dl",
    "g/dl",
    "mmol/l",
    "mmhg",
    "mm hg",
    "bpm",
    "kg",
    "kg/m2",
    "%",
    "years",
    "year old",
    "years old",
    "y/o",
    "mg",
    "ml",
    "meq",
    "units",
    "beats per minute",
    "cm",
    "days",
)
_TIME_RE = re.compile(
    r"\b(?:(?:since|before|after|in|during|from|until|by|on|within)\s+)?"
    r"(?:(?:the\s+)?(?:last|past|previous|next|first)\s+(?:\d+\s+)?(?:days?|weeks?|months?|years?)"
    r"|\d+\s+(?:days?|weeks?|months?|years?)\s+ago"
    r"|(?:this|last|current)\s+(?:year|month|week)"
    r"|\d{1,2}/(?:\d{4}|this year|last year)"
    r"|\d{4}-\d{2}(?:-\d{2})?"
    r"|(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?"
    r"|sep(?:tember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\s+\d{4}"
    r"|(?:19|20|21)\d{2})\b",
    re.IGNORECASE,
)


def _word_spans(text: str, phrases: tuple[str, ...], kind: str) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    low = text.lower()
    for p in sorted(phrases, key=len, reverse=True):
        pat = re.escape(p)
        pat = (
            (r"(?<![\w])" if p[0].isalnum() else "")
            + pat
            + (r"(?![\w])" if p[-1].isalnum() else "")
        )
        out.extend((m.start(), m.end(), kind) for m in re.finditer(pat, low))
    return out


def rule_spans(text: str) -> list[tuple[int, int, str]]:
    """Closed-class spans (aggregate, comparator, encounter, group, unit, time) by word list."""
    spans: list[tuple[int, int, str]] = []
    for kind, phrases in _RULE_PHRASES.items():
        spans += _word_spans(text, phrases, kind)
    spans += _word_spans(text, _UNITS, "UNIT")
    spans += [(m.start(), m.end(), "TIME") for m in _TIME_RE.finditer(text)]
    return spans


def merge_spans(
    strong: list[tuple[int, int, str]], weak: list[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """Strong spans first; a weak span is kept only where it overlaps nothing already kept."""
    kept: list[tuple[int, int, str]] = []
    for s in [*strong, *sorted(weak, key=lambda s: s[0] - s[1])]:
        if all(s[1] <= k[0] or s[0] >= k[1] for k in kept):
            kept.append(s)
    return sorted(kept)


# -- generated questions ----------------------------------------------------------------------

_SLOT = re.compile(r"\{(\w+)\}|\[([A-Z]+) ([^\]]+)\]")
_CHOICE = re.compile(r"\(([^()]*\|[^()]*)\)")


def _render(template: str, fill: dict[str, tuple[str, str]], rng: random.Random) -> Example:
    """``{slot}`` → ``fill[slot]`` = (text, kind); ``[KIND words]`` a fixed span; ``(a|b)`` a
    choice of filler."""
    while True:  # choices first: a choice may hold slots
        m = _CHOICE.search(template)
        if m is None:
            break
        template = template[: m.start()] + rng.choice(m.group(1).split("|")) + template[m.end() :]
    text = ""
    spans: list[tuple[int, int, str]] = []
    pos = 0
    for m in _SLOT.finditer(template):
        text += template[pos : m.start()]
        pos = m.end()
        if m.group(1):
            piece, kind = fill[m.group(1)]
        else:
            piece, kind = rng.choice(m.group(3).split("|")), m.group(2)
        if piece and kind != "O":
            spans.append((len(text), len(text) + len(piece), kind))
        text += piece
    text += template[pos:]
    # collapse doubled spaces, shifting spans
    out, shift, keep = "", [], 0
    for i, ch in enumerate(text):
        if ch == " " and (not out or out[-1] == " "):
            keep += 1
        else:
            out += ch
        shift.append(keep)
        del i
    spans = [(a - shift[a], b - shift[b - 1], k) for a, b, k in spans]
    stripped = out.rstrip()
    return Example(stripped[0].upper() + stripped[1:], spans)


_LABS_FALLBACK = (
    "hemoglobin",
    "creatinine",
    "glucose",
    "potassium",
    "sodium",
    "hba1c",
    "ldl cholesterol",
    "systolic blood pressure",
    "heart rate",
    "body weight",
    "bmi",
    "platelet count",
)


def _concepts() -> dict[str, list[str]]:
    """Concept names by kind from the synthetic generators (and the EHRSQL silver file)."""
    labs: list[str] = list(_LABS_FALLBACK)
    conds: list[str] = []
    drugs: list[str] = []
    try:
        from clinbridge.synthetic import _omop_vocab as v

        labs += [re.sub(r"\s*\[[^\]]*\]", "", lab.name).lower() for lab in v.LABS.values()]
        conds += [name.lower() for _, name, _ in v.CONDITIONS.values()]
        drugs += [d.ingredient.lower() for d in v.DRUGS.values()]
        drugs += [d.product.lower() for d in list(v.DRUGS.values())[:6]]
    except ImportError:  # the generators are part of the package; be safe in a slim install
        pass
    procs: list[str] = []
    pools = {"drug": drugs, "lab": labs, "cond": conds, "proc": procs}
    for ex in _ehrsql_rows():
        for kind, found in ex.names.items():
            pools[kind].extend(n.lower() for n in found if len(n) <= 60)
    conds += [
        "gastrointestinal hemorrhage",
        "atrial fibrillation",
        "pneumonia",
        "sepsis",
        "chronic kidney disease",
        "asthma",
        "copd",
        "myocardial infarction",
        "osteoarthritis",
        "depression",
        "acute kidney injury",
        "stroke",
    ]
    conds += procs[: len(procs) // 3]  # some procedures where a condition goes ("had a ...")
    return {k: sorted(set(v)) for k, v in {"lab": labs, "cond": conds, "drug": drugs}.items()}


_HEDGE = "(|please |can you tell me |could you check |i need to know |quick q: |)"
_EVER = "(|ever |at any point |at some point |)"
_PAREN = "{paren}"
_PARENTHETICALS = (
    "",
    "",
    " (counting every record)",
    " (any type)",
    " (if recorded)",
    " (as documented)",
    " (any kind)",
)

# (intent, template). Slots: lab cond drug v u cmp t id enc grp.
_TEMPLATES: tuple[tuple[str, str], ...] = (
    (
        "count",
        _HEDGE
        + "[AGG how many|number of|count of|count the] (patients|people|pts|women|men|subjects) (have|had|were|with) "
        + _EVER
        + "(been diagnosed with |a diagnosis of |)"
        + "{cond}"
        + _PAREN
        + "{tq}",
    ),
    (
        "count",
        _HEDGE
        + "[AGG how many|number of] (patients|people|pts) (were|have been|got) "
        + _EVER
        + "(prescribed|given|exposed to|on|treated with) {drug}{tq}",
    ),
    (
        "count",
        "[AGG how many|number of|count] (patients|pts|people) (had|with|showing) (a |an |)"
        + "{lab} {cmp} {v}{su}{tq}",
    ),
    ("count", "[AGG how many|number of] {enc}s (were there|did we have|occurred|are recorded){tq}"),
    (
        "count",
        "[AGG how many|number of] (patients|pts) (had|with) (a |an |at least one |)" + "{enc}{tq}",
    ),
    (
        "count",
        "[AGG how many|number of] (patients|people) (over|above|older than|aged over) {v} [UNIT years|years old|y/o] (have|had) {cond}",
    ),
    (
        "count",
        "[AGG how many] (times|prescriptions|records) (of|for) {drug} (were|did) (patient|pt) {id} (get|receive|have){tq}",
    ),
    (
        "count",
        "(in how many|for how many) (patients|cases) (was|is) {cond} (recorded|coded|documented){tq}",
    ),
    (
        "mean",
        "(what is|what was|what's|give me|show) the [AGG average|mean|avg] {lab} (of|for|among|in) (patients|women|men|pts) (with|who had|diagnosed with) {cond}{tq}",
    ),
    ("mean", "[AGG average|mean] {lab}{tq}"),
    (
        "mean",
        "(what is|what's) the [AGG average|mean] (age|length of stay) (of|for) (patients|people) (with|on|taking) ({cond}|{drug})",
    ),
    (
        "mean",
        "(what was|what's) patient {id}'s [AGG average|mean] {lab} (during|on|in) (the|their) (last|first|current) {enc}",
    ),
    (
        "median",
        "(what is|what's|give) the [AGG median] {lab} (among|in|for) (patients|pts) (on|taking|prescribed) {drug}{tq}",
    ),
    ("median", "[AGG median] (days supply|length of stay|duration) (of|for) {drug}{tq}"),
    (
        "min",
        "(what is|what was|what's) the [AGG lowest|minimum|smallest] {lab} (recorded|measured|seen|) (for|in) (patient|pt) {id}{tq}",
    ),
    ("min", "[AGG minimum|lowest] {lab} (among|of) (patients|all patients) (with|having) {cond}"),
    (
        "max",
        "(what is|what was|what's) the [AGG highest|maximum|peak|largest] {lab} (recorded|measured|ever recorded|) (for|in|of) (patient|pt) {id}{tq}",
    ),
    ("max", "[AGG maximum|highest] {lab} (in|during) (the|) {enc}(s|){tq}"),
    (
        "sum",
        "(what is|what was) the [AGG total|sum of|cumulative] (dose|amount|quantity) of {drug} (given to|prescribed to|for) (patient|pt) {id}{tq}",
    ),
    (
        "proportion",
        "(what|which) [AGG proportion|percentage|fraction|share] of (patients|pts|people) (with|diagnosed with) {cond} (were|are|got) (prescribed|on|given) {drug}{tq}",
    ),
    (
        "proportion",
        "[AGG percentage|proportion] of (women|men|patients) (with|who have) {cond}{tq}",
    ),
    (
        "proportion",
        "(what|which) [AGG percent|proportion] of (patients|pts) (had|have) (a |an |)"
        + "{lab} {cmp} {v}{su}",
    ),
    (
        "first",
        "(what was|what is|give me) (the|) [AGG first|initial|earliest] {lab} (value|result|reading|) (of|for) (patient|pt) {id}{tq}",
    ),
    ("first", "(patient|pt) {id}(:|,|) [AGG first|initial] {lab}"),
    (
        "last",
        "(what was|what is|what's|show) (the|) [AGG last|latest|most recent] {lab} (value|result|reading|measurement|) (of|for) (patient|pt) {id}{tq}",
    ),
    (
        "last",
        "[AGG last|latest|most recent] {lab} (for|of) (patient|pt) {id} (on|during|in) (the|their) (last|current|first) {enc}",
    ),
    ("last", "(patient|pt) {id}(:|,|) [AGG latest|last|most recent] {lab}"),
    (
        "date",
        "(when was|when did|what date was|on what date was) (patient|pt) {id} (first|last|) (diagnosed with|prescribed|given|admitted for) ({cond}|{drug})",
    ),
    (
        "date",
        "(when|what date) (was|did) (the|) [AGG first|last|latest|most recent] {lab} (taken|measured|drawn|recorded) (for|of) (patient|pt) {id}{tq}",
    ),
    ("date", "(when was|on which date was) (patient|pt) {id}'s [AGG last|first|most recent] {enc}"),
    (
        "exists",
        "(has|did|was|is) (patient|pt) {id} (ever |)(been |)(diagnosed with|prescribed|given|have|had|on) ({cond}|{drug}){tq}",
    ),
    (
        "exists",
        "(is there any|was there any|any) (record of|evidence of|) ({cond}|{drug}) (for|in) (patient|pt) {id}{tq}",
    ),
    (
        "exists",
        "(does|did) (patient|pt) {id} (have|had) (a |an |any |)" + "{lab} {cmp} {v}{su}{tq}",
    ),
    (
        "list",
        "(which|what) (drugs|medications|meds) (was|has|were) (patient|pt) {id} (prescribed|given|on){tq}",
    ),
    (
        "list",
        "(list|show|name) (the|all) (conditions|diagnoses|drugs|medications) (of|for|recorded for) (patient|pt) {id}{tq}",
    ),
    ("list", "(which|what) (patients|pts) (had|have) {cond} (and|but not) {cond2}{tq}"),
    (
        "list",
        "(list|show me) (the|) [AGG top|] (five|three|ten|5|3) [AGG most common|most frequent] (diagnoses|drugs|conditions|lab tests){tq}",
    ),
    (
        "list",
        "(list|give me|show) (all |the |)(values of|readings of|) {lab} (for|of) (patient|pt) {id}{tq}",
    ),
    ("count", "[AGG how many|number of] (patients|pts) (with|diagnosed with) {cond} {grp}"),
    ("count", "[AGG count|number] of {enc}s {grp}{tq}"),
    ("mean", "[AGG average|mean] {lab} {grp}{tq}"),
    (
        "time_between",
        "(how many days|how long|how much time) (passed|elapsed|was there|) (between|from) (the|) (first|last|) ({cond}|{drug}) (and|to|until) (the|) (first|last|) ({cond2}|{enc}) (for|of|in) (patient|pt) {id}",
    ),
    (
        "time_between",
        "(how many days|how long) (has it been|since) (patient|pt) {id}('s| was) (last|first) (admitted|{enc}|diagnosed with {cond})",
    ),
    (
        "time_between",
        "(how long|how many days) (was|did) (patient|pt) {id}('s|) (last|first) {enc} (last|take|)",
    ),
)


def _fill(rng: random.Random, names: dict[str, list[str]]) -> dict[str, tuple[str, str]]:
    lab = rng.choice(names["lab"])
    cond, cond2 = rng.sample(names["cond"], 2)
    num = rng.choice([str(rng.randint(1, 300)), f"{rng.randint(1, 20)}.{rng.randint(0, 9)}"])
    unit = rng.choice([u for u in _UNITS if u not in {"years", "year old", "years old", "y/o"}])
    pid = rng.choice(
        [
            str(rng.randint(100, 99_999_999)),
            f"{rng.randrange(16**8):08x}-{rng.randrange(16**4):04x}-{rng.randrange(16**4):04x}",
            f"P{rng.randint(10, 9999)}",
        ]
    )
    enc = rng.choice(_RULE_PHRASES["ENC"])
    time = rng.choice(
        [
            f"in {rng.randint(2005, 2024)}",
            f"since {rng.randint(2005, 2024)}",
            f"in the last {rng.randint(2, 24)} months",
            f"in the past {rng.randint(2, 10)} years",
            "last year",
            "this year",
            f"since {rng.randint(1, 12):02d}/{rng.randint(2010, 2024)}",
            f"before {rng.randint(2005, 2024)}",
            f"{rng.randint(2, 90)} days ago",
            f"between {rng.randint(2005, 2012)} and {rng.randint(2013, 2024)}",
            f"after {rng.choice(['jan', 'march', 'june', 'october'])} {rng.randint(2010, 2024)}",
        ]
    )
    cmp_ = rng.choice(
        [
            "over",
            "above",
            "more than",
            "greater than",
            "below",
            "under",
            "less than",
            "at least",
            ">",
            ">=",
            "<",
        ]
    )
    fill = {
        "lab": (lab, "CONCEPT"),
        "cond": (cond, "CONCEPT"),
        "cond2": (cond2, "CONCEPT"),
        "drug": (rng.choice(names["drug"]), "CONCEPT"),
        "v": (num, "VALUE"),
        "u": (unit, "UNIT"),
        "cmp": (cmp_, "COMP"),
        "t": (time, "TIME"),
        "id": (pid, "ID"),
        "enc": (enc, "ENC"),
        "grp": (rng.choice(_RULE_PHRASES["GROUP"]), "GROUP"),
        "paren": (rng.choice(_PARENTHETICALS), "O"),
    }
    return fill


def generated_examples(n: int, *, seed: int = 0) -> Iterator[Example]:
    """``n`` generated questions (deterministic for a seed)."""
    rng = random.Random(seed)
    names = _concepts()
    for _ in range(n):
        intent, template = rng.choice(_TEMPLATES)
        template = template.replace("{su}", rng.choice(["", " {u}", " {u}"]))
        template = template.replace("{tq}", rng.choice(["", "", " {t}", " {t}?", "?", "?"]))
        fill = _fill(rng, names)
        ex = _render(template, fill, rng)
        # a trailing comparator phrase ("130 or more") is a comparator too
        ex.spans = merge_spans(ex.spans, [s for s in rule_spans(ex.text) if s[2] == "COMP"])
        ex.intent = intent
        if rng.random() < 0.25:
            ex.text, ex.spans = ex.text.lower(), ex.spans
        yield ex


# -- EHRSQL silver --------------------------------------------------------------------------------

_EHRSQL_FILE = "ehrsql_silver.jsonl.gz"


def _ehrsql_rows() -> list[Example]:
    try:
        data = resources.files("clinbridge.engine.understand").joinpath(
            "data", "reader", _EHRSQL_FILE
        )
        raw = gzip.decompress(data.read_bytes()).decode()
    except (FileNotFoundError, OSError):
        return []
    return [Example.from_json(json.loads(line)) for line in raw.splitlines() if line.strip()]


def ehrsql_examples() -> list[Example]:
    """The EHRSQL-2024 train questions with spans and intents aligned from their gold SQL."""
    return _ehrsql_rows()


def silver(n_generated: int = 6000, *, seed: int = 0) -> list[Example]:
    """All silver examples: generated + EHRSQL, shuffled (deterministic for a seed)."""
    rows = list(generated_examples(n_generated, seed=seed)) + ehrsql_examples()
    random.Random(seed + 1).shuffle(rows)
    return rows
