"""A synthetic MIMIC-IV database in exactly the EHRSQL-2024 schema: ``clinbridge synth mimic``.

The 17 tables are created from the shared task's own DDL (``data/ehrsql2024_mimic_iv.sql``) and
filled with plausible, deterministic (by seed) values, vectorised with numpy:

* every date lies in the year 2100 and "now" is 2100-12-31 23:59:00, as in EHRSQL; each patient
  has one to seven admissions spread over the year, and about three in ten are still admitted (no
  dischtime) at the end of December, so that "this month", "today" and "current" questions have
  data;
* labels, drug names, routes, care units, specimens and admission locations are the terms the
  EHRSQL train/valid questions use (``data/ehrsql2024_terms.json``), plus a few common extras;
  the subject ids the questions name come first, and those asked about their current stay are
  still admitted;
* each admission draws most lab tests, a share of the drugs and a handful of diagnoses and
  procedures; ICU stays carry hourly-ish vitals, inputs and outputs; every diagnosis, procedure,
  prescription and lab result has a cost row.

Values are lower-case, as in EHRSQL. ICD codes are synthetic (not real ICD codes).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
import pandas as pd

from clinbridge.errors import ConfigError

__all__ = ["NOW", "TABLES", "generate_mimic", "load_terms"]

NOW = "2100-12-31 23:59:00"
"""EHRSQL-2024's fixed 'current time'."""
TABLES = (
    "patients",
    "admissions",
    "d_icd_diagnoses",
    "d_icd_procedures",
    "d_labitems",
    "d_items",
    "diagnoses_icd",
    "procedures_icd",
    "labevents",
    "prescriptions",
    "cost",
    "chartevents",
    "inputevents",
    "outputevents",
    "microbiologyevents",
    "icustays",
    "transfers",
)

_YEAR_START = np.datetime64("2100-01-01T00:00", "m")
_YEAR_MIN = 365 * 24 * 60
_NOW_MIN = _YEAR_MIN - 1  # 2100-12-31 23:59

