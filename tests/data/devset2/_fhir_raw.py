"""The second method for the FHIR gold: the raw Synthea JSON read with the standard library.

Independent of clinbridge's FHIR loader: transaction bundles (``*.json.gz``, references as
``urn:uuid:``) and bulk NDJSON (``*.ndjson.gz``, references as ``Type/id``) are read here and the few
resource types the questions use are turned into pandas frames. Times keep their local wall-clock
value (the text before the UTC offset), which is what the questions mean by a date.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd


def resources(folders: list[Path]) -> Iterator[dict[str, Any]]:
    for folder in folders:
        for f in sorted(folder.glob("*.json.gz")):
            with gzip.open(f, "rt", encoding="utf-8") as fh:
                bundle = json.load(fh)
            for entry in bundle.get("entry", []):
                yield entry["resource"]
        for f in sorted(folder.glob("*.ndjson.gz")):
            if f.name.startswith("log."):
                continue
            with gzip.open(f, "rt", encoding="utf-8") as fh:
                for line in fh:
                    if line.strip():
                        yield json.loads(line)


def _ref(r: dict[str, Any] | None) -> str | None:
    if not r or "reference" not in r:
        return None
    ref = str(r["reference"])
    return ref.split(":")[-1] if ref.startswith("urn:uuid:") else ref.split("/")[-1]


def _local(ts: str | None) -> pd.Timestamp | None:
    """The wall-clock time written in an ISO timestamp (offset dropped)."""
    if not ts:
        return None
    core = ts[:19] if len(ts) >= 19 else ts[:10]
    return pd.Timestamp(core)


def _coding(cc: dict[str, Any] | None) -> tuple[str | None, str | None]:
    for cd in (cc or {}).get("coding", []):
        return cd.get("code"), (cd.get("display") or "").replace("\u200b", "").strip()
    return None, (cc or {}).get("text")


def fhir_frames(folders: list[Path]) -> dict[str, pd.DataFrame]:
    rows: dict[str, list[dict[str, Any]]] = {
        k: []
        for k in ("patient", "condition", "encounter", "observation", "medreq", "immunization")
    }
    for r in resources(folders):
        kind = r.get("resourceType")
        if kind == "Patient":
            rows["patient"].append(
                {
                    "id": r["id"],
                    "gender": r.get("gender"),
                    "birth_date": r.get("birthDate"),
                    "deceased": _local(r.get("deceasedDateTime")),
                    "given": " ".join((r.get("name") or [{}])[0].get("given", [])),
                    "family": (r.get("name") or [{}])[0].get("family"),
                }
            )
        elif kind == "Condition":
            code, disp = _coding(r.get("code"))
            rows["condition"].append(
                {
                    "patient": _ref(r.get("subject")),
                    "code": code,
                    "display": disp,
                    "onset": _local(r.get("onsetDateTime")),
                }
            )
        elif kind == "Encounter":
            period = r.get("period") or {}
            rows["encounter"].append(
                {
                    "id": r["id"],
                    "patient": _ref(r.get("subject")),
                    "cls": (r.get("class") or {}).get("code"),
                    "start": _local(period.get("start")),
                    "end": _local(period.get("end")),
                }
            )
        elif kind == "Observation":
            when = _local(r.get("effectiveDateTime"))
            parts = [(r.get("code"), r.get("valueQuantity"))] + [
                (comp.get("code"), comp.get("valueQuantity")) for comp in r.get("component", [])
            ]
            for code_cc, vq in parts:
                if not vq or "value" not in vq:
                    continue
                code, disp = _coding(code_cc)
                rows["observation"].append(
                    {
                        "patient": _ref(r.get("subject")),
                        "code": code,
                        "display": disp,
                        "value": float(vq["value"]),
                        "unit": vq.get("unit"),
                        "time": when,
                    }
                )
        elif kind == "MedicationRequest":
            code, disp = _coding(r.get("medicationCodeableConcept"))
            rows["medreq"].append(
                {
                    "patient": _ref(r.get("subject")),
                    "code": code,
                    "display": disp,
                    "authored": _local(r.get("authoredOn")),
                }
            )
        elif kind == "Immunization":
            code, disp = _coding(r.get("vaccineCode"))
            rows["immunization"].append(
                {
                    "patient": _ref(r.get("patient")),
                    "code": code,
                    "display": disp,
                    "time": _local(r.get("occurrenceDateTime")),
                }
            )
    return {k: pd.DataFrame(v) for k, v in rows.items()}
