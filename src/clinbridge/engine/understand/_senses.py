"""An abbreviation with two clinical senses: 'AD' is Alzheimer's disease or atopic dermatitis.

The shorthand lexicon (``data/shorthand.tsv``) marks such terms with kind ``senses`` and lists
their senses (``ad<TAB>alzheimer's disease|atopic dermatitis<TAB>senses``). Where the source's
own vocabulary does not use the term itself, each sense is tried against the source: a sense no
concept of the source is named by is dropped; one left is the term's meaning, spelled out; two or
more left are two questions. Each is read in full, and the readings that come out with a plan
become the question's *choices* — the caller answers each and, when their answers differ, asks
which was meant (reason ``ambiguous``, the alternatives listed) instead of picking one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon
    from clinbridge.engine.understand._reading import Reading

__all__ = ["read_senses"]


def _names_a_concept(phrase: str, lex: Lexicon) -> bool:
    from clinbridge.engine.understand._concept_lists import _one_concept
    from clinbridge.engine.understand._text import tokens

    return _one_concept(tokens(phrase), lex)


def _term_in_source(term: str, lex: Lexicon) -> bool:
    """The source names a concept by the term itself ('AD' as a stored synonym)."""
    return any(m.how in {"exact", "synonym"} for m in lex.match(term))


def read_senses(
    question: str, lex: Lexicon, read: Callable[[str], list[Reading]]
) -> list[Reading] | None:
    """The readings of a question whose abbreviation has several senses in this source, or None
    (no such term; or one sense only, left to the general shorthand)."""
    from clinbridge.engine.understand._shorthand import abbreviation_senses

    table = abbreviation_senses()
    if not table:
        return None
    for m in re.finditer(r"(?<![\w'/.-])([A-Za-z]{2,5})(?![\w'/-]|\.\w)", question):
        term = m[1].lower()
        if term not in table or _term_in_source(term, lex):
            continue
        found = [s for s in table[term] if _names_a_concept(s, lex)]
        if not found:
            continue
        said = [question[: m.start()] + s + question[m.end() :] for s in found]
        if len(found) == 1:
            return read(said[0])
        return _choices(m[1], found, [read(q) for q in said])
    return None


def _choices(term: str, senses: list[str], readings: list[list[Reading]]) -> list[Reading]:
    from clinbridge.engine.understand._reading import Choice, Reading

    chosen: list[Any] = []
    for sense, rs in zip(senses, readings, strict=True):
        if rs and rs[0].plan is not None:
            chosen.append(Choice(description=f"{term!r} read as {sense!r}", plan=rs[0].plan))
    if len(chosen) >= 2:
        first = next(rs[0] for rs in readings if rs and rs[0].plan is not None)
        return [first.model_copy(update={"choices": tuple(chosen), "answer_when_agreed": False})]
    names = " or ".join(repr(s) for s in senses)
    return [
        Reading(
            question=readings[0][0].question if readings and readings[0] else term,
            abstain_reason=f"ambiguous: {term!r} may mean {names}; say which",
            unresolved=(term,),
        )
    ]
