"""'a food allergy', 'medication allergies': a stream's concepts of one recorded category.

Some streams record a category beside each code — FHIR ``AllergyIntolerance.category`` (food,
medication, environment, biologic), ``Observation.category`` (laboratory, vital-signs, survey).
The plan filters by concept, not by that column; but a code's category is a property of the code
(eggs are a food), so a phrase '<category> <stream noun>' grounds to the stream's concepts whose
rows carry that category — read from the data when the understander is built, never from a list
of questions. A code recorded under several categories belongs to each (the concept set then
says so in its label). Where no stream table has a ``category`` column, nothing changes.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

from clinbridge.engine.understand._text import stem, tokens

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.db import Database
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["category_class", "category_words", "stream_categories"]

logger = logging.getLogger(__name__)

# the everyday word for a category value where it differs ('drug allergy': medication)
_SAME = {"drug": "medication", "environmental": "environment", "lab": "laboratory"}
_NOUNS = {"allergy": ("allergy", "allergies", "intolerance", "intolerances")}


def stream_categories(
    db: Database, catalog: Catalog, lex: Lexicon
) -> dict[str, dict[str, list[int]]]:
    """Per stream name: category value (lower case) → the lexicon entries of its codes."""
    from sqlglot import exp

    out: dict[str, dict[str, list[int]]] = {}
    for s in catalog.streams:
        info = catalog.table(s.table)
        if info is None or info.column("category") is None or not s.code_column:
            continue
        q = exp.select("category", s.code_column).distinct().from_(s.table)
        try:
            rows = db.execute(q.sql(db.dialect), max_rows=None).rows
        except Exception as exc:  # an unreadable table has no categories
            logger.debug("no categories in %s: %s", s.table, exc)
            continue
        by_code: dict[str, list[int]] = {}
        for i, e in enumerate(lex.entries):
            if e.stream_name == s.name:
                by_code.setdefault(str(e.code), []).append(i)
        cats: dict[str, set[int]] = {}
        for cat, code in rows:
            if cat is not None and str(code) in by_code:
                cats.setdefault(str(cat).lower(), set()).update(by_code[str(code)])
        if cats:
            out[s.name] = {k: sorted(v) for k, v in cats.items()}
    return out


def category_class(phrase: str, lex: Lexicon) -> tuple[str, list[int]] | None:
    """The label and lexicon entries of '<category> <noun>' ('food allergy'), or None when the
    phrase is not one (``_ground`` makes the concept of them)."""
    cats: dict[str, dict[str, list[int]]] = getattr(lex, "categories", None) or {}
    words = tokens(phrase)
    if len(words) < 2 or not cats:
        return None
    noun = stem(words[-1])
    for stream, values in cats.items():
        nouns = {stem(w) for w in _NOUNS.get(stream, (stream,))}
        if noun not in nouns:
            continue
        want = " ".join(_SAME.get(w, w) for w in words[:-1])
        hits: Any = [v for v in values if v.replace("-", " ") == want]
        if len(hits) != 1:
            return None
        entries = values[hits[0]]
        label = f"{stream} of category {hits[0]!r} ({len(entries)} codes, by the recorded category)"
        return label, entries
    return None


_OF_CATEGORY = re.compile(
    r"\b(?P<noun>\w+(?:\s+intolerances?)?)\s+(?:of|with|in)\s+(?:the\s+)?category\s+"
    r"['\"]?(?P<value>[\w-]+)['\"]?",
    re.I,
)
_ASIDE = re.compile(r"\s*\((?P<noun>\w+)\s+category\s+['\"]?(?P<value>[\w-]+)['\"]?\)", re.I)


def category_words(text: str, lex: Lexicon) -> str:
    """'an allergy of category food' → 'an food allergy' (the phrase ``category_class`` reads),
    and an aside repeating it ('... food allergy (allergy category 'food')') dropped — only for
    a category value the source records."""
    cats: dict[str, dict[str, list[int]]] = getattr(lex, "categories", None) or {}
    known = {v.lower() for values in cats.values() for v in values}
    if not known:
        return text

    def swap(m: re.Match[str]) -> str:
        value = m.group("value").lower()
        return f"{value} {m.group('noun')}" if value in known else m.group(0)

    def aside(m: re.Match[str]) -> str:
        value = m.group("value").lower()
        before = text[: m.start()].lower()
        return "" if value in known and value in before else m.group(0)

    text = _ASIDE.sub(aside, text)
    return _OF_CATEGORY.sub(swap, text)
