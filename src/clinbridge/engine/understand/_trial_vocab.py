"""Words for reading questions over trial tables: tokens, light stemming, general synonyms.

The lists are general English and general clinical language (lay words, abbreviations, what an
unqualified measurement means by default) — never phrases of particular questions.
"""

from __future__ import annotations

import functools
import itertools
import re
from importlib import resources

__all__ = [
    "DEFAULT_QUALIFIERS",
    "FILLER",
    "NEGATED_WORDS",
    "ROLE_WORDS",
    "SCOPE_ASIDE",
    "SUBJECT_WORDS",
    "Token",
    "canon",
    "expand_shorthand",
    "neighbour_pairs",
    "one_edit_apart",
    "tokenize",
]

# token → canonical token (after stemming)
_SYNONYMS: dict[str, str] = {
    "post": "after",  # 'post-randomisation seizures': after randomisation
    "pyrexia": "fever",  # the clinical word for a fever ('Maternal pyrexia in labour')
    "pyrexial": "fever",
    "febrile": "fever",
    "die": "death",
    "died": "death",
    "dying": "death",
    "deaths": "death",
    "section": "caesarean",
    "dead": "death",
    "mortality": "death",
    "deceas": "death",
    "boy": "male",
    "girl": "female",
    "man": "male",
    "woman": "female",
    "weigh": "weight",
    "fed": "feed",  # an irregular past: 'tube fed' is 'tube feeding'
    "heavy": "weight",  # "how heavy were they at birth": the weight
    "birthweight": "weight",
    "bw": "weight",
    "temp": "temperature",
    "sugar": "glucose",
    "bg": "glucose",
    "sat": "saturation",
    "spo2": "saturation",
    "hr": "heart",
    "resp": "respiratory",
    "pulse": "heart",
    "bp": "pressure",
    "na": "sodium",
    "plt": "platelet",
    "hb": "haemoglobin",
    "hemoglobin": "haemoglobin",
    "hematocrit": "haematocrit",
    "cesarean": "caesarean",
    "csection": "caesarean",
    "cs": "caesarean",
    "cognition": "cognitive",
    "cp": "cerebral",
    "ga": "gestational",
    "gestation": "gestational",
    "los": "stay",
    "hospitalisation": "stay",
    "hypothermic": "hypothermia",
    "normothermic": "normothermia",
    "centre": "site",
    "center": "site",
    "hospital": "hospital",
    "study": "trial",
    "sarnat": "hie",
    "encephalopathy": "hie",
    "convulsion": "seizure",
    "fit": "seizure",
    "ventilat": "ventilation",
    "ventilated": "ventilation",
    "ventilator": "ventilation",
    "randomized": "randomis",
    "randomization": "randomis",
    "randomised": "randomis",
    "randomisation": "randomis",
    "randomise": "randomis",
    "mri": "mri",
    "mother": "maternal",
    "endpoint": "outcome",
    "sz": "seizure",
    "szs": "seizure",
    "k": "potassium",
    "mum": "maternal",
    "loss": "impairment",
}

# an unqualified measurement means this one ('temperature' is the core body temperature)
DEFAULT_QUALIFIERS: dict[str, frozenset[str]] = {
    "temperature": frozenset({"core", "rectal", "body", "oesophageal", "esophageal"}),
    "pressure": frozenset({"arterial"}),
    "glucose": frozenset({"blood"}),
}

SUBJECT_WORDS = ("infant", "baby", "neonate", "newborn", "child", "kid", "patient", "subject")
"""The nouns a trial question calls its subjects by (each also said in the plural)."""

