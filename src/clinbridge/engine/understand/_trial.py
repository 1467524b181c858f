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

from clinbridge.engine.plan import Aggregate, GroupBy, QueryPlan, VariableFilter
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._trial_all_infants import check_all_subjects
from clinbridge.engine.understand._trial_bare_time import bare_times
from clinbridge.engine.understand._trial_change_sign import check_unread_minus, find_minus
from clinbridge.engine.understand._trial_clauses import (
    absorbed,
    code_restated,
    compare_sides,
    find_yes_no_comparisons,
    merge_listed_codes,
    merge_repeats,
    merge_restated_codes,
    read_missing_clauses,
)
from clinbridge.engine.understand._trial_conjunction import (
    check_and_counted,
    check_aside_counted,
    joined_by_and,
)
from clinbridge.engine.understand._trial_difference import read_difference
from clinbridge.engine.understand._trial_direction import direction_key
from clinbridge.engine.understand._trial_distribution import find_distribution
from clinbridge.engine.understand._trial_groups import unread_grouping
from clinbridge.engine.understand._trial_having import read_having
from clinbridge.engine.understand._trial_implied import implied_count
from clinbridge.engine.understand._trial_known import drop_known_restated, read_known_clauses
from clinbridge.engine.understand._trial_label_threshold import drop_label_thresholds
from clinbridge.engine.understand._trial_lexicon import reader_words
from clinbridge.engine.understand._trial_lone_word import place_lone_words
from clinbridge.engine.understand._trial_match import (
    LINKING_VERBS,
    assign_times,
    check_shadows,
    find_mentions,
    group_of,
)
from clinbridge.engine.understand._trial_measure import measure_of
from clinbridge.engine.understand._trial_model import (
    Abstain,
    CodeSet,
    Family,
    Mention,
    Parse,
    codeset,
    is_yes,
    key_terms,
    label_terms,
    modifier_terms,
    name_stem,
    name_terms,
    split_by_label_moment,
)
from clinbridge.engine.understand._trial_negation import check_negations_placed
from clinbridge.engine.understand._trial_neighbours import dictionary_neighbours
from clinbridge.engine.understand._trial_rewrites import rewrites, spread_asked
from clinbridge.engine.understand._trial_roles import (
    check_trials,
    coverage_notes,
    grounding,
    to_filter,
    unit_factor,
    zones,
)
from clinbridge.engine.understand._trial_spelling import correct_typos
from clinbridge.engine.understand._trial_threshold_item import (
    check_threshold_items,
    read_threshold_items,
)
from clinbridge.engine.understand._trial_typos import TypoMender
from clinbridge.engine.understand._trial_unit_aside import read_unit_asides, unit_name
from clinbridge.engine.understand._trial_vocab import (
    ROLE_WORDS,
    Token,
    expand_shorthand,
    tokenize,
)
from clinbridge.engine.understand._trial_words import (
    AGG_RE,
    AGG_WORDS,
    BEFORE_AFTER,
    BEFORE_AFTER_OPS,
    BETWEEN,
    BOTH_TRIALS,
    CHANGE_RE,
    CLARIFICATION,
    CMP,
    CMP_AFTER,
    CMP_AFTER_OPS,
    COMPARATIVE,
    DURATION_UNITS,
    EXTRA_FILLER,
    GENERIC_FAMILIES,
    GROUP_RE,
    IMPLIED_SHARE,
    LIST_RE,
    NEGATORS,
    OPS,
    SUBJECT_ID,
    SUBJECT_NOUNS,
    TIME_RANGE,
    TIME_UNITS,
    VALUE_OF,
    missing_clause,
)
from clinbridge.timepoint import TimePoint, find_time_points, parse_time_point

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog, Variable

__all__ = ["TrialReader"]

