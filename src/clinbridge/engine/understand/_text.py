"""Text helpers for understanding: normalisation, tokens, light stemming, word lists.

The word lists here are general English and general clinical language (lay terms and common
abbreviations), never phrases of particular benchmark questions.
"""

from __future__ import annotations

import re

from clinbridge.engine.understand._shorthand import concept_shorthand

__all__ = [
    "ABBREVIATIONS",
    "FILLER",
    "NUMBER_WORDS",
    "SOFT_WORDS",
    "STOP_WORDS",
    "STREAM_HINTS",
    "content_tokens",
    "normalize",
    "stem",
    "tokens",
]

NUMBER_WORDS: dict[str, int] = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
}

# Words that never name a concept and never carry meaning for grounding.
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "by",
        "with",
        "from",
        "into",
        "within",
        "during",
        "and",
        "or",
        "but",
        "as",
        "than",
        "that",
        "which",
        "who",
        "whom",
        "whose",
        "this",
        "these",
        "those",
        "there",
        "their",
        "his",
        "her",
        "its",
        "it",
        "they",
        "them",
        "he",
        "she",
        "we",
        "our",
        "you",
        "your",
        "my",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "having",
        "do",
        "does",
        "did",
        "done",
        "any",
        "all",
        "some",
        "each",
        "every",
        "ever",
        "also",
        "only",
        "just",
        "still",
        "yet",
        "both",
        "either",
        "neither",
        "such",
        "same",
        "other",
        "another",
        "one",
        "ones",
        "s",
    ]
)

# Words that may be part of a concept's name ("History of myocardial infarction", "Glucose
# tolerance test") but, when left over after grounding, only hint at the stream or mean nothing.
STREAM_HINTS: dict[str, str] = {
    "diagnosed": "condition",
    "diagnosis": "condition",
    "diagnose": "condition",
    "condition": "condition",
    "disease": "condition",
    "disorder": "condition",
    "problem": "condition",
    "comorbidity": "condition",
    "suffering": "condition",
    "suffer": "condition",
    "suffered": "condition",
    "develop": "condition",
    "developed": "condition",
    "developing": "condition",
    "episode": "condition",
    "prescribed": "drug",
    "prescription": "drug",
    "prescribe": "drug",
    "exposed": "drug",
    "exposure": "drug",
    "drug": "drug",
    "medication": "drug",
    "medicine": "drug",
    "treated": "drug",
    "treatment": "drug",
    "took": "drug",
    "taking": "drug",
    "take": "drug",
    "given": "drug",
    "dispensed": "drug",
    "dispensing": "drug",
    "user": "drug",
    "starting": "drug",
    "started": "drug",
    "start": "drug",
    "initiation": "drug",
    "initiated": "drug",
    "dose": "drug",
    "fill": "drug",
    "administered": "drug",
    "administration": "drug",
    "therapy": "drug",
    "receiving": "drug",
    "received": "drug",
    "receive": "drug",
    "use": "drug",
    "used": "drug",
    "underwent": "procedure",
    "undergo": "procedure",
    "undergoing": "procedure",
    "procedure": "procedure",
    "operation": "procedure",
    "performed": "procedure",
    "measured": "measurement",
    "measurement": "measurement",
    "test": "measurement",
    "tested": "measurement",
    "lab": "measurement",
    "laboratory": "measurement",
    "level": "measurement",
    "value": "measurement",
    "result": "measurement",
    "reading": "measurement",
    "concentration": "measurement",
    "observation": "observation",
    "observed": "observation",
    "product": "drug",
    "products": "drug",
    "containing": "drug",
    "contains": "drug",
    "contain": "drug",
    "strength": "drug",
    "strengths": "drug",
    "combination": "drug",
    "combinations": "drug",
    "preparation": "drug",
    "preparations": "drug",
    "formulation": "drug",
    "formulations": "drug",
}

SOFT_WORDS = frozenset(
    set(STREAM_HINTS)
    | {
        "history",
        "recorded",
        "documented",
        "written",  # 'prescriptions written in 2020': issued, as recorded
        "together",  # 'all patients together': no grouping
        "i.e",  # 'minors, i.e. younger than 18': what follows says it again
        "record",
        "known",
        "confirmed",
        "new",
        "any",
        "prior",
        "previous",
        "previously",
        "patient",
        "patients",
        "person",
        "people",
        "had",
        "has",
        "have",
        "got",
        "get",
        "gets",
        "experienced",
        "experience",
        "time",
        "times",
        "occasion",
        "occurrence",
        "instance",
        "event",
        "events",
        "entry",
        "entries",
        "ever",
        "total",
        "overall",
        "mentioned",
        "noted",
        "registered",
        "coded",
        "listed",
        "database",
        "data",
        "dataset",
        "taken",
        "obtained",
        "drawn",
        "done",
        "collected",
        "made",
        "conducted",
        "carried",
        "checked",
        "ordered",
    }
)

