"""Finding what a trial question names: variables and codes among its words, time points."""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Any

from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._trial_direction import (
    check_direction,
    contradicts,
    said_direction,
)
from clinbridge.engine.understand._trial_model import Abstain, CodeSet, Family, Mention, Parse
from clinbridge.engine.understand._trial_moment import check_fixed_moment
from clinbridge.engine.understand._trial_soft_words import SOFT_WORDS
from clinbridge.engine.understand._trial_vocab import (
    DEFAULT_QUALIFIERS,
    ROLE_WORDS,
    Token,
    canon,
    tokenize,
)
from clinbridge.engine.understand._trial_words import CLAUSE_BREAK, DESIGN_PRIOR, SPLIT_VERBS
from clinbridge.timepoint import TimePoint

if TYPE_CHECKING:
    from clinbridge.catalog import Variable


LINKING_VERBS = (frozenset(canon(w) for w in SPLIT_VERBS) - {"death"}) | SOFT_WORDS
"""Verbs that link the subjects to what they had ('reached', 'developed'): alone, no mention
('died' is excluded: it names the death); and the soft words of ``_trial_soft_words``."""


_CLASS_NOUNS = frozenset({"grade", "level", "category", "categorie", "stage", "class", "type"})
"""Nouns that name a coded variable's values as a kind ('disability grade', 'feeding type')."""


def group_of(
    rest: str, roles: dict[str, Variable], families: list[Family], *, binary: bool = False
) -> tuple[Variable, int] | None:
    """The grouping variable a 'by ...' phrase names, and how many characters it used; with
    ``binary``, a yes/no item too ('median stay by death before discharge': yes and no)."""
    toks = tokenize(rest)
    if not toks:
        return None
    first = toks[0].norm.rstrip("s") if toks[0].norm not in ROLE_WORDS else toks[0].norm
    for role, words in ROLE_WORDS.items():
        if (toks[0].norm in words or first in words) and role in roles:
            # 'by randomised arm', 'by treatment group': take the role words that follow
            used = toks[0].end
            for t in toks[1:]:
                if t.norm in words or t.norm.rstrip("s") in words:
                    used = t.end
                else:
                    break
            return roles[role], used
    best: tuple[float, Variable, int] | None = None
    best_fam: Family | None = None
    said: set[str] = set()
    for fam in families:
        if fam.kind != "categorical" and not (
            binary and fam.kind == "binary" and len(fam.members) == 1
        ):
            continue
        hit = [t for t in toks if t.norm in fam.tokens]
        if not hit or toks[0] not in hit:
            continue
        score = len(hit) + 0.1 * len(hit) / max(1, len(fam.head)) - 0.05 * (fam.kind == "binary")
        if best is None or score > best[0]:
            members = [v for vs in fam.members.values() for v in vs]
            end = hit[-1].end
            after = toks.index(hit[-1]) + 1
            if (
                fam.kind == "categorical"
                and after < len(toks)
                and toks[after].text.lower().rstrip("s") in _CLASS_NOUNS
                and not rest[end : toks[after].start].strip()
            ):
                end = toks[after].end  # 'by disability grade': the grade of 'Disability'
            best, best_fam, said = (score, members[0], end), fam, {t.norm for t in hit}
    if best is None:
        return None
    if best_fam is not None and best_fam.kind == "binary":
        # 'by seizures': before randomisation or in the first 72 hours? Only a name said whole
        # that no other item's name also is settles it (as for a mention: check_shadows)
        others = [
            f
            for f in families
            if f is not best_fam and f.kind in {"binary", "categorical"} and said <= f.tokens
        ]
        whole = [f for f in [best_fam, *others] if any(k <= said for k in f.keys)]
        if others and whole != [best_fam]:
            return None
    return best[1], best[2]


ALTERNATIVES = re.compile(r"\b(?:vs|versus|v)\b")
"""Words set against each other: what they join is two alternatives, never one variable's name."""


def set_against(parse: Parse, cl: list[int], a: int, b: int) -> bool:
    """Whether 'vs' parts the cluster into two different sets of words ('severe vs moderate';
    not 'outborn vs not outborn', one variable set against its negation)."""
    cut = ALTERNATIVES.search(parse.text, a, b)
    if cut is None:
        return False
    before = {parse.content[i].norm for i in cl if parse.content[i].end <= cut.start()}
    after = {parse.content[i].norm for i in cl if parse.content[i].start >= cut.end()}
    return bool(before) and bool(after) and before != after


