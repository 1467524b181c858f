"""Reading questions over a wide trial table into QueryPlans (no LLM).

Variables are found by meaning: the words of their dictionary labels (and of their column names,
which carry the abbreviations: ``hr``, ``map``, ``Gluc``), general clinical synonyms, and what an
unqualified measurement means (``temperature`` is the core temperature, not the skin probe's or
the cooling mattress's). A variable recorded at several time points is one *family*; the question's
time point ('at 24 hours', '24h', 'day 3', 'at 18 months') picks the member. Code labels
('cooled', 'standard care', 'severe HIE', 'girls', 'site 7', 'NEOCOOL') become conditions;
'by arm', 'per trial', 'in each site', 'by HIE severity' become groupings.

Every content word of the question must be explained — by a variable, a code, a time point, a
number, or a general word — else the reading abstains and names the words it could not place.
It also abstains when a variable is absent, ambiguous, not recorded at the time point asked,
not collected in the trial asked, or collected in one trial only when both are compared.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from clinbridge.engine.plan import Aggregate, GroupBy, Measure, QueryPlan, VariableFilter
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._trial_vocab import (
    DEFAULT_QUALIFIERS,
    FILLER,
    ROLE_WORDS,
    Token,
    canon,
    tokenize,
)
from clinbridge.timepoint import TimePoint, find_time_points, parse_time_point

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog, Variable

__all__ = ["TrialReader"]

_AGG_WORDS: dict[str, str] = {
    "mean": "mean",
    "average": "mean",
    "avg": "mean",
    "median": "median",
    "percentage": "proportion",
    "percent": "proportion",
    "proportion": "proportion",
    "fraction": "proportion",
    "%": "proportion",
    "how many": "count",
    "number of": "count",
    "count": "count",
    "standard deviation": "stddev",
    "sd": "stddev",
    "minimum": "min",
    "lowest": "min",
    "maximum": "max",
    "highest": "max",
}
_AGG_RE = re.compile(
    r"\b(mean|average|avg|median|percentage|percent|proportion|fraction|how many|number of|count|"
    r"standard deviation|sd|minimum|lowest|maximum|highest)\b|%"
)
_CHANGE_RE = re.compile(r"\b(change|difference|rise|fall|drop|increase|decrease|delta)\b")
_EXTRA_FILLER = frozenset(
    [
        "before",
        "stratified",
        "group",
        "groups",
        "stratify",
        "broken",
        "split",
        "according",
        "hour",
        "hours",
        "day",
        "days",
        "week",
        "weeks",
        "month",
        "months",
        "minute",
        "minutes",
        "year",
        "years",
        "h",
        "g",
        "gram",
        "grams",
        "kg",
        "c",
        "mmol",
        "l",
        "mmhg",
        "bpm",
        "unit",
        "units",
    ]
)
_EXTRA_FILLER = _EXTRA_FILLER | frozenset(canon(w) for w in _EXTRA_FILLER | FILLER) | FILLER
_NEGATORS = frozenset({"non", "not", "no", "without", "never"})
_SUBJECT_NOUNS = frozenset(
    canon(w)
    for w in [
        "infant",
        "infants",
        "baby",
        "babies",
        "neonate",
        "neonates",
        "newborn",
        "newborns",
        "child",
        "children",
        "patient",
        "patients",
        "boy",
        "boys",
        "girl",
        "girls",
        "group",
        "groups",
        "arm",
        "arms",
        "subject",
        "subjects",
    ]
)
_SUBJECT_ID = re.compile(
    r"\b(?:infant|subject|patient|baby|participant|child|record)\s*(?:id\s*|number\s*|no\.?\s*)?"
    r"#?\s*(?P<id>(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9][A-Za-z0-9_-]*)\b"
    r"|\b(?P<id2>[A-Za-z]{1,5}-\d+(?:-\d+)+)\b",
    re.I,
)
_LIST_RE = re.compile(r"^\s*(?:which|list(?:\s+(?:the|all))?|what)\s+(?P<w>[a-z]+(?:\s+[a-z]+)?)")
_COMPARATIVE = re.compile(
    r"\b(higher|highest|lower|lowest|more|most|less|least|fewer|fewest|better|best|worse|worst|largest|smallest)\b"
)
_DURATION_UNITS = frozenset({"days", "day", "hours", "hour", "h", "weeks", "minutes", "min"})
"""A variable measured in a unit of time is a duration ('how long', 'duration of ventilation')."""
_DESIGN_PRIOR = 0.15
"""Conditions on the design variables (arm, trial, site) are the commonest in trial questions."""
_SPLIT_VERBS = frozenset(
    [
        "who",
        "that",
        "which",
        "had",
        "has",
        "have",
        "were",
        "was",
        "died",
        "developed",
        "received",
        "experienced",
        "required",
        "needed",
        "got",
        "suffered",
        "reached",
    ]
)
_COHORT_MARKERS = frozenset({"among", "amongst", "in", "within", "for"})
_CMP = re.compile(
    r"(?P<op>less than or equal to|greater than or equal to|at least|at most|no more than|"
    r"no less than|more than|greater than|higher than|older than|younger than|above|over|"
    r"exceeding|less than|lower than|below|under|fewer than|<=|>=|≤|≥|<|>)\s*"
    r"(?P<num>-?\d+(?:\.\d+)?)\s*(?P<unit>°\s*c\b|°|g\b|kg\b|grams?\b|weeks?\b|wks?\b|mmol/l\b|"
    r"mmhg\b|bpm\b|%|days?\b|years?\b|points?\b|hours?\b)?"
)
_BETWEEN = re.compile(
    r"\bbetween\s+(?P<a>-?\d+(?:\.\d+)?)\s*(?:°\s*c|g|kg|weeks?)?\s+and\s+(?P<b>-?\d+(?:\.\d+)?)"
    r"\s*(?P<unit>°\s*c\b|g\b|kg\b|grams?\b|weeks?\b)?"
)
_OPS = {
    "less than or equal to": "<=",
    "greater than or equal to": ">=",
    "at least": ">=",
    "no less than": ">=",
    "at most": "<=",
    "no more than": "<=",
    "more than": ">",
    "greater than": ">",
    "higher than": ">",
    "older than": ">",
    "above": ">",
    "over": ">",
    "exceeding": ">",
    "less than": "<",
    "lower than": "<",
    "younger than": "<",
    "below": "<",
    "under": "<",
    "fewer than": "<",
    "<=": "<=",
    ">=": ">=",
    "≤": "<=",
    "≥": ">=",
    "<": "<",
    ">": ">",
}
_GROUP_RE = re.compile(
    r"\b(?P<lead>by|per|in each|for each|at each|within each|across|between|according to|in both|"
    r"in the two|for both|for the two)\s+(?:the\s+)?(?:two\s+|both\s+|different\s+|each\s+)?"
    r"(?P<rest>[a-z][a-z0-9\-]*(?:\s+[a-z][a-z0-9\-]*){0,2})"
)
_BOTH_TRIALS = re.compile(r"\b(both|two|each|the two|across|between)\s+(trials|studies)\b")
_TIME_UNITS = re.compile(r"^(hours?|h|days?|months?|minutes?|weeks?)\b")


def _is_yes(label: str) -> bool:
    return label.strip().lower() in {"yes", "y", "true", "present"}


@dataclass
class Family:
    """Variables that differ only by time point (one label, one unit)."""

    label: str
    members: dict[str | None, list[Variable]]
    head: set[str]
    qual: set[str]
    names: set[str]
    kind: str
    """numeric | binary | categorical"""
    keys: list[set[str]] = field(default_factory=list)
    """The label's leading noun phrases ('inotropes' in 'Inotropes given during cooling')."""

    @property
    def key(self) -> set[str]:
        return set().union(*self.keys) if self.keys else set()

    @property
    def tokens(self) -> set[str]:
        return self.head | self.qual | self.names

    def time_points(self) -> list[str]:
        return [t for t in self.members if t is not None]


