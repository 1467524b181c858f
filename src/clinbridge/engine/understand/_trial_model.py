"""What the trial reader reads with: variable families, code sets, mentions, and abstaining."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._trial_vocab import (
    ROLE_WORDS,
    SCOPE_ASIDE,
    Token,
    canon,
    tokenize,
)
from clinbridge.engine.understand._trial_words import EXTRA_FILLER, PREPOSITIONS, TIME_SUFFIX
from clinbridge.errors import UnderstandingError
from clinbridge.timepoint import find_time_points

if TYPE_CHECKING:
    from clinbridge.catalog import Variable


def is_yes(label: str) -> bool:
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
    own: set[str] = field(default_factory=set)
    """Words of this family that no other family has ('mri' of 'Brain MRI injury score')."""
    stems: set[str] = field(default_factory=set)
    """Its columns' one-word stems that no other family's columns have ('ph' of ``ph_24h``)."""
    modifiers: dict[str, set[str]] = field(default_factory=dict)
    """Label words that modify the next word ('treating' of 'treating centre'), as written."""

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
    bound: bool = False
    """Named by the threshold its label states ('dipped under 32.5 during cooling')."""


@dataclass
class Parse:
    text: str
    content: list[Token]
    consumed: set[int] = field(default_factory=set)
    attributive: set[int] = field(default_factory=set)
    generic: set[str] = field(default_factory=set)
    """Words of many families ('serum', 'blood', 'dose'): alone they name none of them."""


def label_terms(label: str) -> tuple[set[str], set[str]]:
    text = SCOPE_ASIDE.sub(" ", label.lower())
    for tp, (a, b) in reversed(find_time_points(text)):
        if tp.scale in {"h", "min", "mo"}:
            text = text[:a] + " " + text[b:]
    qual_text = " ".join(re.findall(r"\(([^)]*)\)", text))
    head_text = re.sub(r"\([^)]*\)", " ", text)

    def words(t: str) -> set[str]:
        return {
            tok.norm
            for tok in tokenize(t.replace("-", " "))
            if tok.norm not in EXTRA_FILLER and not tok.text.isdigit()
        }

    return words(head_text), words(qual_text) - words(head_text)


def modifier_terms(label: str, head: set[str]) -> dict[str, set[str]]:
    """The label's words said before another of its words in one noun phrase ('treating' of
    'the treating centre', 'cooling' of 'Cooling device water temperature'), by their norm, with
    the forms the label writes them in."""
    text = re.sub(r"\([^)]*\)", " ", label.lower())
    toks = tokenize(text.replace("-", " "))
    out: dict[str, set[str]] = {}
    for a, b in itertools.pairwise(toks):
        if a.norm in head and b.norm in head and not text[a.end : b.start].strip():
            out.setdefault(a.norm, set()).add(a.text)
    return out


def key_terms(label: str, head: set[str]) -> list[set[str]]:
    """The label's names: its leading noun phrase, and after a colon the second one."""
    text = re.sub(r"\([^)]*\)", " ", label.lower())
    keys = []
    for part in text.split(":", 1):
        # 'Length of hospital stay': both 'length' and 'hospital stay' name it
        for piece in re.split(r"\bof\b", part):
            lead = PREPOSITIONS.split(piece, maxsplit=1)[0]
            words = {t.norm for t in tokenize(lead.replace("-", " "))} & head
            if words:
                keys.append(words)
    return keys or [set(head)]


def name_terms(name: str) -> set[str]:
    parts = re.split(r"[^a-zA-Z]+|(?<=[a-z])(?=[A-Z])", name)
    out = set()
    for p in parts:
        p = p.lower()
        if len(p) >= 2 and p not in {"h", "d", "m", "hr", "min"} | {"id"}:
            out.add(canon(p))
    # a stem that carries a digit is a name of its own ('FiO2_12h', 'SpO2_12h', 'HCO3_24H')
    stem = TIME_SUFFIX.sub("", name).strip("_").lower()
    if re.fullmatch(r"[a-z][a-z0-9]*\d[a-z0-9]*", stem):
        out.add(canon(stem))
    return out


def name_stem(name: str) -> str | None:
    """The one word a column name says without its time point ('ph' of ``ph_24h``), if any."""
    stem = TIME_SUFFIX.sub("", name).strip("_").lower()
    return canon(stem) if re.fullmatch(r"[a-z]+", stem) else None


_NO_WORDS = frozenset({"no", "none", "not", "non", "without", "absent"})


def codeset(v: Variable, label_words: set[str]) -> CodeSet:
    words = {
        code: {
            t.norm
            for t in tokenize((lab or code).replace("-", " "))
            if t.norm not in EXTRA_FILLER or t.text.isdigit()
        }
        for code, lab in v.codes.items()
    }
    common = set.intersection(*words.values()) if len(words) > 1 else set()
    distinct = {c: w - common for c, w in words.items()}
    # a code whose label only says the variable's own words ('No disability' of 'Severity of
    # neurodevelopmental disability') is never named by them: they name the variable
    for c, w in distinct.items():
        if w - _NO_WORDS and w - _NO_WORDS <= label_words and len(words) > 1:
            distinct[c] = w & _NO_WORDS
    exclusive = {
        c: w - set().union(*(o for k, o in distinct.items() if k != c)) for c, w in distinct.items()
    }
    context = set(label_words) | common
    if v.role in ROLE_WORDS:
        context |= ROLE_WORDS[v.role]
    return CodeSet(v, distinct, exclusive, context)


class Abstain(UnderstandingError):
    """The reader cannot answer; ``reason`` says why (control flow inside the reader)."""

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

    def __str__(self) -> str:
        return self.reason


def split_by_label_moment(fam: Family) -> None:
    """Members with no time point of their own but several columns ('Apgar score at 1 minute',
    '... at 5 minutes', '... at 10 minutes', one family once the times are set aside) are told
    apart by the one time point each label says, when each says a different one."""
    plain = fam.members.get(None, [])
    if len(plain) < 2:
        return
    moments = []
    for v in plain:
        found = [
            tp
            for tp, _ in find_time_points((v.description or v.name).lower())
            if tp.scale in {"h", "min", "mo"}
        ]
        moments.append(found[0].text() if len(found) == 1 else None)
    if None in moments or len(set(moments)) < len(moments) or set(moments) & set(fam.members):
        return
    del fam.members[None]
    for v, moment in zip(plain, moments, strict=True):
        fam.members[moment] = [v]