FILLER = frozenset(
    [
        "what",
        "which",
        "whats",
        "where",
        "was",
        "were",
        "is",
        "are",
        "be",
        "been",
        "being",
        "the",
        "a",
        "an",
        "of",
        "in",
        "at",
        "on",
        "for",
        "to",
        "by",
        "with",
        "within",
        "into",
        "out",
        "among",
        "amongst",
        "who",
        "whom",
        "whose",
        "that",
        "those",
        "these",
        "this",
        "had",
        "have",
        "has",
        "did",
        "do",
        "does",
        "how",
        "many",
        "much",
        "number",
        *(w + s for w in SUBJECT_WORDS for s in ("", "s")),
        "babies",
        "children",
        "participant",
        "participants",
        "case",
        "cases",
        "cohort",
        "overall",
        "all",
        "total",
        "value",
        "values",
        "level",
        "levels",
        "category",
        "categories",
        "recorded",
        "record",
        "records",
        "row",
        "rows",
        "measured",
        "measurement",
        "measure",
        "score",
        "scores",
        "and",
        "or",
        "but",
        "recruit",
        "recruited",
        "enrol",
        "enrolled",
        "enroll",
        "born",
        "deliver",
        "delivered",
        "receive",
        "received",
        "given",
        "develop",
        "developed",
        "experience",
        "experienced",
        "occur",
        "occurred",
        "show",
        "showed",
        "met",
        "meet",
        "meeting",
        "achieved",
        "attained",
        "fulfilled",
        "there",
        "their",
        "they",
        "it",
        "its",
        "compare",
        "comparison",
        "compared",
        "versus",
        "vs",
        "between",
        "both",
        "two",
        "each",
        "per",
        "across",
        "respectively",
        "please",
        "tell",
        "me",
        "give",
        "list",
        "report",
        "calculate",
        "compute",
        "find",
        "s",
        "any",
        "ever",
        "during",
        "after",
        "from",
        "than",
        "as",
        "also",
        "only",
    ]
)

# words that name a design variable's role (the grouping words of a trial)
ROLE_WORDS: dict[str, frozenset[str]] = {
    "arm": frozenset({"arm", "group", "treatment", "allocation", "randomis", "intervention"}),
    "trial": frozenset({"trial"}),
    "site": frozenset({"site", "hospital", "unit"}),
}

_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")


class Token:
    __slots__ = ("end", "norm", "start", "text")

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text = text
        self.start = start
        self.end = end
        self.norm = canon(text)

    def __repr__(self) -> str:
        return f"Token({self.text!r}→{self.norm!r})"


def stem(word: str) -> str:
    w = word.lower()
    if len(w) <= 3 or w.isdigit():
        return w
    w = w.replace("iz", "is")
    if w.endswith("ally") and len(w) >= 8:
        return w[:-2]  # an adverb of an '-al' word: 'bilaterally' bilateral, 'clinically'
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", "e"), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            base = w[: -len(suffix)] + keep
            if suffix == "es" and not base.endswith(("s", "x", "z", "ch", "sh")):
                base = w[:-1]
            return base
    return w


def canon(word: str) -> str:
    w = word.lower()
    if w in _SYNONYMS:
        return _SYNONYMS[w]
    s = stem(w)
    return _SYNONYMS.get(s, s)


def tokenize(text: str) -> list[Token]:
    return [Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(text.lower())]