_HEDGE = re.compile(r"\b(?:i|we)\s+(?:think|guess|reckon|believe)\b")
"""A hedge ('only LOTUS did it i think'): no content."""


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
            head, qual = label_terms(v.description or v.name)
            key_label = " ".join(sorted(head | qual))
            kind = "numeric"
            if v.type == "categorical":
                labels = [lab for lab in v.codes.values() if lab]
                kind = "binary" if labels and any(is_yes(lab) for lab in labels) else "categorical"
            key = (key_label + "|" + kind + direction_key(v.description or v.name), v.unit)
            fam = by_key.get(key)
            if fam is None:
                fam = Family(
                    v.description or v.name,
                    {},
                    head,
                    qual,
                    set(),
                    kind,
                    key_terms(v.description or v.name, head),
                    modifiers=modifier_terms(v.description or v.name, head),
                )
                by_key[key] = fam
                self.families.append(fam)
            fam.names |= name_terms(v.name)
            stem = name_stem(v.name)
            if stem is not None:
                fam.stems.add(stem)
            if (
                v.unit or ""
            ).lower() in DURATION_UNITS and "age" not in head:  # an age is no duration
                fam.qual |= {"duration", "length", "long"} - fam.head
            fam.members.setdefault(v.time_point, []).append(v)
            if kind == "categorical" and v.codes:
                self.codesets.append(codeset(v, head | qual))
        for fam in self.families:  # 'Apgar score at 1 / 5 / 10 minutes': by the label's time
            split_by_label_moment(fam)
        # name words shared by many families are not distinctive (DM, NEURO, ...)
        counts: dict[str, int] = {}
        for f in self.families:
            for w in f.names:
                counts[w] = counts.get(w, 0) + 1
        for f in self.families:
            f.names = {w for w in f.names if counts[w] <= 3} - f.head - f.qual
        seen: dict[str, int] = {}
        for f in self.families:
            for w in f.tokens:
                seen[w] = seen.get(w, 0) + 1
        stems: dict[str, int] = {}
        for f in self.families:
            f.own = {w for w in f.tokens if seen[w] == 1}
            for w in f.stems:
                stems[w] = stems.get(w, 0) + 1
        for f in self.families:
            f.stems = {w for w in f.stems if stems[w] == 1}
        self.generic = {w for w, n in seen.items() if n >= GENERIC_FAMILIES}
        self.vocabulary: set[str] = set()
        for f in self.families:
            self.vocabulary |= f.tokens
        for cs in self.codesets:
            self.vocabulary |= cs.tokens
        self.rewrites = rewrites(catalog, self.vocabulary)
        self.typos = TypoMender(reader_words(catalog))
        self.units = {unit_name(v.unit) for v in catalog.variables if v.unit}
        missing_words = {  # the labels ('not done'), and the codes in letters ('UNK', 'LTFU')
            w.lower()
            for v in catalog.variables
            for code, lab in (v.missing_labels or {}).items()
            for w in (lab, code if re.fullmatch(r"[A-Za-z]{2,6}", code) else "")
            if w
        }
        self.missing_clause = missing_clause(
            sorted(w for w in missing_words if not set(w.split()) & self.vocabulary)
        )
        self.neighbours = dictionary_neighbours(catalog)

    # -- reading ---------------------------------------------------------------------------
    def understand(self, question: str) -> list[Reading]:
        try:
            difference = read_difference(self._read, question)  # 'A minus B', 'higher in A than B'
            having = None if difference else read_having(self._read, question)  # 'more than 40'
            return [difference or having or self._read(question)]
        except Abstain as exc:
            return [
                Reading(
                    question=question,
                    abstain_reason=exc.reason,
                    unresolved=tuple(exc.unresolved),
                    groundings=tuple(exc.groundings),
                )
            ]

    def _read(self, question: str) -> Reading:
        mended, slips = self.typos.mend(question)  # 'randoimsed', 'percetnage'
        said = expand_shorthand(mended, self.neighbours, self.vocabulary)
        for pattern, words in self.rewrites:
            said = pattern.sub(words, said)
        text = said.lower().replace("–", "-").replace("—", "-")
        text = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text)
        text = _HEDGE.sub(lambda m: " " * len(m.group(0)), text)  # '... i think'
        # 'creatinine d3', 'PLT on D5': a day said the way the columns say it (not 'vitamin d3')
        text = re.sub(r"(?<![\w.-])(?<!vitamin )d(\d{1,2})(?![\w.])", r"day \1", text)
        text = TIME_RANGE.sub(r"\g<a> \g<unit> \g<sep> \g<b> \g<unit>", text)
        q = _Question(said, text, text)
        q.groundings += [
            Grounding(phrase=a, kind="spelling", target=f"read as {b!r}") for a, b in slips
        ]
        self._clarifications(q)
        self._subject_list_rate(q)  # 0. one subject, a list, a rate
        q.distribution = find_distribution(q)  # 'distribution of X', 'X, n (%)'
        _find_comparisons(q)  # 1. before time points: 'older than 35 years' is an age
        _find_times(q)  # 2.
        bare_times(q, self.families)  # 'apgar 10': the 10-minute score
        _find_aggregate(q)  # 3.
        if q.distribution and q.op in {None, "count", "proportion"}:
            q.op = "proportion"
        read_missing_clauses(q, self.missing_clause)  # 'unknowns excluded', 'paired'
        read_known_clauses(q)  # 'with a known X', '(of those with it recorded)'
        find_yes_no_comparisons(q)  # 'was mortality lower in ...?'
        self._find_groups(q)  # 4.
        said_groups = list(q.groups)  # 'by X', 'in each X' (not a yes/no item's both sides)
        self._find_mentions(q)  # 5. content words → mentions of variables and codes
        merge_restated_codes(q)  # 'study = 2 (NORDIC-HT)': one condition
        merge_listed_codes(q)  # 'GMFCS level III, IV or V': one condition
        drop_known_restated(q)  # 'among non-missing X values': X read elsewhere
        check_unread_minus(q.masked, [(mt.start, mt.end) for mt in q.mentions], q.text)
        compare_sides(q)
        _both_sides(q)
        check_negations_placed(q.tokens, q.mentions, q.text)  # 'not delivered by ...'
        _attach_comparisons(q)  # 6. comparisons attach to the nearest numeric variable
        if q.change:  # 'change Gluc0h to Gluc24h': one measurement named at each end
            q.mentions = merge_repeats(q.mentions)
        assign_times(q.mentions, q.times, q.change, q.groundings)  # 7. time points → members
        check_shadows(q.mentions, self.families, q.times, q.text, q.tokens)
        filters, numerator, measured = _conditions(q)  # 8. roles of the mentions
        measure = measure_of(q, measured)  # 9. the measure and the aggregate
        if q.op is None and implied_count(q.text, q.mentions, measured):  # 'deaths in site 4'
            q.op = "count"
            q.groundings.append(Grounding(phrase=q.question, kind="aggregate", target="count"))
        op = q.op
        if op is None:
            raise Abstain("the question asks for no count, percentage, mean or median")
        if (
            op == "proportion"
            and not numerator
            and not (
                q.groups
                and (q.distribution or not filters)
                and (q.groups[-1] is q.distributed or q.groups == said_groups[:1])
            )
        ):  # (the one variable said, nothing to count: each group's share, a distribution)
            raise Abstain("the percentage has nothing to count: name what the infants had")
        if op in {"mean", "median", "min", "max", "stddev"} and measure.of == "patients":
            raise Abstain(f"the {op} of what? the question names no numeric variable")
        check_all_subjects(q.text, q.mentions, self.trials)  # 'in all infants', one trial's item
        check_trials(
            q.mentions, self.roles.get("trial"), self.trials, q.groups, filters, q.both_trials
        )
        aggregate = (
            Aggregate(op=op, numerator=tuple(numerator)) if op == "proportion" else Aggregate(op=op)
        )  # type: ignore[arg-type]
        plan = QueryPlan(
            question=question,
            patient_id=q.patient_id,
            filters=tuple(filters),
            measure=measure,
            aggregate=aggregate,
            group_by=tuple(GroupBy(key="variable", variable=g.name) for g in q.groups),
        )
        return Reading(
            question=question,
            plan=plan,
            confidence=0.9,
            groundings=tuple(q.groundings),
            notes=(
                *coverage_notes(q.mentions, self.trials),
                *((f"spread: {spread}",) if (spread := spread_asked(question)) else ()),
            ),
        )

    # -- the steps ---------------------------------------------------------------------------
    def _subject_list_rate(self, q: _Question) -> None:
        """One subject ('infant NC-02-0001'), a list ('which sites ...'), a rate ('mortality rate')."""
        sid = SUBJECT_ID.search(q.question)
        if sid:
            q.patient_id = sid.group("id") or sid.group("id2")
            q.blank(sid.start(), sid.end())
            q.groundings.append(Grounding(phrase=sid.group(0), kind="patient", target=q.patient_id))
        lm = LIST_RE.match(q.masked)
        if lm:
            found = group_of(lm.group("w"), self.roles, self.families)
            if found is not None and COMPARATIVE.search(q.masked):
                raise Abstain(
                    "a ranking ('which ... highest') is not supported; ask for values by group"
                )
            if found is not None:
                q.listing = found[0]
                q.listing_phrase = lm.group(0)
                q.blank(0, lm.start("w") + found[1])
        at = 0
        while (m := re.compile(r"\brate\b").search(q.masked, at)) is not None:
            at = m.end()
            prev_words = [t.norm for t in tokenize(q.masked[: m.start()])][-1:]
            if not any(
                f.kind == "numeric" and "rate" in f.head and set(prev_words) & f.head
                for f in self.families
            ):
                # in the text too: what is read stays aligned with what is left of it
                q.masked = q.masked[: m.start()] + " percentage" + q.masked[m.end() :]
                q.text = q.text[: m.start()] + " percentage" + q.text[m.end() :]
                at = m.start() + len(" percentage")

    def _clarifications(self, q: _Question) -> None:
        """A parenthetical restatement ('(i.e. across rewarming)', '(that is, ...)') that names
        nothing in the dictionary — no variable, code, group, number or negation — is a gloss on
        what precedes it, not a condition or a grouping: it is left unread (and said so). A unit
        in brackets ('(mins)') is read, to be checked against what is measured."""
        read_unit_asides(q, self.units)
        for m in CLARIFICATION.finditer(q.masked):
            body = m.group("body")
            words = [
                t for t in tokenize(body) if t.norm not in EXTRA_FILLER and t.text not in NEGATORS
            ]
            if (
                any(t.norm in self.vocabulary or t.text[:1].isdigit() for t in words)
                or any(t.text in NEGATORS for t in tokenize(body))
                or find_time_points(body)
            ):
                q.blank(m.start(), m.start("body"))  # the marker is no content word
                continue
            q.groundings.append(
                Grounding(phrase=m.group(0), kind="clarification", target="a restatement, not read")
            )
            q.blank(m.start(), m.end())

    def _find_groups(self, q: _Question) -> None:
        """'by arm', 'per trial', 'in each site', 'by arm and trial', 'in both trials'."""
        at = 0
        while (m := GROUP_RE.search(q.masked, at)) is not None:
            # (an unread match gives back its words: 'between 0 h and 72 h by arm' has 'by arm')
            at = m.start("rest")
            lead = m.group("lead")
            found = group_of(m.group("rest"), self.roles, self.families, binary=lead == "by")
            if found is None:
                if m.group("lead") in {
                    "per",
                    "in each",
                    "for each",
                    "at each",
                    "within each",
                    "across",
                }:
                    raise Abstain(
                        f"{m.group(0).strip()!r}: the trial table has no coded variable to group by "
                        f"for {m.group('rest').split()[0]!r}",
                        unresolved=[m.group("rest").split()[0]],
                    )
                if m.group("lead") == "by" and (
                    words := unread_grouping(
                        m.group("rest"), self.families, self.vocabulary | EXTRA_FILLER
                    )
                ):
                    raise Abstain(
                        f"{m.group(0).strip()!r}: a grouping, but "
                        + ", ".join(repr(w) for w in words)
                        + " could not be read as part of it",
                        unresolved=words,
                    )
                continue
            var, used = found
            if var not in q.groups:
                q.groups.append(var)
            more = re.match(
                r"\s*(?:and|,)\s+(?:by\s+)?(?:\|\s*)?(?:the\s+)?([a-z][a-z0-9\-]*(?:\s+[a-z][a-z0-9\-]*)?)",
                q.masked[m.start("rest") + used :],
            )
            if more:
                second = group_of(more.group(1), self.roles, self.families)
                if second is not None:
                    if second[0] not in q.groups:
                        q.groups.append(second[0])
                    used += more.start(1) + second[1]
            used += self._groups_listed(q, var, m.start("rest") + used)
            q.groundings.append(
                Grounding(
                    phrase=m.group(0).strip(),
                    kind="group",
                    target=f"{var.name} ({var.description})",
                )
            )
            q.blank(m.start(), m.start("rest") + used)
        q.both_trials = bool(BOTH_TRIALS.search(q.text))
        trial_var = self.roles.get("trial")
        if q.both_trials and trial_var is not None and trial_var not in q.groups:
            q.groups.append(trial_var)

    def _groups_listed(self, q: _Question, var: Variable, at: int) -> int:
        """'by HIE grade (mild, moderate, severe)': the grouping's codes listed in brackets
        restate the groups; how many characters they take (0 when there is no such list)."""
        listed = re.match(r"\s*\(([^()]*)\)", q.masked[at:])
        cs = next((c for c in self.codesets if c.var is var), None)
        if listed is None or cs is None:
            return 0
        words = [t for t in tokenize(listed.group(1)) if t.norm not in EXTRA_FILLER]
        if not words or any(t.norm not in cs.tokens and t.text not in var.codes for t in words):
            return 0
        q.groundings.append(
            Grounding(phrase=listed.group(0).strip(), kind="group", target="the groups, restated")
        )
        return listed.end()

    def _find_mentions(self, q: _Question) -> None:
        """The variables and codes the remaining words name; abstain on any word left over."""
        q.tokens = tokens = tokenize(q.masked.replace("%", " "))
        content = [t for t in tokens if t.norm not in EXTRA_FILLER and t.text not in NEGATORS]
        parse = Parse(q.masked, content, generic=self.generic)
        # a word right before a subject noun ('cooled babies', 'the standard care group')
        # describes the subjects: a code or a yes/no item, never a measurement
        # ('avg(GA_WKS) group by SITE': no noun after a bracket, and 'group by' is a verb)
        for k, t in enumerate(tokens[:-1]):
            noun = tokens[k + 1]
            if (
                noun.norm in SUBJECT_NOUNS
                and t in content
                and not q.masked[t.end : noun.start].strip()
                and not re.match(r"\s+by\b", q.text[noun.end :])
            ):
                parse.attributive.add(content.index(t))
        correct_typos(content, self.vocabulary, q.in_time, q.groundings, self.neighbours)
        # a verb linking the subjects to what they had ('needed', 'required') is no content
        unknown = [
            t.text
            for t in content
            if t.norm not in self.vocabulary | LINKING_VERBS and not q.in_time(t.start)
        ]
        q.unplaced(unknown)
        asked = tuple(tp.text() for tp, _, _ in q.times)
        bounds = read_threshold_items(q, parse, self.families)  # 'under 32.5 during cooling'
        q.mentions = find_mentions(parse, self.families, self.codesets, asked) + bounds
        check_threshold_items(q.mentions)
        self._label_then_code(q, parse)
        q.mentions += place_lone_words(parse, self.families, q.mentions, asked)  # 'survivors'
        check_aside_counted(q.text, parse, q.mentions)  # 'how many causes of death'
        design_words = set().union(*ROLE_WORDS.values())
        q.unplaced(
            [
                t.text
                for i, t in enumerate(content)
                if i not in parse.consumed
                and t.norm not in design_words | LINKING_VERBS
                and not q.in_time(t.start)
                and not absorbed(q, parse, i)
            ]
        )

    def _label_then_code(self, q: _Question, parse: Parse) -> None:
        """A coded variable's name then a bare number that is one of its codes ('HIE grade 2',
        'Sarnat stage 3') is that code, as 'HIE_GRADE 2' is; 'HIE grade 2 or 3' are both."""
        for k, mt in enumerate(q.mentions):
            fam = mt.target
            if isinstance(fam, CodeSet) and len(mt.codes) == 1:
                code_restated(q, parse, mt)
                continue
            if not isinstance(fam, Family) or fam.kind != "categorical" or len(fam.members) != 1:
                continue
            var = next(iter(fam.members.values()))[0]
            nxt = max(mt.positions) + 1
            if nxt >= len(parse.content) or nxt in parse.consumed:
                continue
            said = parse.content[nxt]
            between = parse.text[parse.content[max(mt.positions)].end : said.start]
            cs = next((c for c in self.codesets if c.var is var), None)
            if (
                cs is None
                or not said.text.isdigit()
                or said.text not in var.codes
                or between.strip()
            ):
                continue
            taken = [nxt]
            while taken[-1] + 1 < len(parse.content) and taken[-1] + 1 not in parse.consumed:
                more = parse.content[taken[-1] + 1]
                gap = parse.text[parse.content[taken[-1]].end : more.start]
                if more.text not in var.codes or not re.fullmatch(r"\s*(?:or|,|/)\s*", gap):
                    break
                taken.append(taken[-1] + 1)
            parse.consumed |= set(taken)
            said = parse.content[taken[-1]]
            codes = tuple(dict.fromkeys(parse.content[i].text for i in taken))
            q.mentions[k] = Mention(
                cs, [*mt.positions, *taken], mt.start, said.end, codes=codes, variable=var
            )