_EXTRA_ITEMS = (
    ("arterial blood pressure mean", "chartevents", "abpm", "mmhg", 60, 110),
    ("non invasive blood pressure systolic", "chartevents", "nbps", "mmhg", 90, 170),
    ("non invasive blood pressure diastolic", "chartevents", "nbpd", "mmhg", 45, 95),
    ("non invasive blood pressure mean", "chartevents", "nbpm", "mmhg", 60, 110),
)
_VITALS = {  # label → (unit, low, high)
    "heart rate": ("bpm", 55, 125),
    "respiratory rate": ("insp/min", 10, 32),
    "o2 saturation pulseoxymetry": ("%", 88, 100),
    "temperature celsius": ("°c", 35.8, 39.4),
    "daily weight": ("kg", 45, 130),
    "arterial blood pressure systolic": ("mmhg", 85, 175),
    "arterial blood pressure diastolic": ("mmhg", 40, 95),
    "arterial blood pressure mean": ("mmhg", 55, 115),
}
_LAB_RANGES: tuple[tuple[str, str, float, float], ...] = (
    # (keyword in label, unit, low, high); first match wins
    ("urine", "mg/dl", 5, 200),
    ("hemoglobin", "g/dl", 7, 17),
    ("hematocrit", "%", 22, 50),
    ("platelet", "k/ul", 50, 450),
    ("white blood", "k/ul", 2, 20),
    ("red blood", "m/ul", 2.5, 6),
    ("glucose", "mg/dl", 60, 320),
    ("sodium", "meq/l", 128, 150),
    ("potassium", "meq/l", 2.8, 6),
    ("chloride", "meq/l", 90, 115),
    ("bicarbonate", "meq/l", 16, 32),
    ("calcium", "mg/dl", 7, 11),
    ("magnesium", "mg/dl", 1.4, 3),
    ("phosphate", "mg/dl", 1.5, 6),
    ("creatinine", "mg/dl", 0.4, 4.5),
    ("urea nitrogen", "mg/dl", 5, 80),
    ("lactate", "mmol/l", 0.5, 6),
    ("ph", "units", 7.2, 7.55),
    ("po2", "mm hg", 40, 300),
    ("pco2", "mm hg", 25, 65),
    ("albumin", "g/dl", 2, 5),
    ("bilirubin", "mg/dl", 0.2, 6),
    ("inr", "ratio", 0.9, 3.5),
    ("pt", "sec", 10, 30),
    ("ptt", "sec", 22, 80),
    ("troponin", "ng/ml", 0.01, 2),
    ("alanine", "iu/l", 8, 200),
    ("asparate", "iu/l", 8, 200),
    ("alkaline", "iu/l", 30, 300),
    ("anion gap", "meq/l", 6, 22),
    ("%", "%", 0, 100),
    ("cells", "#/hpf", 0, 50),
    ("casts", "#/lpf", 0, 10),
)
_INPUT_UNITS = {"inputevents": "ml", "outputevents": "ml"}
_ADMISSION_TYPES = (
    "ew emer.",
    "eu observation",
    "observation admit",
    "urgent",
    "elective",
    "surgical same day admission",
    "direct emer.",
    "direct observation",
)
_ADMISSION_LOCATIONS_EXTRA = (
    "clinic referral",
    "walk-in/self referral",
    "pacu",
    "information not available",
)
_DISCHARGE_LOCATIONS = (
    "home",
    "home health care",
    "skilled nursing facility",
    "rehab",
    "died",
    "hospice",
)
_INSURANCE = ("medicare", "medicaid", "other")
_MARITAL = ("married", "single", "widowed", "divorced")
_ICU_UNITS = (
    "medical intensive care unit (micu)",
    "surgical intensive care unit (sicu)",
    "cardiac vascular intensive care unit (cvicu)",
    "medical/surgical intensive care unit (micu/sicu)",
    "coronary care unit (ccu)",
    "trauma sicu (tsicu)",
    "neuro surgical intensive care unit (neuro sicu)",
)
_TESTS = (
    "gram stain",
    "aerobic bottle gram stain",
    "blood culture, routine",
    "urine culture",
    "respiratory culture",
    "fungal culture",
    "anaerobic culture",
    "mrsa screen",
    "c. difficile pcr",
    "r/o vancomycin resistant enterococcus",
)
_ORGANISMS = (
    "escherichia coli",
    "staph aureus coag +",
    "klebsiella pneumoniae",
    "pseudomonas aeruginosa",
    "enterococcus sp.",
    "yeast",
    "candida albicans, presumptive identification",
    "staphylococcus, coagulase negative",
    "proteus mirabilis",
    "gram negative rod(s)",
)


def load_terms() -> dict[str, Any]:
    """The EHRSQL-2024 vocabulary (see ``data/SOURCE.md``)."""
    text = (
        resources.files("clinbridge.synthetic")
        .joinpath("data/ehrsql2024_terms.json")
        .read_text("utf-8")
    )
    terms: dict[str, Any] = json.loads(text)
    return terms


def _ddl() -> str:
    return (
        resources.files("clinbridge.synthetic")
        .joinpath("data/ehrsql2024_mimic_iv.sql")
        .read_text("utf-8")
    )


