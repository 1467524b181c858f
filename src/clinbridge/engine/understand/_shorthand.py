"""Clinical shorthand and drug classes as data (``data/shorthand.tsv``, ``data/drug_classes.tsv``).

* *word* shorthand (pts, dx, hx, w/, y/o, meds) is expanded before the question's structure is
  read: it is how people type, not a clinical term;
* *concept* shorthand (htn, afib, LDL, A1c, brand names, lay terms) is expanded while grounding,
  and only when the source's own vocabulary does not use the term itself; an entry may list
  alternatives (``leukocytes|white blood cell``): the first the vocabulary knows wins;
* drug classes map a class name (statin, NSAID, anticoagulant) to its member ingredients, for
  sources whose vocabulary holds no class concept.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

__all__ = [
    "DrugClass",
    "concept_shorthand",
    "drug_class",
    "drug_classes",
    "expand_words",
    "word_shorthand",
]


def _rows(name: str) -> list[list[str]]:
    text = resources.files("clinbridge.engine.understand").joinpath("data", name).read_text("utf-8")
    return [
        line.split("\t") for line in text.splitlines() if line.strip() and not line.startswith("#")
    ]


@functools.cache
def _shorthand() -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    words: dict[str, str] = {}
    concepts: dict[str, tuple[str, ...]] = {}
    for row in _rows("shorthand.tsv"):
        term, expansion, kind = row[0].strip().lower(), row[1].strip().lower(), row[2].strip()
        if kind == "word":
            words[term] = expansion
        else:
            concepts[term] = tuple(e.strip() for e in expansion.split("|") if e.strip())
    return words, concepts


def word_shorthand() -> dict[str, str]:
    return _shorthand()[0]


def concept_shorthand() -> dict[str, tuple[str, ...]]:
    return _shorthand()[1]


@functools.cache
def _word_re() -> re.Pattern[str]:
    keys = sorted(word_shorthand(), key=len, reverse=True)
    alts = "|".join(re.escape(k) for k in keys)
    # a shorthand is a whole token: not inside a word, an id or a unit ('mg/dl', 'w/o' is one)
    return re.compile(rf"(?<![\w/.'-])(?:{alts})(?![\w/'-]|\.\w)")


_SEX_LETTER = re.compile(
    r"(?<![\w/])(?P<s>[fm])(?=\s+(?:patients?|pts?|people|persons?|adults?|children|subjects?)\b)"
    r"|(?<=\d)\s*(?P<s2>[fm])\b|(?<=years old )(?P<s3>[fm])\b"
    r"|\b(?P<v>are|is|were|was)\s+(?P<s4>[fm])\s*(?=\?|$)"  # "what % of X pts are F"
)


def expand_words(text: str) -> str:
    """Spell out general shorthand in a normalised (lower-case) question."""
    words = word_shorthand()
    text = _word_re().sub(lambda m: words[m[0]], text)

    def sex(m: re.Match[str]) -> str:
        letter = m["s"] or m["s2"] or m["s3"] or m["s4"]
        word = "female" if letter == "f" else "male"
        if m["s4"]:
            return f"{m['v']} {word}"
        return (" " if m["s2"] else "") + word

    text = _SEX_LETTER.sub(sex, text)
    text = re.sub(r"\(?\byes\s*(?:/|or)\s*no\b\)?", " whether ", text)  # the answer type asked
    text = re.sub(r"(?:^|(?<=\s))#\s*(?:of\s+)?(?=[a-z])", "number of ", text)
    for short, unit in (
        ("d", "days"),
        ("wk|wks", "weeks"),
        ("mo|mos", "months"),
        ("yr|yrs", "years"),
    ):
        text = re.sub(rf"\b(\d+)\s*(?:{short})\b", rf"\1 {unit}", text)
    return re.sub(r"\bout\s+of\b", "among", text)  # 'out of everyone with X, ...'


@dataclass(frozen=True)
class DrugClass:
    name: str
    synonyms: tuple[str, ...]
    ingredients: tuple[str, ...]


@functools.cache
def drug_classes() -> tuple[DrugClass, ...]:
    return tuple(
        DrugClass(
            row[0].strip().lower(),
            tuple(s.strip().lower() for s in row[1].split(";") if s.strip()),
            tuple(i.strip().lower() for i in row[2].split(";") if i.strip()),
        )
        for row in _rows("drug_classes.tsv")
    )


@functools.cache
def _class_index() -> dict[str, DrugClass]:
    out: dict[str, DrugClass] = {}
    for c in drug_classes():
        for name in (c.name, *c.synonyms):
            out[name] = c
    return out


def drug_class(phrase: str) -> DrugClass | None:
    """The drug class a phrase names ('statins', 'any NSAID'), or None."""
    return _class_index().get(" ".join(phrase.lower().split()))