@dataclass
class _Question:
    """A question being read: its text, what is left of it (masked), and what was found."""

    question: str
    text: str
    masked: str
    groundings: list[Grounding] = field(default_factory=list)
    patient_id: str | None = None
    listing: Variable | None = None
    listing_phrase: str = ""
    comparisons: list[tuple[str, float, float | None, int, int]] = field(default_factory=list)
    units: dict[tuple[int, int], str] = field(default_factory=dict)
    times: list[tuple[TimePoint, int, int]] = field(default_factory=list)
    op: str | None = None
    change: bool = False
    groups: list[Variable] = field(default_factory=list)
    both_trials: bool = False
    distribution: bool = False
    minus: bool = False
    distributed: Variable | None = None
    tokens: list[Token] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    compared: list[tuple[int, int, int]] = field(default_factory=list)
    known: list[tuple[int, int]] = field(default_factory=list)
    """Spans of the variables named by clauses restating the missing default ('known X')."""
    scanned: bool = False
    """'who were scanned': an imaging result known (checked once mentions are read)."""
    """(start of its sentence, of the comparative word, end of the sentence) of each yes/no
    comparison."""
    units_said: list[str] = field(default_factory=list)
    codes_out: list[str] = field(default_factory=list)
    """Codes said to be left out ('8 and 9 excluded'): each a missing code of what is named."""

    def blank(self, a: int, b: int) -> None:
        """Blank out characters a..b of what is left (they have been read)."""
        self.masked = self.masked[:a] + " " * (b - a) + self.masked[b:]

    def in_time(self, pos: int) -> bool:
        return any(a <= pos < b for _, a, b in self.times)

    def unplaced(self, words: list[str]) -> None:
        if words:
            raise Abstain(
                "the trial table has no variable, code or time point for "
                + ", ".join(repr(w) for w in words),
                unresolved=words,
                groundings=self.groundings,
            )