@dataclass
class CodeSet:
    """A categorical variable's codes, as words (distinct to each code) and context words."""

    var: Variable
    distinct: dict[str, set[str]]
    exclusive: dict[str, set[str]]
    context: set[str]

    @property
    def label(self) -> str:
        return self.var.description

    @property
    def tokens(self) -> set[str]:
        out = set(self.context)
        for t in self.distinct.values():
            out |= t
        return out


@dataclass
class Mention:
    target: Family | CodeSet
    positions: list[int]
    """Indexes into the content-token list."""
    start: int
    end: int
    """Character span in the question."""
    codes: tuple[str, ...] = ()
    score: float = 0.0
    negated: bool = False
    comparison: tuple[str, float, float | None] | None = None
    variable: Variable | None = None
    core: list[int] = field(default_factory=list)
    """Positions of the words that name it (a code's own words, not its context)."""
    baseline: Variable | None = None
    """For a change: the member at the earlier time point."""
    zone: str = ""
    grouped: bool = False
    """Both sides of it are asked for ('with and without'): a grouping, not a condition."""


@dataclass
class _Parse:
    text: str
    content: list[Token]
    consumed: set[int] = field(default_factory=set)
    attributive: set[int] = field(default_factory=set)


def _label_words(label: str) -> tuple[set[str], set[str]]:
    text = label.lower()
    for tp, (a, b) in reversed(find_time_points(text)):
        if tp.scale in {"h", "min", "mo"}:
            text = text[:a] + " " + text[b:]
    qual_text = " ".join(re.findall(r"\(([^)]*)\)", text))
    head_text = re.sub(r"\([^)]*\)", " ", text)

    def words(t: str) -> set[str]:
        return {
            tok.norm
            for tok in tokenize(t.replace("-", " "))
            if tok.norm not in _EXTRA_FILLER and not tok.text.isdigit()
        }

    return words(head_text), words(qual_text) - words(head_text)


_PREPOSITIONS = re.compile(
    r"\b(of|at|during|before|after|in|on|from|to|for|with|by|per|since|until|within|between|given)\b"
)


def _key_words(label: str, head: set[str]) -> list[set[str]]:
    """The label's names: its leading noun phrase, and after a colon the second one."""
    text = re.sub(r"\([^)]*\)", " ", label.lower())
    keys = []
    for part in text.split(":", 1):
        # 'Length of hospital stay': both 'length' and 'hospital stay' name it
        for piece in re.split(r"\bof\b", part):
            lead = _PREPOSITIONS.split(piece, maxsplit=1)[0]
            words = {t.norm for t in tokenize(lead.replace("-", " "))} & head
            if words:
                keys.append(words)
    return keys or [set(head)]


def _name_words(name: str) -> set[str]:
    parts = re.split(r"[^a-zA-Z]+|(?<=[a-z])(?=[A-Z])", name)
    out = set()
    for p in parts:
        p = p.lower()
        if len(p) >= 2 and p not in {"h", "d", "m", "hr", "min"} | {"id"}:
            out.add(canon(p))
    return out


