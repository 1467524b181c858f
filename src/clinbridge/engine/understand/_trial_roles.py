"""The roles of what a trial question names: cohort or numerator, filters, trial coverage."""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from clinbridge.engine.plan import VariableFilter
from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._trial_model import Abstain, CodeSet, Family, Mention, is_yes
from clinbridge.engine.understand._trial_share_head import counted_at_once
from clinbridge.engine.understand._trial_vocab import tokenize
from clinbridge.engine.understand._trial_words import (
    COHORT_MARKERS,
    CONVERT,
    IMPLIED_SHARE,
    LINK_VERBS,
    SPLIT_VERBS,
    SUBJECT_NOUNS,
    UNIT_NAMES,
)

if TYPE_CHECKING:
    from clinbridge.catalog import Variable


def zones(mentions: list[Mention], text: str, groups: list[Variable]) -> None:
    """Which conditions make the denominator (cohort) and which the numerator."""
    m = re.search(r"\b(percentage|percent|proportion|fraction|share|risk)s?\b|%", text)
    implied = IMPLIED_SHARE.search(text)
    if implied is not None:
        # 'the mortality among cooled infants with severe HIE': what the word names (the death,
        # or what follows 'incidence of') is counted; everything else is the cohort — with a
        # share word said too ('severe HIE mortality, %': the mortality of severe HIE)
        after = [mt for mt in mentions if mt.end > implied.start()]
        counted = min(after, key=lambda mt: mt.start) if after else None
        for mt in mentions:
            if not (isinstance(mt.target, CodeSet) and mt.target.var in groups):
                mt.zone = "numerator" if mt is counted else "cohort"
        return
    after_of = m.end() if m else 0
    if m is not None and _premodified(mentions, text, groups, m.start(), m.end()):
        return
    if m is not None and counted_at_once(mentions, text, groups, m.end()):
        return  # '% on inotropes severe HIE babies that were cooled'
    phrases = cohort_phrases(text)
    split = _split(text, after_of, phrases)
    of = re.compile(r"\s*of\s+(?:\|\s*)?(?:the\s+|all\s+)?").match(text, after_of) if m else None
    head = None
    if of is not None:
        first = tokenize(text[of.end() :])[:1]
        if first and first[0].norm not in SUBJECT_NOUNS:
            head = next((mt for mt in mentions if mt.start == of.end()), None)
    others = [
        mt
        for mt in mentions
        if mt is not head
        and mt.variable is not None
        and not (isinstance(mt.target, CodeSet) and mt.target.var in groups)
    ]
    if head is not None and others and _linked(text, head, others):
        # 'proportion of deaths (that) occurred in the cooled arm': of the deaths, how many
        for mt in mentions:
            if not (isinstance(mt.target, CodeSet) and mt.target.var in groups):
                mt.zone = "cohort" if mt is head else "numerator"
        return
    for mt in mentions:
        if isinstance(mt.target, CodeSet) and mt.target.var in groups:
            continue
        if any(a <= mt.start < b for a, b in phrases):
            mt.zone = "cohort"
            continue
        if split is not None:
            mt.zone = "numerator" if mt.start >= split else "cohort"
            continue
        # a cohort marker governs its own clause: 'in neocool, primary outcome rate' counts the
        # primary outcome within NEOCOOL
        clause = re.split(r"[,;:?()]", text[: mt.start])[-1]
        prev = [t.text for t in tokenize(clause)][-3:]
        role = isinstance(mt.target, CodeSet) and mt.target.var.role in {"arm", "trial", "site"}
        if any(w in COHORT_MARKERS for w in prev) or role:
            mt.zone = "cohort"
        else:
            mt.zone = "numerator"
    # an arm, trial or site said with 'in'/'at' beside something else counted ('% who died in
    # the cooled arm') is where it is counted: the cohort; alone ('% ... were in the cooled arm')
    # or joined to it ('% who were cooled and died') it is counted
    in_count = [mt for mt in mentions if mt.zone == "numerator"]
    if any(not _design(mt) for mt in in_count):
        for mt in in_count:
            before = [t.text for t in tokenize(text[: mt.start])][-2:]
            if _design(mt) and set(before) & {"in", "at", "within", "from", "for"}:
                mt.zone = "cohort"
            elif (
                isinstance(mt.target, CodeSet)
                and before[-1:] == ["in"]
                and any(o.end <= mt.start and not _design(o) for o in in_count)
            ):
                # '% died in severe HIE': a group said with 'in' after what is counted is where
                # it is counted ('in the cooled arm' likewise), not a second thing counted
                mt.zone = "cohort"


