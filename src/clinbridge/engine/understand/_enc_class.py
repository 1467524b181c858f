"""Encounter classes named by the source's own codes: 'AMB-class encounters', 'EMER visits',
'any IMP-class encounter' (HL7 ActCode classes, FHIR ``Encounter.class``).

Plans filter encounters by canonical type (inpatient, emergency, outpatient, icu, other). A code
the question names is read as its canonical type only when that type holds no other code the
source stores — 'AMB' is 'outpatient' on a source whose outpatient encounters are all AMB, and
an abstention naming the other codes where VR (virtual) encounters are outpatient too.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = ["read_encounter_codes"]

# Kinds of encounter narrower than a canonical type, with the codes sources store them under:
# HL7 v3 ActCode (terminology.hl7.org/CodeSystem-v3-ActCode: HH 'home health', VR 'virtual'),
# Synthea's textual classes ('home', 'virtual') and OMOP visit concept 581476 'Home Visit'.
_KINDS: dict[str, frozenset[str]] = {
    "home": frozenset({"HH", "home", "581476"}),
    "virtual": frozenset({"VR", "virtual"}),
}
_KIND = re.compile(
    r"\b(?P<kind>home(?:[- ](?:health(?:[- ]care)?|care))?|tele-?health|virtual)\s+(?=(?:visits?|"
    r"encounters?|appointments?|stays?|admissions?)\b)",
    re.I,
)

_WORD = {
    "inpatient": "inpatient",
    "emergency": "emergency",
    "outpatient": "outpatient",
    "icu": "icu",
    "other": "other-class",
}
_NOUN = r"(?:visits?|encounters?|stays?|admissions?)"


def read_encounter_codes(
    text: str, lex: Lexicon, catalog: Catalog | None
) -> tuple[str, str | None]:
    """``text`` with each encounter code it names ('amb-class', 'EMER encounters') replaced by
    its canonical type's word, or (text, reason) when a code cannot be read exactly."""
    enc = catalog.encounters if catalog is not None else None
    text, kind_reason = _read_kinds(text, lex, catalog)
    if kind_reason is not None:
        return text, kind_reason
    if enc is None or not enc.type_map or not lex.encounter_codes:
        return text, None
    present = {c.lower(): c for c in lex.encounter_codes if len(c) >= 2 and c.isalpha()}
    if not present:
        return text, None
    alts = "|".join(sorted((re.escape(c) for c in present), key=len, reverse=True))
    pattern = re.compile(
        rf"\b(?P<code>{alts})(?:[- ]class)?\b(?=\s+{_NOUN}\b)|\b(?P<code2>{alts})[- ]class\b"
    )
    reason: str | None = None

    def repl(m: re.Match[str]) -> str:
        nonlocal reason
        code = present[(m["code"] or m["code2"]).lower()]
        canon = enc.type_map.get(code)
        word = _WORD.get(canon or "")
        others = sorted(
            c
            for c, n in lex.encounter_codes.items()
            if c != code and n and enc.type_map.get(c, "other") == canon
        )
        if word is None or others:
            reason = (
                f"encounter class {code!r} is one of the {canon or 'unmapped'} classes "
                f"({', '.join([code, *others])}); plans filter by the canonical type only"
                if word is not None or others
                else f"encounter class {code!r} has no canonical type plans can filter by"
            )
            return m[0]
        return word

    out = pattern.sub(repl, text)
    return out, reason


def _read_kinds(text: str, lex: Lexicon, catalog: Catalog | None) -> tuple[str, str | None]:
    """'home health visits' read as the canonical type the source keeps them under, only when
    that type holds those encounters and no others; else the reason it cannot be read exactly."""
    enc = catalog.encounters if catalog is not None else None
    reason: str | None = None

    def repl(m: re.Match[str]) -> str:
        nonlocal reason
        phrase = m["kind"].lower()
        kind = "home" if phrase.startswith("home") else "virtual"
        codes = _KINDS[kind]
        stored = {c for c, n in lex.encounter_codes.items() if n}
        mine = sorted(c for c in stored if c in codes)
        if enc is None or not enc.type_map or not mine:
            reason = f"this source records no encounter class that is a {phrase} visit"
            return m[0]
        canon = {enc.type_map.get(c, "other") for c in mine}
        others = sorted(
            c for c in stored if c not in codes and enc.type_map.get(c, "other") in canon
        )
        word = _WORD.get(next(iter(canon))) if len(canon) == 1 else None
        if word is None or others:
            reason = (
                f"{phrase} visits ({', '.join(mine)}) are {'/'.join(sorted(canon))} encounters "
                f"together with {', '.join(others) or 'other classes'}; plans filter by the "
                "canonical type only"
            )
            return m[0]
        return f"{word} "

    return _KIND.sub(repl, text), reason
