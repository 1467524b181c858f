"""Deterministic synthetic FHIR R4 data for scale tests: NDJSON (bulk export) or bundles.

Each patient gets demographics (US Core race/ethnicity, birth sex, a local time-zone offset),
encounters of every class (AMB, EMER, IMP, ACUTE, VR, HH, OBSENC), vital signs with LOINC codes
and UCUM units (blood pressure as a panel with systolic/diastolic components), labs in a
DiagnosticReport, smoking status as a coded observation, SNOMED conditions with onset and
abatement, RxNorm medication requests (and administrations in hospital stays), procedures,
CVX immunizations, allergies, care plans and a base64 clinical note per encounter.
Same seed, same files.
"""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Literal

import orjson

__all__ = ["generate_fhir", "patient_resources"]

LOINC = "http://loinc.org"
SNOMED = "http://snomed.info/sct"
RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
CVX = "http://hl7.org/fhir/sid/cvx"
UCUM = "http://unitsofmeasure.org"
ACT = "http://terminology.hl7.org/CodeSystem/v3-ActCode"
OBS_CAT = "http://terminology.hl7.org/CodeSystem/observation-category"

# class, weight, encounter type (SNOMED), duration range in minutes
_CLASSES: list[tuple[str, float, tuple[str, str], tuple[int, int]]] = [
    ("AMB", 0.62, ("185349003", "Encounter for check up (procedure)"), (15, 60)),
    ("EMER", 0.10, ("50849002", "Emergency room admission (procedure)"), (60, 480)),
    ("IMP", 0.08, ("32485007", "Hospital admission (procedure)"), (1440, 10080)),
    ("ACUTE", 0.03, ("183452005", "Emergency hospital admission (procedure)"), (1440, 7200)),
    ("VR", 0.07, ("185317003", "Telephone encounter (procedure)"), (10, 30)),
    ("HH", 0.05, ("439708006", "Home visit (procedure)"), (30, 120)),
    ("OBSENC", 0.05, ("305408004", "Admission to observation unit (procedure)"), (240, 1440)),
]

# (code, display, chronic, [(rxnorm, display, dose)], careplan)
_CONDITIONS: list[tuple[str, str, bool, list[tuple[str, str]], tuple[str, str] | None]] = [
    (
        "59621000",
        "Essential hypertension (disorder)",
        True,
        [("314076", "lisinopril 10 MG Oral Tablet"), ("197361", "Amlodipine 5 MG Oral Tablet")],
        ("443402002", "Lifestyle education regarding hypertension (procedure)"),
    ),
    (
        "44054006",
        "Diabetes mellitus type 2 (disorder)",
        True,
        [("860975", "24 HR Metformin hydrochloride 500 MG Extended Release Oral Tablet")],
        ("698360004", "Diabetes self management plan (record artifact)"),
    ),
    (
        "55822004",
        "Hyperlipidemia (disorder)",
        True,
        [("316672", "Simvastatin 10 MG Oral Tablet")],
        None,
    ),
    (
        "195967001",
        "Asthma (disorder)",
        True,
        [("895994", "120 ACTUAT Fluticasone propionate 0.044 MG/ACTUAT Metered Dose Inhaler")],
        ("699728000", "Asthma self management (record artifact)"),
    ),
    (
        "49436004",
        "Atrial fibrillation (disorder)",
        True,
        [("855332", "Warfarin Sodium 5 MG Oral Tablet")],
        None,
    ),
    ("431855005", "Chronic kidney disease stage 1 (disorder)", True, [], None),
    (
        "10509002",
        "Acute bronchitis (disorder)",
        False,
        [("313782", "Acetaminophen 325 MG Oral Tablet")],
        None,
    ),
    (
        "444814009",
        "Viral sinusitis (disorder)",
        False,
        [("308182", "Amoxicillin 250 MG Oral Capsule")],
        None,
    ),
    (
        "233604007",
        "Pneumonia (disorder)",
        False,
        [("308182", "Amoxicillin 250 MG Oral Capsule")],
        None,
    ),
    ("68496003", "Polyp of colon (disorder)", False, [], None),
]

