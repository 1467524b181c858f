"""Patients named in the question ('when did Eddie Lakin die', 'the patient named Jannet Davis'):
a name the source stores for exactly one patient becomes that patient's id before the question's
structure is read; a name shared by several patients is left alone (it then abstains, unread).

Names are read once, while the lexicon is built, from the catalog's name columns (FHIR
Patient.name); the digits some generators append to names ('Sumiko254') are ignored.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["name_keys", "patient_names", "replace_patient_names"]

_WORD = re.compile(r"[a-z][a-z'\-]*")
_LEAD = re.compile(r"(?:\b(?:the\s+)?(?:patient|pt|person)\s+)?(?:\b(?:named|called)\s+)?$")


def name_keys(given: Any, family: Any) -> set[str]:
    """The ways a question may write one stored name: 'first family', 'all given names family'."""
    giv = [w for w in _WORD.findall(re.sub(r"\d+", "", str(given or "")).lower()) if w]
    fam = [w for w in _WORD.findall(re.sub(r"\d+", "", str(family or "")).lower()) if w]
    if not giv or not fam:
        return set()
    last = " ".join(fam)
    return {f"{giv[0]} {last}", f"{' '.join(giv)} {last}"}


def patient_names(rows: list[tuple[Any, Any, Any]]) -> dict[str, tuple[str, ...]]:
    """(patient id, given, family) rows → name key → the ids of the patients with that name."""
    out: dict[str, set[str]] = defaultdict(set)
    for pid, given, family in rows:
        for key in name_keys(given, family):
            out[key].add(str(pid))
    return {k: tuple(sorted(v)) for k, v in out.items()}


def replace_patient_names(text: str, lex: Lexicon) -> str:
    """Replace each name that names one patient (with a leading 'the patient named') by
    'patient <id>'."""
    names = getattr(lex, "patient_names", None)
    if not names:
        return text
    words = list(_WORD.finditer(text))
    out: list[str] = []
    pos = 0
    i = 0
    while i < len(words):
        hit = None
        for n in (4, 3, 2):
            if i + n <= len(words):
                key = " ".join(w[0] for w in words[i : i + n])
                ids = names.get(key)
                if ids and len(ids) == 1:
                    hit = (n, ids[0])
                    break
        if hit is None:
            i += 1
            continue
        n, pid = hit
        start, end = words[i].start(), words[i + n - 1].end()
        lead = _LEAD.search(text, pos, start)
        if lead is not None and lead.end() == start:
            start = lead.start()
        out.append(text[pos:start])
        out.append(f"patient {pid}")
        pos = end
        i += n
    out.append(text[pos:])
    return "".join(out)
