"""Vaccine classes by code system: 'flu shots', 'an HPV vaccine', 'covid vax' on sources whose
immunizations are coded in CVX and carry no vocabulary hierarchy (FHIR loads).

A CVX code names one product ('Influenza, seasonal, injectable, preservative free'); a question
names the disease it protects against. ``data/cvx_vaccine_groups.tsv`` maps each group to its CVX
codes; a phrase made of a group's name and a vaccine noun grounds to the entries of the source
whose code system is CVX and whose code is in the group. The grounding says so (its label names
the list and the code system).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from clinbridge.engine.understand._shorthand import _rows
from clinbridge.engine.understand._text import tokens

if TYPE_CHECKING:
    from clinbridge.engine.understand._lexicon import Lexicon

__all__ = [
    "CVX_SYSTEMS",
    "VACCINE_NOUNS",
    "VaccineGroup",
    "class_words",
    "vaccine_group_entries",
]

CVX_SYSTEMS = frozenset({"http://hl7.org/fhir/sid/cvx", "urn:oid:2.16.840.1.113883.12.292", "cvx"})
"""How a code system column writes CVX (FHIR URI, HL7 OID, a vocabulary id)."""

VACCINE_NOUNS = frozenset(
    {
        "vaccine",
        "vaccines",
        "vaccination",
        "vaccinations",
        "vax",
        "shot",
        "shots",
        "jab",
        "jabs",
        "immunization",
        "immunizations",
        "immunisation",
        "immunisations",
        "inoculation",
        "inoculations",
    }
)


@dataclass(frozen=True)
class VaccineGroup:
    """One vaccine group: its name, the names a question may use, its CVX codes."""

    name: str
    names: tuple[str, ...]
    codes: frozenset[str]


@functools.cache
def _groups() -> dict[str, VaccineGroup]:
    out: dict[str, VaccineGroup] = {}
    for row in _rows("cvx_vaccine_groups.tsv"):
        group = VaccineGroup(
            row[0].strip().lower(),
            tuple(n.strip().lower() for n in row[1].split(";") if n.strip()),
            frozenset(c.strip() for c in row[2].split(";") if c.strip()),
        )
        for name in (group.name, *group.names):
            out[" ".join(tokens(name))] = group
    return out


@functools.cache
def class_words() -> frozenset[str]:
    """Every word of a vaccine group's names and the vaccine nouns: words spelling correction
    must leave alone ('shingles' is not 'single')."""
    return frozenset(w for key in _groups() for w in key.split()) | VACCINE_NOUNS


def _canonical_code(code: object) -> str:
    text = str(code).strip()
    return text.zfill(2) if text.isdigit() else text


def vaccine_group_entries(phrase: str, lex: Lexicon) -> tuple[VaccineGroup, list[int]] | None:
    """The group a phrase names ('influenza vaccine', 'hpv shots', 'covid-19 vaccination') and the
    lexicon entries coded in CVX that belong to it; None when the phrase is not a group name
    followed by a vaccine noun, or the source holds no CVX-coded entry of the group."""
    words = tokens(phrase)
    if len(words) < 2 or words[-1] not in VACCINE_NOUNS:
        return None
    group = _groups().get(" ".join(words[:-1]))
    if group is None:
        return None
    entries = [
        i
        for i, e in enumerate(lex.entries)
        if e.system.lower() in CVX_SYSTEMS and _canonical_code(e.code) in group.codes
    ]
    return (group, entries) if entries else None
