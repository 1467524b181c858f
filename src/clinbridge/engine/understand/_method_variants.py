"""One lab test, several codes: LOINC-style names that differ only by the method.

A laboratory code system names a test 'Component [Property] in System by Method'
('Hematocrit [Volume Fraction] of Blood by Automated count'). Two codes whose names agree up to
the method measure the same quantity in the same specimen, only by another technique; a
question about the test ('hematocrit below 35 %', 'latest hematocrit') means either. Grounding
picks the best-scoring name, so the other code would be silently dropped and the answer would
count too few. When a value is read from one code, it is read as well from the codes of the
same stream whose names differ from its own only by a trailing 'by <method>', and two such
names tied for best are one test, not an ambiguity. Names differing in the component, the
property (mass vs moles, hence the unit) or the specimen stay apart.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["method_base", "method_siblings"]

_BY_METHOD = re.compile(r"\s+by\s+[^\[\]()]+$", re.IGNORECASE)


def method_base(name: str) -> str | None:
    """The name without its trailing method, when it has a property in brackets; else None.

    >>> method_base("Hematocrit [Volume Fraction] of Blood by Automated count")
    'hematocrit [volume fraction] of blood'
    >>> method_base("Hematocrit") is None
    True
    """
    if "[" not in name:
        return None
    return re.sub(r"\s+", " ", _BY_METHOD.sub("", name)).strip().lower()


def method_siblings(entry: Any, lex: Lexicon) -> list[Any]:
    """The entry and the value-bearing entries of its stream that differ from it only by method."""
    base = method_base(entry.name)
    if not base:
        return [entry]
    out = [entry]
    for e in lex.entries:
        if (
            e is not entry
            and e.direct
            and e.values
            and e.stream == entry.stream
            and e.stream_name == entry.stream_name
            and method_base(e.name) == base
        ):
            out.append(e)
    return out