def find_mentions(
    parse: Parse,
    families: list[Family],
    codesets: list[CodeSet],
    times: tuple[str, ...] = (),
) -> list[Mention]:
    out: list[Mention] = []
    content = parse.content
    while True:
        scored: list[tuple[float, Mention]] = []
        for fam in families:
            mt = match(fam, parse)
            if mt is not None:
                scored.append((mt.score, mt))
        for cs in codesets:
            mt = match_codes(cs, parse)
            if mt is not None:
                scored.append((mt.score, mt))
        if not scored:
            break
        # a label on the other side of a moment than the words said ('after' / 'before') is
        # never their reading while another is
        scored = [x for x in scored if not contradicts(parse, x[1])] or scored
        scored.sort(key=lambda x: -x[0])
        best = scored[0][1]
        rivals = [
            m
            for s, m in scored[1:]
            if s >= scored[0][0] - 0.05
            and set(m.core or m.positions) & set(best.core or best.positions)
        ]
        rivals += design_twins(parse, best, [m for _, m in scored[1:]])
        if rivals:
            best, rivals = said_whole(parse, best, rivals)
        if rivals:
            best, rivals = said_direction(parse, best, rivals)  # 'seizures after ...'
        if rivals:
            best, rivals = recorded_when_asked(times, best, rivals)
        if rivals:
            names = [describe(best)] + [describe(r) for r in rivals[:3]]
            phrase = " ".join(content[i].text for i in sorted(best.positions))
            raise Abstain(f"{phrase!r} could mean any of: " + "; ".join(names) + " — say which")
        check_direction(parse, best)  # 'after randomisation' is never 'before' it
        parse.consumed |= set(best.positions)
        out.append(best)
    return out


def said_whole(parse: Parse, best: Mention, rivals: list[Mention]) -> tuple[Mention, list[Mention]]:
    """Of mentions tied on the same words, one whose label the words say whole beats those whose
    label they say only in part: 'CAPE' is the trial CAPE, not the centre Cape Town; 'cooled'
    the allocation Hypothermia, not 'Received therapeutic hypothermia'. Two said whole stay
    tied (the caller abstains)."""
    whole = [mt for mt in [best, *rivals] if _whole(parse, mt)]
    if len(whole) != 1:
        return best, rivals
    return whole[0], []


def design_twins(parse: Parse, best: Mention, others: list[Mention]) -> list[Mention]:
    """A code of the arm, trial or site said by the very words that name a variable's label
    whole ('in cooling': the arm Cooling, or 'Received cooling (as treated)'?) is a rival however
    the two score: the question does not say which (the caller abstains)."""
    if not isinstance(best.target, Family) or not _whole(parse, best):
        return []
    return [
        m
        for m in others
        if isinstance(m.target, CodeSet)
        and m.target.var.role in {"arm", "trial", "site"}
        and set(m.positions) == set(best.positions)
        and _whole(parse, m)
    ]


def recorded_when_asked(
    times: tuple[str, ...], best: Mention, rivals: list[Mention]
) -> tuple[Mention, list[Mention]]:
    """Of variables tied on the same words, the one recorded at a time point the question asks
    ('survivors assessed at 18 months': the death before the 18-month assessment, not the death
    before discharge); none or several recorded then stay tied (the caller abstains)."""
    tied = [best, *rivals]
    if not times or not all(isinstance(mt.target, Family) for mt in tied):
        return best, rivals
    held = [mt for mt in tied if set(times) & set(mt.target.members)]  # type: ignore[union-attr]
    return (held[0], []) if len(held) == 1 else (best, rivals)


def _whole(parse: Parse, mt: Mention) -> bool:
    words = {parse.content[i].norm for i in mt.positions}
    if isinstance(mt.target, CodeSet):
        return bool(mt.codes) and all(
            mt.target.distinct.get(c) and mt.target.distinct[c] <= words for c in mt.codes
        )
    fam = mt.target
    return bool(fam.head) and (fam.head <= words or any(k <= words for k in fam.keys))


def describe(mt: Mention) -> str:
    if isinstance(mt.target, CodeSet):
        return f"{mt.target.var.description} = " + " or ".join(
            mt.target.var.codes.get(c, c) for c in mt.codes
        )
    return mt.target.label


