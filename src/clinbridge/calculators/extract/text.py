"""Note text utilities: sentences, quantities with units, and assertion status of a mention.

Sentences come from a blank spaCy English pipeline with the rule-based sentencizer (no model
download). Negation uses negspacy's NegEx with its clinical termset (plus a few following
cues: 'was absent', 'was negative'); family history, hypothetical/uncertain and historical
mentions are recognised by cue words in the same sentence before the mention.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Assertion",
    "Quantity",
    "assertion",
    "find_quantities",
    "sentences",
]


@functools.cache
def _nlp() -> Any:
    import spacy
    from negspacy.negation import Negex  # noqa: F401  (registers the 'negex' factory)
    from negspacy.termsets import termset

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    ts = termset("en_clinical")  # type: ignore[no-untyped-call]
    ts.add_patterns(  # type: ignore[no-untyped-call]
        {
            "following_negations": [
                "was absent",
                "were absent",
                "is absent",
                "are absent",
                "was negative",
                "were negative",
                "was not present",
                "were not present",
                "not seen",
                "was not noted",
                "were not noted",
                "was not observed",
                "was ruled out",
                "were ruled out",
                "ruled out",
                "resolved",
            ],
            "preceding_negations": [
                "without any",
                "absence of",
                "negative for",
                "not have",
                "did not have",
                "does not have",
                "had no",
                "has no",
                "free of",
                "never had",
                "no evidence of",
                "no signs of",
                "no sign of",
            ],
        }
    )
    nlp.add_pipe("negex", config={"neg_termset": ts.get_patterns()})  # type: ignore[no-untyped-call]
    return nlp


def sentences(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of ``text``. A line break ends a sentence unless it
    only wraps one: after a line that does not end in punctuation, before a lower-case word or
    a number ('creatinine was\n5.97 mg/dL')."""
    out: list[tuple[int, int]] = []
    pos = 0
    for block in re.split(r"(\n\n+|\n(?![a-z0-9(])|(?<=[.:;!?])\n)", text):
        if not block.strip() or block.startswith("\n"):
            pos += len(block)
            continue
        doc = _nlp().make_doc(block)
        for name, proc in _nlp().pipeline:
            if name == "sentencizer":
                doc = proc(doc)
        for s in doc.sents:
            out.append((pos + s.start_char, pos + s.end_char))
        pos += len(block)
    return out


@dataclass(frozen=True)
class Assertion:
    """How a mention is asserted in its sentence."""

    negated: bool = False
    family: bool = False
    uncertain: bool = False
    historical: bool = False
    cue: str = ""

    @property
    def affirmed(self) -> bool:
        """Present in the patient (not negated, not a relative, not hypothetical)."""
        return not (self.negated or self.family or self.uncertain)

    def describe(self) -> str:
        """The mention's qualifiers in words ('negated, family'), or 'affirmed'."""
        parts = [n for n in ("negated", "family", "uncertain", "historical") if getattr(self, n)]
        return ", ".join(parts) or "affirmed"


_FAMILY = re.compile(
    r"\b(family history|famil(y|ial)|mother|father|brother|sister|sibling|parent|"
    r"grand(mother|father|parent)|aunt|uncle|cousin|son|daughter|relatives?)\b",
    re.I,
)
_UNCERTAIN = re.compile(
    r"\b(possible|possibly|probable|probably|suspect(ed)?|suspicion of|concern for|"
    r"rule out|r/o|questionable|likely|unlikely|may have|might|could be|"
    r"risk of|at risk for|to exclude|differential)\b",
    re.I,
)
_NOT_FINDING = re.compile(
    r"^\s*(risk|prophylaxis|score|scale|protocol|prevention|work-?up|screening|"
    r"precautions|rule|criteria)\b",
    re.I,
)
"""A mention followed by these is not the finding itself ('stroke risk', 'DVT prophylaxis')."""
_HISTORICAL = re.compile(
    r"\b(history of|h/o|past (medical|surgical) history|surgical history|previous(ly)?|prior|"
    r"known|diagnosed (with )?\w* ?(years?|months?) ago|\d+ years? ago)\b",
    re.I,
)


def assertion(text: str, sent: tuple[int, int], start: int, end: int) -> Assertion:
    """Assertion of the mention ``text[start:end]`` in sentence ``sent`` (character spans)."""
    s0, s1 = sent
    sentence = text[s0:s1]
    nlp = _nlp()
    doc = nlp.make_doc(sentence)
    span = doc.char_span(start - s0, end - s0, label="FINDING", alignment_mode="expand")
    negated = False
    if span is not None:
        doc.ents = [span]
        for _name, proc in nlp.pipeline:
            doc = proc(doc)
        negated = bool(doc.ents and doc.ents[0]._.negex)
    before = text[max(s0, start - 80) : start]
    after = text[end : min(s1, end + 30)]
    not_finding = _NOT_FINDING.match(after)
    fam = _FAMILY.search(before)
    unc = _UNCERTAIN.search(before)
    hist = _HISTORICAL.search(before)
    cue = next((m.group(0) for m in (fam, unc, not_finding) if m), "")
    return Assertion(
        negated=negated,
        family=fam is not None and "no family history" not in before.lower(),
        uncertain=unc is not None or not_finding is not None,
        historical=hist is not None,
        cue=cue,
    )


@dataclass(frozen=True)
class Quantity:
    """A number in the note and the text that follows it (where a unit would be)."""

    value: float
    start: int
    end: int
    after: str
    """Up to ~25 characters after the number (the unit, if any)."""
    second: float | None = None
    """For 'a/b' pairs (blood pressure 120/80): the number after the slash."""


_NUM = re.compile(
    r"(?<![\w.,/])(\d{1,3}(?:,\d{3})+|\d{1,3}(?: \d{3})+(?=\s*/)|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s*/\s*(\d{1,3}(?:\.\d+)?)(?!\s*\d)(?=\s*(?:mm ?hg|\b|$)))?"
)
_POW = re.compile(r"\s*[x×\*]\s*10\s*(?:\^|\*\*)?\s*([0-9⁰¹²³⁴⁵⁶⁷⁸⁹]+)\s*")
_SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


def find_quantities(text: str) -> list[Quantity]:
    """Every number in ``text`` with what follows it (blood-pressure pairs kept together)."""
    out: list[Quantity] = []
    for m in _NUM.finditer(text):
        raw = m.group(1).replace(",", "").replace(" ", "")
        try:
            value = float(raw)
        except ValueError:
            continue
        after = text[m.end() : m.end() + 30]
        pw = _POW.match(after)
        if pw:
            after = f"x10^{pw.group(1).translate(_SUP)}" + after[pw.end() :]
        second = None
        if m.group(2):
            # '120/80' is a pair only when it reads as a pressure; '8/10' pain etc. are not.
            try:
                second = float(m.group(2))
            except ValueError:
                second = None
        out.append(Quantity(value, m.start(), m.end(), after, second))
    return out