def _find_comparisons(q: _Question) -> None:
    for m in BETWEEN.finditer(q.masked):
        if not m.group("unit") and TIME_UNITS.match(q.masked[m.end() :].lstrip()):
            continue  # 'between 0 and 48 hours' is a pair of time points
        q.comparisons.append(("between", float(m.group("a")), float(m.group("b")), *m.span()))
        q.units[m.span()] = m.group("unit") or ""
        q.blank(m.start(), m.end())
    for m in CMP.finditer(q.masked):
        rest = q.masked[m.end("num") :].lstrip()
        if not m.group("unit") and TIME_UNITS.match(rest):
            continue
        q.comparisons.append((OPS[m.group("op")], float(m.group("num")), None, *m.span()))
        q.units[m.span()] = m.group("unit") or ""
        q.blank(m.start(), m.end())
    for m in BEFORE_AFTER.finditer(q.masked):  # 'born before 37 weeks'
        q.comparisons.append(
            (BEFORE_AFTER_OPS[m.group("op")], float(m.group("num")), None, *m.span())
        )
        q.units[m.span()] = m.group("unit") or m.group("age")
        q.blank(m.start(), m.end())
    for m in CMP_AFTER.finditer(q.masked):  # '3 or higher'
        if re.search(
            r"\b(?:day|d|h|hours?|months?|min|minutes?|weeks?)\s*$", q.masked[: m.start()]
        ):
            continue
        op = CMP_AFTER_OPS[m.group("op")]
        q.comparisons.append((op, float(m.group("num")), None, *m.span()))
        q.units[m.span()] = m.group("unit") or ""
        q.blank(m.start(), m.end())
    for m in VALUE_OF.finditer(q.masked):  # 'an Apgar score of 0', 'a GMFCS level of 4 or 5'
        if TIME_UNITS.match(q.masked[m.end() :].lstrip()):
            continue
        a, b = int(m.group("num")), int(m.group("num2") or m.group("num"))
        if b < a or (m.group("sep") == "or" and b > a + 1):
            continue  # '4 or 6' is no range: left unread
        span = (m.start("num"), m.end())
        q.comparisons.append(("=", float(a), None, *span) if a == b else ("between", a, b, *span))
        q.units[span] = ""
        q.blank(*span)


