"""LOINC's short words inside a concept name, spelled out as a second label.

LOINC long names abbreviate a few words ('Prostate specific Ag [Mass/volume] in Serum or
Plasma', 'Hepatitis B virus surface Ab'); a question spells them out ('prostate-specific
antigen'). A name holding one of these abbreviations (as a whole word, in its LOINC case) gets a
synonym label with the words spelled out, so the lexicon matches either. General naming
knowledge of the code system, not of any question.
"""

from __future__ import annotations

import re

__all__ = ["spelled_out"]

_SHORT = {"Ag": "antigen", "Ab": "antibody", "Ab.IgG": "antibody IgG", "Ab.IgM": "antibody IgM"}
_WORD = re.compile(r"(?<![\w.])(Ab\.IgG|Ab\.IgM|Ag|Ab)(?![\w.])")


def spelled_out(name: str) -> str | None:
    """``name`` with its LOINC abbreviations spelled out, or None when it holds none."""
    out = _WORD.sub(lambda m: _SHORT[m.group(1)], name)
    return out if out != name else None
