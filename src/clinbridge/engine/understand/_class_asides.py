"""A drug class defined in the question by its members: 'a beta-blocker (in this data:
carvedilol; no metoprolol or atenolol is recorded)', 'a benzodiazepine (clonazepam or diazepam)'.

Without a vocabulary hierarchy a class name grounds to nothing of the source's own (the
built-in member lists are outside the data). When the question itself names, in an aside
beside the class, every member of the class (by the built-in list) that this source records,
the question has said what the class is here: the class and its aside are read as those
members, one or the other ('carvedilol', 'clonazepam or diazepam'). An aside that leaves out a
recorded member, names none, or gives examples ('e.g. warfarin, heparin or others'), leaves
the class as it was (and the reading abstains on it).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["class_by_members"]

_ASIDE = re.compile(
    r"\b(?P<cls>[a-z][a-z -]{1,40}?)(?P<gap>(?:\s+(?:of\s+any\s+kind|of\s+any\s+type|"
    r"medications?|drugs?|products?))?)\s*\((?P<inner>[^()]{3,300})\)",
    re.I,
)


_EXAMPLES = re.compile(
    r"\be\.?\s?g\b|\bsuch\s+as\b|\bfor\s+(?:example|instance)\b|\blike\b|\betc\b|\.\.\.|…|"
    r"\b(?:or|and)\s+others?\b|\bothers?\s+(?:in|of)\s+(?:that|the|this)\b|\bincluding\b",
    re.I,
)
"""An aside that gives examples ('e.g., warfarin, heparin or others in that drug class'):
examples of a class restrict nothing and define nothing."""


def _recorded(ingredient: str, lex: Lexicon) -> bool:
    return any(
        m.how in {"exact", "synonym", "same_words", "contains"}
        and any(lex.entries[e].stream == "drug" for e in m.entries)
        for m in lex.match(ingredient)
    )


def class_by_members(text: str, lex: Lexicon) -> str:
    """``text`` with a drug class whose aside names all its recorded members read as them."""
    from clinbridge.engine.understand._shorthand import drug_class

    for m in _ASIDE.finditer(text):
        words = m["cls"].lower().split()
        klass, start = None, 0
        for k in range(len(words)):  # the longest tail of the words that names a class
            phrase = " ".join(words[k:])
            klass = drug_class(phrase) or drug_class(phrase.replace("-", " "))
            if klass is not None:
                start = k
                break
        if klass is None:
            continue
        inner = m["inner"].lower()
        if _EXAMPLES.search(inner):
            continue
        recorded = [i for i in klass.ingredients if _recorded(i, lex)]
        if not recorded or not all(re.search(rf"\b{re.escape(i)}\b", inner) for i in recorded):
            continue
        said = " or ".join(recorded)
        head = " ".join(m["cls"].split()[:start])
        begin = m.start() + (len(head) + 1 if head else 0)
        return text[:begin] + said + text[m.end() :]
    return text