def _find_times(q: _Question) -> None:
    for tp, (a, b) in find_time_points(q.masked):
        q.times.append((tp, a, b))
        if tp.scale in {"h", "min", "mo"}:
            q.blank(a, b)


def _find_aggregate(q: _Question) -> None:
    aggs = [(m.start(), AGG_WORDS[m.group(1) or m.group(0)]) for m in AGG_RE.finditer(q.masked)]
    q.op = aggs[0][1] if aggs else None
    share = IMPLIED_SHARE.search(q.masked)
    if q.op is None and share:
        q.op = "proportion"  # 'the mortality in the cooled arm' is the share who died
        if share.group(0) != "mortality":  # which is the death itself; 'incidence' is no word
            q.blank(share.start(), share.end())
    q.minus = find_minus(q)  # 'TEMP_24H - TEMP_0H'
    q.change = q.minus or bool(CHANGE_RE.search(q.masked))
    for m in AGG_RE.finditer(q.masked):
        q.blank(m.start(), m.end())
    q.masked = CHANGE_RE.sub(lambda m: " " * len(m.group(0)), q.masked)


def _both_sides(q: _Question) -> None:
    """Negated mentions; 'cooled and non-cooled', 'with and without seizures' group by it."""
    text = q.text
    for mt in q.mentions:
        # a negator governs the next mention only ('non dead sakura infants': not SAKURA)
        since = max((o.end for o in q.mentions if o.end <= mt.start), default=0)
        said = [t for t in q.tokens if since <= t.start and t.end <= mt.start]
        before = said[-2:]
        mt.negated = any(t.text in NEGATORS for t in before)
        near = said[-3:]
        if sum(t.text in NEGATORS for t in near) > 1:  # 'not the survivors': 'not the non dead'
            raise Abstain(f"'{text[near[0].start : mt.end]}' is a double negation; say it plainly")
        inside = [t for t in q.tokens if mt.start <= t.start < mt.end and t.text in NEGATORS]
        both = re.search(r"\bwith\s+(?:and|or)\s+without\s+$", text[: mt.start])
        if inside or both:
            members = (
                [v for vs in mt.target.members.values() for v in vs]
                if isinstance(mt.target, Family)
                else [mt.target.var]
            )
            both_sides = mt.variable or (members[0] if len(members) == 1 else None)
            if both_sides is None or both_sides.type != "categorical":
                raise Abstain(f"'{text[mt.start : mt.end]}' names a value and its negation")
            if both_sides not in q.groups:
                q.groups.append(both_sides)
            mt.grouped = True  # a grouping, not a condition
    # 'outborn infants compared with inborn (non outborn) infants': a yes/no item and its
    # negation, said apart, are both sides of it (as a filter they would leave no one)
    for mt, other in itertools.combinations(q.mentions, 2):
        if (
            isinstance(mt.target, Family)
            and mt.target is other.target
            and mt.target.kind == "binary"
            and mt.negated != other.negated
            and len(mt.target.members) == 1
        ):
            var = next(iter(mt.target.members.values()))[0]
            if var not in q.groups:
                q.groups.append(var)
            mt.grouped = other.grouped = True


