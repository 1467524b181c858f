"""A list that defines a phrase, said after it without parentheses: 'a statin, that is any
simvastatin or atorvastatin product', 'an antihistamine, namely chlorpheniramine or
fexofenadine', 'a second-generation antihistamine — loratadine, cetirizine or fexofenadine —'.

These say what a parenthesis says ('a statin (simvastatin or atorvastatin)'), so they are
written as one, and the parenthesis reader (``_concept_lists.lists_define``) decides, by the
source's own vocabulary, whether the list defines the phrase: every item must name one concept,
and the phrase must name nothing else in the source. Examples ('that is, for example, X or Y')
are no definition and are left as they are.
"""

from __future__ import annotations

import re

__all__ = ["appositive_lists"]

_APPOSITIVE = re.compile(
    r",\s*(?:that\s+is|namely|i\.?\s?e\.?|meaning|specifically)\s*,?\s+"
    r"(?P<body>[^;()?!:—]+?)\s*(?=[;()?!:—]|$)",
    re.I,
)
_DASHED = re.compile(r"\s+—\s+(?P<body>[^—()?;:]+?)\s+—(?:\s+|$)")
_EXAMPLES = re.compile(
    r"\be\.?\s?g\b|\bsuch\s+as\b|\bfor\s+(?:example|instance)\b|\blike\b|\betc\b|\.\.\.|…|"
    r"\b(?:or|and)\s+others?\b|\bincluding\b",
    re.I,
)

_GENERIC_TAIL = re.compile(
    r"\s+(?:products?|medications?|medicines?|drugs?|formulations?|preparations?)$", re.I
)
"""'any simvastatin or atorvastatin product': the noun that every item shares."""


def appositive_lists(text: str) -> str:
    """``text`` with a defining list after ', that is' / ', namely' / dashes put in parentheses."""
    if "," not in text and "—" not in text:
        return text

    def paren(m: re.Match[str]) -> str:
        body = _GENERIC_TAIL.sub("", m["body"].strip(" ,"))
        if _EXAMPLES.search(body) or not re.search(r"\bor\b|,", body):
            return m[0]
        return f" ({body}) "

    text = _DASHED.sub(paren, text)
    text = _APPOSITIVE.sub(paren, text)
    return re.sub(r"\s{2,}", " ", text)