def _ts(minutes: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Minutes since 2100-01-01 → 'YYYY-MM-DD HH:MM:SS' text."""
    stamps = _YEAR_START + minutes.astype("timedelta64[m]")
    text = np.datetime_as_string(stamps, unit="m")
    return np.char.add(np.char.replace(text, "T", " "), ":00")


def _route(drug: str, rng: np.random.Generator) -> list[str]:
    d = drug.lower()
    rules = (
        (r"cream|ointment|gel|lotion|powder|topical", ["tp"]),
        (r"patch", ["td"]),
        (r"neb|inhal|albuterol|ipratropium|fluticasone", ["ih", "neb"]),
        (r"suppositor|rectal", ["pr"]),
        (r"insulin|heparin|enoxaparin", ["sc", "subcut"]),
        (r"eye|ophth|tear", ["both eyes"]),
        (
            r"bag|iv\b|\bml\b|dextrose|sodium chloride|\bns\b|ringer|meq|vancomycin|cefazolin|piperacillin|propofol|fentanyl citrate|midazolam|norepinephrine",
            ["iv", "iv drip", "iv bolus"],
        ),
        (r"tablet|capsule|\bpo\b|liquid|oral|solution|syrup|sr\b|er\b", ["po", "po/ng", "oral"]),
    )
    for pattern, routes in rules:
        if re.search(pattern, d):
            k = 1 + int(rng.random() < 0.4)
            return list(dict.fromkeys(routes[: min(k, len(routes))]))
    return [str(rng.choice(["po", "po/ng", "iv", "ng"]))]


@dataclass
class _Frame:
    name: str
    df: pd.DataFrame


def _pairs(
    rng: np.random.Generator,
    n_parents: int,
    n_items: int,
    p: float,
    reps_mean: float | np.ndarray[Any, Any],
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(parent, item) index arrays: each item with probability p per parent, repeated 1+Poisson
    (``reps_mean`` per parent when an array: longer stays hold more events)."""
    mask = rng.random((n_parents, n_items)) < p
    parent, item = np.nonzero(mask)
    lam = reps_mean[parent] if isinstance(reps_mean, np.ndarray) else reps_mean
    reps = 1 + rng.poisson(lam, size=parent.size)
    return np.repeat(parent, reps), np.repeat(item, reps)


class _Planter:
    """The terms each question asks of the patient it names (``planted`` in the term list),
    added to every admission (or ICU stay) of that patient, three times, so patient-level gold SQL —
    first/last visit, a month, 'since' — has data to find. Patients not named are untouched."""

    def __init__(self, terms: dict[str, Any], subject: np.ndarray[Any, Any]) -> None:
        self.wanted: dict[str, list[tuple[int, str]]] = {}
        for sid, kind, term in terms.get("planted", ()):
            self.wanted.setdefault(str(kind), []).append((int(sid), str(term)))
        self.row = {int(sid): k for k, sid in enumerate(subject)}

    def add(
        self,
        kind: str,
        parent_of: np.ndarray[Any, Any],
        vocab: list[str],
        pairs: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]],
    ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """``pairs`` (parent, term) with the planted ones; ``parent_of`` maps a parent to its
        patient row."""
        index = {t: j for j, t in enumerate(vocab)}
        by_patient: dict[int, list[int]] = {}
        for parent, row in enumerate(parent_of):
            by_patient.setdefault(int(row), []).append(parent)
        extra_a: list[int] = []
        extra_i: list[int] = []
        for sid, term in self.wanted.get(kind, ()):
            row, j = self.row.get(sid), index.get(term)
            if row is None or j is None:
                continue
            parents = by_patient.get(row, [])
            extra_a += parents * 3
            extra_i += [j] * (3 * len(parents))
        a = np.concatenate([pairs[0], np.array(extra_a, dtype=np.int64)])
        i = np.concatenate([pairs[1], np.array(extra_i, dtype=np.int64)])
        return a, i

    def units(
        self, unit: np.ndarray[Any, Any], row_of: np.ndarray[Any, Any], kind: str = "careunits"
    ) -> np.ndarray[Any, Any]:
        """A per-admission value (the ward, the admission location) of a named patient's
        admissions: the ones questions ask of them, in turn."""
        asked: dict[int, list[str]] = {}
        for sid, term in self.wanted.get(kind, ()):
            asked.setdefault(self.row.get(sid, -1), []).append(term)
        for row, terms in asked.items():
            for k, adm in enumerate(np.flatnonzero(row_of == row)):
                unit[adm] = terms[k % len(terms)]
        return unit

    def routes(
        self, route: np.ndarray[Any, Any], row_of: np.ndarray[Any, Any], rng: np.random.Generator
    ) -> None:
        """Give a few prescriptions of a named patient each route a question asks of them."""
        for sid, term in self.wanted.get("routes", ()):
            rows = np.flatnonzero(row_of == self.row.get(sid, -1))
            if rows.size:
                route[rng.choice(rows, size=min(6, rows.size), replace=False)] = term


def _within(
    rng: np.random.Generator, start: np.ndarray[Any, Any], end: np.ndarray[Any, Any]
) -> np.ndarray[Any, Any]:
    span = np.maximum(end - start, 1)
    out: np.ndarray[Any, Any] = start + (rng.random(start.size) * span).astype(np.int64)
    return out