@functools.cache
def _shorthand() -> tuple[tuple[re.Pattern[str], str, str], ...]:
    """(pattern, expansion, when) of ``data/trial_shorthand.tsv``, longest terms first."""
    text = resources.files("clinbridge.engine.understand").joinpath("data", "trial_shorthand.tsv")
    rows = [
        line.split("\t")
        for line in text.read_text("utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    out = []
    for term, expansion, when in sorted(rows, key=lambda r: -len(r[0])):
        body = r"\s+".join(re.escape(w) for w in term.split())
        when = when.strip()
        slash = "" if when == "dictionary" else "/"  # 'mod/sev' is two words, 'mg/dl' one
        after = "" if term.endswith("/") else rf"(?![\w{slash}'-])"
        before = r"(?<!\d)(?<!\d )" if when == "no-number" else ""
        pattern = re.compile(rf"{before}(?<![\w{slash}.-]){body}{after}", re.I)
        out.append((pattern, expansion.strip() + (" " if term.endswith("/") else ""), when))
    return tuple(out)


def expand_shorthand(
    text: str,
    neighbours: frozenset[tuple[str, str]] = frozenset(),
    vocabulary: frozenset[str] | set[str] = frozenset(),
) -> str:
    """Clinical shorthand written out (``data/trial_shorthand.tsv``): 'w/' with, 'w/o' without,
    'pts' patients, 'HR' heart rate; a ``dictionary`` entry ('std' standard) only where the
    expansion and the word beside it are ``neighbours`` (adjacent words of a dictionary label)
    and the shorthand is no word of the dictionary itself."""
    # dictionary entries twice: 'mod/sev disability' reads 'sev' first, then 'mod' beside it
    entries = _shorthand()
    for pattern, words, when in entries + tuple(e for e in entries if e[2] == "dictionary"):
        if when != "dictionary":
            # a shorthand that is itself a code of the dictionary, beside a word it stands
            # beside there, is that code: 'GMFCS level III to V' is no 'versus'
            text = pattern.sub(
                lambda m, w=words: (
                    m.group(0)
                    if canon(m.group(0)) in vocabulary
                    and _beside(m.string, m, m.group(0), neighbours, frozenset())
                    else w
                ),
                text,
            )
            continue
        spans = [
            m for m in pattern.finditer(text) if _beside(text, m, words, neighbours, vocabulary)
        ]
        for m in reversed(spans):
            text = text[: m.start()] + words + text[m.end() :]
    return text


def _beside(
    text: str,
    m: re.Match[str],
    words: str,
    neighbours: frozenset[tuple[str, str]],
    vocabulary: frozenset[str] | set[str],
) -> bool:
    """Whether the expansion of the shorthand m, with the word before or after it, is a pair of
    neighbours of the dictionary (and the shorthand itself no word of it)."""
    if canon(m.group(0)) in vocabulary:
        return False
    exp = [canon(w) for w in words.split()]
    # (function words skipped, as in the pairs: 'mod or severe' has 'moderate', 'severe')
    prev = [canon(t.text) for t in tokenize(text[: m.start()]) if t.norm not in FILLER][-1:]
    nxt = [canon(t.text) for t in tokenize(text[m.end() :]) if t.norm not in FILLER][:1]
    return bool(nxt and (exp[-1], nxt[0]) in neighbours) or bool(
        prev and (prev[0], exp[0]) in neighbours
    )


def neighbour_pairs(labels: list[str]) -> frozenset[tuple[str, str]]:
    """Adjacent content words of dictionary labels ('standard', 'care'), both orders kept
    apart; function words ('of', 'or') are skipped, so 'moderate or severe' gives a pair."""
    pairs: set[tuple[str, str]] = set()
    for label in labels:
        words = [t.norm for t in tokenize(label.replace("-", " ")) if t.norm not in FILLER]
        pairs.update(itertools.pairwise(words))
    return frozenset(pairs)


NEGATED_WORDS: dict[str, str] = {
    r"(?:did\s+not|didn'?t|did\s+n't|not|never|failed\s+to)\s+surviv(?:e|ed)": "died",
    "survive": "not die",
    "survival": "non death",
    "survivors": "non dead infants",
    "survivor": "non dead infant",
    "survived": "did not die",
    "surviving": "non dead",
    "alive": "non dead",
}
"""Words that mean 'not dead', used when the dictionary has no survival variable of its own."""


def one_edit_apart(a: str, b: str) -> bool:
    """Whether a and b differ by one letter added, dropped or changed, or two adjacent swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        i = diff[0]
        return len(diff) == 2 and diff[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long_[k]), len(short))
    return short[i:] == long_[i + 1 :]


SCOPE_ASIDE = re.compile(r"\s*\((?:[^()]*\s)?(?:arms?|groups?)(?:\s+only)?\s*\)", re.I)
"""A label's aside naming the arm it was recorded in ('Water temperature (cooled arm)',
'Dose (intervention group only)'): a scope note, not a word of the variable's name, so 'arm'
and 'cooled' stay the arm variable's words."""
