"""Clauses of trial questions that restate a default or ask for a comparison.

* 'unknowns excluded', 'excluding missing values', 'complete cases', and for a change 'paired'
  or 'infants with both values': missing codes never enter a figure, so these say what is done
  anyway — read, and said so in a grounding. 'Including unknowns' is no default: it stays unread.
* 'Was mortality different between the two trials?', 'Was CP lower in the hypothermia arm?':
  a yes/no comparison is answered with the figures of each side (grouped by what is compared),
  never with a verdict; with nothing to compare against, the reading abstains.
* 'moderate HIE (grade 2)': a code restated by its number; 'serum bilirubin': a word of many
  families beside one whose words are all its own.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._trial_known import mark_missing_spans
from clinbridge.engine.understand._trial_model import Abstain, CodeSet, Family, Mention, Parse
from clinbridge.engine.understand._trial_versus import check_versus_sides
from clinbridge.engine.understand._trial_words import CLAUSE_END, MISSING_OF, WHO, WHOSE_KNOWN

PAIRED = re.compile(
    rf"\b(?:paired|{WHO}with\s+both\s+(?:values|measurements|readings|results|time\s+points))"
    rf"{CLAUSE_END}"
)
"""A change among the infants measured at both time points: what every change is."""
_ASKS_YES_NO = r"^\W*(?:and\s+|so\s+)?(?:was|were|is|are|did|does|do)\b"
_COMPARATIVES = (
    *("different", "differ", "higher", "lower", "greater", "smaller", "larger"),
    *("more", "less", "fewer", "better", "worse", "similar"),
)
YES_NO = re.compile(_ASKS_YES_NO)
"""A sentence that asks yes or no ('Was mortality different between the two trials?')."""
COMPARED = re.compile(r"\b(?:" + "|".join(_COMPARATIVES) + r")\b")
"""What a yes/no comparison asks about: the figures of each side are the answer."""

if TYPE_CHECKING:
    from clinbridge.catalog import Variable


class _Read(Protocol):
    """What of a question being read these steps use (``_trial._Question``)."""

    text: str
    masked: str
    change: bool
    groundings: list[Grounding]
    groups: list[Variable]
    mentions: list[Mention]
    compared: list[tuple[int, int, int]]

    def blank(self, a: int, b: int) -> None: ...


def read_missing_clauses(q: _Read, clause: re.Pattern[str]) -> None:
    """Blank out the clauses that restate how missing data are handled (see module doc)."""
    spans = [m.span() for m in clause.finditer(q.masked)]
    if q.change:
        spans += [m.span() for m in PAIRED.finditer(q.masked)]
    for m in [*MISSING_OF.finditer(q.masked), *WHOSE_KNOWN.finditer(q.masked)]:
        # the variable's name stays, to be read
        spans += [(m.start(), m.start("x")), (m.end("x"), m.end())]
    mark_missing_spans(q, spans)


def find_yes_no_comparisons(q: _Read) -> None:
    """Record (and blank) the comparative word of each yes/no sentence ('Was X lower in ...?')."""
    for sentence in re.finditer(r"[^?!.]+(?:[?!]|\.(?!\d)|$)|\.(?=\d)", q.masked):
        body = sentence.group(0)
        if not YES_NO.match(body):
            continue
        word = COMPARED.search(body)
        if word is None:
            continue
        a, b = sentence.start() + word.start(), sentence.start() + word.end()
        q.compared.append((sentence.start(), a, sentence.end()))
        q.groundings.append(
            Grounding(
                phrase=body.strip(),
                kind="comparison",
                target="the figures of each side are given; no test of significance is made",
            )
        )
        q.blank(a, b)


def compare_sides(q: _Read) -> None:
    """The code said after a yes/no comparison's word ('lower in the hypothermia arm') is a side
    of the comparison: group by its variable instead of keeping only that code. Two codes after
    it ('lower in severe HIE in the cooled arm') leave the side unknown: abstain. A 'vs' with a
    code on one side only abstains too (``_trial_versus``)."""
    check_versus_sides(q.text, q.mentions)
    for start, a, end in q.compared:
        after = [
            mt
            for mt in q.mentions
            if isinstance(mt.target, CodeSet) and mt.codes and mt.end > a and mt.start < end
        ]
        grouped = [mt for mt in after if _var(mt) in q.groups]
        sides = after if len(after) <= 1 else grouped
        if len(sides) > 1 or (after and not sides):
            raise Abstain(
                "the comparison could be between the groups of any of: "
                + "; ".join(f"{_var(mt).name} ({_var(mt).description})" for mt in after)
                + " — ask for the figures 'by ...' one of them"
            )
        if sides:
            var = _var(sides[0])
            if var not in q.groups:
                q.groups.append(var)
            for mt in q.mentions:  # 'mortality in NEOCOOL higher than in HYPOTHERM': both sides
                if isinstance(mt.target, CodeSet) and _var(mt) is var and start <= mt.start < end:
                    mt.grouped = True
        elif not q.groups:
            raise Abstain(
                "the question asks for a comparison but names no groups to compare; "
                "ask for the figures 'by arm', 'by trial', ..."
            )


def _var(mt: Mention) -> Variable:
    assert isinstance(mt.target, CodeSet)
    return mt.target.var


def merge_repeats(mentions: list[Mention]) -> list[Mention]:
    """Mentions of one measured family (no condition on them) become one, spanning both."""
    out: list[Mention] = []
    for mt in mentions:
        first = next(
            (
                o
                for o in out
                if o.target is mt.target
                and isinstance(o.target, Family)
                and o.target.kind == "numeric"
                and o.comparison is None
                and mt.comparison is None
            ),
            None,
        )
        if first is None:
            out.append(mt)
            continue
        first.positions = sorted({*first.positions, *mt.positions})
        first.start, first.end = min(first.start, mt.start), max(first.end, mt.end)
    return out


def absorbed(q: _Read, parse: Parse, i: int) -> bool:
    """A word of many families left beside a mention whose words are all its own ('serum'
    of 'serum bilirubin' where the label is 'Total bilirubin') qualifies nothing else: it is
    read (and said so). Beside a family with a shared word ('Urine creatinine'), it is not."""
    t = parse.content[i]
    if t.norm not in parse.generic:
        return False
    for mt in q.mentions:
        fam = mt.target
        if (
            isinstance(fam, Family)
            and (i - 1 in mt.positions or i + 1 in mt.positions)
            and fam.tokens <= fam.own
        ):
            q.groundings.append(
                Grounding(phrase=t.text, kind="qualifier", target=f"part of {fam.label!r}")
            )
            return True
    return False


def code_restated(q: _Read, parse: Parse, mt: Mention) -> None:
    """A code's label then its number ('moderate HIE (grade 2)', 'severe HIE = 3') says the
    code twice: the number is read; another code's number is a contradiction."""
    nxt = max(mt.positions) + 1
    if nxt >= len(parse.content) or nxt in parse.consumed:
        return
    said = parse.content[nxt]
    between = parse.text[parse.content[max(mt.positions)].end : said.start]
    assert isinstance(mt.target, CodeSet)
    var = mt.target.var
    if not said.text.isdigit() or said.text not in var.codes or between.strip(" (=:"):
        return
    if said.text != mt.codes[0]:
        raise Abstain(
            f"{q.text[mt.start : said.end]!r} names two codes of {var.name} "
            f"({var.codes.get(mt.codes[0])} and {var.codes.get(said.text)}); say which"
        )
    parse.consumed.add(nxt)
    q.groundings.append(
        Grounding(phrase=said.text, kind="code", target=f"{var.name} = {said.text}, restated")
    )