def _lab_range(label: str) -> tuple[str, float, float]:
    low = label.lower()
    for key, unit, lo, hi in _LAB_RANGES:
        if key in low:
            return unit, lo, hi
    return "units", 0.5, 100.0


def build_frames(patients: int, seed: int) -> dict[str, pd.DataFrame]:
    """All 17 tables as DataFrames (text timestamps), deterministic for (patients, seed)."""
    if patients < 1:
        raise ConfigError("--patients must be at least 1")
    rng = np.random.default_rng(seed)
    terms = load_terms()
    out: dict[str, pd.DataFrame] = {}

    # -- dictionaries ----------------------------------------------------------------------
    labs = list(dict.fromkeys(terms["labs"] + ["hemoglobin", "glucose", "potassium", "sodium"]))
    d_labitems = pd.DataFrame(
        {
            "row_id": np.arange(1, len(labs) + 1),
            "itemid": 50800 + np.arange(len(labs)),
            "label": labs,
        }
    )
    items: list[tuple[str, str, str]] = [(lbl, links, lbl[:12]) for lbl, links in terms["items"]]
    known = {(i[0], i[1]) for i in items}
    items += [
        (lbl, links, abbr) for lbl, links, abbr, *_ in _EXTRA_ITEMS if (lbl, links) not in known
    ]
    d_items = pd.DataFrame(
        {
            "row_id": np.arange(1, len(items) + 1),
            "itemid": 220000 + np.arange(len(items)),
            "label": [i[0] for i in items],
            "abbreviation": [i[2] for i in items],
            "linksto": [i[1] for i in items],
        }
    )
    dx_titles = list(terms["diagnoses"])
    px_titles = list(terms["procedures"])
    d_dx = pd.DataFrame(
        {
            "row_id": np.arange(1, len(dx_titles) + 1),
            "icd_code": [f"x{i:04d}" for i in range(len(dx_titles))],
            "long_title": dx_titles,
        }
    )
    d_px = pd.DataFrame(
        {
            "row_id": np.arange(1, len(px_titles) + 1),
            "icd_code": [f"p{i:04d}" for i in range(len(px_titles))],
            "long_title": px_titles,
        }
    )
    out.update(d_labitems=d_labitems, d_items=d_items, d_icd_diagnoses=d_dx, d_icd_procedures=d_px)

    # -- patients ----------------------------------------------------------------------------
    named = [int(s) for s in terms["subject_ids"]]
    extra = [10041000 + 37 * i for i in range(max(0, patients - len(named)))]
    subject = np.array((named + extra)[:patients], dtype=np.int64)
    n = subject.size
    age = rng.integers(20, 91, size=n)
    birth_min = -(age * 365 + rng.integers(0, 365, size=n)) * 24 * 60  # before 2100-01-01
    n_adm = np.clip(2 + rng.poisson(2.0, size=n), 1, 7)
    # the patients the questions name are seen more often, so that months and 'since' windows
    # of the year hold their data
    n_adm = np.where(np.isin(subject, named), np.clip(n_adm + 3, 1, 10), n_adm)
    # still admitted at 'now': the patients the questions ask about their current stay, and
    # about three in ten of the others
    named_current = {int(x) for x in terms.get("current_subject_ids", ())}
    current = np.isin(subject, list(named_current)) | (rng.random(n) < 0.3)
    plant = _Planter(terms, subject)

    # -- admissions: one slot of the year per admission, the last one may still be open -----
    pat = np.repeat(np.arange(n), n_adm)
    k = np.concatenate([np.arange(c) for c in n_adm])
    slots = n_adm[pat]
    slot_len = _YEAR_MIN // slots
    start = k * slot_len + (rng.random(pat.size) * 0.5 * slot_len).astype(np.int64)
    length = np.minimum(
        (rng.uniform(2, 40, size=pat.size) * 1440).astype(np.int64), (slot_len * 6) // 10
    )
    end = start + length
    last = k == slots - 1
    open_ = last & current[pat]
    # open admissions began in the last ten days of the year
    start = np.where(
        open_, _YEAR_MIN - (rng.uniform(1, 10, size=pat.size) * 1440).astype(np.int64), start
    )
    end = np.where(open_, _NOW_MIN, end)
    days = (end - start) / 1440.0
    hadm = 20000000 + np.arange(pat.size) * 13 + rng.integers(0, 13, size=pat.size)
    loc_terms = list(terms["admission_locations"]) + list(_ADMISSION_LOCATIONS_EXTRA)
    adm_age = age[pat]
    dischtime = _ts(end).astype(object)
    dischtime[open_] = None
    admissions = pd.DataFrame(
        {
            "row_id": np.arange(1, pat.size + 1),
            "subject_id": subject[pat],
            "hadm_id": hadm,
            "admittime": _ts(start),
            "dischtime": dischtime,
            "admission_type": rng.choice(_ADMISSION_TYPES, size=pat.size),
            "admission_location": plant.units(
                rng.choice(loc_terms, size=pat.size).astype(object), pat, "admission_locations"
            ),
            "discharge_location": np.where(
                open_, np.array(None, dtype=object), rng.choice(_DISCHARGE_LOCATIONS, size=pat.size)
            ),
            "insurance": rng.choice(_INSURANCE, size=pat.size),
            "language": "english",
            "marital_status": rng.choice(_MARITAL, size=pat.size),
            "age": adm_age,
        }
    )
    out["admissions"] = admissions
    died = (rng.random(n) < 0.12) & ~current
    last_end = np.zeros(n, dtype=np.int64)
    np.maximum.at(last_end, pat, end)
    dod_min = np.minimum(
        last_end + (rng.uniform(0, 20, size=n) * 1440).astype(np.int64), _NOW_MIN - 60
    )
    dod = _ts(dod_min).astype(object)
    dod[~died] = None
    dob = np.array([s[:10] + " 00:00:00" for s in _ts(birth_min)], dtype=object)
    out["patients"] = pd.DataFrame(
        {
            "row_id": np.arange(1, n + 1),
            "subject_id": subject,
            "gender": rng.choice(["m", "f"], size=n),
            "dob": dob,
            "dod": dod,
        }
    )

    # -- ICU stays (most admissions) and transfers ---------------------------
    has_icu = rng.random(pat.size) < 0.85
    a_icu = np.flatnonzero(has_icu)
    span = end[a_icu] - start[a_icu]
    in_t = start[a_icu] + (span * rng.uniform(0.02, 0.15, size=a_icu.size)).astype(np.int64)
    out_t = start[a_icu] + (span * rng.uniform(0.85, 0.98, size=a_icu.size)).astype(np.int64)
    icu_open = open_[a_icu] & (rng.random(a_icu.size) < 0.7)
    out_t = np.where(icu_open, _NOW_MIN, out_t)
    stay_days = (out_t - in_t) / 1440.0
    stay = 30000000 + np.arange(a_icu.size) * 7 + rng.integers(0, 7, size=a_icu.size)
    first_unit = rng.choice(_ICU_UNITS, size=a_icu.size)
    last_unit = np.where(
        rng.random(a_icu.size) < 0.8, first_unit, rng.choice(_ICU_UNITS, size=a_icu.size)
    )
    outtime = _ts(out_t).astype(object)
    outtime[icu_open] = None
    out["icustays"] = pd.DataFrame(
        {
            "row_id": np.arange(1, a_icu.size + 1),
            "subject_id": subject[pat[a_icu]],
            "hadm_id": hadm[a_icu],
            "stay_id": stay,
            "first_careunit": first_unit,
            "last_careunit": last_unit,
            "intime": _ts(in_t),
            "outtime": outtime,
        }
    )
    wards = [u for u in terms["careunits"] if u not in _ICU_UNITS]
    t_rows: list[pd.DataFrame] = []
    # ED → ward for every admission; ward → ICU unit where there is a stay; discharge
    ed = pd.DataFrame(
        {
            "hadm": np.arange(pat.size),
            "eventtype": "ed",
            "careunit": rng.choice(
                ["emergency department", "emergency department observation"], size=pat.size
            ),
            "t_in": start,
            "t_out": start + (length * 0.05).astype(np.int64),
        }
    )
    ward = pd.DataFrame(
        {
            "hadm": np.arange(pat.size),
            "eventtype": "admit",
            "careunit": plant.units(rng.choice(wards, size=pat.size).astype(object), pat),
            "t_in": start + (length * 0.05).astype(np.int64),
            "t_out": end,
        }
    )
    icu_t = pd.DataFrame(
        {
            "hadm": a_icu,
            "eventtype": "transfer",
            "careunit": first_unit,
            "t_in": in_t,
            "t_out": out_t,
        }
    )
    t_rows = [ed, ward, icu_t]
    tr = pd.concat(t_rows, ignore_index=True).sort_values(["hadm", "t_in"], kind="stable")
    t_out = _ts(tr["t_out"].to_numpy()).astype(object)
    t_out[open_[tr["hadm"].to_numpy()] & (tr["t_out"].to_numpy() >= _NOW_MIN)] = None
    out["transfers"] = pd.DataFrame(
        {
            "row_id": np.arange(1, len(tr) + 1),
            "subject_id": subject[pat[tr["hadm"].to_numpy()]],
            "hadm_id": hadm[tr["hadm"].to_numpy()],
            "transfer_id": 40000000 + np.arange(len(tr)),
            "eventtype": tr["eventtype"].to_numpy(),
            "careunit": tr["careunit"].to_numpy(),
            "intime": _ts(tr["t_in"].to_numpy()),
            "outtime": t_out,
        }
    )

    # -- diagnoses and procedures (timed at the admission, as EHRSQL does) -------------------
    a, i = plant.add(
        "diagnoses", pat, dx_titles, _pairs(rng, pat.size, len(dx_titles), 8 / len(dx_titles), 0.0)
    )
    out["diagnoses_icd"] = pd.DataFrame(
        {
            "row_id": np.arange(1, a.size + 1),
            "subject_id": subject[pat[a]],
            "hadm_id": hadm[a],
            "icd_code": d_dx["icd_code"].to_numpy()[i],
            "charttime": _ts(start[a]),
        }
    )
    a, i = plant.add(
        "procedures", pat, px_titles, _pairs(rng, pat.size, len(px_titles), 4 / len(px_titles), 0.0)
    )
    out["procedures_icd"] = pd.DataFrame(
        {
            "row_id": np.arange(1, a.size + 1),
            "subject_id": subject[pat[a]],
            "hadm_id": hadm[a],
            "icd_code": d_px["icd_code"].to_numpy()[i],
            "charttime": _ts(_within(rng, start[a], end[a])),
        }
    )

    # -- labs: most tests in every admission ---------------------------------------------------
    a, i = plant.add("labs", pat, labs, _pairs(rng, pat.size, len(labs), 0.8, days * 0.12))
    ranges = [_lab_range(lbl) for lbl in labs]
    lo = np.array([r[1] for r in ranges])[i]
    hi = np.array([r[2] for r in ranges])[i]
    # wide-range tests are reported as whole numbers (urea nitrogen 23), narrow ones to 0.1
    value = lo + rng.random(i.size) * (hi - lo)
    value = np.where(hi - lo > 20, np.round(value), np.round(value, 1))
    out["labevents"] = pd.DataFrame(
        {
            "row_id": np.arange(1, a.size + 1),
            "subject_id": subject[pat[a]],
            "hadm_id": hadm[a],
            "itemid": d_labitems["itemid"].to_numpy()[i],
            "charttime": _ts(_within(rng, start[a], end[a])),
            "valuenum": value,
            "valueuom": np.array([r[0] for r in ranges], dtype=object)[i],
        }
    )

    # -- prescriptions ----------------------------------------------------------------------
    drugs = list(terms["drugs"])
    routes = [_route(d, rng) for d in drugs]
    a, i = plant.add(
        "drugs", pat, drugs, _pairs(rng, pat.size, len(drugs), 0.45, 0.3 + days * 0.04)
    )
    t0 = _within(rng, start[a], end[a])
    stop = np.minimum(t0 + (rng.uniform(0.2, 5, size=a.size) * 1440).astype(np.int64), _NOW_MIN)
    pick = rng.random(a.size)
    route = np.array(
        [routes[j][int(p * len(routes[j]))] for j, p in zip(i, pick, strict=True)], dtype=object
    )
    plant.routes(route, pat[a], rng)
    unit = np.where(np.isin(route, ["iv", "iv drip", "iv bolus"]), "ml", "mg")
    dose = rng.choice([1, 2, 5, 10, 20, 25, 40, 50, 100, 250, 500, 1000], size=a.size)
    out["prescriptions"] = pd.DataFrame(
        {
            "row_id": np.arange(1, a.size + 1),
            "subject_id": subject[pat[a]],
            "hadm_id": hadm[a],
            "starttime": _ts(t0),
            "stoptime": _ts(stop),
            "drug": np.array(drugs, dtype=object)[i],
            "dose_val_rx": dose.astype(str),
            "dose_unit_rx": unit,
            "route": route,
        }
    )

    # -- ICU charting, inputs, outputs --------------------------------------------------------
    def stay_events(table: str, p: float, reps: float) -> tuple[np.ndarray[Any, Any], ...]:
        sel = d_items[d_items["linksto"] == table]
        s_idx, j = plant.add(
            f"items:{table}",
            pat[a_icu],
            [str(x) for x in sel["label"]],
            _pairs(rng, a_icu.size, len(sel), p, reps * stay_days),
        )
        times = _within(rng, in_t[s_idx], out_t[s_idx])
        return s_idx, sel["itemid"].to_numpy()[j], sel["label"].to_numpy()[j], times

    def stay_keys(s_idx: np.ndarray[Any, Any]) -> dict[str, Any]:
        """The key columns of an ICU stay's event rows: row, patient, admission and stay ids."""
        return {
            "row_id": np.arange(1, s_idx.size + 1),
            "subject_id": subject[pat[a_icu[s_idx]]],
            "hadm_id": hadm[a_icu[s_idx]],
            "stay_id": stay[s_idx],
        }

    s_idx, itemid, label, times = stay_events("chartevents", 1.0, 3.0)
    vit = [_VITALS.get(str(lbl), ("", 0.0, 100.0)) for lbl in label]
    v_lo = np.array([v[1] for v in vit], dtype=float)
    v_hi = np.array([v[2] for v in vit], dtype=float)
    out["chartevents"] = pd.DataFrame(
        {
            **stay_keys(s_idx),
            "itemid": itemid,
            "charttime": _ts((times // 60) * 60),  # charted on the hour
            "valuenum": np.round(v_lo + rng.random(s_idx.size) * (v_hi - v_lo), 1),
            "valueuom": np.array([v[0] for v in vit], dtype=object),
        }
    )
    s_idx, itemid, _label, times = stay_events("inputevents", 0.7, 0.4)
    out["inputevents"] = pd.DataFrame(
        {
            **stay_keys(s_idx),
            "starttime": _ts(times),
            "itemid": itemid,
            "totalamount": np.round(rng.uniform(5, 1000, size=s_idx.size), 1),
            "totalamountuom": "ml",
        }
    )
    s_idx, itemid, _label, times = stay_events("outputevents", 0.8, 0.6)
    out["outputevents"] = pd.DataFrame(
        {
            **stay_keys(s_idx),
            "charttime": _ts(times),
            "itemid": itemid,
            "value": np.round(rng.uniform(5, 800, size=s_idx.size), 0),
            "valueuom": "ml",
        }
    )

    # -- microbiology -------------------------------------------------------------------------
    specimens = list(terms["specimens"])
    a, i = plant.add(
        "specimens",
        pat,
        specimens,
        _pairs(rng, pat.size, len(specimens), 6 / len(specimens), 0.3 + days * 0.05),
    )
    org = rng.choice(_ORGANISMS, size=a.size).astype(object)
    org[rng.random(a.size) < 0.4] = None
    out["microbiologyevents"] = pd.DataFrame(
        {
            "row_id": np.arange(1, a.size + 1),
            "subject_id": subject[pat[a]],
            "hadm_id": hadm[a],
            "charttime": _ts(_within(rng, start[a], end[a])),
            "spec_type_desc": np.array(specimens, dtype=object)[i],
            "test_name": rng.choice(_TESTS, size=a.size),
            "org_name": org,
        }
    )

    # -- cost: one row per diagnosis, procedure, prescription and lab result -----------------
    parts = []
    for table, time_col in (
        ("diagnoses_icd", "charttime"),
        ("procedures_icd", "charttime"),
        ("prescriptions", "starttime"),
        ("labevents", "charttime"),
    ):
        src = out[table]
        base = {"diagnoses_icd": 40, "procedures_icd": 900, "prescriptions": 8, "labevents": 15}[
            table
        ]
        parts.append(
            pd.DataFrame(
                {
                    "subject_id": src["subject_id"].to_numpy(),
                    "hadm_id": src["hadm_id"].to_numpy(),
                    "event_type": table,
                    "event_id": src["row_id"].to_numpy(),
                    "chargetime": src[time_col].to_numpy(),
                    "cost": np.round(base * rng.lognormal(0, 0.5, size=len(src)), 2),
                }
            )
        )
    cost = pd.concat(parts, ignore_index=True)
    cost.insert(0, "row_id", np.arange(1, len(cost) + 1))
    out["cost"] = cost
    return {t: out[t] for t in TABLES}


def generate_mimic(
    url: str, *, patients: int = 100, seed: int = 0, replace: bool = False, notes: bool = False
) -> dict[str, int]:
    """Create the EHRSQL-2024 tables at ``url`` and fill them; returns rows per table.

    Args:
        url: Target database (``sqlite:///mimic_iv.sqlite`` gives the shared task's own layout;
            DuckDB and PostgreSQL get the same tables without the foreign keys).
        patients: Number of patients (the subject ids the EHRSQL questions name come first).
        seed: Random seed; the same (patients, seed) always gives the same database.
        replace: Drop the tables first if they exist.
        notes: Also write a MIMIC-IV-Note ``discharge`` table, one note per admission,
            consistent with the tables (:mod:`._mimic_notes`).
    """
    from clinbridge.adapters.omop._bulk import BulkWriter, ColumnType, open_writable

    frames = build_frames(patients, seed)
    if notes:
        from clinbridge.synthetic._mimic_notes import discharge_notes

        frames["discharge"] = discharge_notes(frames, seed)
    db = open_writable(url)
    try:
        existing = {t.lower() for t in db.table_names()}
        if existing & set(TABLES) and not replace:
            raise ConfigError(
                f"{url} already has MIMIC tables ({', '.join(sorted(existing & set(TABLES))[:4])}, ...); "
                "use --replace"
            )
        writer = BulkWriter(db)
        for stmt in _statements(db.dialect):
            writer.execute(stmt)
        if notes:
            from clinbridge.synthetic._mimic_notes import DISCHARGE_DDL

            if replace:
                writer.execute('DROP TABLE IF EXISTS "discharge"')
            writer.execute(DISCHARGE_DDL)
        for table, df in frames.items():
            types: dict[str, ColumnType] = {
                c: (
                    "integer"
                    if pd.api.types.is_integer_dtype(df[c])
                    else "float"
                    if pd.api.types.is_float_dtype(df[c])
                    else "string"
                )
                for c in df.columns
            }
            df = df.astype(object).where(df.notna(), None)
            writer.write(table, df, types)
        for table, column in _INDEXES:  # speed only; the tables are exactly the shared task's
            if column not in frames[table].columns:
                continue
            writer.execute(
                f'CREATE INDEX IF NOT EXISTS "idx_{table}_{column}" ON "{table}" ("{column}")'
            )
        if db.backend == "sqlite":
            db.conn.commit()
    finally:
        db.close()
    return {t: len(df) for t, df in frames.items()}


_INDEXES = (
    *tuple(
        (t, c)
        for t in TABLES
        for c in ("subject_id", "hadm_id", "stay_id", "itemid", "icd_code")
        if not t.startswith("d_") and not (t == "patients" and c != "subject_id")
    ),
    ("d_items", "label"),
    ("d_labitems", "label"),
    ("prescriptions", "drug"),
)


def _statements(dialect: str) -> list[str]:
    """The shared task's DDL, one statement each; foreign keys kept on SQLite only."""
    text = "\n".join(line for line in _ddl().splitlines() if not line.startswith("--"))
    out = []
    for stmt in text.split(";"):
        stmt = stmt.strip()
        if not stmt:
            continue
        if dialect != "sqlite":
            lines = [ln for ln in stmt.splitlines() if "FOREIGN KEY" not in ln]
            stmt = re.sub(r",\s*\)\s*$", "\n)", "\n".join(lines))
        out.append(stmt)
    return out
