"""A concept's place in the vocabulary said in a data manager's words, before either reader runs.

A data manager pins a concept by its place in the hierarchy and by its id: 'drug_exposure under
ingredient Cefaclor', 'drug_concept_id under ingredient Nitrofurantoin (920293)', 'Osteoporosis
(80502) incl. descendants', 'Cholecystectomy (4242997) or any of its descendants such as
Laparoscopic cholecystectomy', 'whose drug_concept_id descends from the RxNorm ingredient X in
concept_ancestor'. Both readers take a concept named in words with its descendants where the
source has a concept hierarchy (CONCEPT_ANCESTOR with rows), so here:

* **hierarchy words** — 'under (ingredient|concept|class) X', a bare 'under X' before words that
  name a concept the source holds (a lower-case name only with its concept id beside it:
  'under alteplase (1347450)'), 'descendants included', 'incl. descendants', 'and its
  descendants', 'or a descendant (such as Y)', 'descends from', 'in concept_ancestor' — are
  taken out, leaving the concept's name. An example after 'such as' must itself name a concept
  of the source (it is then an illustration, restricting nothing); else the words stay, to be
  named. On a source with no hierarchy these words ask for what it cannot say: the reading
  abstains naming them.
* **an id beside the name** — 'Nitrofurantoin (920293)', 'measurement_concept_id 4052083
  (Measurement of respiratory function)': the id must be a concept the source holds and the
  name beside it must be that concept's (its name, or words grounding to it as their best
  match). Agreeing, the id is taken out when the pair also carries a hierarchy word (the name,
  read with its descendants, is what is asked) or when the name comes first (the name says it);
  disagreeing — the words name another concept — the reading abstains naming both. An id the
  source does not hold as a concept, or words that name nothing, are left for the readers.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._text import normalize, tokens

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["hierarchy_words"]

_EXAMPLE = (
    r"(?:\s*,?\s*\(?\s*(?:such\s+as|e\.\s?g\.?,?|for\s+example|like|including)\s+"
    r"(?P<ex>[^(),;?]{2,80}?)(?=\s*[),;?]|\s*$)\)?"
    r"|\s*\((?P<ex2>[^()]{2,80})\))?"
)
_DESCENDANTS = re.compile(
    r"\s*,?\s*\(?\s*(?:with\s+|and\s+|plus\s+)?(?:all\s+)?(?:its\s+|their\s+)?descendants\s+(?:included|too|as\s+well)\s*\)?"
    r"|\s*,?\s*\(?\s*incl(?:\.|uding|udes|uded)?\s+(?:all\s+)?(?:of\s+)?(?:its\s+|their\s+)?descendants?"
    r"(?:\s+concepts?)?\s*\)?"
    r"|\s*,?\s*\(?\s*(?:and|plus|with)\s+(?:all\s+)?(?:of\s+)?(?:its|their)\s+descendants?(?:\s+concepts?)?\s*\)?"
    r"|\s*,?\s+or\s+(?:any\s+of\s+(?:its|their)|its|their|a|any)\s+descendants?(?:\s+concepts?)?"
    + _EXAMPLE,
    re.I,
)
_CONCEPT_WORD = re.compile(
    r"\b(?:the\s+)?(?P<n>[A-Za-z][\w'-]*(?:\s+[\w'-]+){0,6}?)\s+concepts?\s+(?=(?:or|and|plus|with|"
    r"incl\.?|including)\s+(?:any\s+of\s+|all\s+(?:of\s+)?)?(?:its|their|a|any)?\s*descendant)",
    re.I,
)
_UNDER_KIND = re.compile(
    r"\b(?:under|descend(?:s|ing)?\s+from|(?:is\s+)?an?\s+descendants?\s+of|below)\s+(?:the\s+)?"
    r"(?:(?:rxnorm|snomed(?:\s*ct)?|atc|loinc)\s+)?(?:ingredient|concept|class|ancestor|parent)\s+",
    re.I,
)
_ID_THEN_NAME = re.compile(
    r"(?<=\s)(?P<id>\d{4,})\s+(?P<words>[A-Za-z][\w'-]*(?:\s+(?!in\b|for\b|with\b|and\b|or\b)[A-Za-z][\w'-]*){0,5})"
)
_UNDER_BARE = re.compile(
    r"\b(?:under|descend(?:s|ing)?\s+from)\s+(?P<name>[A-Z][\w'’-]*(?:[ \t]+[\w'’-]+){0,7}?)"
    r"(?=\s*\(|\s*,|\s+incl|\s+and\s+(?:its|their|all)|\s+or\s+(?:any|a|its)|\s*$)"
)
_UNDER_LOWER = re.compile(
    r"\b(?:under|descend(?:s|ing)?\s+from)\s+(?P<name>[a-z][\w'’-]*(?:[ \t]+[\w'’-]+){0,4}?)"
    r"(?=\s*\(\s*\d{3,}\s*\))"
)
"""'under alteplase (1347450)': a name in lower case, pinned by its id (checked by ``_ids``)."""
_IN_ANCESTOR = re.compile(
    r"\s*\(?\s*(?:(?:in|via|through|using|from)\s+(?:the\s+)?)?concept_ancestor(?:\s+table)?\s*\)?",
    re.I,
)
_NAME_ID = re.compile(
    # 'a ferrous sulfate product (ingredient 1396131)': the products under that ingredient
    r"(?P<name>[A-Za-z][^(),;:]{1,80}?)\s*\(\s*(?:(?:concept(?:_id)?|(?:rxnorm\s+)?ingredient)\s*)?"
    r"(?P<id>\d{3,})\s*\)"
)
_SYSTEM_NAME_ID = re.compile(
    r"\b(?:cvx|snomed(?:\s*ct)?|loinc|rxnorm)\s+(?P<name>'[^']{2,80}'|\"[^\"]{2,80}\")\s*"
    r"\(\s*(?:concept(?:_id)?\s*)?(?P<id>\d{3,})\s*\)",
    re.I,
)
_ID_NAME = re.compile(
    r"\b(?:\w+_)?concept(?:_id)?\s*(?:=\s*)?(?P<id>\d{3,})\s*\((?P<name>[A-Za-z][^()]{1,80})\)",
    re.I,
)


def _concept(words: str, lex: Lexicon) -> tuple[set[str], str, float] | None:
    """The codes, label and score of the last concept ``words`` ground to (no embeddings)."""
    from clinbridge.engine.understand._ground import Concept, ground_text

    found = [
        c for c in ground_text(normalize(words), lex, embeddings=False) if isinstance(c, Concept)
    ]
    if not found:
        return None
    c = found[-1]
    best = c.primary or c.entries
    return {str(lex.entries[i].code) for i in best}, c.label, c.score


def _names_of(code: str, lex: Lexicon) -> list[str]:
    return [e.name for e in lex.entries if str(e.code) == code and e.stream != "visit"]


def _checked(name: str, code: str, lex: Lexicon) -> str | None:
    """'' when ``name`` is concept ``code``'s; a reason when it names another; None when
    nothing can be said (the code is no concept here, the words name nothing)."""
    names = _names_of(code, lex)
    if not names:
        return None
    said = f" {' '.join(tokens(name))}"
    if any(said.endswith(f" {' '.join(tokens(n))}") for n in names):
        return ""
    got = _concept(name, lex)
    if got is None:
        return None
    codes, label, score = got
    if code in codes:
        return ""
    if score < 0.9:
        return None
    return (
        f"concept {code} is {names[0]!r} in this source, but the words beside it name "
        f"{label!r}; say which is meant"
    )


def _illustrates(example: str, lex: Lexicon) -> bool:
    return all(
        _concept(part, lex) is not None
        for part in re.split(r"\s*(?:,|\bor\b|\band\b)\s*", example)
        if part
    )


def hierarchy_words(question: str, lex: Lexicon) -> tuple[str, str | None]:
    """(the question with its hierarchy words and confirmed ids taken out, an abstention or
    None); see the module docstring."""
    question = _CONCEPT_WORD.sub(lambda m: f"{m['n']} ", question)  # 'the X concept or its …'
    said = [m[0].strip() for m in _IN_ANCESTOR.finditer(question)]
    if said and lex.has_hierarchy:
        question = _IN_ANCESTOR.sub(" ", question)
    said += [m[0].strip() for m in _DESCENDANTS.finditer(question)]
    said += [m[0].strip() for m in _UNDER_KIND.finditer(question)]
    bare = [
        m
        for pattern in (_UNDER_BARE, _UNDER_LOWER)
        for m in pattern.finditer(question)
        if _concept(m["name"], lex) is not None
    ]
    said += [m[0].split()[0] for m in bare]
    if not said:
        return _ids(question, lex, hierarchy=False)
    if not lex.has_hierarchy:
        return question, (
            f"{said[0]!r} asks for a concept's descendants, and this source has no concept "
            "hierarchy (CONCEPT_ANCESTOR) to read them from"
        )
    for m in list(_DESCENDANTS.finditer(question)):
        example = m["ex"] or m["ex2"]
        if example and not _illustrates(example, lex):
            continue  # 'or a descendant such as <words naming nothing>': left to be named
        question = question.replace(m[0], " ", 1)
    question = _UNDER_KIND.sub(" ", question)
    for m in list(_ID_THEN_NAME.finditer(question)):  # 'ingredient 1549786 Ethinyl Estradiol'
        words = m["words"].split()
        for n in range(len(words), 0, -1):
            if _checked(" ".join(words[:n]), m["id"], lex) == "":
                question = question.replace(m[0], " ".join(words), 1)
                break
    for m in bare:
        question = question.replace(m[0], m["name"], 1)
    return _ids(re.sub(r"[ \t]{2,}", " ", question).strip(), lex, hierarchy=True)


def _ids(question: str, lex: Lexicon, *, hierarchy: bool) -> tuple[str, str | None]:
    """Ids beside names checked; the agreeing ones taken out where the module docstring says."""
    for m in list(_SYSTEM_NAME_ID.finditer(question)):  # "CVX 'hepatitis A vaccine' (40213260)"
        reason = _checked(m["name"], m["id"], lex)
        if reason:
            return question, reason
        if reason == "":
            question = question.replace(m[0], m["name"], 1)
    for m in list(_ID_NAME.finditer(question)):
        reason = _checked(m["name"], m["id"], lex)
        if reason:
            return question, reason
        if reason == "" and hierarchy:
            question = question.replace(m[0], m["name"], 1)
    for m in list(_NAME_ID.finditer(question)):
        words = " ".join(tokens(question[: m.start("name")] + m["name"])[-8:])
        reason = _checked(words, m["id"], lex)
        if reason:
            return question, reason
        if reason == "":
            question = question.replace(m[0], m["name"], 1)
    return question, None
