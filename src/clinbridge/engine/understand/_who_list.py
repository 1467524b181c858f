"""'Who' asking for patients: 'who has an X', 'who's been prescribed Y', 'anyone on Z? who'.

A question that asks *who* about the whole population asks for the patients' ids, as 'which
patients' does. Two shapes are read, on the normalised text after word shorthand is spelt out
(question marks dropped, 'pts' already 'patients'):

* an opening 'who' before a verb: 'who has an inhaler prescription', "who's had a colonoscopy",
  "who's documented as a smoker" → 'which patients have ...', 'which patients are documented ...';
* the ask said last, after a phrase about anyone or about patients: 'anyone ever on warfarin?
  who', 'patients with gout - who', 'any pt w a stent? which pts', '... which one(s)'. A leading
  'anyone', 'anybody', 'any patient(s)' becomes 'patients'; the phrase must not already ask
  something else (how many, what, when, ...).

Nothing is rewritten when the opening 'who' is not followed by a verb ('who else', 'whose'), nor
when the phrase before a closing 'who' holds another asking word: the question is then read as
written.
"""

from __future__ import annotations

import re

__all__ = ["ids_listed", "who_lists"]

_VERBS = (
    r"has|had|have|got|gets|received|receives|was|were|is|are|did|does|underwent|"
    r"needed|needs|took|takes|used|uses|developed|experienced|carries|carried|"
    r"presented|came|went|saw|suffers|still|ever|[a-z]{2,}ed"
)
"""Words after which an opening 'who' is a subject: a verb or an adverb before one."""

_HAS_PARTICIPLE = (
    r"been|had|got|gotten|received|undergone|taken|used|developed|experienced|needed|seen|"
    r"visited|tested|come|gone|suffered|ever"
)

_OPENING = re.compile(
    rf"^(?:so\s+|and\s+|ok\s+|okay\s+)?who\s+(?:'s\s+(?=(?:{_HAS_PARTICIPLE})\b)(?P<has>)|"
    rf"'s\s+(?P<is>)|(?P<verb>{_VERBS})\b)"
)
"""'who has', 'who 's had' (normalised "who's had"), "who 's a smoker" ("who's a smoker")."""

_RANKED = re.compile(r"(?:the\s+)?(?:most|largest|greatest|highest|fewest|least|lowest)\b")
"""A superlative right after the verb: the question ranks patients."""

_ASKING = re.compile(
    r"\b(?:how|what|which|when|where|why|whose|who|list|show|count|number|total|average|mean|"
    r"median|proportion|percentage|share|ids?|identifiers?)\b|%"
)
"""Words that ask something themselves: a phrase holding one is not a bare noun phrase."""

_ANYONE = re.compile(
    r"^(?:(?:is|was|are|were)\s+there\s+|has\s+|have\s+|did\s+)?"
    r"(?:anyone|anybody|any\s+(?:one\s+|of\s+the\s+)?(?:patients?|persons?|people))\b"
)
"""The opening of a question about anyone: 'anyone', 'is there any patient', 'any pts'."""

_PEOPLE = re.compile(r"^(?:the\s+|all\s+)?(?:patients|persons|people)\b")

_CLOSING = re.compile(
    r"^(?P<body>.+?)\s*[-–—,:;]?\s*(?:(?:and\s+|if\s+so\s*,?\s*)?(?:who(?:\s+(?:is\s+it|are\s+they|was\s+it))?"
    r"|which\s+(?:ones?|patients?|persons?|people)))\s*$"
)
"""'<phrase> - who', '<phrase>, which pts', '<phrase> which one', '<phrase> and who'."""


def _opening(text: str) -> str | None:
    m = _OPENING.match(text)
    if m is None:
        return None
    rest = text[m.end() :].lstrip()
    if _RANKED.match(rest):
        return None  # 'who had the most X' ranks one patient (_patient_ranks), not a list
    if m["has"] is not None:
        return f"which patients have {rest}".strip()
    if m["is"] is not None:
        return f"which patients are {rest}".strip()
    verb = m["verb"]
    return f"which patients {verb} {rest}".strip()


def _closing(text: str) -> str | None:
    m = _CLOSING.match(text)
    if m is None:
        return None
    body = m["body"].strip(" -,;:")
    anyone = _ANYONE.match(body)
    if anyone is not None:
        body = "patients " + body[anyone.end() :].lstrip()
    elif _PEOPLE.match(body) is None:
        return None  # 'aspirin - who' names no one: read as written
    if _ASKING.search(body):
        return None  # 'how many patients with X - who': two asks
    return f"which {body}".strip()


def who_lists(text: str) -> str:
    """The normalised question with a 'who' that asks for the patients written as 'which
    patients' (unchanged when it does not)."""
    return _opening(text) or _closing(text) or text


_IDS_OPENING = re.compile(
    r"^\s*(?:the\s+|all\s+)?(?:distinct|unique|different)\s+(?:patient|person|subject)s?[\s_]?"
    r"(?:ids|identifiers)\b",
    re.IGNORECASE,
)
"""'distinct patient ids with X', 'unique person ids from Y': the ids themselves, plural."""


def ids_listed(question: str) -> str:
    """A question opening with 'distinct patient ids' asks for the ids: it is read as 'list
    distinct patient ids ...' (a plural 'ids' is never their number; a question that also asks
    for a count is left as written)."""
    if not _IDS_OPENING.match(question) or re.search(
        r"\b(?:how\s+many|count|number|total|#)", question, re.IGNORECASE
    ):
        return question
    return "list " + question.lstrip()
