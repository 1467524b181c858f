"""A class named whole, and the clarifications that say so ('a burn of any degree', 'any
laceration (hand, foot, face)', 'a seizure disorder of any kind').

* 'of any degree', 'of any depth', 'at any body site', '(all sites)', 'any strength or form':
  a classifier noun after 'any' widens — the class before it is taken whole, as 'of any kind'
  is (the classifier words are general English about kinds, not any question's);
* a parenthetical list right after such a class, '(epidermal, partial thickness or full
  thickness)', '(hand, foot, face, forearm, thigh)', names members of the class: it is dropped
  only when every item, said with the class's head word, names concepts of the source whose
  labels carry the head word ('partial thickness burn', 'laceration of hand') — the list then
  restates what the class already holds. A list with an item that is not such a member stays,
  and is read (or abstains) as written.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._text import content_tokens, normalize, stem

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["class_words", "widening_words"]

_CLASSIFIER = (
    r"(?:kinds?|types?|sorts?|forms?|degrees?|depths?|severity|severities|stages?|grades?|"
    r"(?:body\s+)?sites?|(?:body\s+)?parts?(?:\s+of\s+the\s+body)?|joints?|bones?|regions?|organs?|sides?|"
    r"locations?|strengths?|routes?|causes?|origins?|subtypes?|variants?|varieties)"
)
_WIDEN = (
    # 'of any degree', 'at any body site', 'of any depth or site' → 'of any kind'
    (
        re.compile(
            rf"\b(?:of|at|in|on|with)\s+any\s+{_CLASSIFIER}(?:\s*(?:,|or|and|/)\s*{_CLASSIFIER})*\b"
        ),
        " of any kind ",
    ),
    # '(all sites)', '(all degrees and depths)', ', any strength or form': the class whole
    (
        re.compile(
            rf"\(\s*(?:all|any|every)\s+{_CLASSIFIER}(?:\s*(?:,|or|and|/)\s*{_CLASSIFIER})*\s*\)"
        ),
        " ",
    ),
    # '(epilepsy counted as a seizure disorder)': a member said to belong to the class
    (
        re.compile(
            r"\s*\(\s*([a-z][^,()?;]{0,40}?)\s+(?:is\s+|are\s+)?(?:counted|counts|count)\s+as\s+"
            r"(?:an?\s+|the\s+)?[^()]{1,40}\)"
        ),
        r", including \1 ",
    ),
    # 'a condition in the Sinusitis hierarchy', 'any drug in the statin class': the class whole
    # (a concept's descendants are always included)
    (
        re.compile(
            r"\b(?:an?|any)\s+(?:(?:condition|diagnosis|drug|procedure|concept|record|event)\s+)?"
            r"(?:in|within|under|from)\s+the\s+(?P<x>[a-z0-9][a-z0-9' -]{1,40}?)\s+"
            r"(?:hierarchy|subtree|tree|family)\b"
        ),
        r"any \g<x>",
    ),
    # 'excluding the Viral sinusitis concept': the concept by its name
    (
        re.compile(
            r"\b(excluding|except(?:\s+for)?|without|not|other\s+than)\s+the\s+"
            r"(?P<y>[a-z0-9][a-z0-9' -]{1,40}?)\s+concepts?\b"
        ),
        r"\1 \g<y>",
    ),
    # 'any amoxicillin-containing product': a product with that ingredient
    (
        re.compile(
            r"\b([a-z][a-z0-9]{2,})-containing\s+(?:products?|drugs?|medications?|medicines?|"
            r"preparations?|formulations?)\b"
        ),
        r"\1 product",
    ),
    (
        re.compile(
            rf",\s*any\s+{_CLASSIFIER}(?:\s*(?:,|or|and|/)\s*(?:any\s+)?{_CLASSIFIER})*\s*(?=[),?.]|$)"
        ),
        " ",
    ),
)

# 'any laceration (hand, foot, ...)', 'a burn of any kind (epidermal, partial ... or full ...)'
_LISTED = re.compile(
    r"\b(?P<head>[a-z][a-z-]{2,})(?P<widen>\s+of\s+any\s+kind)?\s*"
    r"\(\s*(?P<items>[a-z][a-z -]{1,40}(?:\s*(?:,|/|\bor\b|\band\b)\s*[a-z][a-z -]{1,40}){1,8})\s*\)"
)
_SPLIT = re.compile(r"\s*(?:,|/|\bor\b|\band\b)\s*")


# '(amoxicillin alone or combined with clavulanate, any strength or form)' after a product of
# that ingredient: every product containing it, which the product phrase already reads
_ALONE = re.compile(
    r"\s*\(\s*(?P<x>[a-z][a-z0-9-]{2,})\s+alone\s+or\s+(?:combined|in\s+combination|together|mixed)"
    r"\s+with\s+[^()]{1,80}\)"
)


def widening_words(text: str) -> str:
    """``text`` with 'of any <classifier>' read as 'of any kind' and '(all sites)' dropped."""
    for pattern, repl in _WIDEN:
        text = pattern.sub(repl, text)

    def alone(m: re.Match[str]) -> str:
        named = re.search(rf"\b{re.escape(m['x'])}\s+product", text[: m.start()])
        return " " if named else m[0]

    return _ALONE.sub(alone, text)


def _carries(label: set[str], word: str) -> bool:
    """A label word is the word or a derivation of it ('face' → 'facial', 'burn' → 'burns')."""
    root = word[:-1] if len(word) >= 4 else word
    return any(w == word or w.startswith(root) for w in label)


def _named(items: list[str], head: str, lex: Lexicon, extra: set[int] | None = None) -> bool:
    """Whether the items, each said with ``head``, name every concept of the class the source
    records: each item names at least one recorded concept whose label carries the head word
    and the item's words, and every recorded concept carrying the head word in those streams
    is named by some item. The list then restates the class whole."""
    words = [[stem(w) for w in content_tokens(i)] for i in items]
    if not all(words):
        return False
    h = stem(head)
    klass = {}
    for k, e in enumerate(lex.entries):
        label = {stem(w) for w in content_tokens(e.name)}
        if e.events and _carries(label, h):
            klass[k] = label
    named: dict[int, set[str]] = {k: klass[k] for k in (extra or set()) if k in klass}
    for ws in words:
        hits = {k for k, label in klass.items() if all(_carries(label, w) for w in ws)}
        if not hits:
            return False
        for k in hits:
            named[k] = klass[k]
    streams = {lex.entries[k].stream for k in named}
    return all(k in named for k in klass if lex.entries[k].stream in streams)


def _member_list(items: list[str], head: str, lex: Lexicon) -> bool:
    """:func:`_named` for the head word or its shorthand expansion ('lac' → 'laceration')."""
    from clinbridge.engine.understand._shorthand import concept_shorthand

    heads = [head, *(e for e in concept_shorthand().get(head, ()) if " " not in e)]
    return any(_named(items, h, lex) for h in heads)


# 'sinusitis that wasn't viral (bacterial/chronic/unspecified)': the list names what remains
_NOT_LISTED = re.compile(
    r"\b(?P<head>[a-z][a-z-]{2,})\s+(?:that|which)\s+(?:wasn't|was\s+not|isn't|is\s+not|weren't|"
    r"were\s+not)\s+(?P<y>[a-z][a-z -]{1,30}?)\s*"
    r"\(\s*(?P<items>[a-z][a-z -]{1,40}(?:\s*(?:,|/|\bor\b|\band\b)\s*[a-z][a-z -]{1,40}){1,8})\s*\)"
)
# 'sinusitis diagnosis other than viral sinusitis (acute bacterial, chronic or unspecified
# sinusitis; viral sinusitis records are ignored)': the same, with the exclusion said again
_OTHER_LISTED = re.compile(
    r"\b(?P<head>[a-z][a-z-]{2,})\s+(?:(?:diagnos[ie]s|records?|conditions?|cases?|episodes?)\s+)?"
    r"(?:other\s+than|excluding|except(?:\s+for)?)\s+(?P<y>[a-z][a-z -]{1,30}?)\s*"
    r"\(\s*(?P<items>[a-z][a-z -]{1,40}(?:\s*(?:,|/|\bor\b|\band\b)\s*[a-z][a-z -]{1,40}){1,8})\s*"
    r"(?:;\s*(?P<tail>[^()]{1,60}?\b(?:ignored|excluded|not\s+counted|left\s+out))\s*)?\)"
)
_UNSPECIFIED = frozenset({"unspecified", "other", "nos", "not specified", "unknown", "plain"})


def _rest_named(items: list[str], excluded: str, head: str, lex: Lexicon) -> bool:
    """Whether the items with the excluded kind name every recorded concept of the class;
    'unspecified' names the class's own concept (the label that is the head word alone)."""
    plain = [i for i in items if i in _UNSPECIFIED]
    kinds = [i for i in items if i not in _UNSPECIFIED]
    if len(plain) > 1:
        return False
    if plain and not any(e.events and normalize(e.name) == head for e in lex.entries):
        return False
    if not kinds:
        return False
    extra = (
        {k for k, e in enumerate(lex.entries) if e.events and normalize(e.name) == head}
        if plain
        else set()
    )
    return _named([*kinds, excluded], head, lex, extra)


