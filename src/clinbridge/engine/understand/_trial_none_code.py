"""'no disability' of a graded variable whose lowest code is labelled 'None' ('Neurodevelopmental
disability: 0=None; 1=Mild; 2=Moderate; 3=Severe') is that code, not the negation of the whole
variable (which would ask 'which value?' or, worse, count every other grade).

Only a code labelled exactly 'None' is read so, and only before a word of its variable's label
('no disability', 'no neurodevelopmental disability'); yes/no items ('No' / 'Yes') are untouched.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._trial_model import label_terms

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["none_code_rewrites"]


def none_code_rewrites(catalog: Catalog) -> list[tuple[re.Pattern[str], str]]:
    """'no <label word>' → 'none <label word>' for each coded variable with a 'None' code."""
    words: set[str] = set()
    for v in catalog.variables:
        if v.type != "categorical" or v.role:
            continue
        if not any((lab or "").strip().lower() == "none" for lab in v.codes.values()):
            continue
        head, _ = label_terms(v.description or v.name)
        label = (v.description or v.name).lower()
        words |= {w for w in re.findall(r"[a-z]+", label) if len(w) > 3 and w in head}
    if not words:
        return []
    alternatives = "|".join(sorted(map(re.escape, words), key=len, reverse=True))
    return [(re.compile(rf"\bno\s+(?=(?:{alternatives})\b)", re.I), "none ")]
