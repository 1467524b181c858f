"""A code named beside the words that name its concept: 'LDL cholesterol (LOINC 18262-6)'.

A data manager pins a concept twice, in words and by its code. When the schema reader cannot
take the whole question, the general parser gets it and the code ('18262 6') is one more phrase
it cannot ground. Here a mention '<system> <code>' (LOINC, SNOMED, RxNorm, CVX) is dropped from
the parser's text only when it is *confirmed*: the source stores that code in that system, and
words within a few tokens of it ground, as their best match, to exactly that code — so the
words alone say what the code says. A code the words do not confirm stays, and the reading
abstains naming it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._schema_words import SYSTEMS
from clinbridge.engine.understand._text import tokens

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["drop_confirmed_codes"]

_MENTION = re.compile(
    r"\b(?P<sys>loinc|snomed(?:[- ]?ct)?|sct|rxnorm|cvx)(?:\s+code)?\s*[:#]?\s*"
    r"(?P<code>\d[\d.\-]*\d|\d)\b"
    # a bare code in parentheses beside its name, 'Body Weight (29463-7)': any system the
    # source stores it in (a code with a dash or dot, so never a plain number or a value)
    r"|(?<=[A-Za-z)\]] )\((?:code\s+)?(?P<bare>\d+(?:[.\-]\d+)+)\)",
    re.I,
)
_NEAR = 8  # tokens looked at on each side


def _entries(lex: Lexicon, system: str, code: str) -> set[int]:
    frag = SYSTEMS.get(system.lower().replace(" ", "").replace("-", ""), ("", ""))[0]
    if not system:  # a bare code: whatever system stores it
        return {i for i, e in enumerate(lex.entries) if str(e.code) == code}
    return {
        i
        for i, e in enumerate(lex.entries)
        if str(e.code) == code and (not e.system or frag in e.system.lower())
    }


def _stored_codes(lex: Lexicon, catalog: Catalog | None, system: str, code: str) -> set[str]:
    """The codes the source stores for a vocabulary code: the code itself where events store
    it (FHIR), else the concept ids the vocabulary gives it ('SNOMED 230690007' → OMOP's
    concept_id of that concept_code)."""
    if _entries(lex, system, code):
        return {code}
    if catalog is None or not system:
        return set()
    from clinbridge.engine.understand._schema_plan import _LOOKUP, _vocab_ids

    ids = _vocab_ids(catalog, _LOOKUP.get(id(lex)), code, system.lower().split()[0][:6])
    stored = {str(e.code) for e in lex.entries}
    return ids & stored


def _confirmed(lex: Lexicon, words: list[str], code: set[str], *, nearest_last: bool) -> bool:
    """The concept the general grounder reads nearest the mention is that code, and only it."""
    from clinbridge.engine.understand._ground import Concept, ground_text

    if not words:
        return False
    found = [
        i for i in ground_text(" ".join(words), lex, embeddings=False) if isinstance(i, Concept)
    ]
    if not found:
        return False
    c = found[-1] if nearest_last else found[0]
    best = c.primary or c.entries
    return c.score >= 0.6 and bool(best) and {str(lex.entries[i].code) for i in best} <= code


def drop_confirmed_codes(text: str, lex: Lexicon, catalog: Catalog | None = None) -> str:
    """``text`` without the code mentions its own words confirm (see the module docstring)."""
    out, last = [], 0
    for m in _MENTION.finditer(text):
        code = _stored_codes(lex, catalog, m.group("sys") or "", m.group("code") or m.group("bare"))
        if not code:
            continue
        before, after = tokens(text[: m.start()])[-_NEAR:], tokens(text[m.end() :])[:_NEAR]
        if _confirmed(lex, before, code, nearest_last=True) or _confirmed(
            lex, after, code, nearest_last=False
        ):
            out.append(text[last : m.start()])
            last = m.end()
    if not out:
        return text
    out.append(text[last:])
    joined = "".join(out)
    joined = re.sub(r"\(\s*[,;]?\s*", "(", joined)
    return re.sub(r"\s*\(\s*\)", "", joined)