_PROCEDURES = [
    ("430193006", "Medication reconciliation (procedure)"),
    ("710824005", "Assessment of health and social care needs (procedure)"),
    ("171207006", "Depression screening (procedure)"),
    ("73761001", "Colonoscopy (procedure)"),
    ("183450002", "Admission to burn unit (procedure)"),
    ("274804006", "Evaluation of uterine fundal height (procedure)"),
]

_VACCINES = [
    ("140", "Influenza, seasonal, injectable, preservative free"),
    ("113", "Td (adult) preservative free"),
    ("08", "Hep B, adolescent or pediatric"),
    ("133", "Pneumococcal conjugate PCV 13"),
    ("62", "HPV, quadrivalent"),
]

# LOINC, display, unit, mean, sd
_LABS = [
    ("2339-0", "Glucose [Mass/volume] in Blood", "mg/dL", 98.0, 18.0),
    ("2160-0", "Creatinine [Mass/volume] in Serum or Plasma", "mg/dL", 1.0, 0.25),
    ("2823-3", "Potassium [Moles/volume] in Serum or Plasma", "mmol/L", 4.2, 0.4),
    ("2951-2", "Sodium [Moles/volume] in Serum or Plasma", "mmol/L", 140.0, 2.5),
    ("4548-4", "Hemoglobin A1c/Hemoglobin.total in Blood", "%", 5.8, 0.8),
    ("2093-3", "Cholesterol [Mass/volume] in Serum or Plasma", "mg/dL", 190.0, 30.0),
    ("718-7", "Hemoglobin [Mass/volume] in Blood", "g/dL", 14.0, 1.5),
]

_SMOKING = [("266919005", "Never smoker"), ("8517006", "Ex-smoker"), ("77176002", "Smoker")]
_CITIES = [
    ("Boston", "MA", "02108", "-05:00"),
    ("Chicago", "IL", "60601", "-06:00"),
    ("Denver", "CO", "80202", "-07:00"),
    ("Seattle", "WA", "98101", "-08:00"),
    ("London", "ENG", "EC1A", "+00:00"),
    ("Paris", "IDF", "75001", "+01:00"),
]
_GIVEN_F = ["Anna", "Maria", "Sofia", "Emma", "Olivia", "Grace", "Ruth", "Chloe"]
_GIVEN_M = ["James", "John", "Noah", "Liam", "Oliver", "Lucas", "Henry", "Omar"]
_FAMILY = ["Smith", "Garcia", "Nguyen", "Okafor", "Kowalski", "Rossi", "Dubois", "Tanaka", "Brown"]


def _cc(system: str, code: str, display: str) -> dict[str, Any]:
    return {"coding": [{"system": system, "code": code, "display": display}], "text": display}


def _qty(value: float, unit: str) -> dict[str, Any]:
    return {"value": round(value, 2), "unit": unit, "system": UCUM, "code": unit}