def stem_only(text: str, fam: Family) -> bool:
    """Whether a question's word meets a participle that modifies another word of the family's
    label by its stem alone, in another form ('treated' and 'the treating centre', 'cooled' and
    'Cooling device water temperature'): the act, not the thing it describes."""
    said = text.lower()
    forms = fam.modifiers.get(canon(said))
    if not forms:
        # 'cooled' (the infants' state) is no 'cooling' (the act of 'Inotropes during cooling')
        written = {w for w in re.findall(r"[a-z]+", fam.label.lower()) if canon(w) == canon(said)}
        return said.endswith("ed") and bool(written) and all(w.endswith("ing") for w in written)
    participles = {f for f in forms if f.endswith(("ing", "ed"))}
    return bool(participles) and said not in participles


def _adverb_of(parse: Parse, i: int, fam: Family) -> bool:
    """'passively cooled', 'tube fed' are the label's 'passive cooling', 'tube feeding': the
    participle after the word (or its adverb) that stands before the label's own form of it."""
    if i == 0:
        return False
    prev, said = parse.content[i - 1].text.lower(), parse.content[i].text.lower()
    before = {prev}
    if prev.endswith("ly") and len(prev) >= 5:
        before |= {prev[:-2], prev[:-2] + "e"}
    words = re.findall(r"[a-z]+", fam.label.lower())
    return any(
        canon(w) == canon(said) and k > 0 and words[k - 1] in before for k, w in enumerate(words)
    )


_OR_HAD = re.compile(r"\s*or\s+(?:had|has|have)\s*")
"""'died or had moderate or severe disability': the verb of a disjunction's second side."""


def _whole_run(norms: list[str], said: set[str]) -> bool:
    """Whether the label words (``norms``, in the label's order) from the first to the last one
    said are all said: 'died or had severe disability' leaves out the 'moderate' of 'Death or
    moderate or severe disability', so it is not that composite."""
    at = [k for k, n in enumerate(norms) if n in said]
    return bool(at) and set(norms[min(at) : max(at) + 1]) <= said


def clusters(parse: Parse, words: set[str], *, disjunction: str | None = None) -> list[list[int]]:
    """Runs of the question's words among ``words``, near each other and in one clause; with
    ``disjunction`` (the label of an item joining two things with 'or': 'Death or
    moderate/severe disability'), 'or had' between two of them keeps them in one run when the
    run says the label's words from its first to its last without a gap."""
    idx = [i for i, t in enumerate(parse.content) if i not in parse.consumed and t.norm in words]
    clusters: list[list[int]] = []
    joined: set[int] = set()  # clusters joined across an 'or had'
    content = parse.content
    for i in idx:
        if clusters and i - clusters[-1][-1] <= 3:
            gap = parse.text[content[clusters[-1][-1]].end : content[i].start]
            if not CLAUSE_BREAK.search(gap):
                clusters[-1].append(i)
                continue
            if disjunction and _OR_HAD.fullmatch(gap) is not None:
                clusters[-1].append(i)
                joined.add(len(clusters) - 1)
                continue
        clusters.append([i])
    if joined and disjunction:
        norms = [t.norm for t in tokenize(disjunction) if t.norm in words]
        out: list[list[int]] = []
        for k, cl in enumerate(clusters):
            if k in joined and not _whole_run(norms, {content[i].norm for i in cl}):
                out.extend(_split_or_had(parse, cl))
            else:
                out.append(cl)
        return out
    return clusters


def _split_or_had(parse: Parse, cl: list[int]) -> list[list[int]]:
    """``cl`` cut where an 'or had' joined two of its words."""
    content = parse.content
    out: list[list[int]] = [[cl[0]]]
    for i in cl[1:]:
        gap = parse.text[content[out[-1][-1]].end : content[i].start]
        if _OR_HAD.fullmatch(gap) is not None:
            out.append([i])
        else:
            out[-1].append(i)
    return out


def span(parse: Parse, positions: list[int]) -> tuple[int, int]:
    return parse.content[min(positions)].start, parse.content[max(positions)].end


_BEFORE = re.compile(r"\b(?:before|pre|prior\s+to)\b", re.I)
_AFTER = re.compile(r"\b(?:after|post|following)\b", re.I)


