"""Plain words a clinician uses for a measure or an event, said the way the rules read them.

* 'how tall is patient 13' → 'what is the body height of patient 13' (tall, the height asked);
* 'did she ever break her hip', 'a broken wrist' → 'have a hip fracture', 'wrist fracture' (to
  break a bone is to fracture it; only before a body part of the list below, so 'broken down by'
  is untouched);
* 'how many shots has X had' → 'how many immunizations': shots counted are immunization records;
* ', 1+ dose', '(1 or more doses)' beside a vaccine: having received it (any record counts);
* 'B12 shots', 'Td shots': the drug or vaccine named before 'shots' (only words that name one of
  the source's drugs or vaccines exactly, or are a shorthand for one: 'allergy shots' stay);
* 'list the chronic neck pain pts' → 'list the patients with chronic neck pain': a list of
  patients named by a concept before the noun (only when those words name a concept of the
  source exactly, or are a shorthand for one — 'female', 'older' or '3' are never moved);
* a word the question defines by a threshold — 'tachycardic pts (HR > 100)', 'thrombocytosis
  >400 plt count' — is read as that threshold: the word is dropped and the threshold kept. Only
  a word that neither the source's vocabulary, the reader's structure words nor common English
  knows is dropped (a known word may carry a meaning of its own: 'male patients (age > 65)').

The body parts are general anatomy (the bones and joints a fracture is commonly named by), not
any question's.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["plain_words"]

_BODY_PART = (
    r"(?:hips?|wrists?|ankles?|arms?|legs?|ribs?|nose|jaw|collarbones?|clavicles?|femurs?|"
    r"feet|foot|hands?|fingers?|toes?|skull|pelvis|shoulders?|elbows?|knees?|vertebrae?|"
    r"spine|back|neck|humerus|tibia|fibula|radius|ulna|forearms?|thighs?|heels?)"
)
_WHOSE = r"(?:(?:her|his|their|a|an|the|one's|my|your)\s+)?(?:(?:left|right)\s+)?"
_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bhow\s+tall\s+(is|was)\b"), r"what \1 the body height of"),
    # 'mean SBP (mmHg, over all readings)': every reading is what a mean is taken over anyway
    (
        re.compile(
            r"\s*,?\s*\b(?:over|across)\s+all\s+(?:of\s+(?:the|her|his|their)\s+)?(?:recorded\s+)?"
            r"(?:readings|measurements|values|results|records)\b"
        ),
        " ",
    ),
    # 'which medications (distinct names) ...': a list of things is their names, once each
    (
        re.compile(
            r"\s*\(\s*(?:the\s+)?(?:distinct|unique|different)?\s*(?:[a-z]+\s+)?names?\s*\)"
        ),
        " ",
    ),
    # 'pts who were 70+ at their first stroke': a person's 'N+' at an event is an age
    (re.compile(r"\b(were|was|are|is)\s+(\d{1,3})\s*\+\s+(?=(?:at|when)\b)"), r"\1 \2 or older "),
    # 'MI pts who ended up with a CABG': had it
    (re.compile(r"\bended\s+up\s+(?:with|having|getting|needing)\b"), "had"),
    (re.compile(r"\bneeded\s+(?=stitches\b)"), "had "),
    # 'ever put on donepezil': started on a drug
    (re.compile(r"\b(?:put|placed)\s+on\s+(?!(?:weight|pounds|kilos)\b)"), "started on "),
    # '(patients with both are excluded)' after 'X but no Y': the exclusion said again
    (
        re.compile(
            r"\s*\(\s*(?:patients|people|persons|those|anyone)\s+(?:with|having|who\s+had)\s+both\s+"
            r"(?:are\s+|were\s+)?(?:excluded|not\s+counted|left\s+out|removed|dropped)\s*\)"
        ),
        " ",
    ),
    # ', whatever the product description': any product of the named kind (the class whole)
    (
        re.compile(
            r"\s*,?\s*(?:whatever|regardless\s+of)\s+(?:the\s+|its\s+)?(?:product\s+)?"
            r"(?:descriptions?|displays?|names?|labels?|brands?|wordings?)\b"
        ),
        " ",
    ),
    # '(hospital stays, not patients)', '(records, not people)': what is counted, said again
    (
        re.compile(
            r"\s*,\s*(?:and\s+|but\s+)?not\s+(?:each\s+|distinct\s+|unique\s+|individual\s+)?"
            r"(?:patients?|persons?|people|individuals)\s*(?=\))"
        ),
        "",
    ),
    (
        re.compile(
            r"\s*\(\s*not\s+(?:each\s+|distinct\s+|unique\s+|individual\s+)?"
            r"(?:patients?|persons?|people|individuals)\s*\)"
        ),
        " ",
    ),
    # 'inpatient admissions (hospital stays)': the encounters counted, named again
    (
        re.compile(
            r"(?<=s)\s*\(\s*(?:i\.e\.\s*|that\s+is\s*,?\s*)?(?:each\s+|individual\s+|separate\s+)?"
            r"(?:hospital\s+|inpatient\s+)?(?:stays|admissions|visits|encounters|hospitali[sz]ations)"
            r"\s*\)"
        ),
        " ",
    ),
    # 'a diagnosis of a type other than viral sinusitis': other than
    (re.compile(r"\b(?:of\s+)?(?:a|any)\s+(?:type|kind|form)\s+other\s+than\b"), "other than"),
    (
        re.compile(rf"\b(?:break|breaks|breaking)\s+{_WHOSE}(?P<p>{_BODY_PART})\b"),
        r"have a \g<p> fracture",
    ),
    (re.compile(rf"\bbroke\s+{_WHOSE}(?P<p>{_BODY_PART})\b"), r"had a \g<p> fracture"),
    (re.compile(rf"\bbroken\s+(?:(?:left|right)\s+)?(?P<p>{_BODY_PART})\b"), r"\g<p> fracture"),
    (
        re.compile(r"\b(how\s+many|number\s+of|count\s+of)\s+(?:vaccine\s+)?(?:shots|jabs)\b"),
        r"\1 immunizations",
    ),
    (
        re.compile(
            r"\b(?P<v>vax|vaccines?|vaccinations?|shots?|immuni[sz]ations?)\s*,?\s*\(?\s*(?:1|one)\s*"
            r"(?:\+|or\s+more)\s*(?:doses?|shots?|injections?)\s*\)?(?=\s*(?:[,?.;)]|$))"
        ),
        r"\g<v> ",
    ),
)
_OP = r"(?:>=|<=|>|<|≥|≤)"
_DEFINED_PAREN = re.compile(
    rf"\b(?P<w>[a-z]{{5,}})\s+(?P<n>patients|people|persons|subjects|cases)\s*"
    rf"\(\s*(?P<d>[a-z][a-z0-9 .-]{{0,40}}?\s*{_OP}\s*\d+(?:\.\d+)?\s*[a-z/%^0-9]{{0,12}})\s*\)"
)
_DEFINED_BARE = re.compile(
    rf"(?:^|(?<=\s))(?P<w>[a-z]{{5,}})\s+(?P<op>{_OP})\s*(?P<v>\d+(?:\.\d+)?)\s+"
    r"(?P<m>[a-z][a-z ]{1,30}?)(?=\s*(?:,|\?|;|-|$))"
)


_LIST_OF = re.compile(
    r"^(?P<lead>(?:please\s+)?(?:list|show(?:\s+me)?|give\s+me|get(?:\s+me)?)\s+(?:all\s+)?(?:the\s+)?)"
    r"(?P<x>[a-z][a-z0-9' -]{2,60}?)\s+(?P<n>patients|people|persons)\b"
    r"(?P<rest>\s*(?:[?.!,(]|ids?\b|$).*)$"
)


def _names_concept(words: str, lex: Lexicon) -> bool:
    from clinbridge.engine.understand._shorthand import concept_shorthand

    if words in concept_shorthand():
        return True
    found = lex.match(words)
    return bool(found) and found[0].score >= 0.97


def _unknown(word: str, lex: Lexicon) -> bool:
    from clinbridge.engine.understand._ground import _english_words
    from clinbridge.engine.understand._typos import _STRUCTURE

    return (
        word not in _STRUCTURE
        and word not in _english_words()
        and not lex.token_frequency(word)
        and lex.nearest_token(word) is None
    )


_SHOTS = re.compile(r"\s+(?:shots?|jabs?)\b(?!\s*\()")
_DRUG_KINDS = frozenset({"drug", "immunization"})


def _names_drug(words: str, lex: Lexicon) -> bool:
    """The words name a drug or vaccine of the source exactly (or by shorthand for one)."""
    from clinbridge.engine.understand._shorthand import concept_shorthand

    for said in (words, *concept_shorthand().get(words, ())):
        found = lex.match(said)
        if found and found[0].score >= 0.97:
            return any(lex.entries[i].stream in _DRUG_KINDS for i in found[0].entries)
    return False


def _drug_shots(text: str, lex: Lexicon) -> str:
    """'B12 shots', 'Td shots': the doses of the drug or vaccine named before 'shots' — the
    drug itself (only when those words name a drug or vaccine of the source; 'allergy shots'
    names none and stays)."""
    from clinbridge.engine.understand._shorthand import concept_shorthand
    from clinbridge.engine.understand._text import STOP_WORDS

    out, last = [], 0
    for m in _SHOTS.finditer(text):
        before = text[last : m.start()].split()
        shot = m[0].split()[0]
        if any(f"{' '.join(before[-n:])} {shot}" in concept_shorthand() for n in (1, 2, 3)):
            continue  # 'flu shots', 'covid shot': a shorthand of its own
        for n in (3, 2, 1):
            words = " ".join(before[-n:]) if len(before) >= n else ""
            if not words or before[-n] in STOP_WORDS:
                continue
            if _names_drug(words, lex):
                out.append(text[last : m.start()])
                last = m.end()
                break
    return "".join(out) + text[last:] if out else text


def plain_words(text: str, lex: Lexicon) -> str:
    """``text`` (normalised) with the plain words above said as the rules read them."""
    for pattern, repl in _FORMS:
        text = pattern.sub(repl, text)
    text = _drug_shots(text, lex)

    def paren(m: re.Match[str]) -> str:
        if not _unknown(m["w"], lex):
            return m[0]
        return f"{m['n']} with {m['d']}"

    def bare(m: re.Match[str]) -> str:
        if not _unknown(m["w"], lex):
            return m[0]
        return f"with {m['m']} {m['op']} {m['v']}"

    def listed(m: re.Match[str]) -> str:
        if not _names_concept(m["x"].strip(), lex):
            return m[0]
        return f"{m['lead']}{m['n']} with {m['x']}{m['rest']}"

    text = _LIST_OF.sub(listed, text)
    return _DEFINED_BARE.sub(bare, _DEFINED_PAREN.sub(paren, text))