# General clinical abbreviations and lay terms → wording used by clinical vocabularies (data file
# ``data/shorthand.tsv``; an entry may list alternatives, the first is kept here).
ABBREVIATIONS: dict[str, str] = {k: v[0] for k, v in concept_shorthand().items()}

# Function words of questions that never carry content when left over after grounding: light
# ("classifier") nouns, ordinary verbs of asking and counting, hedges. A closed class, like the
# stop words; a word outside it that nothing grounds is reported, never dropped.
FILLER = frozenset(
    [
        # '(however often each was given)': a counting aside's hedge
        "however",
        # "the 'Received higher education' finding", "with concept 'Social isolation'": the
        # kind of record a named concept is (its semantic tag, the data manager's word)
        "finding",
        "concept",
        "point",
        "points",
        "type",
        "types",
        "kind",
        "kinds",
        "sort",
        "sorts",
        "variety",
        "form",
        "forms",
        "manner",
        "way",
        "instance",
        "instances",
        "thing",
        "things",
        "anything",
        "something",
        "somebody",
        "anyone",
        "get",
        "gets",
        "got",
        "gotten",
        "getting",
        "count",
        "counted",
        "counting",
        "consider",
        "considered",
        "considering",
        "know",
        "want",
        "need",
        "like",
        "look",
        "looking",
        "see",
        "find",
        "tell",
        "show",
        "give",
        "actually",
        "really",
        "already",
        "basically",
        "exactly",
        "calendar",
        "at",
        "all",
        "overall",
        "altogether",
        "please",
        "would",
        "could",
        "can",
        "will",
        "should",
        "may",
        "might",
        "must",
        "ok",
        "okay",
        "hi",
        "hello",
        "thanks",
        "thank",
        "wondering",
        "curious",
        "quick",
        "question",
        "i",
        "i'm",
        "im",
        "us",
        "me",
        "if",
        "whether",
        "about",
        # verbs of occurring and recording, and qualifiers that restate the default reading
        "began",
        "begin",
        "begun",
        "beginning",
        "came",
        "come",
        "comes",
        "took",
        "place",
        "fall",
        "falls",
        "fell",
        "carry",
        "carries",
        "sustained",
        "sustain",
        "dated",
        "linked",
        "included",
        "inclusive",
        "subtype",
        "subtypes",
        "breakdown",
        "completed",
        "over",
        "averaging",
        "on",
        "file",
        "yes",
        "no",
    ]
)

_PUNCT = re.compile(r"[\"“”‘’`´]")
_SPACES = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Lower-case, unify quotes and comparison signs, drop question marks, collapse spaces."""
    s = text.strip().lower()
    s = s.replace("≥", " >= ").replace("≤", " <= ").replace("’", "'").replace("–", "-")
    s = _PUNCT.sub("", s)
    s = s.replace("'s ", " 's ").replace("s' ", "s ")
    s = re.sub(r"[?!]+", " ", s)
    s = re.sub(r"\.(\s|$)", r" \1", s)
    s = re.sub(r"([<>]=?)(\d)", r"\1 \2", s)
    s = re.sub(r"(?<![\w.])@(?=\s)", " at ", s)  # 'mean age @ 1st diagnosis' (not an address)
    return _SPACES.sub(" ", s).strip()


_TOKEN = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def stem(word: str) -> str:
    """A light plural/inflection stemmer, applied the same way to questions and concept names."""
    w = word.lower()
    if len(w) <= 3 or w.isdigit():
        return w
    for suffix, repl in (
        ("ies", "y"),
        ("sses", "ss"),
        ("xes", "x"),
        ("ches", "ch"),
        ("shes", "sh"),
    ):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            return w[: -len(suffix)] + repl
    if w.endswith("s") and not w.endswith(("ss", "us", "is", "ys")):
        return w[:-1]
    return w


def content_tokens(text: str) -> list[str]:
    """Stemmed tokens without stop words."""
    return [stem(t) for t in tokens(text) if t not in STOP_WORDS]