class _Patient:
    """Generates one patient's resources with a private RNG (order-independent)."""

    def __init__(
        self, seed: int, index: int, end: dt.datetime, orgs: list[str], practitioners: list[str]
    ) -> None:
        self.rng = random.Random(f"{seed}:{index}")
        self.end = end
        self.orgs = orgs
        self.practitioners = practitioners
        self.id = self.uuid()
        self.city = self.rng.choice(_CITIES)
        self.tz = self.city[3]

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def ts(self, t: dt.datetime) -> str:
        return t.strftime("%Y-%m-%dT%H:%M:%S") + self.tz

    def resources(self) -> Iterator[dict[str, Any]]:
        rng = self.rng
        female = rng.random() < 0.51
        birth = dt.datetime(1930, 1, 1) + dt.timedelta(days=rng.randrange(0, 365 * 88))
        deceased = rng.random() < 0.08
        death = birth + dt.timedelta(
            days=rng.randrange(365 * 30, max(365 * 31, (self.end - birth).days))
        )
        last = min(death, self.end) if deceased else self.end
        pid = self.id
        ref = f"Patient/{pid}"
        patient: dict[str, Any] = {
            "resourceType": "Patient",
            "id": pid,
            "extension": [
                {
                    "url": "http://hl7.org/fhir/us/core/StructureDefinition/us-core-race",
                    "extension": [
                        {
                            "url": "ombCategory",
                            "valueCoding": {
                                "system": "urn:oid:2.16.840.1.113883.6.238",
                                "code": "2106-3",
                                "display": "White",
                            },
                        }
                    ],
                },
                {
                    "url": "http://hl7.org/fhir/us/core/StructureDefinition/us-core-birthsex",
                    "valueCode": "F" if female else "M",
                },
            ],
            "identifier": [
                {
                    "type": {
                        "coding": [
                            {
                                "system": "http://terminology.hl7.org/CodeSystem/v2-0203",
                                "code": "MR",
                            }
                        ]
                    },
                    "system": "http://hospital.example.org",
                    "value": pid,
                }
            ],
            "name": [
                {
                    "use": "official",
                    "family": rng.choice(_FAMILY),
                    "given": [rng.choice(_GIVEN_F if female else _GIVEN_M)],
                }
            ],
            "gender": "female" if female else "male",
            "birthDate": birth.date().isoformat(),
            "address": [
                {
                    "city": self.city[0],
                    "state": self.city[1],
                    "postalCode": self.city[2],
                    "country": "US" if self.city[1] not in ("ENG", "IDF") else "GB",
                }
            ],
        }
        if deceased and death < self.end:
            patient["deceasedDateTime"] = self.ts(death)
        else:
            last = self.end
        yield patient
        if rng.random() < 0.12:
            yield {
                "resourceType": "AllergyIntolerance",
                "id": self.uuid(),
                "clinicalStatus": {
                    "coding": [
                        {
                            "system": "http://terminology.hl7.org/CodeSystem/"
                            "allergyintolerance-clinical",
                            "code": "active",
                        }
                    ]
                },
                "type": "allergy",
                "category": ["food"],
                "criticality": "low",
                "code": _cc(SNOMED, "91935009", "Allergy to peanuts"),
                "patient": {"reference": ref},
                "recordedDate": self.ts(birth + dt.timedelta(days=365 * 5)),
            }
        smoking = rng.choice(_SMOKING)
        active: list[tuple[str, str, list[tuple[str, str]]]] = []
        start = max(birth + dt.timedelta(days=365), last - dt.timedelta(days=365 * 15))
        n_enc = rng.randint(4, 22)
        span = max(1, int((last - start).total_seconds() // 60))
        times = sorted(start + dt.timedelta(minutes=rng.randrange(span)) for _ in range(n_enc))
        weights = [c[1] for c in _CLASSES]
        height = rng.gauss(164 if female else 177, 7)
        weight = rng.gauss(70 if female else 84, 12)
        for t in times:
            klass, _, etype, dur = rng.choices(_CLASSES, weights)[0]
            yield from self._encounter(t, klass, etype, dur, ref, height, weight, smoking, active)

    def _encounter(
        self,
        t: dt.datetime,
        klass: str,
        etype: tuple[str, str],
        dur: tuple[int, int],
        ref: str,
        height: float,
        weight: float,
        smoking: tuple[str, str],
        active: list[tuple[str, str, list[tuple[str, str]]]],
    ) -> Iterator[dict[str, Any]]:
        rng = self.rng
        eid = self.uuid()
        eref = {"reference": f"Encounter/{eid}"}
        pref = {"reference": ref}
        end = t + dt.timedelta(minutes=rng.randint(*dur))
        doctor = rng.choice(self.practitioners)
        enc: dict[str, Any] = {
            "resourceType": "Encounter",
            "id": eid,
            "status": "finished",
            "class": {"system": ACT, "code": klass},
            "type": [_cc(SNOMED, *etype)],
            "subject": pref,
            "participant": [{"individual": {"reference": f"Practitioner/{doctor}"}}],
            "period": {"start": self.ts(t), "end": self.ts(end)},
            "serviceProvider": {"reference": f"Organization/{rng.choice(self.orgs)}"},
        }
        new_condition = None
        if klass != "VR" and rng.random() < 0.35:
            new_condition = rng.choice(_CONDITIONS)
            enc["reasonCode"] = [_cc(SNOMED, new_condition[0], new_condition[1])]
        yield enc
        ts = self.ts(t + dt.timedelta(minutes=5))
        # vital signs
        vitals: dict[str, float] = {}
        if klass != "VR":
            bmi = weight / (height / 100) ** 2
            for code, display, value, unit in (
                ("8302-2", "Body Height", height, "cm"),
                ("29463-7", "Body Weight", weight + rng.gauss(0, 1.5), "kg"),
                ("39156-5", "Body mass index (BMI) [Ratio]", bmi, "kg/m2"),
                ("8867-4", "Heart rate", rng.gauss(74, 10), "/min"),
                ("9279-1", "Respiratory rate", rng.gauss(15, 2), "/min"),
                ("8310-5", "Body temperature", rng.gauss(36.9, 0.4), "Cel"),
            ):
                vitals[display] = round(value, 2)
                yield self._obs(
                    "vital-signs", code, display, eref, pref, ts, valueQuantity=_qty(value, unit)
                )
            sys_bp = rng.gauss(128, 15)
            vitals["dia"] = round(sys_bp * 0.62 + rng.gauss(0, 5), 2)
            vitals["sys"] = round(sys_bp, 2)
            yield self._obs(
                "vital-signs",
                "85354-9",
                "Blood pressure panel with all children optional",
                eref,
                pref,
                ts,
                component=[
                    {
                        "code": _cc(LOINC, "8462-4", "Diastolic Blood Pressure"),
                        "valueQuantity": _qty(vitals["dia"], "mm[Hg]"),
                    },
                    {
                        "code": _cc(LOINC, "8480-6", "Systolic Blood Pressure"),
                        "valueQuantity": _qty(sys_bp, "mm[Hg]"),
                    },
                ],
            )
            yield self._obs(
                "social-history",
                "72166-2",
                "Tobacco smoking status",
                eref,
                pref,
                ts,
                valueCodeableConcept=_cc(SNOMED, *smoking),
            )
        # labs with a report
        if klass in ("AMB", "IMP", "ACUTE", "EMER") and rng.random() < 0.4:
            results = []
            for code, display, unit, mean, sd in rng.sample(_LABS, 4):
                obs = self._obs(
                    "laboratory",
                    code,
                    display,
                    eref,
                    pref,
                    ts,
                    valueQuantity=_qty(max(0.1, rng.gauss(mean, sd)), unit),
                )
                results.append({"reference": f"Observation/{obs['id']}", "display": display})
                yield obs
            yield {
                "resourceType": "DiagnosticReport",
                "id": self.uuid(),
                "status": "final",
                "category": [
                    {
                        "coding": [
                            {
                                "system": "http://terminology.hl7.org/CodeSystem/v2-0074",
                                "code": "LAB",
                                "display": "Laboratory",
                            }
                        ]
                    }
                ],
                "code": _cc(LOINC, "51990-0", "Basic metabolic panel - Blood"),
                "subject": pref,
                "encounter": eref,
                "effectiveDateTime": ts,
                "issued": ts,
                "result": results,
            }
        # conditions and their drugs
        notes_conditions = []
        if new_condition is not None:
            code, display, chronic, drugs, plan = new_condition
            cid = self.uuid()
            cond: dict[str, Any] = {
                "resourceType": "Condition",
                "id": cid,
                "clinicalStatus": {
                    "coding": [
                        {
                            "system": "http://terminology.hl7.org/CodeSystem/condition-clinical",
                            "code": "active" if chronic else "resolved",
                        }
                    ]
                },
                "verificationStatus": {
                    "coding": [
                        {
                            "system": "http://terminology.hl7.org/CodeSystem/condition-ver-status",
                            "code": "confirmed",
                        }
                    ]
                },
                "code": _cc(SNOMED, code, display),
                "subject": pref,
                "encounter": eref,
                "onsetDateTime": self.ts(t),
                "recordedDate": self.ts(t),
            }
            if not chronic:
                cond["abatementDateTime"] = self.ts(t + dt.timedelta(days=rng.randint(7, 30)))
            yield cond
            notes_conditions.append(display)
            if chronic:
                active.append((code, display, drugs))
            for rx, rx_display in drugs:
                yield self._med_request(rx, rx_display, eref, pref, self.ts(end), cid, display)
            if plan is not None:
                yield {
                    "resourceType": "CarePlan",
                    "id": self.uuid(),
                    "status": "active",
                    "intent": "order",
                    "category": [_cc(SNOMED, *plan)],
                    "subject": pref,
                    "encounter": eref,
                    "period": {"start": self.ts(t)},
                    "addresses": [{"reference": f"Condition/{cid}"}],
                    "activity": [
                        {
                            "detail": {
                                "code": _cc(SNOMED, "409002", "Food allergy diet"),
                                "status": "in-progress",
                            }
                        }
                    ],
                }
        elif active and klass == "AMB" and rng.random() < 0.5:  # renewals of chronic medication
            _, display, drugs = rng.choice(active)
            for rx, rx_display in drugs:
                yield self._med_request(rx, rx_display, eref, pref, self.ts(end), None, display)
        if klass in ("IMP", "ACUTE"):
            yield {
                "resourceType": "MedicationAdministration",
                "id": self.uuid(),
                "status": "completed",
                "medicationCodeableConcept": _cc(
                    RXNORM, "313002", "Sodium Chloride 9 MG/ML Injectable Solution"
                ),
                "subject": pref,
                "context": eref,
                "effectivePeriod": {
                    "start": self.ts(t + dt.timedelta(hours=1)),
                    "end": self.ts(t + dt.timedelta(hours=3)),
                },
                "dosage": {"dose": {"value": 1000, "unit": "mL", "system": UCUM, "code": "mL"}},
            }
        if klass != "VR" and rng.random() < 0.5:
            pcode, pdisplay = rng.choice(_PROCEDURES)
            yield {
                "resourceType": "Procedure",
                "id": self.uuid(),
                "status": "completed",
                "code": _cc(SNOMED, pcode, pdisplay),
                "subject": pref,
                "encounter": eref,
                "performedPeriod": {
                    "start": self.ts(t + dt.timedelta(minutes=10)),
                    "end": self.ts(t + dt.timedelta(minutes=25)),
                },
            }
        if klass == "AMB" and rng.random() < 0.3:
            vcode, vdisplay = rng.choice(_VACCINES)
            yield {
                "resourceType": "Immunization",
                "id": self.uuid(),
                "status": "completed",
                "vaccineCode": _cc(CVX, vcode, vdisplay),
                "patient": pref,
                "encounter": eref,
                "occurrenceDateTime": ts,
                "primarySource": True,
            }
        text = (
            f"{t.date().isoformat()}\n\n# Chief Complaint\n{etype[1]}\n\n"
            + _note_findings(eid, vitals)
            + "# Assessment and Plan\n"
            + ("".join(f"- {c}\n" for c in notes_conditions) or "No new problems.\n")
            + f"Smoking status: {smoking[1]}.\n"
        )
        yield {
            "resourceType": "DocumentReference",
            "id": self.uuid(),
            "status": "current",
            "type": _cc(LOINC, "34117-2", "History and physical note"),
            "category": [
                {
                    "coding": [
                        {
                            "system": "http://hl7.org/fhir/us/core/CodeSystem/"
                            "us-core-documentreference-category",
                            "code": "clinical-note",
                        }
                    ]
                }
            ],
            "subject": pref,
            "date": self.ts(end),
            "author": [{"reference": f"Practitioner/{doctor}"}],
            "content": [
                {
                    "attachment": {
                        "contentType": "text/plain; charset=utf-8",
                        "data": base64.b64encode(text.encode()).decode(),
                    }
                }
            ],
            "context": {"encounter": [eref], "period": {"start": self.ts(t), "end": self.ts(end)}},
        }

    def _obs(
        self,
        category: str,
        code: str,
        display: str,
        eref: dict[str, str],
        pref: dict[str, str],
        ts: str,
        **value: Any,
    ) -> dict[str, Any]:
        return {
            "resourceType": "Observation",
            "id": self.uuid(),
            "status": "final",
            "category": [{"coding": [{"system": OBS_CAT, "code": category, "display": category}]}],
            "code": _cc(LOINC, code, display),
            "subject": pref,
            "encounter": eref,
            "effectiveDateTime": ts,
            "issued": ts,
            **value,
        }

    def _med_request(
        self,
        rx: str,
        display: str,
        eref: dict[str, str],
        pref: dict[str, str],
        ts: str,
        cid: str | None,
        reason: str,
    ) -> dict[str, Any]:
        mr: dict[str, Any] = {
            "resourceType": "MedicationRequest",
            "id": self.uuid(),
            "status": "active",
            "intent": "order",
            "medicationCodeableConcept": _cc(RXNORM, rx, display),
            "subject": pref,
            "encounter": eref,
            "authoredOn": ts,
            "dosageInstruction": [
                {
                    "sequence": 1,
                    "text": "1 tablet daily",
                    "timing": {"repeat": {"frequency": 1, "period": 1.0, "periodUnit": "d"}},
                    "asNeededBoolean": False,
                    "doseAndRate": [{"doseQuantity": {"value": 1.0}}],
                }
            ],
            "dispenseRequest": {
                "quantity": {"value": 30},
                "expectedSupplyDuration": {
                    "value": 30,
                    "unit": "days",
                    "system": UCUM,
                    "code": "d",
                },
            },
        }
        if cid:
            mr["reasonReference"] = [{"reference": f"Condition/{cid}", "display": reason}]
        return mr


_SYMPTOMS = (
    "chest pain",
    "shortness of breath",
    "cough",
    "fever",
    "headache",
    "nausea",
    "abdominal pain",
    "dizziness",
    "palpitations",
    "leg swelling",
)


def _note_findings(eid: str, vitals: dict[str, float]) -> str:
    """The note's vital signs (the encounter's own Observation values) and what only the note
    records: oxygen saturation and the review of systems (reported or denied symptoms).

    Drawn from a generator seeded by the encounter id, so the structured data (the patient's
    RNG stream) is the same with or without notes.
    """
    if not vitals:
        return ""
    r = random.Random(f"note-{eid}")
    spo2 = r.randint(90, 99)
    lines = [
        "# Vital Signs\n",
        f"Heart rate {vitals['Heart rate']:.0f} bpm. Respiratory rate "
        f"{vitals['Respiratory rate']:.0f} breaths/min. Temperature "
        f"{vitals['Body temperature']:.1f} °C. Blood pressure {vitals['sys']:.0f}/"
        f"{vitals['dia']:.0f} mmHg. Weight {vitals['Body Weight']:.1f} kg.\n",
        f"Oxygen saturation {spo2}% on room air.\n\n# Review of Systems\n",
    ]
    for symptom in r.sample(_SYMPTOMS, 3):
        if r.random() < 0.35:
            lines.append(f"Reports {symptom}.\n")
        else:
            lines.append(r.choice((f"Denies {symptom}.\n", f"No {symptom}.\n")))
    return "".join(lines) + "\n"


def _shared(seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rng = random.Random(f"{seed}:shared")

    def uid() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    orgs = [
        {
            "resourceType": "Organization",
            "id": uid(),
            "active": True,
            "name": f"{city} GENERAL HOSPITAL",
            "address": [{"city": city, "state": state}],
        }
        for city, state, _, _ in _CITIES
    ]
    pracs = [
        {
            "resourceType": "Practitioner",
            "id": uid(),
            "active": True,
            "name": [
                {
                    "family": rng.choice(_FAMILY),
                    "given": [rng.choice(_GIVEN_F + _GIVEN_M)],
                    "prefix": ["Dr."],
                }
            ],
        }
        for _ in range(12)
    ]
    return orgs, pracs


def patient_resources(
    seed: int, index: int, *, end: dt.datetime | None = None
) -> list[dict[str, Any]]:
    """All resources of patient number ``index`` (0-based) for ``seed``."""
    orgs, pracs = _shared(seed)
    p = _Patient(
        seed,
        index,
        end or dt.datetime(2024, 6, 30),
        [o["id"] for o in orgs],
        [p["id"] for p in pracs],
    )
    return list(p.resources())


def generate_fhir(
    out: str | Path,
    *,
    patients: int,
    seed: int = 42,
    fmt: Literal["ndjson", "bundle"] = "ndjson",
    gzip_output: bool = False,
    end: dt.date | None = None,
) -> dict[str, int]:
    """Write ``patients`` synthetic patients under ``out``; returns resource counts per type.

    ``ndjson``: one ``<Type>.000.ndjson`` file per resource type (FHIR Bulk Data layout).
    ``bundle``: one transaction bundle per patient (``urn:uuid:`` references, like Synthea)
    plus ``hospitalInformation.json`` with the shared organizations and practitioners.
    """
    outdir = Path(out)
    outdir.mkdir(parents=True, exist_ok=True)
    stop = dt.datetime.combine(end or dt.date(2024, 6, 30), dt.time())
    orgs, pracs = _shared(seed)
    counts: dict[str, int] = {}
    suffix = ".gz" if gzip_output else ""

    def opener(path: Path) -> IO[bytes]:
        if gzip_output:
            return gzip.open(path, "wb", compresslevel=3)  # type: ignore[return-value]
        return open(path, "wb")

    if fmt == "ndjson":
        handles: dict[str, IO[bytes]] = {}

        def write(res: dict[str, Any]) -> None:
            t = res["resourceType"]
            fh = handles.get(t)
            if fh is None:
                fh = handles[t] = opener(outdir / f"{t}.000.ndjson{suffix}")
            fh.write(orjson.dumps(res) + b"\n")
            counts[t] = counts.get(t, 0) + 1

        try:
            for res in (*orgs, *pracs):
                write(res)
            for i in range(patients):
                p = _Patient(seed, i, stop, [o["id"] for o in orgs], [p["id"] for p in pracs])
                for res in p.resources():
                    write(res)
        finally:
            for fh in handles.values():
                fh.close()
        return counts

    def bundle(resources: list[dict[str, Any]], urn: bool) -> dict[str, Any]:
        entries = []
        for res in resources:
            counts[res["resourceType"]] = counts.get(res["resourceType"], 0) + 1
            entries.append(
                {
                    "fullUrl": f"urn:uuid:{res['id']}",
                    "resource": res,
                    "request": {"method": "POST", "url": res["resourceType"]},
                }
            )
        if urn:
            _to_urn(entries)
        return {"resourceType": "Bundle", "type": "transaction", "entry": entries}

    with opener(outdir / f"hospitalInformation.json{suffix}") as fh:
        fh.write(orjson.dumps(bundle([*orgs, *pracs], urn=False)))
    for i in range(patients):
        p = _Patient(seed, i, stop, [o["id"] for o in orgs], [p["id"] for p in pracs])
        resources = list(p.resources())
        with opener(outdir / f"patient_{i:06d}_{p.id[:8]}.json{suffix}") as fh:
            fh.write(orjson.dumps(bundle(resources, urn=True), option=orjson.OPT_INDENT_2))
    return counts


def _to_urn(entries: list[dict[str, Any]]) -> None:
    """Rewrite in-bundle references ``Type/id`` to ``urn:uuid:id`` (as Synthea's bundles do)."""
    local = {f"{e['resource']['resourceType']}/{e['resource']['id']}" for e in entries}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("reference")
            if isinstance(ref, str) and ref in local:
                node["reference"] = "urn:uuid:" + ref.split("/", 1)[1]
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for e in entries:
        walk(e["resource"])
