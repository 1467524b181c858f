"""A ranking said in the source's own names, said in words: 'top 3 condition_concept_id by
count(*) in condition_occurrence, as concept names' is 'top 3 conditions by number of records';
'the 2 drug_concept_id with the highest count(DISTINCT person_id) in drug_exposure, returned as
concept names' is 'top 2 drugs by number of patients'; 'top 3 person_id by count(*) in
visit_occurrence' is 'the 3 patients with the most encounters'.

Driven by the connected source's catalog only: the column ranked must be a stream's code column
(its concepts; names asked for in so many words: 'as concept names', 'list their concept_name')
or a patient column, the table named must be that stream's (or, for patients, the encounter
table or a condition or procedure stream), and the count must be ``count(*)`` (records) or
``count(DISTINCT <patient column>)`` (patients). A vocabulary or a system named with the column
('top 3 CVX drug_concept_id', 'of vocabulary RxNorm') restricts the codes in a way this does not
say: the question is left as it is, and the reading names what it cannot ground.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from clinbridge.engine.understand._text import NUMBER_WORDS

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["schema_ranking"]

_NUM = r"(?P<n>\d+|" + "|".join(NUMBER_WORDS) + ")"
_RANKED = re.compile(
    rf"\b(?:top|the)\s+{_NUM}\s+(?:(?P<sys>[a-z][\w-]*)\s+)?(?P<col>[a-z_][\w.]*)"
    r"(?:\s+values)?(?:\s+of\s+vocabulary\s+(?P<voc>\w+))?"
    r"\s+(?:by|with\s+the\s+(?:highest|largest|most))\s+"
    r"(?P<cnt>count\s*\(\s*\*\s*\)|count\s*\(\s*distinct\s+(?P<who>[\w.]+)\s*\))"
    r"(?:\s+(?:in|of|from)\s+(?P<tab>[a-z_][\w.]*)(?:\s+rows)?)?",
    re.I,
)
_NAMES = re.compile(
    r"\s*[,;]?\s*(?:(?:and\s+)?(?:list|return|show|give)\s+(?:their|the)\s+concept_names?"
    r"|(?:returned\s+|reported\s+)?as\s+(?:concept\s+)?names)\s*[.?]?\s*$",
    re.I,
)
_CONCEPT_NOUN = {
    "condition": "conditions",
    "drug": "drugs",
    "procedure": "procedures",
    "measurement": "lab tests",
}
_PATIENT_NOUN = {"condition": "diagnoses", "procedure": "procedures"}


def schema_ranking(question: str, catalog: Catalog | None) -> str:
    """The question with a ranking in schema names said in the words the rank marks read."""
    m = _RANKED.search(question)
    if m is None or catalog is None or m["sys"] or m["voc"]:
        return question
    col, tab = m["col"].lower(), (m["tab"] or "").lower()
    if "." in col:
        tab_of, col = col.rsplit(".", 1)
        if tab and tab != tab_of:
            return question
        tab = tab_of
    patient_cols = {s.patient_column.lower() for s in catalog.streams if s.patient_column}
    if catalog.patients is not None:
        patient_cols.add(catalog.patients.id_column.lower())
    enc = catalog.encounters
    if enc is not None:
        patient_cols.add(enc.patient_column.lower())
    who = (m["who"] or "").lower().rsplit(".", 1)[-1]
    if who and who not in patient_cols:
        return question
    n = m["n"]
    head, tail = question[: m.start()], question[m.end() :]
    if col in patient_cols:
        if who:  # patients ranked by their number of patients
            return question
        if enc is not None and tab == enc.table.lower():
            said = f"the {n} patients with the most encounters"
        else:
            kind = next((s.kind for s in catalog.streams if s.table.lower() == tab), None)
            if kind not in _PATIENT_NOUN:
                return question
            said = f"the {n} patients with the most {_PATIENT_NOUN[kind]}"
        return f"{head}{said}{tail}"
    streams = [
        s
        for s in catalog.streams
        if s.code_column and s.code_column.lower() == col and (not tab or s.table.lower() == tab)
    ]
    names = _NAMES.search(tail)
    if len(streams) != 1 or streams[0].kind not in _CONCEPT_NOUN or names is None:
        return question
    unit = "patients" if who else "records"
    said = f"top {n} {_CONCEPT_NOUN[streams[0].kind]} by number of {unit}"
    return f"{head}{said}{tail[: names.start()]}"