# 'any pneumococcal vax (PPSV23 or PCV13)': the products of a vaccine group, by their names
_VACCINE_LISTED = re.compile(
    r"\b(?P<g>[a-z0-9][a-z0-9 -]{1,40}?)\s+(?P<noun>vax|vaccines?|vaccinations?|shots?|"
    r"immuni[sz]ations?)\s*\(\s*(?P<items>[a-z0-9][a-z0-9 -]{1,30}(?:\s*(?:,|/|\bor\b|\band\b)\s*"
    r"[a-z0-9][a-z0-9 -]{1,30}){1,8})\s*\)"
)


def _vaccine_members(m: re.Match[str]) -> str:
    """The match without its list when every item is a name of the vaccine group it follows."""
    from clinbridge.engine.understand._text import tokens
    from clinbridge.engine.understand._vaccines import _groups

    groups = _groups()
    words = tokens(m["g"])
    group = next(
        (groups[k] for k in (" ".join(words[i:]) for i in range(len(words))) if k in groups), None
    )
    if group is None:
        return m[0]
    items = [" ".join(tokens(i)) for i in _SPLIT.split(m["items"]) if i.strip()]
    if len(items) < 2 or any(groups.get(i) is not group for i in items):
        return m[0]
    return f"{m['g']} {m['noun']} "