class TrialReader:
    """Reads questions over one trial catalog (built once per catalog)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.families: list[Family] = []
        self.codesets: list[CodeSet] = []
        self.roles: dict[str, Variable] = {v.role: v for v in catalog.variables if v.role}
        trial = self.roles.get("trial")
        self.trials: tuple[str, ...] = tuple(trial.codes.values()) if trial else ()
        by_key: dict[tuple[str, str | None], Family] = {}
        for v in catalog.variables:
            if v.role == "subject" or v.type in {"string", "date"}:
                continue
            head, qual = _label_words(v.description or v.name)
            key_label = " ".join(sorted(head | qual))
            kind = "numeric"
            if v.type == "categorical":
                labels = [lab for lab in v.codes.values() if lab]
                kind = "binary" if labels and any(_is_yes(lab) for lab in labels) else "categorical"
            key = (key_label + "|" + kind, v.unit)
            fam = by_key.get(key)
            if fam is None:
                fam = Family(
                    v.description or v.name,
                    {},
                    head,
                    qual,
                    set(),
                    kind,
                    _key_words(v.description or v.name, head),
                )
                by_key[key] = fam
                self.families.append(fam)
            fam.names |= _name_words(v.name)
            if (v.unit or "").lower() in _DURATION_UNITS:
                fam.qual |= {"duration", "length", "long"} - fam.head
            fam.members.setdefault(v.time_point, []).append(v)
            if kind == "categorical" and v.codes:
                self.codesets.append(self._codeset(v, head | qual))
        # name words shared by many families are not distinctive (DM, NEURO, ...)
        counts: dict[str, int] = {}
        for f in self.families:
            for w in f.names:
                counts[w] = counts.get(w, 0) + 1
        for f in self.families:
            f.names = {w for w in f.names if counts[w] <= 3} - f.head - f.qual
        self.vocabulary: set[str] = set()
        for f in self.families:
            self.vocabulary |= f.tokens
        for cs in self.codesets:
            self.vocabulary |= cs.tokens

    def _codeset(self, v: Variable, label_words: set[str]) -> CodeSet:
        words = {
            code: {
                t.norm
                for t in tokenize((lab or code).replace("-", " "))
                if t.norm not in _EXTRA_FILLER or t.text.isdigit()
            }
            for code, lab in v.codes.items()
        }
        common = set.intersection(*words.values()) if len(words) > 1 else set()
        distinct = {c: w - common for c, w in words.items()}
        exclusive = {
            c: w - set().union(*(o for k, o in distinct.items() if k != c))
            for c, w in distinct.items()
        }
        context = set(label_words) | common
        if v.role in ROLE_WORDS:
            context |= ROLE_WORDS[v.role]
        return CodeSet(v, distinct, exclusive, context)

    # -- reading ---------------------------------------------------------------------------
    def understand(self, question: str) -> list[Reading]:
        try:
            return [self._read(question)]
        except _Abstain as exc:
            return [
                Reading(
                    question=question,
                    abstain_reason=exc.reason,
                    unresolved=tuple(exc.unresolved),
                    groundings=tuple(exc.groundings),
                )
            ]

    def _read(self, question: str) -> Reading:
        text = question.lower().replace("–", "-").replace("—", "-")
        text = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text)
        groundings: list[Grounding] = []
        masked = text
        # 0. one subject ('infant NC-02-0001'), a list ('which sites ...'), a rate ('mortality rate')
        patient_id = None
        sid = _SUBJECT_ID.search(question)
        if sid:
            patient_id = sid.group("id") or sid.group("id2")
            masked = masked[: sid.start()] + " " * (sid.end() - sid.start()) + masked[sid.end() :]
            groundings.append(Grounding(phrase=sid.group(0), kind="patient", target=patient_id))
        listing = None
        lm = _LIST_RE.match(masked)
        if lm:
            found = self._group(lm.group("w"))
            if found is not None and _COMPARATIVE.search(masked):
                raise _Abstain(
                    "a ranking ('which ... highest') is not supported; ask for values by group"
                )
            if found is not None:
                listing = found[0]
                cut = lm.start("w") + found[1]
                masked = " " * cut + masked[cut:]
        for m in re.finditer(r"\brate\b", masked):
            prev_words = [t.norm for t in tokenize(masked[: m.start()])][-1:]
            if not any(
                f.kind == "numeric" and "rate" in f.head and set(prev_words) & f.head
                for f in self.families
            ):
                masked = masked[: m.start()] + " percentage" + masked[m.end() :]
        # 1. numeric comparisons (before time points: 'older than 35 years' is an age)
        comparisons: list[tuple[str, float, float | None, int, int]] = []
        units: dict[tuple[int, int], str] = {}
        for m in _BETWEEN.finditer(masked):
            if not m.group("unit") and _TIME_UNITS.match(masked[m.end() :].lstrip()):
                continue  # 'between 0 and 48 hours' is a pair of time points
            comparisons.append(("between", float(m.group("a")), float(m.group("b")), *m.span()))
            units[m.span()] = m.group("unit") or ""
            masked = masked[: m.start()] + " " * (m.end() - m.start()) + masked[m.end() :]
        for m in _CMP.finditer(masked):
            rest = masked[m.end("num") :].lstrip()
            if not m.group("unit") and _TIME_UNITS.match(rest):
                continue
            comparisons.append((_OPS[m.group("op")], float(m.group("num")), None, *m.span()))
            units[m.span()] = m.group("unit") or ""
            masked = masked[: m.start()] + " " * (m.end() - m.start()) + masked[m.end() :]
        # 2. time points
        times: list[tuple[TimePoint, int, int]] = []
        for tp, (a, b) in find_time_points(masked):
            times.append((tp, a, b))
            if tp.scale in {"h", "min", "mo"}:
                masked = masked[:a] + " " * (b - a) + masked[b:]
        # 3. aggregate
        aggs = [(m.start(), _AGG_WORDS[m.group(0)]) for m in _AGG_RE.finditer(masked)]
        op = aggs[0][1] if aggs else None
        change = bool(_CHANGE_RE.search(masked))
        for m in _AGG_RE.finditer(masked):
            masked = masked[: m.start()] + " " * (m.end() - m.start()) + masked[m.end() :]
        masked = _CHANGE_RE.sub(lambda m: " " * len(m.group(0)), masked)
        # 4. groupings
        groups: list[Variable] = []
        for m in _GROUP_RE.finditer(masked):
            found = self._group(m.group("rest"))
            if found is None:
                if m.group("lead") in {
                    "per",
                    "in each",
                    "for each",
                    "at each",
                    "within each",
                    "across",
                }:
                    raise _Abstain(
                        f"{m.group(0).strip()!r}: the trial table has no coded variable to group by "
                        f"for {m.group('rest').split()[0]!r}",
                        unresolved=[m.group("rest").split()[0]],
                    )
                continue
            var, used = found
            if var not in groups:
                groups.append(var)
            more = re.match(
                r"\s*(?:and|,)\s+(?:by\s+)?(?:the\s+)?([a-z][a-z0-9\-]*(?:\s+[a-z][a-z0-9\-]*)?)",
                masked[m.start("rest") + used :],
            )
            if more:
                second = self._group(more.group(1))
                if second is not None:
                    if second[0] not in groups:
                        groups.append(second[0])
                    used += more.start(1) + second[1]
            groundings.append(
                Grounding(
                    phrase=m.group(0).strip(),
                    kind="group",
                    target=f"{var.name} ({var.description})",
                )
            )
            a = m.start()
            cut = m.start("rest") + used
            masked = masked[:a] + " " * (cut - a) + masked[cut:]
        both_trials = bool(_BOTH_TRIALS.search(text))
        trial_var = self.roles.get("trial")
        if both_trials and trial_var is not None and trial_var not in groups:
            groups.append(trial_var)
        # 5. content words → mentions of variables and codes
        tokens = tokenize(masked.replace("%", " "))
        content = [t for t in tokens if t.norm not in _EXTRA_FILLER and t.text not in _NEGATORS]
        parse = _Parse(masked, content)
        # a word right before a subject noun ('cooled babies', 'the standard care group')
        # describes the subjects: a code or a yes/no item, never a measurement
        for k, t in enumerate(tokens[:-1]):
            if tokens[k + 1].norm in _SUBJECT_NOUNS and t in content:
                parse.attributive.add(content.index(t))
        unknown = [
            t.text
            for t in content
            if t.norm not in self.vocabulary and not any(a <= t.start < b for _, a, b in times)
        ]
        if unknown:
            raise _Abstain(
                "the trial table has no variable, code or time point for "
                + ", ".join(repr(w) for w in unknown),
                unresolved=unknown,
                groundings=groundings,
            )
        mentions = self._mentions(parse)
        design_words = set().union(*ROLE_WORDS.values())
        left = [
            t.text
            for i, t in enumerate(content)
            if i not in parse.consumed
            and t.norm not in design_words
            and not any(a <= t.start < b for tp, a, b in times)
        ]
        if left:
            raise _Abstain(
                "the trial table has no variable, code or time point for "
                + ", ".join(repr(w) for w in left),
                unresolved=left,
                groundings=groundings,
            )
        for mt in mentions:
            before = [t for t in tokens if t.end <= mt.start][-2:]
            mt.negated = any(t.text in _NEGATORS for t in before)
            inside = [t for t in tokens if mt.start <= t.start < mt.end and t.text in _NEGATORS]
            both = re.search(r"\bwith\s+(?:and|or)\s+without\s+$", text[: mt.start])
            if inside or both:  # 'cooled and non-cooled', 'with and without seizures': both sides
                members = (
                    [v for vs in mt.target.members.values() for v in vs]
                    if isinstance(mt.target, Family)
                    else [mt.target.var]
                )
                both_sides = mt.variable or (members[0] if len(members) == 1 else None)
                if both_sides is None or both_sides.type != "categorical":
                    raise _Abstain(f"'{text[mt.start : mt.end]}' names a value and its negation")
                if both_sides not in groups:
                    groups.append(both_sides)
                mt.grouped = True  # a grouping, not a condition
        # 6. comparisons attach to the nearest numeric variable
        for kind, value, value2, a, b in comparisons:
            numeric = [
                mt
                for mt in mentions
                if isinstance(mt.target, Family)
                and mt.target.kind == "numeric"
                and mt.comparison is None
            ]
            if not numeric:
                raise _Abstain(f"the condition {text[a:b].strip()!r} names no numeric variable")
            best = min(
                numeric,
                key=lambda mt: (
                    0 if mt.end <= a else 1,
                    abs((mt.end if mt.end <= a else mt.start) - a),
                ),
            )
            factor = _unit_factor(units.get((a, b), ""), best.target, text[a:b].strip())
            best.comparison = (
                kind,
                value * factor,
                value2 * factor if value2 is not None else None,
            )
        ordered = sorted(mentions, key=lambda m: m.start)
        for left_m, right_m in itertools.pairwise(ordered):
            if left_m.target is not right_m.target and re.search(
                r"\bor\b", text[left_m.end : right_m.start]
            ):
                raise _Abstain(
                    f"'{text[left_m.start : right_m.end]}' joins two variables with 'or'; "
                    "ask for each condition separately"
                )
        # 7. time points → family members
        self._assign_times(mentions, times, change, groundings)
        # 8. roles of the mentions
        filters: list[VariableFilter] = []
        numerator: list[VariableFilter] = []
        measure_mentions: list[Mention] = []
        vs = bool(re.search(r"\b(vs|versus|compared (with|to)|compare|between)\b", text))
        for mt in mentions:
            if isinstance(mt.target, CodeSet):
                var = mt.target.var
                if len(mt.codes) >= 2 and vs and var not in groups:
                    groups.append(var)
                    if set(mt.codes) == set(var.codes):
                        continue
            elif mt.target.kind == "categorical" and mt.comparison is None:
                cat_var = mt.variable
                assert cat_var is not None
                if cat_var in groups:
                    continue
                shown = "; ".join(f"{k}={v or '?'}" for k, v in list(cat_var.codes.items())[:6])
                raise _Abstain(
                    f"which value of {cat_var.name} ({cat_var.description})? codes: {shown}; "
                    "name one, or ask 'by ...' to group by it"
                )
            elif mt.target.kind == "numeric" and mt.comparison is None:
                measure_mentions.append(mt)
                continue
        if op == "proportion":
            self._zones(mentions, text, groups)
        for mt in mentions:
            flt = self._filter(mt)
            if flt is None:
                continue
            groundings.append(self._grounding(mt, text))
            if op == "proportion" and mt.zone == "numerator":
                numerator.append(flt)
            else:
                filters.append(flt)
        # 9. the measure and the aggregate
        measure = Measure(of="patients")
        if change:
            if len(measure_mentions) != 1 or measure_mentions[0].variable is None:
                raise _Abstain("a change needs one measurement at two time points")
            mt = measure_mentions[0]
            assert isinstance(mt.target, Family) and mt.variable is not None
            base = mt.baseline
            assert base is not None
            measure = Measure(of="change", variable=mt.variable.name, baseline=base.name)
            op = op if op in {"mean", "median", "min", "max", "stddev"} else "mean"
            groundings.append(
                self._grounding(mt, text, note=f"minus {base.name} ({base.time_point})")
            )
        elif measure_mentions:
            if len(measure_mentions) > 1:
                names = ", ".join(repr(m.target.label) for m in measure_mentions)
                raise _Abstain(
                    f"the question names more than one measurement ({names}); ask for one"
                )
            mt = measure_mentions[0]
            assert mt.variable is not None
            if op in {None, "count", "proportion"}:
                if op is not None:
                    raise _Abstain(
                        f"a {op} of {mt.target.label!r} needs a condition on it (e.g. 'below 34')"
                    )
                op = "mean"
                groundings.append(
                    Grounding(phrase=question, kind="aggregate", target="mean (no aggregate named)")
                )
            asked_unit = _IN_UNIT.search(text)
            if asked_unit and mt.variable.unit:
                said = _UNIT_NAMES.get(asked_unit.group(1), asked_unit.group(1))
                stored = _UNIT_NAMES.get(mt.variable.unit.lower(), mt.variable.unit)
                if said != stored:
                    raise _Abstain(
                        f"the answer is asked in {said}; {mt.variable.name} is stored in "
                        f"{mt.variable.unit}"
                    )
            measure = Measure(of="variable", variable=mt.variable.name)
            groundings.append(self._grounding(mt, text))
        if listing is not None and op is None and measure.of == "patients":
            op = "list"
            measure = Measure(of="variable", variable=listing.name)
            groundings.append(
                Grounding(
                    phrase=lm.group(0) if lm else "",
                    kind="aggregate",
                    target=f"list of {listing.name}",
                )
            )
        if op is None:
            raise _Abstain("the question asks for no count, percentage, mean or median")
        if op == "proportion" and not numerator:
            raise _Abstain("the percentage has nothing to count: name what the infants had")
        if op in {"mean", "median", "min", "max", "stddev"} and measure.of == "patients":
            raise _Abstain(f"the {op} of what? the question names no numeric variable")
        self._check_trials(mentions, groups, filters, both_trials)
        aggregate = (
            Aggregate(op=op, numerator=tuple(numerator)) if op == "proportion" else Aggregate(op=op)
        )  # type: ignore[arg-type]
        plan = QueryPlan(
            question=question,
            patient_id=patient_id,
            filters=tuple(filters),
            measure=measure,
            aggregate=aggregate,
            group_by=tuple(GroupBy(key="variable", variable=g.name) for g in groups),
        )
        notes = tuple(self._coverage_notes(mentions))
        return Reading(
            question=question,
            plan=plan,
            confidence=0.9,
            groundings=tuple(groundings),
            notes=notes,
        )

    # -- pieces ------------------------------------------------------------------------------
    def _group(self, rest: str) -> tuple[Variable, int] | None:
        """The grouping variable a 'by ...' phrase names, and how many characters it used."""
        toks = tokenize(rest)
        if not toks:
            return None
        first = toks[0].norm.rstrip("s") if toks[0].norm not in ROLE_WORDS else toks[0].norm
        for role, words in ROLE_WORDS.items():
            if (toks[0].norm in words or first in words) and role in self.roles:
                # 'by randomised arm', 'by treatment group': take the role words that follow
                used = toks[0].end
                for t in toks[1:]:
                    if t.norm in words or t.norm.rstrip("s") in words:
                        used = t.end
                    else:
                        break
                return self.roles[role], used
        best: tuple[float, Variable, int] | None = None
        for fam in self.families:
            if fam.kind != "categorical":
                continue
            hit = [t for t in toks if t.norm in fam.tokens]
            if not hit or toks[0] not in hit:
                continue
            score = len(hit) + 0.1 * len(hit) / max(1, len(fam.head))
            if best is None or score > best[0]:
                members = [v for vs in fam.members.values() for v in vs]
                best = (score, members[0], hit[-1].end)
        if best is None:
            return None
        return best[1], best[2]

    def _mentions(self, parse: _Parse) -> list[Mention]:
        out: list[Mention] = []
        content = parse.content
        while True:
            scored: list[tuple[float, Mention]] = []
            for fam in self.families:
                mt = self._match(fam, parse)
                if mt is not None:
                    scored.append((mt.score, mt))
            for cs in self.codesets:
                mt = self._match_codes(cs, parse)
                if mt is not None:
                    scored.append((mt.score, mt))
            if not scored:
                break
            scored.sort(key=lambda x: -x[0])
            best = scored[0][1]
            rivals = [
                m
                for s, m in scored[1:]
                if s >= scored[0][0] - 0.05
                and set(m.core or m.positions) & set(best.core or best.positions)
            ]
            if rivals:
                names = [self._describe(best)] + [self._describe(r) for r in rivals[:3]]
                phrase = " ".join(content[i].text for i in sorted(best.positions))
                raise _Abstain(
                    f"{phrase!r} could mean any of: " + "; ".join(names) + " — say which"
                )
            parse.consumed |= set(best.positions)
            out.append(best)
        return out

    def _describe(self, mt: Mention) -> str:
        if isinstance(mt.target, CodeSet):
            return f"{mt.target.var.description} = " + " or ".join(
                mt.target.var.codes.get(c, c) for c in mt.codes
            )
        return mt.target.label

    def _clusters(self, parse: _Parse, words: set[str]) -> list[list[int]]:
        idx = [
            i for i, t in enumerate(parse.content) if i not in parse.consumed and t.norm in words
        ]
        clusters: list[list[int]] = []
        for i in idx:
            if clusters and i - clusters[-1][-1] <= 3:
                clusters[-1].append(i)
            else:
                clusters.append([i])
        return clusters

    def _span(self, parse: _Parse, positions: list[int]) -> tuple[int, int]:
        return parse.content[min(positions)].start, parse.content[max(positions)].end

    def _match(self, fam: Family, parse: _Parse) -> Mention | None:
        best: Mention | None = None
        for cl in self._clusters(parse, fam.tokens):
            words = {parse.content[i].norm for i in cl}
            if not words & (fam.head | fam.names | fam.qual):
                continue
            gaps = (
                (cl[-1] - cl[0] + 1)
                - len(cl)
                - sum(1 for i in range(cl[0], cl[-1]) if i in parse.consumed)
            )
            head_hit = len(words & fam.head) / max(1, len(fam.head))
            score = len(words) - 0.5 * max(0, gaps) + 0.5 * head_hit
            for generic, defaults in DEFAULT_QUALIFIERS.items():
                if (
                    generic in words
                    and not (words - {generic}) & fam.qual
                    and defaults & fam.tokens
                ):
                    score += 0.4
            if fam.kind != "binary" and set(cl) & parse.attributive:
                continue
            # a name of the variable said only in part is a weaker match ('moderate or severe
            # disability' is not 'death or moderate or severe disability')
            score -= 0.3 * min((len(k - words) for k in fam.keys if k & words), default=0)
            if len(words) == 1 and not words & (fam.key | fam.qual | fam.names):
                continue  # one word of a modifier ('cooled' ~ 'Inotropes given during cooling')
            if score < 0.8:
                continue
            a, b = self._span(parse, cl)
            if best is None or score > best.score:
                best = Mention(fam, cl, a, b, score=score)
        return best

    def _match_codes(self, cs: CodeSet, parse: _Parse) -> Mention | None:
        best: Mention | None = None
        for cl in self._clusters(parse, cs.tokens):
            words = {parse.content[i].norm for i in cl}
            codes = tuple(c for c, ex in cs.exclusive.items() if ex & words)
            if not codes:
                full = [c for c, d in cs.distinct.items() if d and d <= words]
                codes = tuple(full[:1]) if len(full) == 1 else ()
            if not codes:
                continue
            code_words = set().union(*(cs.distinct[c] for c in codes))
            core = [i for i in cl if parse.content[i].norm in code_words]
            near = set(core)
            grown = True
            while grown:  # context words count only next to the code's words
                grown = False
                for i in cl:
                    if (
                        i not in near
                        and parse.content[i].norm in cs.context
                        and (i - 1 in near or i + 1 in near)
                    ):
                        near.add(i)
                        grown = True
            used = sorted(near)
            score = len({parse.content[i].norm for i in used}) + 0.1
            if cs.var.role in {"arm", "trial", "site"}:
                score += _DESIGN_PRIOR
            if not (words & cs.context):
                score -= 0.05
            a, b = self._span(parse, used)
            if best is None or score > best.score:
                best = Mention(cs, used, a, b, codes=codes, score=score, variable=cs.var, core=core)
        return best

    def _assign_times(
        self,
        mentions: list[Mention],
        times: list[tuple[TimePoint, int, int]],
        change: bool,
        groundings: list[Grounding],
    ) -> None:
        """Give each variable family mentioned its member at the time point asked."""
        fams = [m for m in mentions if isinstance(m.target, Family)]
        multi = [m for m in fams if len(m.target.members) > 1]  # type: ignore[union-attr]
        numbered = [t for t in times if t[0].scale in {"h", "min", "mo"}]
        special = [t for t in times if t[0].scale in {"baseline", "discharge"}]
        owners = multi or fams
        assigned: dict[int, list[TimePoint]] = {id(m): [] for m in fams}
        for t in (numbered + special if change else numbered) or special:
            if not owners:
                break
            if len(owners) > 1 and len(numbered) == 1:
                for m in owners:
                    assigned[id(m)].append(t[0])
                continue
            m = min(owners, key=lambda m: _distance(m, t[1], t[2]))
            assigned[id(m)].append(t[0])
        for mt in fams:
            fam = mt.target
            assert isinstance(fam, Family)
            asked = assigned[id(mt)]
            if len(fam.members) == 1:
                tp, members = next(iter(fam.members.items()))
                if len(members) > 1:
                    raise _Abstain(
                        f"{fam.label!r} is stored in several columns "
                        f"({', '.join(v.name for v in members)})"
                    )
                mt.variable = members[0]
                wrong = [
                    a for a in asked if tp is not None and a.scale != "baseline" and a.text() != tp
                ]
                if wrong and numbered:
                    raise _Abstain(
                        f"{fam.label!r} was recorded only at {tp}, not at {wrong[0].text()}",
                        unresolved=[wrong[0].text()],
                    )
                continue
            if change and fam.kind == "numeric" and mt.comparison is None:
                pts = sorted(set(asked), key=_order)
                if len(pts) < 2:
                    raise _Abstain(f"a change in {fam.label!r} needs two time points")
                mt.baseline = self._member(fam, pts[0])
                mt.variable = self._member(fam, pts[-1])
                continue
            if not asked:
                raise _Abstain(
                    f"{fam.label!r} was recorded at {len(fam.time_points())} time points "
                    f"({', '.join(fam.time_points())}); say which"
                )
            if len({a.text() for a in asked}) > 1:
                raise _Abstain(
                    f"the question asks for {fam.label!r} at "
                    f"{' and '.join(sorted({a.text() for a in asked}))}; ask for one time point "
                    "(or for the change between them)"
                )
            mt.variable = self._member(fam, asked[0])

    def _member(self, fam: Family, tp: TimePoint) -> Variable:
        text = tp.text()
        members = fam.members.get(text)
        if members is None and tp.scale == "baseline":
            members = fam.members.get("0 h")
        if members is None:
            have = ", ".join(fam.time_points()) or "no time point"
            raise _Abstain(
                f"{fam.label!r} was not recorded at {text} (recorded at: {have})",
                unresolved=[text],
            )
        if len(members) > 1:
            raise _Abstain(
                f"{fam.label!r} at {text} is stored in several columns "
                f"({', '.join(v.name for v in members)})"
            )
        return members[0]

    def _zones(self, mentions: list[Mention], text: str, groups: list[Variable]) -> None:
        """Which conditions make the denominator (cohort) and which the numerator."""
        m = re.search(r"\b(percentage|percent|proportion|fraction)\b|%", text)
        after_of = m.end() if m else 0
        split = None
        for t in tokenize(text[after_of:]):
            if t.text in _SPLIT_VERBS:
                split = after_of + t.start
                break
        of = re.compile(r"\s*of\s+(?:the\s+|all\s+)?").match(text, after_of) if m else None
        head = None
        if of is not None:
            first = tokenize(text[of.end() :])[:1]
            if first and first[0].norm not in _SUBJECT_NOUNS:
                head = next((mt for mt in mentions if mt.start == of.end()), None)
        others = [
            mt
            for mt in mentions
            if mt is not head
            and mt.variable is not None
            and not (isinstance(mt.target, CodeSet) and mt.target.var in groups)
        ]
        if head is not None and others:
            # 'proportion of deaths (that) occurred in the cooled arm': of the deaths, how many
            for mt in mentions:
                if not (isinstance(mt.target, CodeSet) and mt.target.var in groups):
                    mt.zone = "cohort" if mt is head else "numerator"
            return
        for mt in mentions:
            if isinstance(mt.target, CodeSet) and mt.target.var in groups:
                continue
            if split is not None:
                mt.zone = "numerator" if mt.start >= split else "cohort"
                continue
            prev = [t.text for t in tokenize(text[: mt.start])][-3:]
            role = isinstance(mt.target, CodeSet) and mt.target.var.role in {"arm", "trial", "site"}
            if any(w in _COHORT_MARKERS for w in prev) or role:
                mt.zone = "cohort"
            else:
                mt.zone = "numerator"

    def _filter(self, mt: Mention) -> VariableFilter | None:
        var = mt.variable
        if var is None or mt.grouped:
            return None
        if isinstance(mt.target, CodeSet):
            if not mt.codes:
                return None
            return VariableFilter(variable=var.name, op="in", codes=mt.codes, negate=mt.negated)
        fam = mt.target
        if mt.comparison is not None:
            kind, value, value2 = mt.comparison
            return VariableFilter(
                variable=var.name,
                op=kind,
                value=value,
                value2=value2,
                negate=mt.negated,  # type: ignore[arg-type]
            )
        if fam.kind == "binary":
            yes = [c for c, lab in var.codes.items() if _is_yes(lab)]
            return VariableFilter(variable=var.name, op="in", codes=tuple(yes), negate=mt.negated)
        return None

    def _grounding(self, mt: Mention, text: str, note: str = "") -> Grounding:
        var = mt.variable
        phrase = text[mt.start : mt.end]
        target = f"{var.name}: {var.description}" if var else mt.target.label
        if var is not None and var.time_point:
            target += f" at {var.time_point}"
        if mt.codes and var is not None:
            target += " = " + " or ".join(var.codes.get(c, c) for c in mt.codes)
        if mt.comparison:
            target += f" {mt.comparison[0]} {mt.comparison[1]:g}"
        if mt.negated:
            target = "not " + target
        if note:
            target += f" {note}"
        kind = "value" if mt.comparison else ("concept" if not mt.codes else "code")
        return Grounding(
            phrase=phrase, kind=kind, target=target, how="label words", score=round(mt.score, 3)
        )

    def _check_trials(
        self,
        mentions: list[Mention],
        groups: list[Variable],
        filters: list[VariableFilter],
        both: bool,
    ) -> None:
        trial = self.roles.get("trial")
        if trial is None or not self.trials:
            return
        chosen: set[str] = set(self.trials)
        for f in filters:
            if f.variable == trial.name and f.op == "in":
                chosen = {trial.codes.get(c, c) for c in f.codes}
                if f.negate:
                    chosen = set(self.trials) - chosen
        compared = trial in groups or both
        for mt in mentions:
            var = mt.variable
            if var is None or var.role or not var.trials:
                continue
            have = set(var.trials)
            where = f"{var.description}" + (f" at {var.time_point}" if var.time_point else "")
            if compared and not set(self.trials) <= have:
                raise _Abstain(
                    f"{where} ({var.name}) was collected only in {', '.join(sorted(have))}; "
                    "the trials cannot be compared on it"
                )
            if not chosen & have:
                raise _Abstain(
                    f"{where} ({var.name}) was not collected in {', '.join(sorted(chosen))} "
                    f"(only in {', '.join(sorted(have))})"
                )

    def _coverage_notes(self, mentions: list[Mention]) -> list[str]:
        notes = []
        for mt in mentions:
            var = mt.variable
            if var is not None and var.trials and set(var.trials) != set(self.trials):
                notes.append(f"{var.name} was collected only in {', '.join(var.trials)}")
        return notes


_UNIT_NAMES = {
    "g": "g",
    "gram": "g",
    "grams": "g",
    "kg": "kg",
    "kilogram": "kg",
    "kilograms": "kg",
    "°c": "°C",
    "° c": "°C",
    "°": "°C",
    "c": "°C",
    "week": "weeks",
    "weeks": "weeks",
    "wk": "weeks",
    "wks": "weeks",
    "mmol/l": "mmol/L",
    "mmhg": "mmHg",
    "bpm": "beats/min",
    "beats/min": "beats/min",
    "%": "%",
    "day": "days",
    "days": "days",
    "year": "years",
    "years": "years",
    "hour": "hours",
    "hours": "hours",
}
_IN_UNIT = re.compile(
    r"\bin\s+(kg|g|grams?|kilograms?|hours|days|weeks|months|minutes|°c|mmol/l|mg/dl|mmhg|%)(?:\s|\?|$|,|\.)"
)
_CONVERT = {("kg", "g"): 1000.0, ("g", "kg"): 0.001}


def _unit_factor(said: str, target: Family | CodeSet, phrase: str) -> float:
    """What to multiply the question's number by to reach the variable's unit (1 if unsaid)."""
    said = _UNIT_NAMES.get(said.strip().lower(), said.strip())
    if not said or not isinstance(target, Family):
        return 1.0
    unit = next((v.unit for vs in target.members.values() for v in vs if v.unit), None)
    if unit is None:
        return 1.0
    stored = _UNIT_NAMES.get(unit.lower(), unit)
    if stored == said:
        return 1.0
    if (said, stored) in _CONVERT:
        return _CONVERT[(said, stored)]
    raise _Abstain(f"{phrase!r} is in {said}, but {target.label!r} is stored in {unit}")


def _order(tp: TimePoint) -> tuple[int, float]:
    return ({"baseline": 0, "min": 1, "h": 2, "mo": 3, "discharge": 4}.get(tp.scale, 5), tp.amount)


def _distance(mt: Mention, a: int, b: int) -> float:
    # a time point usually follows its measurement ('temperature at 24 h'); one before it is
    # a little further away
    return a - mt.end if a >= mt.end else (mt.start - b) + 0.5


class _Abstain(Exception):
    def __init__(
        self,
        reason: str,
        *,
        unresolved: list[str] | None = None,
        groundings: list[Grounding] | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.unresolved = unresolved or []
        self.groundings = groundings or []


def parse_time(text: str) -> str | None:
    """The canonical time point a phrase names (for callers outside the reader)."""
    tp = parse_time_point(text)
    return tp.text() if tp else None
