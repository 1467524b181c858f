"""Scoring note-QA answers: correct / wrong / abstained, and whether the citations hold.

Used by ``bench/bench_note_qa.py`` and the tests. :func:`case_notes_bundle` turns case notes
(one per otherwise-empty patient) into FHIR Patients and DocumentReferences (base64
attachments), the form a hospital's document store exports them in.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from clinbridge.engine.answer import Answer

__all__ = ["case_notes_bundle", "citations_hold", "score"]

Outcome = Literal["correct", "wrong", "abstain"]


def case_notes_bundle(
    cases: Iterable[Mapping[str, Any]], date: str = "2020-01-01"
) -> dict[str, Any]:
    """A FHIR R4 collection bundle: per case (``patient``, ``note``, optional ``note_id``) a
    Patient with nothing but its id and one DocumentReference holding the note."""
    entries: list[dict[str, Any]] = []
    for c in cases:
        pid = str(c["patient"])
        entries.append({"resource": {"resourceType": "Patient", "id": pid}})
        data = base64.b64encode(str(c["note"]).encode("utf-8")).decode()
        entries.append(
            {
                "resource": {
                    "resourceType": "DocumentReference",
                    "id": f"{pid}-note",
                    "status": "current",
                    "subject": {"reference": f"Patient/{pid}"},
                    "date": f"{date}T00:00:00Z",
                    "description": str(c.get("note_id") or "case note"),
                    "content": [
                        {"attachment": {"contentType": "text/plain; charset=utf-8", "data": data}}
                    ],
                }
            }
        )
    return {"resourceType": "Bundle", "type": "collection", "entry": entries}


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=0.01, abs_tol=1e-6)


def _numbers(answer: Answer) -> list[float]:
    out = []
    if isinstance(answer.value, int | float) and not isinstance(answer.value, bool):
        out.append(float(answer.value))
    written = answer.details.get("as_written")
    if isinstance(written, list) and written and isinstance(written[0], int | float):
        out.append(float(written[0]))
    elif isinstance(written, int | float) and not isinstance(written, bool):
        out.append(float(written))
    return out


def score(answer: Answer, kind: str, gold: Any, unit: str | None = None) -> Outcome:
    """The outcome of one answer against its gold.

    A value is correct when the answer (in its unit, or as the note wrote it) equals the gold
    within 1 %, or equals the gold converted to the answer's unit; yes/no when it is the gold.
    """
    if not answer.accepted:
        return "abstain"
    if kind == "yesno":
        return "correct" if answer.value is bool(gold) else "wrong"
    got = _numbers(answer)
    if any(_close(g, float(gold)) for g in got):
        return "correct"
    to = answer.details.get("unit")
    if unit and to and got:
        from clinbridge.calculators.units import convert

        try:
            if _close(got[0], convert(float(gold), unit, str(to))):
                return "correct"
        except Exception:  # the gold's unit does not convert: only the number was comparable
            pass
    return "wrong"


def citations_hold(answer: Answer, texts: Mapping[str, str]) -> bool | None:
    """Whether every citation quotes its note at its span (None: nothing is cited).

    Args:
        answer: The answer.
        texts: Note id → the note's text, as stored.
    """
    cites = answer.details.get("citations") or []
    if not cites:
        return None
    for c in cites:
        text = texts.get(c.get("note_id", ""))
        span = c.get("span")
        if text is None or not span:
            return False
        s, e = span
        if not (0 <= s < e <= len(text)) or (
            text[s:e] not in str(c.get("text", "")) and str(c.get("text", "")) not in text[s:e]
        ):
            return False
        cs, ce = c.get("chunk_span") or (0, 0)
        if not (cs <= s and e <= ce):
            return False
    return True