def _order_contradicts(said: str, label: str) -> bool:
    """Whether the words of a mention say 'after' where the label says 'before' (and not
    'after'), or the reverse: the other side of the same event is another variable."""
    return bool(
        (_AFTER.search(said) and _BEFORE.search(label) and not _AFTER.search(label))
        or (_BEFORE.search(said) and _AFTER.search(label) and not _BEFORE.search(label))
    )


def match(fam: Family, parse: Parse) -> Mention | None:
    best: Mention | None = None
    disjunction = fam.label if " or " in fam.label.lower() else None
    for cl in clusters(parse, fam.tokens, disjunction=disjunction):
        # 'treated' is no 'treating centre', 'cooled' no 'cooling device': stem alone, no word
        cl = [
            i for i in cl if not stem_only(parse.content[i].text, fam) or _adverb_of(parse, i, fam)
        ]
        if not cl:
            continue
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
        default = any(  # 'temperature' alone is the core temperature
            generic in words and not (words - {generic}) & fam.qual and defaults & fam.tokens
            for generic, defaults in DEFAULT_QUALIFIERS.items()
        )
        score += 0.4 * default
        if (
            fam.kind != "binary"
            and set(cl) & parse.attributive
            and not any(k <= words for k in fam.keys)  # 'birth weight girls' says it in full
        ):
            continue
        # a name of the variable said only in part is a weaker match ('moderate or severe
        # disability' is not 'death or moderate or severe disability') unless its words are the
        # family's own ('MRI score' is the brain MRI injury score)
        if not words <= fam.own:
            missing = min((len(k - words) for k in fam.keys if k & words), default=0)
            if words <= fam.stems:  # the word its columns are named by ('ph' of ph_24h)
                missing = min(missing, 1)
            score -= 0.3 * missing
        if len(words) == 1 and not words & (fam.key | fam.qual | fam.names):
            continue  # one word of a modifier ('cooled' ~ 'Inotropes given during cooling')
        if len(words) == 1 and words <= parse.generic and not default:
            continue  # 'serum' alone is none of the serum measurements
        if len(words) == 1 and words <= LINKING_VERBS:
            continue  # 'reached the primary outcome' names no 'full feeds reached'
        if score < 0.8:
            continue
        a, b = span(parse, cl)
        prefix = re.search(r"\b(?:post|pre)\s*$", parse.text[:a])  # 'post-randomisation'
        if _order_contradicts(parse.text[prefix.start() if prefix else a : b], fam.label):
            continue  # 'seizures after randomisation' is not 'Seizures before randomisation'
        if fam.kind != "categorical" and set_against(parse, cl, a, b):
            continue  # 'severe vs moderate' are two alternatives, not 'moderate or severe ...'

        if best is None or score > best.score:
            best = Mention(fam, cl, a, b, score=score)
    return best


def match_codes(cs: CodeSet, parse: Parse) -> Mention | None:
    best: Mention | None = None
    for cl in clusters(parse, cs.tokens):
        words = {parse.content[i].norm for i in cl}
        codes = tuple(c for c, ex in cs.exclusive.items() if ex & words)
        if not codes:
            full = [c for c, d in cs.distinct.items() if d and d <= words]
            codes = tuple(full[:1]) if len(full) == 1 else ()
        if not codes:
            continue
        code_words = set().union(*(cs.distinct[c] for c in codes))
        core = [i for i in cl if parse.content[i].norm in code_words]
        codes = _code_range(cs, parse, core, codes)
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
        if near == set(core) and all(parse.content[i].text.isdigit() for i in core):
            continue  # a bare number is no code: '1' is not 'Site 1' unless 'site' is said
        used = sorted(near)
        score = len({parse.content[i].norm for i in used}) + 0.1
        if cs.var.role in {"arm", "trial", "site"}:
            score += DESIGN_PRIOR
        if not (words & cs.context):
            score -= 0.05
        a, b = span(parse, used)
        if best is None or score > best.score:
            best = Mention(cs, used, a, b, codes=codes, score=score, variable=cs.var, core=core)
    return best