def _premodified(
    mentions: list[Mention], text: str, groups: list[Variable], start: int, end: int
) -> bool:
    """'severe HIE death rate', 'male CP percentage': the share word after a bare run of
    conditions (nothing but their own words between them) and none after it counts the last
    of them, within the others; set the zones and say so, or leave them."""
    conds = [
        mt
        for mt in mentions
        if mt.variable is not None
        and not (isinstance(mt.target, CodeSet) and mt.target.var in groups)
    ]
    before = sorted((mt for mt in conds if mt.end <= start), key=lambda mt: mt.start)
    if len(before) < 2 or any(mt.start >= end for mt in conds):
        return False
    gaps = [text[a.end : b.start] for a, b in itertools.pairwise([*before])]
    gaps.append(text[before[-1].end : start])
    if any(g.strip() for g in gaps):
        return False
    for mt in conds:
        mt.zone = "numerator" if mt is before[-1] else "cohort"
    return True


def _design(mt: Mention) -> bool:
    return isinstance(mt.target, CodeSet) and mt.target.var.role in {"arm", "trial", "site"}


def cohort_phrases(text: str) -> list[tuple[int, int]]:
    """The spans that 'among', 'amongst', 'within', 'where' or 'in infants' / 'for those' open:
    to the end of the clause or
    the next verb that is not a relative clause's ('among cooled babies who died', but 'among
    the cooled | died'). Everything said in them is the cohort, wherever they stand."""
    toks = tokenize(text)
    out: list[tuple[int, int]] = []
    k = 0
    while k < len(toks):
        opens = toks[k].text in STRONG_COHORT or (
            # 'in infants with severe HIE', 'for those who were cooled': as 'among'; 'of
            # babies who needed X, % Y' opening the question likewise
            (toks[k].text in {"in", "for"} or (k == 0 and toks[k].text == "of"))
            and k + 1 < len(toks)
            and (toks[k + 1].norm in SUBJECT_NOUNS or toks[k + 1].text in {"those", "the"})
            and (
                toks[k + 1].text != "the"
                or (k + 2 < len(toks) and toks[k + 2].norm in SUBJECT_NOUNS)
            )
        )
        if not opens:
            k += 1
            continue
        start, end = toks[k].start, len(text)
        j = k + 1
        while j < len(toks):
            t = toks[j]
            if re.search(r"[,;:?()]", text[toks[j - 1].end : t.start]) or t.text in ASKING:
                end = toks[j - 1].end
                break
            relative = t.text in RELATIVE or toks[j - 1].text in RELATIVE
            if t.text in SPLIT_VERBS and not relative:
                end = toks[j - 1].end
                break
            j += 1
        out.append((start, end))
        k = j
    return out


STRONG_COHORT = frozenset({"among", "amongst", "within", "where"})
ASKING = frozenset({"what", "how", "percentage", "percent", "proportion", "fraction", "share"})


