"""Read a length-of-stay question whole — a summary over stays — or hand it on.

The shape: a length of stay named ('length of stay', 'LOS', 'days in hospital', 'inpatient
days', 'the longest stay'), one statistic over the stays ('total', 'summed' → sum; 'longest',
'max' → max; 'shortest' → min; 'average', 'mean' → mean; 'median'), optionally one patient,
optionally the kind of encounter ('inpatient', 'hospital', 'admission' → inpatient; 'ICU',
'emergency', 'outpatient'), and words that only frame it ('over all of her admissions',
'across all admits', 'in the data'). A definition in the question — 'length of stay =
discharge date minus admission date', 'end minus start of the encounter period' — is read as
what the plan computes (the stay's end minus its start), and only that definition.

The data manager's form is read too: 'max(visit_end_date - visit_start_date) over inpatient
visit_occurrence rows' — the statistic of the encounter table's own end column minus its start
column (no other columns), the table named by its name.

A question of this shape that names no statistic ('days in hospital for patient 3516', 'how
many days was patient 3516 in hospital') is not one number when the patient had several stays:
it abstains, asking which (so does 'how many days were patients in hospital'). Any other word leaves
the question to the general reader (None).
"""

from __future__ import annotations

import re
from typing import Any

from clinbridge.engine.plan import Aggregate, Measure, QueryPlan
from clinbridge.engine.understand._between_read import patient_in
from clinbridge.engine.understand._reading import Grounding, Reading
from clinbridge.engine.understand._shorthand import expand_words
from clinbridge.engine.understand._text import normalize

__all__ = ["STAT_WORDS", "read_stay"]

_NOTE = "read as a summary of lengths of stay"
_DEFINITION = re.compile(
    r"(?:\b(?:length\s+of\s+stay|los|stay\s+length)\s*(?:=|is|as|means)\s*)?"
    r"\b(?:the\s+)?(?:discharge|end)(?:\s+(?:date|time))?\s+minus\s+(?:the\s+)?"
    r"(?:admission|start)(?:\s+(?:date|time))?"
    r"(?:\s+of\s+(?:the\s+|each\s+)?(?:encounter|visit|admission|stay)(?:\s+period)?)?"
)
_SQL = re.compile(
    r"\b(?P<op>max|min|sum|avg|mean|median)\s*(?:of\s*)?\(\s*(?:[a-z_]+\.)?(?P<end>[a-z_]+)\s*-\s*"
    r"(?:[a-z_]+\.)?(?P<start>[a-z_]+)\s*\)"
)
"""'max(visit_end_date - visit_start_date)': the encounter table's own end minus its start."""
_LENGTH = re.compile(
    r"\b(?:lengths?\s+of\s+(?:the\s+)?(?:hospital\s+)?stays?|los|stay\s+lengths?|"
    r"days\s+(?:spent\s+)?in\s+(?:the\s+)?hospital|(?:hospital|inpatient)\s+days|duration)\b"
    r"|\b(?:longest|shortest)\b(?=.*\b(?:stays?|admissions?|hospitali[sz]ations?|encounters?|visits?)\b)"
    r"|\bhow\s+many\s+days\b(?=.*\b(?:in|at)\s+(?:the\s+)?hospital\b)"
)
_DAYS_IN_HOSPITAL = re.compile(r"\bhow\s+many\s+days\b(?=.*\b(?:in|at)\s+(?:the\s+)?hospital\b)")
_STATS = {
    "total": "sum",
    "sum": "sum",
    "summed": "sum",
    "cumulative": "sum",
    "combined": "sum",
    "longest": "max",
    "maximum": "max",
    "max": "max",
    "shortest": "min",
    "minimum": "min",
    "min": "min",
    "mean": "mean",
    "average": "mean",
    "avg": "mean",
    "median": "median",
}
STAT_WORDS = _STATS
"""A statistic's words over lengths of time ('longest', 'average', 'total') → the aggregate."""
_SQL_OPS = {"max": "longest", "min": "shortest", "sum": "total", "avg": "mean"} | {
    "mean": "mean",
    "median": "median",
}
_TYPES = {
    "inpatient": "inpatient",
    "hospital": "inpatient",
    "admission": "inpatient",
    "admissions": "inpatient",
    "admits": "inpatient",
    "admit": "inpatient",
    "hospitalization": "inpatient",
    "hospitalizations": "inpatient",
    "hospitalisation": "inpatient",
    "hospitalisations": "inpatient",
    "icu": "icu",
    "emergency": "emergency",
    "er": "emergency",
    "ed": "emergency",
    "outpatient": "outpatient",
}
_FRAME_TEXT = """how many what whats is was were the a an of in days day for all any her his their its
    patient s has have had spent spend stayed over across each every data we our there length
    lengths stay stays los duration encounter encounters visit visits period number give me tell
    please show compute calculate find did does do been single one ever record"""
_FRAME = frozenset(_FRAME_TEXT.split())


def _ops(words: list[str]) -> set[str]:
    return {_STATS[w] for w in words if w in _STATS}


def read_stay(question: str, ctx: Any) -> Reading | None:
    """A reading of a summary-of-stays question; None when it is not one. ``ctx`` is the
    reader's ``UnderstandContext`` (lexicon, catalog, patient id, now)."""
    catalog, lex = ctx.catalog, ctx.lexicon
    enc = catalog.encounters if catalog is not None else None
    if enc is None:
        return None
    patient_id, now = ctx.patient_id, ctx.now
    text = expand_words(normalize(question))
    sql = _SQL.search(text)
    if sql is not None:
        if (sql["end"], sql["start"]) != (enc.end_column, enc.start_column):
            return None
        text = f"{text[: sql.start()]} {_SQL_OPS[sql['op']]} length of stay {text[sql.end() :]}"
        text = re.sub(rf"\b{re.escape(enc.table)}\b(?:\s+rows)?", " ", text)
    if not _LENGTH.search(text):
        return None
    found = patient_in(text, patient_id)
    if found is None:
        return None
    text, pid = found
    defined = _DEFINITION.search(text)
    if defined is not None:
        text = text[: defined.start()] + " " + text[defined.end() :]
    words = re.findall(r"[a-z0-9]+", text)
    ops = _ops(words)
    types = {_TYPES[w] for w in words if w in _TYPES}
    if len(ops) > 1 or len(types) > 1:
        return None
    if any(w not in _FRAME and w not in _STATS and w not in _TYPES for w in words):
        return None
    if not lex.has_encounter_end:
        return Reading(
            question=question,
            abstain_reason="this source does not record when encounters end, so lengths of stay are unknown",
        )
    if not ops:
        if pid is None and not _DAYS_IN_HOSPITAL.search(text):
            return None  # 'the length of stay' of the cohort: the general reader's to read
        return Reading(
            question=question,
            abstain_reason="the patient's stays are several lengths: say the total, the longest, the shortest or the average",
        )
    op, etype = ops.pop(), (types.pop() if types else None)
    plan = QueryPlan(
        question=question,
        patient_id=pid,
        measure=Measure(of="length_of_stay", encounter_type=etype),  # type: ignore[arg-type]
        aggregate=Aggregate(op=op),  # type: ignore[arg-type]
        now=now,
    )
    said = f"the {op} length of stay (end minus start) over {etype or 'all'} encounters"
    grounding = Grounding(phrase="length of stay", kind="aggregate", target=said)
    return Reading(
        question=question, plan=plan, confidence=0.9, groundings=(grounding,), notes=(_NOTE,)
    )