def _code_range(
    cs: CodeSet, parse: Parse, core: list[int], codes: tuple[str, ...]
) -> tuple[str, ...]:
    """'sites 1 to 5', 'sites 13-21': every code numbered from the first to the last (not the
    two ends only); a number in the range that is no code abstains."""
    said = [parse.content[i] for i in core if parse.content[i].text.isdigit()]
    for lo, hi in itertools.pairwise(said):
        if not re.fullmatch(
            r"\s*(?:to|-|through|thru|till|until)\s*", parse.text[lo.end : hi.start]
        ):
            continue
        wanted = [str(k) for k in range(int(lo.text), int(hi.text) + 1)]
        found = {w: [c for c, d in cs.distinct.items() if w in d] for w in wanted}
        if not wanted or any(len(c) != 1 for c in found.values()):
            raise Abstain(
                f"'{parse.text[lo.start : hi.end]}': not every number from {lo.text} to {hi.text} "
                f"is one code of {cs.var.name}; name the codes"
            )
        codes = tuple(dict.fromkeys([*codes, *(c[0] for c in found.values())]))
    # 'mild to severe', 'GMFCS level III to V': two labels joined by 'to' are every code
    # listed from the one to the other (the dictionary's order), not the two ends only
    order = list(cs.var.codes)
    words = [parse.content[i] for i in core]
    for lo, hi in itertools.pairwise(words):
        if not re.fullmatch(r"\s*(?:to|-|–|through|thru)\s*", parse.text[lo.end : hi.start]):
            continue
        ends = [[c for c, ex in cs.exclusive.items() if t.norm in ex] for t in (lo, hi)]
        if any(len(e) != 1 for e in ends) or lo.text.isdigit() or hi.text.isdigit():
            continue
        a, b = sorted(order.index(e[0]) for e in ends)
        codes = tuple(dict.fromkeys([*codes, *order[a : b + 1]]))
    return codes


