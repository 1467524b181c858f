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

from clinbridge.engine.understand._who_list import who_lists

__all__ = [
    "DrugClass",
    "abbreviation_senses",
    "attribute_values",
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
def _shorthand() -> tuple[dict[str, str], dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    words: dict[str, str] = {}
    concepts: dict[str, tuple[str, ...]] = {}
    senses: dict[str, tuple[str, ...]] = {}
    for row in _rows("shorthand.tsv"):
        term, expansion, kind = row[0].strip().lower(), row[1].strip().lower(), row[2].strip()
        options = tuple(e.strip() for e in expansion.split("|") if e.strip())
        if kind == "word":
            words[term] = expansion
        elif kind == "senses":  # several meanings: read by _senses, never one picked here
            senses[term] = options
        else:
            concepts[term] = options
    return words, concepts, senses


def word_shorthand() -> dict[str, str]:
    return _shorthand()[0]


def concept_shorthand() -> dict[str, tuple[str, ...]]:
    return _shorthand()[1]


def abbreviation_senses() -> dict[str, tuple[str, ...]]:
    """Abbreviations with several clinical meanings (kind ``senses``) → their meanings."""
    return _shorthand()[2]


@functools.cache
def _word_re() -> re.Pattern[str]:
    keys = sorted(word_shorthand(), key=len, reverse=True)
    alts = "|".join(re.escape(k) for k in keys)
    # a shorthand is a whole token: not inside a word, an id or a unit ('mg/dl', 'w/o' is one)
    # nor a test's name: 'the pt test' is prothrombin time, never 'the patient test'
    return re.compile(
        rf"(?<![\w/.'-])(?:{alts})(?![\w/'-]|\.\w)"
        r"(?!\s+(?:lab\s+)?(?:tests?|labs?|levels?|values?|results?|measurements?)\b)"
    )


_SEX_LETTER = re.compile(
    r"(?<![\w/])(?P<s>[fm])(?=\s+(?:patients?|pts?|people|persons?|adults?|children|subjects?)\b)"
    r"|(?<![\d.])(?P<n2>\d{1,2})\s*(?P<s2>[fm])\b(?!\s*\+|\s+or\s+(?:more|higher|above|over))"
    r"|(?<=years old )(?P<s3>[fm])\b"
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
        return f"{m['n2']} {word}" if m["s2"] else word

    text = _SEX_LETTER.sub(sex, text)
    text = re.sub(r"\(?\byes\s*(?:/|or)\s*no\b\)?", " whether ", text)  # the answer type asked
    text = re.sub(r"(?:^|(?<=\s))#\s*(?:of\s+)?(?=[a-z])", "number of ", text)
    text = re.sub(r"\s*[,;:-]?\s*#\s*\??\s*$", " - how many", text)  # 'cefaclor pts excl X, #?'
    for short, unit in (
        ("d", "days"),
        ("wk|wks", "weeks"),
        ("mo|mos", "months"),
        ("yr|yrs", "years"),
    ):
        text = re.sub(rf"\b(\d+)\s*(?:{short})\b", rf"\1 {unit}", text)
    text = re.sub(r"\bout\s+of\b", "among", text)  # 'out of everyone with X, ...'
    text = _ONE_PRONOUN.sub(lambda m: m["w"], text)  # 'at their first one', 'either one'
    text = _HAD_ONE.sub(" ", text)  # 'avg age at 1st colonoscopy, all pts who had one'
    text = _LETTER_LIST.sub(_letters, text)  # 'hepatitis a or b vaccine', 'type 1 or 2 diabetes'
    text = who_lists(text)  # 'who has an X', 'anyone on Y? who': which patients
    text = _LIST_TAIL.sub(lambda m: f"which {m['body']}", text)  # 'X pts w Y - which ones'
    text = re.sub(r"\b(?:exceed|surpass)(?:s|es|ed|ing)?\s+(?=[\d.]+)", "above ", text)
    text = _TOP_VERB.sub(_top_verb, text)  # 'values that top 200'; never 'the top 3 drugs'
    text = _ION.sub(
        lambda m: _IONS[m["ion"] or m["ion2"]], text
    )  # 'K+ results > 5': the ion, not a result
    # unit spellings: 'mm[Hg]' (UCUM), 'ng/L' (the same as pg/mL), '2 mmol' after a
    # concentration's number (mmol/L: a lab value in mmol alone is not an amount here)
    text = re.sub(r"\bmm\s*\[\s*hg\s*\]", "mmhg", text)
    text = re.sub(r"\bng\s*/\s*l\b", "pg/ml", text)
    text = re.sub(r"(?<=\d)\s*mmol\b(?!\s*/)", " mmol/l", text)
    return attribute_values(text)


_TOP_VERB = re.compile(r"(?P<before>\b[\w']+\s+)?\btop(?P<s>s|ped|ping)?\s+(?=[\d.]+)")
_RANK_BEFORE = frozenset(
    [
        "the",
        "list",
        "show",
        "name",
        "give",
        "find",
        "get",
        "me",
        "are",
        "were",
        "is",
        "was",
        "what",
        "which",
        "their",
        "its",
        "his",
        "her",
    ]
)


def _top_verb(m: re.Match[str]) -> str:
    """'top' as a verb ('results that top 200', 'topped 9') is 'above'; at the start of the
    question or after a determiner or a verb of asking ('top 3 dx', 'the top 3', 'list top 5')
    it ranks."""
    before = m["before"] or ""
    if not m["s"] and (not before or before.split()[0] in _RANK_BEFORE):
        return m[0]
    return f"{before}above "


_ONE_PRONOUN = re.compile(
    r"\b(?P<w>first|last|initial|latest|earliest|either|each|any|that|this|only|other)\s+one(?:\(s\)|s)?"
    r"(?=\s*(?:[?.,;)!]|$|\s+(?:or|and|ever|recorded|on\s+record)\b))"
)
"""'one' as a pronoun after a determiner ('at their first one', 'either one', 'the initial
one(s)'): the thing named before it, never the number 1."""

_HAD_ONE = re.compile(
    r"\s*,?\s*\(?\s*(?:among\s+|for\s+|in\s+|of\s+)?(?:all\s+)?(?:the\s+)?(?:patients|people|persons|those|ones)\s+"
    r"(?:who|that)\s+(?:had|have|got|received|underwent)\s+(?:one|it|any|them|some)\s*\)?(?=\s*[?.]?\s*$)"
)
"""'..., all patients who had one': the cohort the measure already implies, said again."""

_LETTER_LIST = re.compile(
    r"\b(?P<w>(?!(?:ages?|aged|than|between|over|under|last|past|next|every|top|first|only|least|most)\b)[a-z]{3,})"
    r"\s+(?P<x>[a-e]|[1-5])\s*(?:or|/|and/or)\s*(?P<y>[a-e]|[1-5])\b"
    r"(?:\s+(?P<n>(?!(?:in|on|at|of|for|to|by|and|or|with|w|who|that|since|before|after|during|pts?|patients?|"
    r"people|ever|the|a|an)\b)[a-z]{3,}))?"
)
"""Two letters or digits after one word, the word said once: 'hepatitis a or b vaccine' is
'hepatitis a vaccine or hepatitis b vaccine', 'type 1 or 2 diabetes' 'type 1 diabetes or type 2
diabetes' (a word after the pair is the noun both share, unless a preposition or a person)."""


def _letters(m: re.Match[str]) -> str:
    noun = f" {m['n']}" if m["n"] else ""
    return f"{m['w']} {m['x']}{noun} or {m['w']} {m['y']}{noun}"


_LIST_TAIL = re.compile(
    r"^\s*(?P<body>(?:(?!\b(?:how|what|which|who|list|show|is|are|was|were|has|have|did|does)\b)[^?])*?"
    r"\b(?:patients|people|persons)\b[^?]*?)\s*(?:[-–—,:;(]\s*)(?:which\s+ones|who\s+are\s+they|list(?:\s+them)?|"
    r"(?:patient\s+)?ids?|names?)\s*\)?\s*\??\s*$"
)
"""A question written as a noun phrase about patients with its ask at the end: 'otitis media
patients who never got amoxicillin - which ones', 'patients with an active care plan - list'."""

_IONS = {"k": "potassium", "na": "sodium", "ca": "calcium", "mg": "magnesium", "cl": "chloride"}
_ION = re.compile(r"(?<![\w/+])(?:(?P<ion>k|na|ca|mg)(?:\+\+|2\+|\+)|(?P<ion2>cl)-)(?![\w+])")
"""An electrolyte written as its ion ('K+', 'Na+', 'Ca2+', 'Ca++', 'Cl-')."""


_ETYPE = (
    r"(?:inpatient|outpatient|ambulatory|emergency|urgent\s*care|wellness|icu|intensive\s+care|"
    r"home\s+health|virtual)"
)
_ENC = r"(?:encounters?|visits?|admissions?)"
_ATTRIBUTE_FORMS = (
    # 'gender female', 'sex = male', 'gender of female': the field's name before its value
    (re.compile(r"\b(?:gender|sex)\s*(?:=|:|\bis\b|\bof\b)?\s*(?P<v>females?|males?)\b"), r"\g<v>"),
    # 'encounters with class inpatient', 'an encounter of class emergency'
    (
        re.compile(
            rf"\b(?P<n>{_ENC})\s+(?:of|with)\s+(?:an?\s+|the\s+)?(?:encounter\s+)?class\s*"
            rf"(?:=|:|\bof\b)?\s*(?P<v>{_ETYPE})\b"
        ),
        r"\g<v> \g<n>",
    ),
    # 'emergency class encounters', 'class inpatient encounters'
    (re.compile(rf"\b(?P<v>{_ETYPE})\s+class\s+(?P<n>{_ENC})"), r"\g<v> \g<n>"),
    (re.compile(rf"\bclass\s*(?:=|:)?\s*(?P<v>{_ETYPE})\s+(?P<n>{_ENC})"), r"\g<v> \g<n>"),
    # 'encounters starting in 2022': the encounters' start is in that year (not 'since 2022')
    (
        re.compile(
            rf"\b(?P<n>{_ENC}|stays?)\s+(?:that\s+|which\s+)?(?:starting|beginning|started|began|begun)"
            r"\s+(?P<p>in|during)\s+(?=(?:18|19|20)\d\d\b)"
        ),
        r"\g<n> \g<p> ",
    ),
)


def attribute_values(text: str) -> str:
    """A data manager's 'field value' phrasing read as the value: 'patients with gender female'
    → 'patients with female', 'encounters of class emergency' → 'emergency encounters'."""
    for pattern, repl in _ATTRIBUTE_FORMS:
        text = pattern.sub(repl, text)
    return text


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
