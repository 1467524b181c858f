"""Words a data manager uses about the data itself, said the way the general reader reads them.

* '<kind> concept names' ('distinct condition concept names for person 4675', 'list distinct
  procedure concept names ...'): the names of the concepts recorded in that stream — a list of
  that stream's concepts ('list of conditions ...');
* 'as concept names', 'returned as concept names' after what is asked: the answer's form. It is
  taken out of the text, and ``names_not_given`` then checks that the reading answers with
  concepts (a list of them, ranked or not); a reading that answers anything else — a count, a
  value, a date — abstains naming the request.
* '(one row per ...)': how a table's rows are laid out, said beside a count that names its own
  unit; only when every word of it is a stream, table or person word (checked by the closed
  list of ``_meta_asides``).

'in the db', 'in the whole db' are the shorthand 'db' (``data/shorthand.tsv``) for 'database',
which the readers already take as filler.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.engine.plan import QueryPlan

__all__ = ["data_words", "names_not_given"]

_KINDS = r"condition|drug|procedure|measurement|observation|device|visit"
_KIND_NAMES = re.compile(
    rf"\b(?:the\s+)?(?:distinct\s+|unique\s+|different\s+)?(?P<kind>{_KINDS})\s+concept\s+names\b"
)
_AS_NAMES = re.compile(
    r"\s*,?\s*(?:returned\s+|given\s+|shown\s+|listed\s+|reported\s+)?as\s+(?:their\s+|the\s+)?"
    r"(?:concept\s+)?names\b"
)
_ASKED = re.compile(r"\bconcept\s+names\b|\bas\s+(?:their\s+|the\s+)?(?:concept\s+)?names\b", re.I)
_ROW_PER = re.compile(
    r"\s*\(\s*one\s+(?:row|record|line|entry)\s+per\s+(?P<what>[a-z_ -]{2,40}?)\s*\)"
)
_ROW_WORDS = frozenset(
    [
        "patient",
        "person",
        "visit",
        "encounter",
        "admission",
        "stay",
        "prescription",
        "exposure",
        "drug_exposure",
        "condition",
        "diagnosis",
        "procedure",
        "measurement",
        "observation",
        "immunization",
        "vaccination",
        "dose",
        "event",
        "day",
        "date",
        "test",
        "reading",
        "result",
    ]
)


def data_words(text: str) -> str:
    """``text`` (normalised) with the words above said in the general reader's terms."""

    def listed(m: re.Match[str]) -> str:
        before = text[: m.start()]
        if re.search(r"\b(?:how\s+many|count|number|total)\b", before):
            return m[0]  # 'how many distinct condition concept names': left to be read (or named)
        lead = (
            ""
            if re.search(r"\b(?:list|show|which|what)\b(?:\s+(?:of\s+)?(?:the|all))?\s*$", before)
            else "list of "
        )
        return f"{lead}{m['kind']}s"

    text = _KIND_NAMES.sub(listed, text)
    text = _AS_NAMES.sub(" ", text)

    def per_row(m: re.Match[str]) -> str:
        words = re.findall(r"[a-z_]+", m["what"])
        ok = words and all(w.rstrip("s") in _ROW_WORDS or w in _ROW_WORDS for w in words)
        return " " if ok else m[0]

    return _ROW_PER.sub(per_row, text)


def names_not_given(question: str, plan: QueryPlan | None) -> str | None:
    """An abstention when the question asks for concept names and the reading gives none."""
    if plan is None or not _ASKED.search(question):
        return None
    if plan.measure.of == "concept" and plan.aggregate.op == "list":
        return None
    return (
        "the question asks for concept names, and the reading answers with "
        f"{plan.aggregate.op} of {plan.measure.of}; say what is to be listed"
    )
