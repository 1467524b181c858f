"""A code given with its display: 'RxNorm 477045 (Chlorpheniramine Maleate 2 MG/ML Oral
Solution) or 997488 (Fexofenadine ...)', 'fhir_condition 271737000 (Anemia)', 'CVX 03 (MMR)'.

A data manager pins a concept by its code and says its display in parentheses. The rules read
neither a code ('norm 477045': 'rx' is shorthand for a prescription) nor a display with its
semantic tag as one name. Where the source stores that code (in the system named, if one is)
and the display in parentheses says the stored name's words (its semantic tag — '(disorder)',
'(finding)' — and punctuation aside; a shortened display whose every word is in the stored
name, 'insulin isophane 70 / regular 30 [Humulin]', counts), the mention becomes the stored name
in quotes, which the rules ground exactly. A code the source does not store, or a display that
names something else, is left as written: the reading abstains naming it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["name_coded_displays"]

_SYSTEM = r"loinc|snomed(?:[- ]?ct)?|sct|rxnorm|rx\s*norm|cvx|icd[- ]?10(?:[- ]?cm)?|icd[- ]?9(?:[- ]?cm)?"
# '<system> [code] <code> (', 'code <code> (', or a bare code beside its display
_MENTION = re.compile(
    rf"(?:\b(?P<sys>{_SYSTEM})\s+(?:code\s+)?|\bcode\s+|(?<![\w.\-]))"
    r"(?P<code>\d[\dA-Za-z.\-]*)\s*\(",
    re.I,
)
_TAG = re.compile(
    r"\s*\((?:disorder|finding|procedure|substance|situation|observable entity|"
    r"regime/therapy|qualifier value|event|body structure|record artifact|product|"
    r"morphologic abnormality|environment)\)\s*$",
    re.I,
)
_WORD = re.compile(r"[a-z0-9]+")
_FIELD_BEFORE = re.compile(r"\b[a-z]+_(?:code|system|display|concept_id)\s*(?:=\s*)?$", re.I)
_SYSTEM_FRAGMENT = {"loinc": "loinc", "snomed": "snomed", "sct": "snomed", "rxnorm": "rxnorm"}


def _fragment(system: str) -> str:
    s = re.sub(r"[\s\-]", "", system.lower())
    for key, frag in _SYSTEM_FRAGMENT.items():
        if s.startswith(key):
            return frag
    if s.startswith("icd10"):
        return "icd-10"
    if s.startswith("icd9"):
        return "icd-9"
    return s


def _words(text: str) -> list[str]:
    return _WORD.findall(_TAG.sub("", text).lower())


def _closing(text: str, start: int) -> int | None:
    """The index of the ')' closing the '(' just before ``start``."""
    depth = 1
    for k in range(start, len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    return None


def _stored_name(lex: Lexicon, system: str, code: str, display: str) -> str | None:
    frag = _fragment(system) if system else ""
    said = _words(display)
    if not said:
        return None
    names = {
        e.name
        for e in lex.entries
        if str(e.code) == code and (not frag or not e.system or frag in e.system.lower())
    }
    for name in sorted(names, key=len):
        stored = _words(name)
        if said == stored or (len(said) >= 2 and set(said) <= set(stored)):
            return name
    return None


def name_coded_displays(text: str, lex: Lexicon) -> str:
    """``text`` with each code its display confirms said as the stored name, quoted."""
    if "(" not in text:
        return text
    out, last, system = [], 0, ""
    for m in _MENTION.finditer(text):
        if m.start() < last:
            continue
        end = _closing(text, m.end())
        if end is None:
            continue
        # a list 'RxNorm 1 (a) or 2 (b)': the system said once holds for the codes after it
        system = m.group("sys") or (
            system if text[last : m.start()].strip() in {"or", ",", "and", "/"} else ""
        )
        if _FIELD_BEFORE.search(text[: m.start()]):
            continue  # 'reason_code SNOMED 55822004 (Hyperlipidemia)': a field's value, not an event
        name = _stored_name(lex, system, m.group("code"), text[m.end() : end])
        if name is None or "'" in name or "," in name or ";" in name:
            continue  # a name the list readers would cut at its commas ('Hep A, adult')
        out.append(text[last : m.start()])
        out.append(f"'{name}'")
        last = end + 1
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)