def class_words(text: str, lex: Lexicon) -> str:
    """``text`` with classifier widenings read and member lists of a named class dropped."""
    text = _VACCINE_LISTED.sub(_vaccine_members, widening_words(text))

    def listed(m: re.Match[str]) -> str:
        head = m["head"]
        whole = bool(m["widen"]) or re.search(
            rf"\bany\s+(?:[a-z-]+\s+)?{re.escape(head)}\s*$", text[: m.start("head") + len(head)]
        )
        if not whole:
            return m[0]
        items = [i.strip() for i in _SPLIT.split(m["items"]) if i.strip()]
        if len(items) < 2 or not _member_list(items, head, lex):
            return m[0]
        return f"{head}{m['widen'] or ''} "

    def not_listed(m: re.Match[str]) -> str:
        items = [i.strip() for i in _SPLIT.split(m["items"]) if i.strip()]
        head = m["head"]
        head = head if lex.token_frequency(head) else (lex.nearest_token(head) or head)
        if len(items) < 2 or not _rest_named(items, m["y"].strip(), head, lex):
            return m[0]
        return m[0][: m.start("y") - m.start() + len(m["y"])] + " "

    def other_listed(m: re.Match[str]) -> str:
        y = m["y"].strip()
        if m["tail"] and not set(content_tokens(y)) <= set(content_tokens(m["tail"])):
            return m[0]
        head = m["head"]
        items = [re.sub(rf"\s+{re.escape(head)}$", "", i.strip()) for i in _SPLIT.split(m["items"])]
        items = [i for i in items if i]
        if len(items) < 2 or not _rest_named(items, y, head, lex):
            return m[0]
        return m[0][: m.start("y") - m.start() + len(m["y"])] + " "

    text = _NOT_LISTED.sub(not_listed, text)
    text = _OTHER_LISTED.sub(other_listed, text)
    return _LISTED.sub(listed, text)