def _attach_comparisons(q: _Question) -> None:
    """Each numeric condition goes to the nearest numeric variable; 'A or B' abstains."""
    text = q.text
    # 'hyperthermia (>38)': the threshold a yes/no item's label states, said again
    q.comparisons = drop_label_thresholds(q.comparisons, q.mentions, text, q.groundings)
    for kind, value, value2, a, b in q.comparisons:
        numeric = [
            mt
            for mt in q.mentions
            if isinstance(mt.target, Family)
            and mt.target.kind == "numeric"
            and mt.comparison is None
        ]
        if not numeric:
            raise Abstain(f"the condition {text[a:b].strip()!r} names no numeric variable")
        best = min(
            numeric,
            key=lambda mt: (
                0 if mt.end <= a else 1,
                abs((mt.end if mt.end <= a else mt.start) - a),
            ),
        )
        factor = unit_factor(q.units.get((a, b), ""), best.target, text[a:b].strip())
        best.comparison = (
            kind,
            value * factor,
            value2 * factor if value2 is not None else None,
        )
    ordered = sorted(q.mentions, key=lambda m: m.start)
    for left_m, right_m in itertools.pairwise(ordered):
        # (in what is left unread: the "or" of "5 or less" belongs to its bound)
        if left_m.target is not right_m.target and re.search(
            r"\bor\b", q.masked[left_m.end : right_m.start]
        ):
            raise Abstain(
                f"'{text[left_m.start : right_m.end]}' joins two variables with 'or'; "
                "ask for each condition separately"
            )