def _codes_of_one_variable(prev: Mention | None, mt: Mention) -> bool:
    """Whether two mentions (the first may be none) both name codes of one coded variable."""
    return (
        prev is not None
        and isinstance(mt.target, CodeSet)
        and isinstance(prev.target, CodeSet)
        and mt.target.var is prev.target.var
        and bool(mt.codes)
        and bool(prev.codes)
    )


def merge_restated_codes(q: _Read) -> None:
    """A code then the same code again in brackets ('study = 2 (NORDIC-HT)', 'arm 1 (cooled)')
    is one condition said twice: the bracketed mention goes, so that the two can never take two
    roles (one counted, one the cohort). Another code of the same variable in the brackets
    ('study = 2 (CAPE)') is a contradiction: abstain."""
    kept: list[Mention] = []
    for mt in sorted(q.mentions, key=lambda m: m.start):
        prev = kept[-1] if kept else None
        if (
            _codes_of_one_variable(prev, mt)
            and re.fullmatch(r"[\s|]*[(\[][\s|]*", q.text[prev.end : mt.start])
            and re.match(r"[\s|]*[)\]]", q.text[mt.end :])
        ):
            var = mt.target.var
            if set(mt.codes) != set(prev.codes):
                raise Abstain(
                    f"{q.text[prev.start : mt.end]!r} names two different values of {var.name} "
                    f"({', '.join(var.codes.get(c, c) for c in prev.codes)} and "
                    f"{', '.join(var.codes.get(c, c) for c in mt.codes)}); say which"
                )
            q.groundings.append(
                Grounding(
                    phrase=q.text[mt.start : mt.end], kind="code", target=f"{var.name}, restated"
                )
            )
            continue
        kept.append(mt)
    if len(kept) < len(q.mentions):
        q.mentions = [mt for mt in q.mentions if any(mt is k for k in kept)]


def merge_listed_codes(q: _Read) -> None:
    """'GMFCS level III, IV or V': codes of one variable listed with commas before an 'or' are
    one condition (any of them), never two conditions that no infant meets together."""
    kept: list[Mention] = []
    for mt in sorted(q.mentions, key=lambda m: m.start):
        prev = kept[-1] if kept else None
        if (
            _codes_of_one_variable(prev, mt)
            and not mt.negated
            and not prev.negated
            and re.fullmatch(r"[\s|]*,[\s|]*", q.text[prev.end : mt.start])
            and re.search(r"\bor\b", q.text[mt.start : mt.end])
        ):
            prev.codes = tuple(dict.fromkeys([*prev.codes, *mt.codes]))
            prev.positions = sorted({*prev.positions, *mt.positions})
            prev.core = sorted({*prev.core, *mt.core})
            prev.end = mt.end
            continue
        kept.append(mt)
    if len(kept) < len(q.mentions):
        q.mentions = [mt for mt in q.mentions if any(mt is k for k in kept)]
