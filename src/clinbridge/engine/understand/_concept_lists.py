"""A list of concepts written with commas or slashes: 'MI, CHD or IHD', 'ihd / cad / mi'.

People list the members of what they mean — 'myocardial infarction, coronary heart disease or
ischemic heart disease', 'ihd / cad / mi, any of them', '(lisinopril, metoprolol or atenolol)'.
The grounder reads words, not punctuation: a comma is dropped and 'infarction, coronary heart'
becomes one phrase across two names. Here a separator between two items that each name one
concept of the source on their own is said as 'or':

* a **slash** between two concepts ('ihd/cad', 'ibuprofen / naproxen') is an alternative;
* a **comma** is an alternative only in a list that ends with 'or' ('A, B or C', 'A, B, or C')
  before the clause ends: 'A, B and C' and a comma ending a clause ('in 2019, patients with X or
  Y') are left as they are.

A **parenthesis that lists concepts** after a phrase ('any form of ischemic heart disease (ischemic
heart disease, coronary heart disease or myocardial infarction)', 'nsaids (ibuprofen or
naproxen, any strength)') defines that phrase: the list replaces it when the phrase is one of
the listed concepts said again, or names nothing in the source (a class word the source holds no
concept for). A phrase that grounds to something else stays, and so does the list.

An item names a concept when the grounder reads it whole as one concept (its typos repaired,
its shorthand spelled out, the same reading it gets anywhere), with no word left over. Nothing
here knows any concept: the test is the source's own vocabulary.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.engine.understand._ground import Concept
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["join_concept_lists", "lists_define"]

_SEP = re.compile(r"\s*(?P<s>,|/)\s*")
_END = re.compile(r"[()?;:.!]|\s-\s|\s(?:and|but|who|which|that|whose|among|where)\s")
_WORD = re.compile(r"[a-z0-9][a-z0-9'+-]*")
_MAX = 4  # words of one item


def the_concept(words: list[str], lex: Lexicon) -> Concept | None:
    """The one concept the words ground to, whole (nothing unresolved beside it), or None."""
    from clinbridge.engine.understand._ground import Concept, Word, _ignorable, ground_text

    if not words or all(w.isdigit() for w in words):
        return None
    items = ground_text(" ".join(words), lex, embeddings=False)
    concepts = [i for i in items if isinstance(i, Concept)]
    rest = [i for i in items if isinstance(i, Word) and not _ignorable(i.text)]
    if len(concepts) != 1 or rest or concepts[0].how in {"relational", "compound"}:
        return None
    return concepts[0]


def _one_concept(words: list[str], lex: Lexicon) -> bool:
    return the_concept(words, lex) is not None


def _item_before(text: str, lex: Lexicon) -> bool:
    words = _WORD.findall(text[-80:])
    return any(_one_concept(words[-k:], lex) for k in range(min(_MAX, len(words)), 0, -1))


def _item_after(text: str, lex: Lexicon) -> bool:
    words = _WORD.findall(text[:80])
    return any(_one_concept(words[:k], lex) for k in range(min(_MAX, len(words)), 0, -1))


_SLASHED: dict[int, frozenset[tuple[str, str]]] = {}


def _in_a_name(left: str, after: str, lex: Lexicon) -> bool:
    """The words on each side of a slash are written so, slash between, in one of the source's
    names (a combination product, 'Sodium/Potassium ratio')."""
    key = id(lex)
    if key not in _SLASHED:
        pairs = set()
        for label in lex.labels:
            text = str(label[0]).lower()
            for m in re.finditer(r"([a-z0-9][\w.-]*)\s*/\s*([a-z0-9][\w.-]*)", text):
                pairs.add((m[1], m[2]))
        _SLASHED[key] = frozenset(pairs)
    lw = _WORD.findall(left[-40:])
    rw = _WORD.findall(after[:40])
    return bool(lw and rw) and (lw[-1], rw[0]) in _SLASHED[key]


def _ends_in_or(rest: str) -> bool:
    """The list goes on, through commas only, to an 'or' before its clause ends."""
    clause = _END.split(rest, maxsplit=1)[0]
    return bool(re.search(r"\bor\b", clause))


def join_concept_lists(text: str, lex: Lexicon) -> str:
    """``text`` (normalised) with the separators of concept lists said as 'or'."""
    if "," not in text and "/" not in text:
        return text
    out: list[str] = []
    last = 0
    for m in _SEP.finditer(text):
        before, after = text[last : m.start()], text[m.end() :]
        left = text[: m.start()]
        if m["s"] == "/" and (not left[-1:].isalpha() or not after[:1].isalpha()):
            continue  # '10^3/ul', 'mg/dl' after a number: a unit, never a list
        if m["s"] == "/" and _in_a_name(left, after, lex):
            continue  # 'Amoxicillin 250 MG / Clavulanate 125 MG': one product's name
        if m["s"] == "," and not _ends_in_or(after):
            continue
        if not _item_before(left, lex) or not _item_after(after, lex):
            continue
        out.append(before + " or ")
        last = m.end()
    if not out:
        return text
    out.append(text[last:])
    return re.sub(r"\bor\s+or\b", "or", "".join(out))


# '(A, B or C)', or the same list after a dash or a colon to the clause's end ('any kind of
# sore throat dx - viral pharyngitis or strep')
_PAREN = re.compile(
    r"\((?P<body>[^()]+)\)|(?:\s[-–]\s|:\s)(?P<tail>[^()?.;:-]+?)(?=\s*(?:[?.;]|$))"
)
_QUALIFIER = re.compile(
    r"\s*,\s*(?:(?:any|all|every|whatever)\s+(?:strengths?|forms?|products?|doses?|dosages?|"
    r"formulations?|of\s+them|kinds?|types?|routes?)|each\s+counted\s+once)\s*$"
)


def _list_items(body: str, lex: Lexicon) -> list[list[int]] | None:
    """The entries of each item of an 'a or b or c' list, when every item names a concept."""
    body = _QUALIFIER.sub("", body)
    parts = [p.strip() for p in re.split(r"\bor\b", body)]
    found = [the_concept(_WORD.findall(p), lex) for p in parts]
    if len(parts) < 2 or any(c is None for c in found):
        return None
    return [list(c.entries) for c in found if c is not None]


def _head(before: str, lex: Lexicon, listed: set[int]) -> tuple[int, int] | None:
    """Where the phrase the list defines lies in ``before`` (None: it stays)."""
    from clinbridge.engine.understand._ground import Concept, Word, _ignorable, ground_text
    from clinbridge.engine.understand._shorthand import drug_class

    words = list(_WORD.finditer(before))[-6:]
    if not words:
        return None
    start = words[0].start()
    items = ground_text(before[start:], lex, embeddings=False)
    content = [
        i
        for i in items
        if isinstance(i, Concept) or (i.role == "unresolved" and not _ignorable(i.text))
    ]
    if not content:
        return None
    last = content[-1]
    if isinstance(last, Concept):
        if not set(last.entries) <= listed:
            return None
        phrase = last.phrase
    else:
        assert isinstance(last, Word)
        phrase = last.text
        if not drug_class(phrase) and any(
            m.how in {"exact", "synonym", "same_words"} for m in lex.match(phrase)
        ):
            return None
    pat = r"\W+".join(re.escape(w) for w in phrase.split())
    found = list(re.finditer(rf"\b{pat}\w*", before[start:]))  # 'nsaid' said 'nsaids'
    if not found:
        return None
    a = start + found[-1].start()
    while a > 0 and before[a - 1] == "-":  # 'non-steroidal ...': the prefix is the phrase's
        a = before.rfind(" ", 0, a - 1) + 1
    return a, start + found[-1].end()


def _entries(phrase: str, lex: Lexicon) -> set[int]:
    from clinbridge.engine.understand._ground import Concept, ground_text

    return {
        e
        for i in ground_text(phrase, lex, embeddings=False)
        if isinstance(i, Concept)
        for e in i.entries
    }


_EXCEPT_TAIL = re.compile(
    r"\s+(?:other\s+than|except(?:\s+for)?|excluding|not\s+counting|but\s+not)\s+"
    r"(?:an?\s+|the\s+)?(?P<y>[a-z0-9][a-z0-9' -]{0,40})$"
)


def lists_define(text: str, lex: Lexicon) -> str:
    """``text`` with a concept list in parentheses said in place of the phrase it defines."""
    for m in _PAREN.finditer(text):
        body_text = m["body"] or m["tail"]
        items = _list_items(body_text, lex)
        if items is None:
            continue
        listed = {e for it in items for e in it}
        before = text[: m.start()]
        span = _head(before, lex, listed)
        cut = _EXCEPT_TAIL.search(before)
        if span is None and cut is not None:
            # 'an NSAID other than aspirin (ibuprofen or naproxen)': the list defines the class
            # its exception already left out; the exception cuts nothing from the list
            outer = _head(before[: cut.start()], lex, listed)
            span = (outer[0], len(before)) if outer is not None else None
            if span is not None and _entries(cut["y"], lex) & listed:
                span = None  # the exception is one of the listed: it does cut
        if span is None:
            continue
        a, b = span
        body = _QUALIFIER.sub("", body_text).strip()
        return lists_define(f"{text[:a]}{body}{text[b : m.start()]} {text[m.end() :]}", lex)
    return text