def _conditions(
    q: _Question,
) -> tuple[list[VariableFilter], list[VariableFilter], list[Mention]]:
    """(cohort filters, numerator filters, the numeric mentions left to measure)."""
    filters: list[VariableFilter] = []
    numerator: list[VariableFilter] = []
    measured: list[Mention] = []
    vs = bool(re.search(r"\b(vs|versus|compared (with|to)|compare|between)\b", q.text))
    # 'HIE grade = 3' read as 'severe' and 'HIE grade': the variable named beside its own code
    coded = {mt.target.var.name for mt in q.mentions if isinstance(mt.target, CodeSet) and mt.codes}
    for mt in q.mentions:
        if isinstance(mt.target, CodeSet):
            var = mt.target.var
            # every code of it listed with '/' ('rate for mild / mod / sev HIE') restricts
            # nothing: by it ('mild, moderate or severe' is one pooled condition)
            said = q.text[mt.start : mt.end]
            every = set(mt.codes) == set(var.codes) and "/" in said and " or " not in said
            listed = joined_by_and(mt, q.text)  # 'boys and girls': each, not pooled
            if len(mt.codes) >= 2 and (vs or every or listed) and var not in q.groups:
                q.groups.append(var)
        elif mt.target.kind == "categorical" and mt.comparison is None:
            cat_var = mt.variable
            assert cat_var is not None
            if cat_var in q.groups or cat_var.name in coded:
                continue
            if q.distribution and q.op == "proportion":  # the variable distributed
                q.groups.append(cat_var)
                q.distributed = cat_var
                continue
            shown = "; ".join(f"{k}={v or '?'}" for k, v in list(cat_var.codes.items())[:6])
            raise Abstain(
                f"which value of {cat_var.name} ({cat_var.description})? codes: {shown}; "
                "name one, or ask 'by ...' to group by it"
            )
        elif mt.target.kind == "numeric" and mt.comparison is None:
            measured.append(mt)
    if q.op == "proportion":
        zones(q.mentions, q.text, q.groups)
    for mt in q.mentions:
        flt = to_filter(mt)
        if flt is None:
            continue
        q.groundings.append(grounding(mt, q.text))
        check_and_counted(mt, q.text)
        if q.op == "proportion" and mt.zone == "numerator":
            numerator.append(flt)
        else:
            filters.append(flt)
    # one condition said twice ('was mortality different ...? the percentage who died') is
    # one condition: what is counted is not also the cohort (a share of 100 % by construction)
    filters = [f for k, f in enumerate(filters) if f not in numerator and f not in filters[:k]]
    return filters, numerator, measured


def parse_time(text: str) -> str | None:
    """The canonical time point a phrase names (for callers outside the reader)."""
    tp = parse_time_point(text)
    return tp.text() if tp else None