def assign_times(
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
    if not fams:
        _check_code_times(mentions, numbered)
    assigned: dict[int, list[TimePoint]] = {id(m): [] for m in fams}
    for t in (numbered + special if change else numbered) or special:
        if not owners:
            break
        # a time point goes to the variables recorded at it ('length of stay among infants
        # with severe disability at 18 months': the disability's); none has it: the nearest
        # is given it and abstains
        holders = [m for m in mentions if holds(m, t[0])]
        takers = [m for m in owners if m in holders] if holders else owners
        if len(takers) > 1 and len(numbered) == 1:
            for m in takers:
                assigned[id(m)].append(t[0])
            continue
        if len(numbered) > 1 and holders:
            # several time points: each goes to the mention recorded at it that it follows
            # ('sodium at 48 h in infants with seizures during the first 72 hours': the 72 h is
            # the seizures'; 'sodium from 24 to 72 hours in infants with seizures': sodium's)
            nearest = min(holders, key=lambda m: (m.end > t[1], distance(m, t[1], t[2])))
        else:
            nearest = min(
                [m for m in takers if m in holders] or holders or owners,
                key=lambda m: distance(m, t[1], t[2]),
            )
        if id(nearest) in assigned:
            assigned[id(nearest)].append(t[0])
    for mt in fams:
        fam = mt.target
        assert isinstance(fam, Family)
        asked = assigned[id(mt)]
        if len(fam.members) == 1:
            tp, members = next(iter(fam.members.items()))
            if len(members) > 1:
                raise Abstain(f"{fam.label!r} is stored in several columns ({_names(members)})")
            mt.variable = members[0]
            if tp is None:  # 'head circumference at birth' asked at 18 months
                check_fixed_moment(fam.label, asked)
            wrong = [
                a for a in asked if tp is not None and a.scale != "baseline" and a.text() != tp
            ]
            if wrong and (numbered or any(a.scale == "discharge" for a in wrong)):
                raise Abstain(
                    f"{fam.label!r} was recorded only at {tp}, not at {wrong[0].text()}",
                    unresolved=[wrong[0].text()],
                )
            continue
        if change and fam.kind == "numeric" and mt.comparison is None:
            pts = sorted(set(asked), key=order)
            if len(pts) < 2:
                raise Abstain(f"a change in {fam.label!r} needs two time points")
            mt.baseline = member(fam, pts[0])
            mt.variable = member(fam, pts[-1])
            continue
        if not asked:
            raise Abstain(
                f"{fam.label!r} was recorded at {len(fam.time_points())} time points "
                f"({', '.join(fam.time_points())}); say which"
            )
        if len({a.text() for a in asked}) > 1:
            raise Abstain(
                f"the question asks for {fam.label!r} at "
                f"{' and '.join(sorted({a.text() for a in asked}))}; ask for one time point "
                "(or for the change between them)"
            )
        mt.variable = member(fam, asked[0])


def _check_code_times(mentions: list[Mention], numbered: list[Any]) -> None:
    """A time point written inside or right after a code's mention ('HIE grade at 72h - %
    severe') that nothing mentioned was recorded at: the code's variable, recorded at another
    time only, abstains rather than answer at its own time."""
    for t in numbered:
        if any(holds(m, t[0]) for m in mentions):
            continue
        for m in mentions:
            if not isinstance(m.target, CodeSet):
                continue
            var = m.target.var
            tp = var.time_point
            inside = m.start <= t[1] < m.end
            if tp and tp != t[0].text() and (inside or 0 <= t[1] - m.end <= 4):
                raise Abstain(
                    f"{var.description or var.name!r} was recorded only at "
                    f"{tp}, not at {t[0].text()}",
                    unresolved=[t[0].text()],
                )


def holds(mt: Mention, tp: TimePoint) -> bool:
    """Whether what a mention names was recorded at the time point."""
    if isinstance(mt.target, CodeSet):
        return mt.target.var.time_point == tp.text()
    if tp.text() in mt.target.members:
        return True
    return tp.scale == "baseline" and "0 h" in mt.target.members


def member(fam: Family, tp: TimePoint) -> Variable:
    text = tp.text()
    members = fam.members.get(text)
    if members is None and tp.scale == "baseline":
        members = fam.members.get("0 h")
    if members is None:
        have = ", ".join(fam.time_points()) or "no time point"
        raise Abstain(
            f"{fam.label!r} was not recorded at {text} (recorded at: {have})",
            unresolved=[text],
        )
    if len(members) > 1:
        raise Abstain(f"{fam.label!r} at {text} is stored in several columns ({_names(members)})")
    return members[0]


def check_shadows(
    mentions: list[Mention],
    families: list[Family],
    times: list[tuple[TimePoint, int, int]],
    text: str,
    tokens: list[Token],
) -> None:
    """One word that names a family only in part ('seizures') while another family of the same
    kind has it in its name too ('Clinical seizures before randomisation' and 'Clinical or
    electrographic seizures during the first 72 hours') is ambiguous, unless the time point
    asked is recorded for one of them only. The family's own words, column stem and default
    qualifier ('temperature' is the core one) settle it."""
    asked = [t for t, _, _ in times if t.scale in {"h", "min", "mo"}]
    for mt in mentions:
        fam = mt.target
        if not isinstance(fam, Family) or mt.bound:  # (a bound its label states names it)
            continue
        # (the question's tokens as read: 'sodum' is 'sodium' once its spelling is corrected)
        words = {t.norm for t in tokens if mt.start <= t.start < mt.end} & fam.tokens
        if len(words) != 1 or words <= fam.own | fam.stems | set(DEFAULT_QUALIFIERS):
            continue
        if any(k <= words for k in fam.keys):
            continue  # the family's whole name
        shadows = [
            f
            for f in families
            if f is not fam
            and f.kind == fam.kind
            and words <= f.key
            and (not asked or any(t.text() in f.members for t in asked))
        ]
        if (
            asked
            and mt.variable is not None
            and mt.variable.time_point in {t.text() for t in asked}
        ):
            shadows = [f for f in shadows if any(t.text() in f.members for t in asked)]
        # a word of its label said elsewhere ('seizures before randomisation') settles it
        said = {t.norm for t in tokens} & fam.tokens
        if shadows and said - set().union(*(f.tokens for f in shadows)):
            continue
        if shadows:
            raise Abstain(
                f"{text[mt.start : mt.end]!r} could mean any of: "
                + "; ".join(f.label for f in [fam, *shadows[:3]])
                + " — say which"
            )


def _names(members: list[Variable], most: int = 6) -> str:
    """The column names, the first few of a long list and how many more."""
    names = [v.name for v in members]
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def order(tp: TimePoint) -> tuple[int, float]:
    return ({"baseline": 0, "min": 1, "h": 2, "mo": 3, "discharge": 4}.get(tp.scale, 5), tp.amount)


def distance(mt: Mention, a: int, b: int) -> float:
    # a time point usually follows its measurement ('temperature at 24 h'); one before it is
    # a little further away
    return a - mt.end if a >= mt.end else (mt.start - b) + 0.5
