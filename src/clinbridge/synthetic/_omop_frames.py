"""Vectorised builders of the clinical tables of the synthetic OMOP CDM (see :mod:`.omop`).

Persons, observation periods, visits, conditions, drugs, measurements, notes and the drug and
condition eras, all drawn from one ``numpy.random.Generator`` in a fixed order, so the same seed
gives the same rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from clinbridge.errors import ConfigError
from clinbridge.synthetic import _omop_vocab as V

__all__ = ["FrameBuilder"]

EHR = 32817
DAY = np.timedelta64(1, "D")
_START = np.datetime64("2014-01-01")
_END = np.datetime64("2024-12-31")

# chronic condition: (base prevalence, extra per decade over 40, sex factor for male)
_CHRONIC: dict[str, tuple[float, float, float]] = {
    "t2dm": (0.04, 0.025, 1.1),
    "t1dm": (0.006, 0.0, 1.0),
    "htn": (0.08, 0.06, 1.1),
    "hld": (0.08, 0.04, 1.1),
    "obesity": (0.22, 0.0, 1.0),
    "ckd": (0.01, 0.02, 1.0),
    "hf": (0.004, 0.012, 1.2),
    "afib": (0.003, 0.012, 1.3),
    "asthma": (0.08, 0.0, 0.9),
    "copd": (0.01, 0.015, 1.1),
    "depression": (0.10, 0.0, 0.6),
    "anemia": (0.04, 0.005, 0.5),
}
# chronic condition -> maintenance drugs (each given with the probability shown)
_MAINTENANCE: dict[str, tuple[tuple[str, float], ...]] = {
    "t2dm": (("metformin", 0.85), ("glargine", 0.25)),
    "t1dm": (("glargine", 1.0),),
    "htn": (("lisinopril", 0.6), ("amlodipine", 0.4)),
    "hld": (("atorvastatin", 0.8),),
    "afib": (("apixaban", 0.6), ("warfarin", 0.3)),
    "hf": (("furosemide", 0.9),),
    "asthma": (("albuterol", 0.9),),
    "copd": (("albuterol", 0.9),),
    "depression": (("sertraline", 0.6),),
}
# acute reasons for hospital stays: (condition, weight) ; drugs given in hospital
_ADMIT_REASONS = (
    ("pneumonia", 0.3),
    ("sepsis", 0.15),
    ("chf", 0.15),
    ("ami", 0.12),
    ("gib", 0.1),
    ("aki", 0.18),
)
_ER_REASONS = (("asthma", 0.3), ("pneumonia", 0.25), ("gib", 0.07), ("aki", 0.08), ("afib", 0.3))
_HOSPITAL_DRUGS: dict[str, tuple[str, ...]] = {
    "pneumonia": ("ceftriaxone",),
    "sepsis": ("vancomycin", "ceftriaxone"),
    "chf": ("furosemide",),
    "ami": ("heparin",),
    "gib": ("omeprazole",),
    "aki": (),
}


def _dates(days: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return (_START + days.astype("int64") * DAY).astype("datetime64[ns]")


def _course(sel: pd.DataFrame, supply: Any, drug: Any) -> pd.DataFrame:
    """One drug exposure per visit of ``sel`` (person, day, visit), with its days of supply."""
    return pd.DataFrame(
        {"p": sel["p"], "day": sel["day"], "vid": sel["vid"], "supply": supply, "drug": drug}
    )


def _lookup(keys: Any, mapping: dict[str, Any], dtype: Any = object) -> np.ndarray[Any, Any]:
    """Vectorised ``mapping[key]`` for an array of string keys (all keys must be in mapping)."""
    cat = pd.Categorical(np.asarray(keys, dtype=object), categories=list(mapping))
    codes = np.asarray(cat.codes)
    if (codes < 0).any():
        raise KeyError(f"unmapped keys: {sorted(set(np.asarray(keys)[codes < 0]))[:5]}")
    return np.asarray(list(mapping.values()), dtype=dtype)[codes]


_LAB_KEYS = list(V.LABS)
_LAB_CLIP = {
    "hgb": (4, 20),
    "creat": (0.3, 12),
    "gluc": (40, 500),
    "sbp": (70, 220),
    "dbp": (40, 130),
    "hr": (35, 180),
    "bmi": (15, 60),
    "k": (2.5, 7),
    "na": (120, 160),
    "a1c": (4, 15),
    "wt": (35, 250),
    "ht": (120, 220),
    "temp": (35, 41),
    "wbc": (1, 40),
    "plt": (20, 700),
}


class FrameBuilder:
    """Draws the clinical tables of one block of patients into ``frames``."""

    def __init__(self, patients: int, seed: int | list[int]) -> None:
        if not 1 <= patients <= 1_000_000:
            raise ConfigError(f"patients must be between 1 and 1,000,000, not {patients}")
        self.n = patients
        self.rng = np.random.default_rng(seed)
        self.frames: dict[str, pd.DataFrame] = {}

    # -- people --------------------------------------------------------------------------------
    def persons(self) -> None:
        rng, n = self.rng, self.n
        self.pid = np.arange(1, n + 1, dtype=np.int64)
        self.male = rng.random(n) < 0.49
        # age on 2024-12-31: a population skewed to adults who use health care
        age_end = np.clip(np.round(18 + rng.beta(1.6, 1.4, n) * 77), 18, 95).astype(np.int64)
        birth_days = (_END - _START) / DAY - age_end * 365.25 - rng.integers(0, 365, n)
        self.birth = _dates(birth_days)
        self.age_end = age_end
        race = rng.choice([8527, 8516, 8515], n, p=[0.7, 0.2, 0.1])
        eth = np.where(rng.random(n) < 0.15, 38003563, 38003564)
        births = pd.DatetimeIndex(self.birth)
        self.frames["person"] = pd.DataFrame(
            {
                "person_id": self.pid,
                "gender_concept_id": np.where(self.male, 8507, 8532),
                "year_of_birth": births.year.to_numpy(),
                "month_of_birth": births.month.to_numpy(),
                "day_of_birth": births.day.to_numpy(),
                "birth_datetime": self.birth,
                "race_concept_id": race,
                "ethnicity_concept_id": eth,
                "person_source_value": np.char.add("SYN-", self.pid.astype(str)),
                "gender_source_value": np.where(self.male, "M", "F"),
                "gender_source_concept_id": 0,
                "race_source_value": pd.Series(race)
                .map({8527: "white", 8516: "black", 8515: "asian"})
                .to_numpy(),
                "race_source_concept_id": 0,
                "ethnicity_source_value": np.where(eth == 38003563, "hispanic", "nonhispanic"),
                "ethnicity_source_concept_id": 0,
            }
        )

        # chronic conditions (age- and sex-dependent), then death risk from age and burden
        decades = np.clip((age_end - 40) / 10, 0, None)
        self.chronic: dict[str, np.ndarray[Any, Any]] = {}
        for key, (base, per_decade, male_factor) in _CHRONIC.items():
            p = (base + per_decade * decades) * np.where(self.male, male_factor, 1.0)
            self.chronic[key] = rng.random(n) < np.clip(p, 0, 0.8)
        self.chronic["t1dm"] &= ~self.chronic["t2dm"]
        burden = sum(v.astype(np.int64) for v in self.chronic.values())

        total_days = int((_END - _START) / DAY)
        start = rng.integers(0, total_days // 2, n)
        # nobody is observed before their 18th birthday
        adult = ((self.birth - _START.astype("datetime64[ns]")) / np.timedelta64(1, "D")).astype(
            np.int64
        ) + 18 * 366
        start = np.maximum(start, adult)
        start = np.minimum(start, total_days - 30)
        p_death = np.clip(0.01 + 0.012 * decades + 0.01 * burden, 0, 0.6)
        dies = rng.random(n) < p_death
        death_day = start + ((total_days - start) * rng.uniform(0.3, 1.0, n)).astype(np.int64)
        end = np.where(dies, death_day, total_days)
        self.dead = dies
        self.obs_start, self.obs_end = start, end
        self.frames["observation_period"] = pd.DataFrame(
            {
                "observation_period_id": self.pid,
                "person_id": self.pid,
                "observation_period_start_date": _dates(start),
                "observation_period_end_date": _dates(end),
                "period_type_concept_id": EHR,
            }
        )
        cause = np.where(
            self.chronic["hf"],
            V.CONDITIONS["chf"][0],
            np.where(self.chronic["ckd"], V.CONDITIONS["ckd"][0], 0),
        )
        self.frames["death"] = pd.DataFrame(
            {
                "person_id": self.pid[dies],
                "death_date": _dates(end[dies]),
                "death_datetime": _dates(end[dies]),
                "death_type_concept_id": EHR,
                "cause_concept_id": cause[dies],
                "cause_source_value": None,
                "cause_source_concept_id": 0,
            }
        )
        # person-level physiology baselines
        self.bmi = np.where(
            self.chronic["obesity"], rng.normal(35, 4, n), rng.normal(26, 3.5, n)
        ).clip(16, 60)
        self.height = np.where(self.male, rng.normal(1.76, 0.07, n), rng.normal(1.63, 0.065, n))
        self.hgb = (
            np.where(self.male, rng.normal(14.6, 1.0, n), rng.normal(13.2, 0.9, n))
            - 2.3 * self.chronic["anemia"]
        )
        self.creat = np.where(
            self.male, rng.normal(0.95, 0.13, n), rng.normal(0.76, 0.11, n)
        ) * np.where(self.chronic["ckd"], rng.lognormal(0.8, 0.3, n), 1.0)
        diabetic = self.chronic["t2dm"] | self.chronic["t1dm"]
        self.a1c = np.where(diabetic, rng.normal(7.6, 1.2, n), rng.normal(5.3, 0.3, n)).clip(
            4.0, 14.0
        )
        self.gluc = np.where(diabetic, 25 * self.a1c - 30, rng.normal(92, 8, n))
        self.sbp = rng.normal(118, 10, n) + 16 * self.chronic["htn"] + 0.25 * (age_end - 45)
        self.dbp = rng.normal(75, 7, n) + 7 * self.chronic["htn"]
        self.hr = rng.normal(72, 8, n) + 6 * self.chronic["hf"]

    # -- visits --------------------------------------------------------------------------------
    def visits(self) -> None:
        rng, n = self.rng, self.n
        years = (self.obs_end - self.obs_start) / 365.25
        burden = sum(v.astype(np.float64) for v in self.chronic.values())
        rate = {
            "op": (0.9 + 0.5 * burden) * years,
            "er": (0.12 + 0.08 * burden) * years,
            "ip": (0.04 + 0.05 * burden) * years,
        }
        parts = []
        for kind, lam in rate.items():
            counts = rng.poisson(lam)
            person = np.repeat(np.arange(n), counts)
            span = (self.obs_end - self.obs_start)[person]
            day = self.obs_start[person] + (rng.random(person.size) * span).astype(np.int64)
            parts.append(pd.DataFrame({"p": person, "day": day, "kind": kind}))
        v = pd.concat(parts, ignore_index=True)
        # hospital stays: some come through the ER (262), some are ICU admissions (32037)
        ip = (v["kind"] == "ip").to_numpy()
        u = rng.random(len(v))
        concept = np.select(
            [
                v["kind"].to_numpy() == "op",
                v["kind"].to_numpy() == "er",
                ip & (u < 0.15),
                ip & (u < 0.45),
            ],
            [9202, 9203, 32037, 262],
            9201,
        )
        los = np.select(
            [concept == 9202, concept == 9203, concept == 32037],
            [0, (rng.random(len(v)) < 0.3).astype(np.int64), 2 + rng.poisson(4, len(v))],
            1 + rng.poisson(2.5, len(v)),
        )
        day = v["day"].to_numpy()
        end_cap = self.obs_end[v["p"].to_numpy()]
        los = np.minimum(los, np.maximum(end_cap - day, 0))
        order = np.lexsort((day, v["p"].to_numpy()))
        p = v["p"].to_numpy()[order]
        day, concept, los = day[order], concept[order], los[order]
        hour = np.where(
            np.isin(concept, [9202]), rng.integers(8, 17, len(p)), rng.integers(0, 24, len(p))
        )
        vid = np.arange(1, len(p) + 1, dtype=np.int64)
        start_dt = _dates(day) + hour.astype("timedelta64[h]")
        end_dt = _dates(day + los) + np.where(
            los > 0, rng.integers(8, 18, len(p)), hour + 1
        ).astype("timedelta64[h]")
        end_dt = np.maximum(end_dt, start_dt)
        self.v = pd.DataFrame({"vid": vid, "p": p, "day": day, "los": los, "concept": concept})

        def visit_columns(kind: str, id_column: str) -> dict[str, Any]:
            """The columns visit_occurrence and visit_detail share, named after ``kind``."""
            return {
                id_column: vid,
                "person_id": self.pid[p],
                f"{kind}_concept_id": concept,
                f"{kind}_start_date": _dates(day),
                f"{kind}_start_datetime": start_dt,
                f"{kind}_end_date": _dates(day + los),
                f"{kind}_end_datetime": end_dt,
                f"{kind}_type_concept_id": EHR,
            }

        self.frames["visit_occurrence"] = pd.DataFrame(
            {
                **visit_columns("visit", "visit_occurrence_id"),
                "visit_source_value": pd.Series(concept)
                .map({9202: "OP", 9203: "ER", 9201: "IP", 262: "ERIP", 32037: "ICU"})
                .to_numpy(),
                "visit_source_concept_id": 0,
                "admitted_from_concept_id": np.where(concept == 262, 9203, 0),
                "discharged_to_concept_id": 0,
            }
        )
        self.frames["visit_detail"] = pd.DataFrame(
            {
                **visit_columns("visit_detail", "visit_detail_id"),
                "visit_detail_source_value": self.frames["visit_occurrence"][
                    "visit_source_value"
                ].to_numpy(),
                "visit_detail_source_concept_id": 0,
                "visit_occurrence_id": vid,
            }
        )
        # acute reason per ER / hospital visit
        hosp = np.isin(concept, [9201, 262, 32037])
        er = concept == 9203
        reason = np.full(len(p), "", dtype=object)
        keys = [k for k, _ in _ADMIT_REASONS]
        w = np.array([x for _, x in _ADMIT_REASONS])
        reason[hosp] = rng.choice(keys, hosp.sum(), p=w / w.sum())
        sepsis_icu = (concept == 32037) & (rng.random(len(p)) < 0.5)
        reason[sepsis_icu] = "sepsis"
        keys = [k for k, _ in _ER_REASONS]
        w = np.array([x for _, x in _ER_REASONS])
        reason[er] = rng.choice(keys, er.sum(), p=w / w.sum())
        self.v["reason"] = reason

    # -- events --------------------------------------------------------------------------------
    def conditions(self) -> None:
        rng, v = self.rng, self.v
        rows: list[pd.DataFrame] = []
        op = v[v["concept"] == 9202]
        for key in _CHRONIC:
            has = self.chronic[key][op["p"].to_numpy()]
            sel = op[has]
            # first outpatient visit of each person records the diagnosis; later ones 35% of the time
            first = ~sel["p"].duplicated().to_numpy()
            keep = first | (rng.random(len(sel)) < 0.35)
            sel = sel[keep]
            rows.append(
                pd.DataFrame(
                    {"vid": sel["vid"], "p": sel["p"], "day": sel["day"], "los": 0, "key": key}
                )
            )
        acute = v[v["reason"] != ""]
        rows.append(
            pd.DataFrame(
                {
                    "vid": acute["vid"],
                    "p": acute["p"],
                    "day": acute["day"],
                    "los": acute["los"],
                    "key": acute["reason"],
                }
            )
        )
        c = pd.concat(rows, ignore_index=True).sort_values(["p", "day", "vid"], kind="stable")
        keys = c["key"].to_numpy()
        concept = _lookup(keys, {k: t[0] for k, t in V.CONDITIONS.items()}, np.int64)
        icd = _lookup(
            keys, {k: V.ICD10[k][0] if k in V.ICD10 else 0 for k in V.CONDITIONS}, np.int64
        )
        source = _lookup(
            keys, {k: V.ICD10[k][2] if k in V.ICD10 else t[2] for k, t in V.CONDITIONS.items()}
        )
        day = c["day"].to_numpy()
        self.frames["condition_occurrence"] = pd.DataFrame(
            {
                "condition_occurrence_id": np.arange(1, len(c) + 1, dtype=np.int64),
                "person_id": self.pid[c["p"].to_numpy()],
                "condition_concept_id": concept,
                "condition_start_date": _dates(day),
                "condition_start_datetime": _dates(day),
                "condition_end_date": _dates(day + c["los"].to_numpy()),
                "condition_end_datetime": _dates(day + c["los"].to_numpy()),
                "condition_type_concept_id": EHR,
                "condition_status_concept_id": 0,
                "visit_occurrence_id": c["vid"].to_numpy(),
                "visit_detail_id": c["vid"].to_numpy(),
                "condition_source_value": source,
                "condition_source_concept_id": np.where(icd > 0, icd, concept),
            }
        )
        self.frames["condition_era"] = _eras(
            self.frames["condition_occurrence"],
            "condition_concept_id",
            "condition_start_date",
            "condition_end_date",
            "condition_era",
            gap_days=30,
        )

    def drugs(self) -> None:
        rng, v = self.rng, self.v
        parts: list[pd.DataFrame] = []
        op = v[v["concept"] == 9202]
        first_op = op[~op["p"].duplicated()]
        # maintenance therapy: repeat fills from the first outpatient visit to the end of observation
        for cond, options in _MAINTENANCE.items():
            for drug, prob in options:
                sel = first_op[self.chronic[cond][first_op["p"].to_numpy()]]
                sel = sel[rng.random(len(sel)) < prob]
                if sel.empty:
                    continue
                supply = rng.choice([30, 90], len(sel), p=[0.6, 0.4])
                span = self.obs_end[sel["p"].to_numpy()] - sel["day"].to_numpy()
                fills = np.maximum(1, (span / (supply * 1.15)).astype(np.int64))
                fills = np.minimum(fills, 40)
                idx = np.repeat(np.arange(len(sel)), fills)
                k = np.arange(idx.size) - np.repeat(np.cumsum(fills) - fills, fills)
                gap = rng.integers(0, 12, idx.size)
                start = sel["day"].to_numpy()[idx] + k * (supply[idx] + 5) + gap * (k > 0)
                ok = start <= self.obs_end[sel["p"].to_numpy()[idx]]
                parts.append(
                    pd.DataFrame(
                        {
                            "p": sel["p"].to_numpy()[idx][ok],
                            "day": start[ok],
                            "vid": np.where(k == 0, sel["vid"].to_numpy()[idx], 0)[ok],
                            "supply": supply[idx][ok],
                            "drug": drug,
                        }
                    )
                )
        # hospital drugs: daily doses for the length of stay, acetaminophen for most stays
        hosp = v[v["concept"].isin([9201, 262, 32037])]
        for reason, drugs in _HOSPITAL_DRUGS.items():
            sel = hosp[hosp["reason"] == reason]
            for drug in drugs:
                parts.append(_course(sel, np.maximum(sel["los"], 1), drug))
        sel = hosp[rng.random(len(hosp)) < 0.7]
        parts.append(_course(sel, np.maximum(sel["los"], 1), "acetaminophen"))
        sel = hosp[rng.random(len(hosp)) < 0.5]
        parts.append(_course(sel, np.maximum(sel["los"], 1), "heparin"))
        # NSAID courses at outpatient visits (celecoxib vs diclofenac), antibiotics at ER/outpatient
        sel = op[rng.random(len(op)) < 0.04]
        parts.append(
            _course(sel, rng.choice([14, 30], len(sel)), rng.choice(list(V.NSAIDS), len(sel)))
        )
        er_pna = v[(v["concept"] == 9203) & (v["reason"] == "pneumonia")]
        sel = pd.concat([er_pna, op[rng.random(len(op)) < 0.03]])
        parts.append(_course(sel, 7, "amoxicillin"))
        d = pd.concat(parts, ignore_index=True).sort_values(["p", "day", "drug"], kind="stable")
        drug_keys = d["drug"].to_numpy()
        supply = d["supply"].to_numpy().astype(np.int64)
        per_day = _lookup(drug_keys, {k: x.doses_per_day for k, x in V.DRUGS.items()}, float)
        day = d["day"].to_numpy()
        self.frames["drug_exposure"] = pd.DataFrame(
            {
                "drug_exposure_id": np.arange(1, len(d) + 1, dtype=np.int64),
                "person_id": self.pid[d["p"].to_numpy()],
                "drug_concept_id": _lookup(
                    drug_keys, {k: x.product_id for k, x in V.DRUGS.items()}, np.int64
                ),
                "drug_exposure_start_date": _dates(day),
                "drug_exposure_start_datetime": _dates(day),
                "drug_exposure_end_date": _dates(day + supply - 1),
                "drug_exposure_end_datetime": _dates(day + supply - 1),
                "drug_type_concept_id": EHR,
                "refills": 0,
                "quantity": supply * per_day,
                "days_supply": supply,
                "route_concept_id": 0,
                "visit_occurrence_id": pd.array(
                    np.where(d["vid"].to_numpy() > 0, d["vid"].to_numpy(), -1)
                ).astype("Int64"),
                "drug_source_value": _lookup(drug_keys, {k: x.rxnorm for k, x in V.DRUGS.items()}),
                "drug_source_concept_id": 0,
                "route_source_value": _lookup(drug_keys, {k: x.route for k, x in V.DRUGS.items()}),
            }
        )
        vis = self.frames["drug_exposure"]["visit_occurrence_id"]
        self.frames["drug_exposure"]["visit_occurrence_id"] = vis.mask(vis < 0)
        # drug eras are by ingredient, 30-day persistence window (OHDSI convention)
        ingredient = _lookup(drug_keys, {k: x.ingredient_id for k, x in V.DRUGS.items()}, np.int64)
        by_ing = self.frames["drug_exposure"].assign(drug_concept_id=ingredient)
        self.frames["drug_era"] = _eras(
            by_ing,
            "drug_concept_id",
            "drug_exposure_start_date",
            "drug_exposure_end_date",
            "drug_era",
            gap_days=30,
        )

    def measurements(self) -> None:
        rng, v = self.rng, self.v
        concept = v["concept"].to_numpy()
        panels: list[tuple[np.ndarray[Any, Any], tuple[str, ...]]] = []
        vitals = ("sbp", "dbp", "hr", "temp")
        # outpatient: vitals + weight/BMI; half get a metabolic panel; diabetics an HbA1c
        op = concept == 9202
        diabetic = (self.chronic["t2dm"] | self.chronic["t1dm"])[v["p"].to_numpy()]
        panels.append((op, (*vitals, "wt", "bmi")))
        panels.append((op & (rng.random(len(v)) < 0.5), ("creat", "gluc", "k", "na")))
        panels.append((op & diabetic & (rng.random(len(v)) < 0.6), ("a1c",)))
        panels.append((op & (rng.random(len(v)) < 0.3), ("hgb", "wbc", "plt")))
        er = concept == 9203
        panels.append((er, (*vitals, "creat", "gluc", "k", "na", "hgb", "wbc", "plt")))
        rows = []
        for mask, labs in panels:
            idx = np.flatnonzero(mask)
            for name in labs:
                rows.append(pd.DataFrame({"i": idx, "offset": 0, "lab": _LAB_KEYS.index(name)}))
        # hospital stays: labs and vitals every day (ICU: vitals four times a day)
        hosp = np.flatnonzero(np.isin(concept, [9201, 262, 32037]))
        days = v["los"].to_numpy()[hosp] + 1
        i = np.repeat(hosp, days)
        off = np.arange(i.size) - np.repeat(np.cumsum(days) - days, days)
        for name in ("hgb", "creat", "gluc", "k", "na", "wbc", "plt"):
            rows.append(
                pd.DataFrame({"i": i, "offset": off * 24 + 6, "lab": _LAB_KEYS.index(name)})
            )
        icu = concept[i] == 32037
        for vital in vitals:
            for h in (0, 6, 12, 18):
                take = icu | (h == 6)
                rows.append(
                    pd.DataFrame(
                        {"i": i[take], "offset": off[take] * 24 + h, "lab": _LAB_KEYS.index(vital)}
                    )
                )
        m = pd.concat(rows, ignore_index=True)
        vi = m["i"].to_numpy()
        p = v["p"].to_numpy()[vi]
        lab: np.ndarray[Any, Any] = m["lab"].to_numpy()
        reason = v["reason"].to_numpy()[vi]
        vconcept = concept[vi]
        sick = np.isin(vconcept, [9201, 262, 32037]).astype(np.float64)
        k = m.shape[0]
        z = rng.standard_normal(k)
        value = np.zeros(k)

        infection_all = np.isin(reason, ["pneumonia", "sepsis"])

        def put(name: str, fn: Callable[..., np.ndarray[Any, Any]]) -> None:
            sel = np.flatnonzero(lab == _LAB_KEYS.index(name))
            lo, hi = _LAB_CLIP[name]
            args = {
                "p": p[sel],
                "z": z[sel],
                "r": reason[sel],
                "vc": vconcept[sel],
                "sick": sick[sel],
                "inf": infection_all[sel].astype(np.float64),
                "u": rng.random(sel.size),
            }
            value[sel] = np.clip(fn(**args), lo, hi)

        put("sbp", lambda p, z, r, **_: self.sbp[p] + 10 * z - 12 * (r == "sepsis"))
        put("dbp", lambda p, z, r, **_: self.dbp[p] + 7 * z - 8 * (r == "sepsis"))
        put("hr", lambda p, z, inf, vc, **_: self.hr[p] + 9 * z + 18 * inf + 10 * (vc == 32037))
        put("temp", lambda z, inf, u, **_: 36.8 + 0.3 * z + 1.4 * inf * u)
        put("bmi", lambda p, z, **_: self.bmi[p] + 0.4 * z)
        put("wt", lambda p, z, **_: (self.bmi[p] + 0.4 * z) * self.height[p] ** 2)
        put(
            "hgb",
            lambda p, z, sick, r, **_: self.hgb[p] + 0.5 * z - 1.2 * sick - 3.0 * (r == "gib"),
        )
        put(
            "creat",
            lambda p, z, r, **_: self.creat[p] * np.exp(0.08 * z) * np.where(r == "aki", 2.2, 1.0),
        )
        put(
            "gluc",
            lambda p, z, sick, **_: (
                self.gluc[p] + np.where(self.gluc[p] > 126, 35, 9) * z + 20 * sick
            ),
        )
        put(
            "k",
            lambda p, z, r, **_: 4.2 + 0.35 * z + 0.5 * (self.creat[p] > 1.5) + 0.4 * (r == "aki"),
        )
        put("na", lambda z, r, **_: 139.5 + 2.5 * z - 3 * (r == "chf"))
        put("a1c", lambda p, z, **_: self.a1c[p] + 0.3 * z)
        put("wbc", lambda z, inf, u, **_: np.exp(np.log(7.0) + 0.25 * z) + 7 * inf * u)
        put("plt", lambda z, r, **_: 255 + 55 * z - 60 * (r == "sepsis"))
        # body height (cm) with the weight at outpatient visits, so that BMI can be computed from
        # records. Its noise comes from a generator of its own (spawned from the seed), so every
        # other value of a given seed stays what it was.
        op_idx = np.flatnonzero(op)
        hrng = np.random.default_rng(rng.bit_generator.seed_seq.spawn(1)[0])  # type: ignore[attr-defined]
        ht_p = v["p"].to_numpy()[op_idx]
        lo, hi = _LAB_CLIP["ht"]
        ht_value = np.clip(
            100 * self.height[ht_p] + 0.5 * hrng.standard_normal(op_idx.size), lo, hi
        )
        vi = np.concatenate([vi, op_idx])
        p = np.concatenate([p, ht_p])
        lab = np.concatenate([lab, np.full(op_idx.size, _LAB_KEYS.index("ht"))])
        value = np.concatenate([value, ht_value])
        offsets = np.concatenate([m["offset"].to_numpy(), np.zeros(op_idx.size, dtype=np.int64)])
        k += op_idx.size
        spec = [V.LABS[key] for key in _LAB_KEYS]
        decimals = np.array([x.decimals for x in spec])[lab]
        for d in np.unique(decimals):
            sel = decimals == d
            value[sel] = np.round(value[sel], int(d))
        start_dt = self.frames["visit_occurrence"]["visit_start_datetime"].to_numpy()[vi]
        when = start_dt + offsets.astype("timedelta64[h]")
        end_dt = self.frames["visit_occurrence"]["visit_end_datetime"].to_numpy()[vi]
        when = np.minimum(when, end_dt)
        order = np.lexsort((lab, when, p))
        when, p, lab, value, vi = when[order], p[order], lab[order], value[order], vi[order]

        def col(values: list[Any], dtype: Any = None) -> np.ndarray[Any, Any]:
            out: np.ndarray[Any, Any] = np.asarray(values, dtype=dtype)[lab]
            return out

        self.frames["measurement"] = pd.DataFrame(
            {
                "measurement_id": np.arange(1, k + 1, dtype=np.int64),
                "person_id": self.pid[p],
                "measurement_concept_id": col([x.concept_id for x in spec], np.int64),
                "measurement_date": when.astype("datetime64[D]").astype("datetime64[ns]"),
                "measurement_datetime": when,
                "measurement_type_concept_id": EHR,
                "operator_concept_id": 0,
                "value_as_number": value,
                "value_as_concept_id": 0,
                "unit_concept_id": col([x.unit_concept_id for x in spec], np.int64),
                "range_low": col([x.low or np.nan for x in spec], float),
                "range_high": col([x.high or np.nan for x in spec], float),
                "visit_occurrence_id": v["vid"].to_numpy()[vi],
                "visit_detail_id": v["vid"].to_numpy()[vi],
                "measurement_source_value": col([x.loinc for x in spec], object),
                "measurement_source_concept_id": 0,
                "unit_source_value": col([x.unit for x in spec], object),
            }
        )

    def notes(self) -> None:
        """A short discharge summary for each hospital stay, quoting its first labs."""
        v = self.v
        hosp = v[v["concept"].isin([9201, 262, 32037])]
        m = self.frames["measurement"]
        first = m.drop_duplicates(["visit_occurrence_id", "measurement_concept_id"])
        wide = first.pivot(
            index="visit_occurrence_id", columns="measurement_concept_id", values="value_as_number"
        )
        hgb = (
            wide.get(V.LABS["hgb"].concept_id, pd.Series(dtype=float))
            .reindex(hosp["vid"])
            .to_numpy()
        )
        creat = (
            wide.get(V.LABS["creat"].concept_id, pd.Series(dtype=float))
            .reindex(hosp["vid"])
            .to_numpy()
        )
        reason = (
            hosp["reason"]
            .map({k: t[1].lower() for k, t in V.CONDITIONS.items()})
            .fillna("observation")
        )
        unit = hosp["concept"].map(
            {
                9201: "the ward",
                262: "the ward via the emergency department",
                32037: "intensive care",
            }
        )
        text = (
            "Discharge summary. Admitted to "
            + unit
            + " for "
            + reason
            + ". Length of stay "
            + hosp["los"].astype(str)
            + " days. Admission hemoglobin "
            + pd.Series(hgb, index=hosp.index).round(1).astype(str)
            + " g/dL, creatinine "
            + pd.Series(creat, index=hosp.index).round(2).astype(str)
            + " mg/dL. Discharged in stable condition."
        )
        end = hosp["day"].to_numpy() + hosp["los"].to_numpy()
        self.frames["note"] = pd.DataFrame(
            {
                "note_id": np.arange(1, len(hosp) + 1, dtype=np.int64),
                "person_id": self.pid[hosp["p"].to_numpy()],
                "note_date": _dates(end),
                "note_datetime": _dates(end),
                "note_type_concept_id": EHR,
                "note_class_concept_id": V.NOTE_CLASS[0],
                "note_title": "Discharge summary",
                "note_text": text.to_numpy(),
                "encoding_concept_id": 32678,
                "language_concept_id": 4180186,
                "visit_occurrence_id": hosp["vid"].to_numpy(),
                "visit_detail_id": hosp["vid"].to_numpy(),
                "note_source_value": "discharge",
            }
        )


def _eras(
    df: pd.DataFrame, concept: str, start: str, end: str, prefix: str, *, gap_days: int
) -> pd.DataFrame:
    """Collapse exposures into eras per person and concept (a new era after a gap > gap_days)."""
    d = df[["person_id", concept, start, end]].sort_values(
        ["person_id", concept, start], kind="stable"
    )
    s = d[start].to_numpy()
    e = d[end].to_numpy()
    key = d["person_id"].to_numpy() * 10_000_000_000 + d[concept].to_numpy()
    run_end = pd.Series(e).groupby(key).cummax().to_numpy()
    prev_end = np.empty_like(run_end)
    prev_end[1:] = run_end[:-1]
    new_group = np.ones(len(d), dtype=bool)
    if len(d) > 1:
        new_group[1:] = (key[1:] != key[:-1]) | (
            s[1:] > prev_end[1:] + np.timedelta64(gap_days, "D")
        )
    era = np.cumsum(new_group)
    g = pd.DataFrame(
        {
            "era": era,
            "person_id": d["person_id"].to_numpy(),
            "concept": d[concept].to_numpy(),
            "start": s,
            "end": e,
        }
    )
    agg = g.groupby("era", sort=True).agg(
        person_id=("person_id", "first"),
        concept=("concept", "first"),
        start=("start", "min"),
        end=("end", "max"),
        n=("start", "size"),
    )
    out = pd.DataFrame(
        {
            f"{prefix}_id": np.arange(1, len(agg) + 1, dtype=np.int64),
            "person_id": agg["person_id"].to_numpy(),
            f"{prefix.split('_')[0]}_concept_id": agg["concept"].to_numpy(),
            f"{prefix}_start_date": agg["start"].to_numpy(),
            f"{prefix}_end_date": agg["end"].to_numpy(),
        }
    )
    if prefix == "drug_era":
        out["drug_exposure_count"] = agg["n"].to_numpy()
        out["gap_days"] = 0
    else:
        out["condition_occurrence_count"] = agg["n"].to_numpy()
    return out