def _split(text: str, after: int, phrases: list[tuple[int, int]]) -> int | None:
    """Where what is counted starts: the first verb after the percentage ('... of cooled
    infants | who died'). A relative clause then a verb of its own ('infants who were cooled |
    died', 'infants who had severe HIE | died') describes the cohort: the count starts at that
    second verb, unless 'and'/'or' joins it to the clause ('who had seizures and died')."""
    toks = [
        t
        for t in tokenize(text[after:])
        if not any(a <= after + t.start < b for a, b in phrases)  # a cohort's own verbs
    ]
    first = next((k for k, t in enumerate(toks) if t.text in SPLIT_VERBS), None)
    if first is None:
        return None
    if toks[first].text == "whose":
        # 'infants whose aEEG was flat | died', 'infants whose aEEG showed a flat trace | died':
        # the clause's own verb (a copula, or one the splitter does not know) is the cohort's;
        # the count starts at the verb after it, or at 'whose' when none follows
        verbs = [k for k in range(first + 2, len(toks)) if toks[k].text in SPLIT_VERBS - RELATIVE]
        if verbs and toks[verbs[0]].text in _COPULAS:
            verbs = verbs[1:]
        if verbs and toks[verbs[0] - 1].text not in {"and", "or", "but", "nor"}:
            return after + toks[verbs[0]].start
        return after + toks[first].start
    if (
        toks[first].text in RELATIVE
        and first + 1 < len(toks)
        and toks[first + 1].text in SPLIT_VERBS
    ):
        for k in range(first + 3, len(toks)):
            if toks[k].text in SPLIT_VERBS - RELATIVE:
                if toks[k - 1].text in {"and", "or", "but", "nor"}:
                    break
                return after + toks[k].start
    return after + toks[first].start


RELATIVE = frozenset({"who", "whose", "that", "which"})
_COPULAS = frozenset({"was", "were", "is", "are", "had", "has", "have"})


def _linked(text: str, head: Mention, others: list[Mention]) -> bool:
    """Whether a verb links the head of 'proportion of X' to the conditions after it."""
    after = [o.start for o in others if o.start >= head.end]
    if not after:  # 'for each centre in LOTUS, the share of X': said before it, the cohort
        return False
    return any(t.text in LINK_VERBS for t in tokenize(text[head.end : min(after)]))


def to_filter(mt: Mention) -> VariableFilter | None:
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
        yes = [c for c, lab in var.codes.items() if is_yes(lab)]
        return VariableFilter(variable=var.name, op="in", codes=tuple(yes), negate=mt.negated)
    return None


def grounding(mt: Mention, text: str, note: str = "") -> Grounding:
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


def check_trials(
    mentions: list[Mention],
    trial: Variable | None,
    trials: tuple[str, ...],
    groups: list[Variable],
    filters: list[VariableFilter],
    both: bool,
) -> None:
    if trial is None or not trials:
        return
    chosen: set[str] = set(trials)
    for f in filters:
        if f.variable == trial.name and f.op == "in":
            chosen = {trial.codes.get(c, c) for c in f.codes}
            if f.negate:
                chosen = set(trials) - chosen
    compared = trial in groups or both
    for mt in mentions:
        var = mt.variable
        if var is None or var.role or not var.trials:
            continue
        have = set(var.trials)
        where = f"{var.description}" + (f" at {var.time_point}" if var.time_point else "")
        if compared and not set(trials) <= have:
            raise Abstain(
                f"{where} ({var.name}) was collected only in {', '.join(sorted(have))}; "
                "the trials cannot be compared on it"
            )
        if not chosen & have:
            raise Abstain(
                f"{where} ({var.name}) was not collected in {', '.join(sorted(chosen))} "
                f"(only in {', '.join(sorted(have))})"
            )


def coverage_notes(mentions: list[Mention], trials: tuple[str, ...]) -> list[str]:
    notes = []
    for mt in mentions:
        var = mt.variable
        if var is not None and var.trials and set(var.trials) != set(trials):
            notes.append(f"{var.name} was collected only in {', '.join(var.trials)}")
    return notes


def unit_factor(said: str, target: Family | CodeSet, phrase: str) -> float:
    """What to multiply the question's number by to reach the variable's unit (1 if unsaid)."""
    said = UNIT_NAMES.get(said.strip().lower(), said.strip())
    if not said or not isinstance(target, Family):
        return 1.0
    unit = next((v.unit for vs in target.members.values() for v in vs if v.unit), None)
    if unit is None:
        return 1.0
    stored = UNIT_NAMES.get(unit.lower(), unit)
    if stored == said:
        return 1.0
    if (said, stored) in CONVERT:
        return CONVERT[(said, stored)]
    raise Abstain(f"{phrase!r} is in {said}, but {target.label!r} is stored in {unit}")
