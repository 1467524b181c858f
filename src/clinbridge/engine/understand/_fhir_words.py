"""FHIR resource and element names in a question, read as the plain words the parser grounds.

A data manager writes "a MedicationRequest for ibuprofen", "AllergyIntolerance substance
displays", "Condition resources"; when the schema reader cannot take the whole question, the
general parser gets it, and there a CamelCase resource type is one unknown word. On a FHIR
source (``catalog.adapter == 'fhir'``) this rewrites, before normalisation:

* a CamelCase resource type (two capitalised parts or more: ``MedicationRequest``,
  ``CarePlan``) into its words ('medication request', 'care plan'), which the lexicon's stream
  words and concept names ground like any phrase;
* 'resource(s)' and 'rows' into 'record(s)' (the FHIR word for a row), and 'displays' (a code's text,
  which is what a list of records shows anyway) is dropped.

Where the source has an allergy stream, 'allergic to X' reads as 'with an allergy to X' and a
question ending 'allergic to' asks for the allergies.

A resource type the source holds a table for but no row of ("how many MedicationAdministration
records …" where the export has none) is not silently read as its neighbour stream: the reading
abstains and names the resource that is missing. The knowledge used is FHIR's naming rule
(resource types are CamelCase; their tables are ``fhir_<snake_case>``), never a question.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog
    from clinbridge.engine.plan import QueryPlan

__all__ = ["administered_missing", "fhir_plain_words"]

_CAMEL = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b")
# CamelCase names of code systems, not resource types: 'RxNorm 314076' is no 'rx norm'
_CODE_SYSTEMS = frozenset({"rxnorm", "snomedct"})
_PLAIN = (
    (re.compile(r"\bresources\b", re.I), "records"),
    (re.compile(r"\bresource\b", re.I), "record"),
    (re.compile(r"\brows\b", re.I), "records"),
    (re.compile(r"\s*\bdisplays\b", re.I), ""),
)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower()


_ALLERGIC_END = re.compile(r"\bal+er+gic\s+to\s*[?.!]*\s*$", re.I)
_ALLERGIC = re.compile(r"\bal+er+gic\s+to\b", re.I)


def allergic_words(question: str, catalog: Catalog | None) -> str:
    """'allergic to latex' → 'with an allergy to latex', 'what is X allergic to' → '... X
    allergies', where the source has an allergy stream (the adjective names its records)."""
    if catalog is None or not any(s.name == "allergy" for s in catalog.streams):
        return question
    return _ALLERGIC.sub("with an allergy to", _ALLERGIC_END.sub("allergies", question))


def fhir_plain_words(question: str, catalog: Catalog | None) -> tuple[str, str | None]:
    """The question with FHIR resource names in plain words, and an abstention reason when it
    names a resource type whose table holds no row (None otherwise). Unchanged off FHIR."""
    question = allergic_words(question, catalog)
    if catalog is None or catalog.adapter != "fhir":
        return question, None
    for m in _CAMEL.finditer(question):
        info = catalog.table(f"fhir_{_snake(m.group(0))}")
        if info is not None and info.row_count == 0:
            return question, (
                f"this source holds no {m.group(0)} resources (the table "
                f"{info.name} is empty), so nothing about them can be counted or listed"
            )
    text = _CAMEL.sub(
        lambda m: m[0] if m[0].lower() in _CODE_SYSTEMS else _snake(m[0]).replace("_", " "),
        question,
    )
    for pat, repl in _PLAIN:
        text = pat.sub(repl, text)
    return text, None


_ADMIN = re.compile(r"\badminist(?:er|ered|ers|ering|ration|rations)\b", re.I)


def _drug_streams(plan: QueryPlan) -> bool:
    streams = {getattr(f, "stream", None) for f in plan.filters}
    streams |= {getattr(f, "stream", None) for f in plan.aggregate.numerator}
    streams.add(plan.measure.stream)
    return "drug" in streams


def administered_missing(
    question: str, plan: QueryPlan | None, catalog: Catalog | None
) -> str | None:
    """'drugs administered to X' on a FHIR load whose drug stream holds medication requests
    but no MedicationAdministration: a prescription is not an administration — the reason to
    abstain, naming what is missing; None otherwise."""
    if plan is None or catalog is None or catalog.adapter != "fhir" or not _ADMIN.search(question):
        return None
    admin = catalog.table("fhir_medication_administration")
    if admin is None or admin.row_count != 0 or not _drug_streams(plan):
        return None
    return (
        "the question asks about medication administrations, and this source holds none "
        "(no MedicationAdministration resources): its drug records are medication requests "
        "(prescriptions), which do not say a dose was given"
    )
