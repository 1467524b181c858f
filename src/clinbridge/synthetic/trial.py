"""A synthetic harmonised HIE cooling-trial workbook: ``clinbridge synth trial --out FILE.xlsx``.

Two multicentre trials of therapeutic hypothermia for neonatal hypoxic-ischaemic encephalopathy
(NEOCOOL: sites 1-12; HYPOTHERM: sites 13-21), ~530 infants, ~1,300 variables, harmonised into
one wide sheet with a data dictionary sheet, and the untidiness of real exports:

* column names in several styles (``TEMP_24H``, ``hr_48h``, ``map_h72``, ``Gluc0h``, ``SpO2_12h``);
* decoys with similar meanings: skin temperature beside core temperature, the cooling device's
  water temperature;
* trial-specific columns left blank in the other trial (Bayley-III at 18 months in NEOCOOL only,
  lactate in HYPOTHERM only, glucose at 6 h in NEOCOOL only);
* missing codes (-99 not done, -88 not applicable, -77 unknown; 9 unknown for yes/no items);
* data-management columns (form status, entry dates, query counts, comments) padding the width;
* a README sheet in front, so that neither sheet is found by position.

Everything comes from one ``numpy.random.Generator(seed)``: the same seed gives the same workbook.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import numpy as np
import pandas as pd

from clinbridge.synthetic._trial_book import (
    ColumnBuilder,
    TrialWorkbook,
    with_missing,
    write_trial_workbook,
    yesno,
)

__all__ = [
    "DICTIONARY_COLUMNS",
    "MISSING_NUMERIC",
    "TRIALS",
    "TrialWorkbook",
    "generate_trial",
    "write_trial_workbook",
]

TRIALS = {1: "NEOCOOL", 2: "HYPOTHERM"}
SITES_OF = {1: range(1, 13), 2: range(13, 22)}
MISSING_NUMERIC = "-99=Not done; -88=Not applicable; -77=Unknown"
MISSING_YESNO = "9=Unknown"
YESNO = "0=No; 1=Yes"
DICTIONARY_COLUMNS = (
    "Variable",
    "Label",
    "Type",
    "Units",
    "Codes",
    "Missing codes",
    "Time point",
    "Trial",
    "Form",
)
HOURS = (0, 6, 12, 24, 48, 72)
VITAL_HOURS = (0, 6, 12, 18, 24, 30, 36, 48, 60, 72, 84, 96)


def generate_trial(seed: int = 42, *, subjects: int = 532, variables: int = 1300) -> TrialWorkbook:
    """Generate the harmonised workbook (``subjects`` infants, about ``variables`` columns)."""
    rng = np.random.default_rng(seed)
    n = subjects
    n1 = round(n * 0.56)
    trial = np.array([1] * n1 + [2] * (n - n1))
    site = np.where(trial == 1, rng.integers(1, 13, size=n), rng.integers(13, 22, size=n)).astype(
        int
    )
    arm = rng.integers(1, 3, size=n)  # 1 hypothermia, 2 standard care
    cooled = arm == 1
    sev = np.where(
        trial == 1,
        rng.choice([1, 2, 3], size=n, p=[0.12, 0.58, 0.30]),
        rng.choice([2, 3], size=n, p=[0.65, 0.35]),
    )
    b = ColumnBuilder(rng, n)
    seq = np.zeros(n, dtype=int)
    for t in (1, 2):
        seq[trial == t] = np.arange(1, int((trial == t).sum()) + 1)
    prefix = np.where(trial == 1, "NC", "HT")
    ids = [f"{p}-{s:02d}-{q:04d}" for p, s, q in zip(prefix, site, seq, strict=True)]
    b.add("SUBJ_ID", ids, "Subject identifier", type_="string", form="Randomisation")
    b.add(
        "TRIAL",
        trial,
        "Trial",
        type_="categorical",
        codes="; ".join(f"{k}={v}" for k, v in TRIALS.items()),
        form="Randomisation",
    )
    b.add(
        "SITE",
        site,
        "Recruiting site (centre)",
        type_="categorical",
        codes="; ".join(f"{k}=Site {k}" for k in range(1, 22)),
        form="Randomisation",
    )
    b.add(
        "Rand_Arm",
        arm,
        "Randomised treatment arm",
        type_="categorical",
        codes="1=Hypothermia (whole-body cooling); 2=Standard care (normothermia)",
        form="Randomisation",
    )
    sex = rng.choice([1, 2], size=n, p=[0.56, 0.44]).astype(float)
    sex[rng.random(n) < 0.01] = 9
    b.add(
        "sex",
        sex,
        "Sex of the infant",
        type_="categorical",
        codes="1=Male; 2=Female",
        missing=MISSING_YESNO,
        form="Baseline",
    )
    b.add(
        "HIE_GRADE",
        sev,
        "Severity of encephalopathy at randomisation (Sarnat stage, HIE grade)",
        type_="categorical",
        codes="1=Mild; 2=Moderate; 3=Severe",
        form="Baseline",
    )
    ga = np.clip(rng.normal(39.2, 1.3, n), 35.0, 42.6).round(1)
    b.add(
        "GA_WKS",
        with_missing(rng, ga, p_not_done=0.0, p_unknown=0.01),
        "Gestational age at birth",
        unit="weeks",
        missing=MISSING_NUMERIC,
        form="Baseline",
    )
    bw = np.clip(rng.normal(3350, 520, n), 1800, 5200).round(0)
    b.add(
        "BWT_g",
        with_missing(rng, bw, p_not_done=0.01, p_unknown=0.0),
        "Birth weight",
        type_="integer",
        unit="g",
        missing=MISSING_NUMERIC,
        form="Baseline",
    )
    for minute, mu in ((1, 2.0), (5, 3.8), (10, 5.2)):
        ap = np.clip(np.round(rng.normal(mu - 0.8 * (sev - 2), 1.6, n)), 0, 10)
        b.add(
            f"APGAR_{minute}" if minute != 10 else "apgar10",
            with_missing(rng, ap, p_not_done=0.02 if minute == 10 else 0.005),
            f"Apgar score at {minute} minutes",
            type_="integer",
            missing=MISSING_NUMERIC,
            time_point=f"{minute} min",
            form="Baseline",
        )
    ph = np.clip(rng.normal(7.0 - 0.05 * (sev - 2), 0.12, n), 6.5, 7.4).round(2)
    b.add(
        "CORD_PH",
        with_missing(rng, ph),
        "Cord or first postnatal blood gas pH",
        missing=MISSING_NUMERIC,
        form="Baseline",
    )
    bd = np.clip(rng.normal(16 + 2.0 * (sev - 2), 4.0, n), 2, 35).round(1)
    b.add(
        "BASE_DEF",
        with_missing(rng, bd),
        "Base deficit, first hour",
        unit="mmol/L",
        missing=MISSING_NUMERIC,
        form="Baseline",
    )
    seiz_bl = yesno(rng, 0.25 + 0.2 * (sev - 1))
    b.add(
        "SEIZ_BL",
        seiz_bl,
        "Clinical seizures before randomisation",
        type_="categorical",
        codes=YESNO,
        missing=MISSING_YESNO,
        form="Baseline",
    )
    b.add(
        "DELIV_MODE",
        rng.choice([1, 2, 3, 4], size=n, p=[0.38, 0.2, 0.34, 0.08]),
        "Mode of delivery",
        type_="categorical",
        codes="1=Spontaneous vaginal; 2=Instrumental vaginal; 3=Emergency caesarean; 4=Elective caesarean",
        form="Baseline",
    )
    b.add(
        "OUTBORN",
        yesno(rng, np.full(n, 0.55), p_unknown=0.0),
        "Born outside the treating centre (outborn)",
        type_="categorical",
        codes=YESNO,
        missing=MISSING_YESNO,
        form="Baseline",
    )
    b.add(
        "MAT_AGE",
        with_missing(rng, np.clip(rng.normal(29.5, 5.8, n), 16, 46).round(0)),
        "Maternal age",
        type_="integer",
        unit="years",
        missing=MISSING_NUMERIC,
        form="Baseline",
    )
    b.add(
        "AGE_RAND_H",
        with_missing(rng, np.clip(rng.normal(4.4, 1.1, n), 1.0, 6.0).round(1), p_unknown=0.0),
        "Age at randomisation",
        unit="hours",
        missing=MISSING_NUMERIC,
        form="Randomisation",
    )
    aeeg = np.where(trial == 1, rng.choice([1, 2, 3, 4], size=n, p=[0.3, 0.4, 0.2, 0.1]), np.nan)
    b.add(
        "AEEG_BL",
        aeeg,
        "aEEG background pattern at randomisation",
        type_="categorical",
        codes="1=Continuous normal voltage; 2=Discontinuous normal voltage; 3=Burst suppression; 4=Flat trace",
        trial="NEOCOOL",
        form="Baseline",
    )

    # -- outcomes (drawn first: early deaths leave later time points not applicable) ----------
    p_death = np.select([sev == 1, sev == 2, sev == 3], [0.03, 0.14, 0.42]) * np.where(
        cooled, 0.72, 1.0
    )
    died = rng.random(n) < p_death
    death_h = np.where(died, rng.choice([30, 60, 200, 2000], size=n, p=[0.2, 0.2, 0.3, 0.3]), 1e9)
    p_dis = np.select([sev == 1, sev == 2, sev == 3], [0.06, 0.24, 0.48]) * np.where(
        cooled, 0.7, 1.0
    )
    dis_level = np.where(
        rng.random(n) < p_dis,
        rng.choice([2, 3], size=n, p=[0.55, 0.45]),
        rng.choice([0, 1], size=n, p=[0.75, 0.25]),
    ).astype(float)
    dis_level[died] = -88
    followed = rng.random(n) > 0.04
    dis_level[~died & ~followed] = -99

    def alive_at(h: float) -> np.ndarray:
        return death_h > h

    # -- serial physiology ------------------------------------------------------------------
    def serial(
        stem: str,
        label: str,
        unit: str,
        hours: tuple[int, ...],
        fn: Callable[[int], np.ndarray],
        *,
        style: Callable[[str, int], str],
        decimals: int = 1,
        trial_only: int | None = None,
        form: str = "Cooling observations",
        type_: str = "float",
        not_applicable: np.ndarray | None = None,
        skip_trial_hours: dict[int, set[int]] | None = None,
    ) -> None:
        for h in hours:
            x = np.round(fn(h), decimals)
            x = with_missing(rng, x, p_not_done=0.025, p_unknown=0.005)
            x[~alive_at(h)] = -88
            if not_applicable is not None:
                x[not_applicable] = -88
            which = "Both"
            if trial_only is not None:
                x[trial != trial_only] = np.nan
                which = TRIALS[trial_only]
            if skip_trial_hours:
                for t, hs in skip_trial_hours.items():
                    if h in hs:
                        x[trial == t] = np.nan
                        which = TRIALS[3 - t]
            b.add(
                style(stem, h),
                x,
                label,
                type_=type_,
                unit=unit,
                missing=MISSING_NUMERIC,
                time_point=f"{h} h",
                trial=which,
                form=form,
            )

    def upper_h(stem: str, h: int) -> str:
        return f"{stem}_{h}H"

    def lower_h(stem: str, h: int) -> str:
        return f"{stem}_{h}h"

    def h_first(stem: str, h: int) -> str:
        return f"{stem}_h{h}"

    def glued(stem: str, h: int) -> str:
        return f"{stem}{h}h"

    def core_temp(h: int) -> np.ndarray:
        if h == 0:
            return rng.normal(35.9, 0.8, n)
        target = np.where(cooled, rng.normal(33.5, 0.3, n), rng.normal(37.0, 0.4, n))
        return np.where(h >= 84, rng.normal(36.9, 0.3, n), target)

    core: dict[int, np.ndarray] = {}

    def core_cached(h: int) -> np.ndarray:
        core[h] = core_temp(h)
        return core[h]

    serial("TEMP", "Core temperature (rectal)", "°C", VITAL_HOURS, core_cached, style=upper_h)
    serial(
        "SKINTEMP",
        "Skin temperature (abdominal probe)",
        "°C",
        VITAL_HOURS,
        lambda h: core[h] - rng.normal(1.3, 0.5, n),
        style=upper_h,
    )
    serial(
        "water_temp",
        "Cooling device water temperature (mattress servo)",
        "°C",
        VITAL_HOURS[1:10],
        lambda h: rng.normal(27.5, 3.5, n),
        style=lower_h,
        not_applicable=~cooled,
        form="Cooling device log",
    )
    serial(
        "hr",
        "Heart rate",
        "beats/min",
        VITAL_HOURS,
        lambda h: np.where(
            (h > 0) & (h < 84) & cooled, rng.normal(102, 12, n), rng.normal(136, 15, n)
        ),
        style=lower_h,
        decimals=0,
        type_="integer",
    )
    serial(
        "map",
        "Mean arterial blood pressure",
        "mmHg",
        VITAL_HOURS,
        lambda h: rng.normal(44 + 0.05 * h, 7.5, n),
        style=h_first,
        decimals=0,
        type_="integer",
    )
    serial(
        "RR",
        "Respiratory rate",
        "breaths/min",
        VITAL_HOURS,
        lambda h: rng.normal(42, 9, n),
        style=lower_h,
        decimals=0,
        type_="integer",
    )
    serial(
        "SpO2",
        "Oxygen saturation (pulse oximetry)",
        "%",
        VITAL_HOURS,
        lambda h: np.clip(rng.normal(96, 2.5, n), 80, 100),
        style=lower_h,
        decimals=0,
        type_="integer",
    )
    serial(
        "FiO2",
        "Fraction of inspired oxygen",
        "%",
        VITAL_HOURS,
        lambda h: np.clip(rng.normal(28, 8, n), 21, 100),
        style=lower_h,
        decimals=0,
        type_="integer",
    )
    serial(
        "Gluc",
        "Blood glucose",
        "mmol/L",
        HOURS,
        lambda h: np.clip(rng.normal(5.2 - 0.2 * (h > 0), 1.9, n), 0.6, 22),
        style=glued,
        skip_trial_hours={2: {6}},
        form="Laboratory",
    )
    serial(
        "LACT",
        "Blood lactate",
        "mmol/L",
        HOURS,
        lambda h: np.clip(rng.normal(9.0 * np.exp(-h / 18) + 1.5, 1.5, n), 0.5, 25),
        style=upper_h,
        trial_only=2,
        form="Laboratory",
    )
    serial(
        "ph",
        "Blood gas pH",
        "",
        HOURS,
        lambda h: np.clip(rng.normal(7.1 + 0.004 * h, 0.08, n), 6.6, 7.6),
        style=lower_h,
        decimals=2,
        form="Laboratory",
    )
    labs = (
        ("Na", "Serum sodium", "mmol/L", 136, 4, 0),
        ("K", "Serum potassium", "mmol/L", 4.6, 0.7, 1),
        ("CREAT", "Serum creatinine", "µmol/L", 85, 25, 0),
        ("UREA", "Serum urea", "mmol/L", 4.5, 1.8, 1),
        ("ALT", "Alanine aminotransferase", "U/L", 60, 45, 0),
        ("AST", "Aspartate aminotransferase", "U/L", 150, 90, 0),
        ("BILI", "Total bilirubin", "µmol/L", 90, 40, 0),
        ("CA", "Serum calcium", "mmol/L", 2.2, 0.2, 2),
        ("MG", "Serum magnesium", "mmol/L", 0.9, 0.15, 2),
        ("PHOS", "Serum phosphate", "mmol/L", 1.9, 0.4, 2),
        ("ALB", "Serum albumin", "g/L", 30, 4, 0),
        ("INR", "International normalised ratio", "", 1.6, 0.4, 1),
        ("APTT", "Activated partial thromboplastin time", "s", 48, 10, 0),
        ("FIB", "Fibrinogen", "g/L", 1.9, 0.6, 1),
        ("CRP", "C-reactive protein", "mg/L", 6, 5, 1),
        ("WBC", "White cell count", "10^9/L", 17, 6, 1),
        ("NEUT", "Neutrophil count", "10^9/L", 10, 4, 1),
        ("HB", "Haemoglobin", "g/L", 165, 20, 0),
        ("HCT", "Haematocrit", "%", 50, 6, 0),
        ("PLT", "Platelet count", "10^9/L", 210, 70, 0),
        ("PCO2", "Arterial pCO2", "kPa", 5.2, 1.2, 1),
        ("PO2", "Arterial pO2", "kPa", 9.5, 2.5, 1),
        ("HCO3", "Bicarbonate", "mmol/L", 18, 4, 1),
        ("CL", "Serum chloride", "mmol/L", 103, 4, 0),
        ("TROP", "Troponin T", "ng/L", 180, 120, 0),
    )
    for stem, label, unit, mu, sd, dec in labs:
        serial(
            stem,
            label,
            unit,
            HOURS,
            _lab(rng, mu, sd, n),
            style=upper_h,
            decimals=dec,
            form="Laboratory",
        )
    drugs = (
        ("MORPH", "Morphine infusion dose", "µg/kg/h"),
        ("PHENO", "Phenobarbital dose", "mg/kg"),
        ("DOPA", "Dopamine infusion dose", "µg/kg/min"),
        ("DOBU", "Dobutamine infusion dose", "µg/kg/min"),
        ("ADREN", "Adrenaline infusion dose", "µg/kg/min"),
        ("MIDAZ", "Midazolam infusion dose", "µg/kg/min"),
    )
    for stem, label, unit in drugs:
        for day in range(1, 8):
            x = np.where(rng.random(n) < 0.4, rng.gamma(2.0, 5.0, n), 0.0).round(1)
            x = with_missing(rng, x, p_not_done=0.0, p_unknown=0.01)
            x[~alive_at(day * 24 - 24)] = -88
            b.add(
                f"{stem}_D{day}",
                x,
                label,
                unit=unit,
                missing=MISSING_NUMERIC,
                time_point=f"Day {day}",
                form="Medications",
            )
    exam_items = (
        "level of consciousness",
        "spontaneous activity",
        "posture",
        "tone",
        "suck",
        "Moro reflex",
        "pupils",
        "heart rate variability",
        "respiration",
        "grasp",
        "tendon reflexes",
        "clonus",
    )
    for k, item in enumerate(exam_items, start=1):
        for day in (1, 3, 5, 7):
            x = rng.choice([0, 1, 2, 3], size=n, p=[0.35, 0.35, 0.2, 0.1]).astype(float)
            x[~alive_at(day * 24)] = -88
            b.add(
                f"NEURO{k:02d}_D{day}",
                x,
                f"Neurological examination: {item} (Thompson item score)",
                type_="integer",
                missing=MISSING_NUMERIC,
                time_point=f"Day {day}",
                form="Neurological examination",
            )

    # -- in-hospital course and outcomes ----------------------------------------------------
    seiz72 = yesno(rng, np.clip(0.2 + 0.15 * (sev - 1) - 0.08 * cooled, 0.02, 0.9))
    b.add(
        "SEIZ_72H",
        seiz72,
        "Clinical or electrographic seizures during the first 72 hours",
        type_="categorical",
        codes=YESNO,
        missing=MISSING_YESNO,
        time_point="72 h",
        form="Course",
    )
    b.add(
        "INOTROPES",
        yesno(rng, 0.35 + 0.1 * (sev - 2)),
        "Inotropes given during cooling",
        type_="categorical",
        codes=YESNO,
        missing=MISSING_YESNO,
        form="Course",
    )
    vent = np.clip(np.round(rng.gamma(1.6, 2.2, n)), 0, 40)
    b.add(
        "VENT_DAYS",
        with_missing(rng, vent),
        "Days of mechanical ventilation",
        type_="integer",
        unit="days",
        missing=MISSING_NUMERIC,
        form="Course",
    )
    los = np.clip(np.round(rng.gamma(3.0, 5.5, n) + 4), 3, 120).astype(float)
    los[died & (death_h < 300)] = -88
    b.add(
        "LOS_DAYS",
        with_missing(rng, los, p_not_done=0.01, p_unknown=0.0),
        "Length of hospital stay",
        type_="integer",
        unit="days",
        missing=MISSING_NUMERIC,
        time_point="Discharge",
        form="Discharge",
    )
    feeds = np.clip(np.round(rng.normal(9, 3.5, n)), 3, 40).astype(float)
    feeds[died & (death_h < 300)] = -88
    b.add(
        "FULL_FEEDS_DAY",
        with_missing(rng, feeds),
        "Day of life full enteral feeds reached",
        type_="integer",
        unit="days",
        missing=MISSING_NUMERIC,
        form="Discharge",
    )
    mri = np.where(
        trial == 1,
        np.clip(rng.normal(3 + 2.0 * (sev - 1), 2.5, n), 0, 12).round(0),
        np.nan,
    )
    mri[(trial == 1) & ~alive_at(200)] = -88
    mri[(trial == 1) & (rng.random(n) < 0.06)] = -99
    b.add(
        "MRI_SCORE",
        mri,
        "Brain MRI injury score (0-12)",
        type_="integer",
        missing=MISSING_NUMERIC,
        time_point="Day 7",
        trial="NEOCOOL",
        form="Imaging",
    )
    b.add(
        "DEATH",
        died.astype(float),
        "Death before 18 months (any cause)",
        type_="categorical",
        codes=YESNO,
        time_point="18 months",
        form="Outcome",
    )
    b.add(
        "DISAB_LEVEL",
        dis_level,
        "Neurodevelopmental disability at 18 months",
        type_="categorical",
        codes="0=None; 1=Mild; 2=Moderate; 3=Severe",
        missing=MISSING_NUMERIC,
        time_point="18 months",
        form="Outcome",
    )
    primary = np.where(died, 1.0, np.where(dis_level >= 2, 1.0, 0.0))
    primary[~died & (dis_level == -99)] = -99
    b.add(
        "PRIM_OUT",
        primary,
        "Primary outcome: death or moderate or severe disability at 18 months",
        type_="categorical",
        codes=YESNO,
        missing=MISSING_NUMERIC,
        time_point="18 months",
        form="Outcome",
    )
    cp = np.where(
        dis_level >= 2, (rng.random(n) < 0.7), (dis_level == 1) & (rng.random(n) < 0.1)
    ).astype(float)
    cp[dis_level < 0] = dis_level[dis_level < 0]
    b.add(
        "CP_18M",
        cp,
        "Cerebral palsy at 18 months",
        type_="categorical",
        codes=YESNO,
        missing=MISSING_NUMERIC,
        time_point="18 months",
        form="Outcome",
    )
    gmfcs = np.where(cp == 1, rng.integers(1, 6, size=n), 0).astype(float)
    gmfcs[cp < 0] = cp[cp < 0]
    b.add(
        "GMFCS_18M",
        gmfcs,
        "Gross Motor Function Classification System level at 18 months",
        type_="integer",
        missing=MISSING_NUMERIC,
        time_point="18 months",
        form="Outcome",
    )
    for name, label, shift, tr, months in (
        ("BAYLEY_COG_18M", "Bayley-III cognitive composite score", 0, 1, 18),
        ("BAYLEY_LANG_18M", "Bayley-III language composite score", -3, 1, 18),
        ("BAYLEY_MOT_18M", "Bayley-III motor composite score", -2, 1, 18),
        ("BSID_COG_24M", "Bayley-III cognitive composite score", 1, 2, 24),
    ):
        x = np.clip(rng.normal(100 + shift - 12 * np.maximum(dis_level, 0), 11, n), 45, 145).round(
            0
        )
        x[dis_level < 0] = dis_level[dis_level < 0]
        x[trial != tr] = np.nan
        b.add(
            name,
            x,
            label,
            type_="integer",
            missing=MISSING_NUMERIC,
            time_point=f"{months} months",
            trial=TRIALS[tr],
            form="Outcome",
        )
    hear = yesno(rng, np.where(dis_level >= 2, 0.12, 0.01))
    hear[dis_level < 0] = dis_level[dis_level < 0]
    b.add(
        "HEARING_18M",
        hear,
        "Hearing impairment at 18 months",
        type_="categorical",
        codes=YESNO,
        missing=MISSING_NUMERIC + "; 9=Unknown",
        time_point="18 months",
        form="Outcome",
    )

    # -- data management padding -------------------------------------------------------------
    base = dt.date(2019, 1, 1)
    k = 0
    while len(b.columns) < variables:
        k += 1
        kind = k % 4
        form_no = (k - 1) // 4 + 1
        if kind == 1:
            b.add(
                f"DM_F{form_no:03d}_STATUS",
                rng.choice(["Complete", "Incomplete", "Verified"], size=n),
                f"Data management: form {form_no} status",
                type_="string",
                form="Data management",
            )
        elif kind == 2:
            days = rng.integers(0, 1400, size=n)
            b.add(
                f"dm_f{form_no:03d}_entered",
                [(base + dt.timedelta(days=int(d))).isoformat() for d in days],
                f"Data management: form {form_no} entry date",
                type_="date",
                form="Data management",
            )
        elif kind == 3:
            b.add(
                f"DM_F{form_no:03d}_QUERIES",
                rng.poisson(0.4, size=n),
                f"Data management: form {form_no} open queries",
                type_="integer",
                form="Data management",
            )
        else:
            b.add(
                f"DM_F{form_no:03d}_USER",
                rng.choice(["dm01", "dm02", "dm03", "crf_import"], size=n),
                f"Data management: form {form_no} entered by",
                type_="string",
                form="Data management",
            )
    data = pd.DataFrame(b.columns)
    dictionary = pd.DataFrame(b.rows, columns=list(DICTIONARY_COLUMNS))
    return TrialWorkbook(
        data=data,
        dictionary=dictionary,
        seed=seed,
        notes=[
            "Synthetic harmonised HIE cooling-trial data generated by clinbridge (not real patients).",
            f"Seed {seed}; {n} infants; {data.shape[1]} variables; trials "
            + ", ".join(TRIALS.values())
            + ".",
            "Missing codes: -99 not done, -88 not applicable, -77 unknown; 9 unknown (yes/no items).",
            "Blank cells: not collected in that trial.",
        ],
    )


def _lab(rng: np.random.Generator, mu: float, sd: float, n: int) -> Callable[[int], np.ndarray]:
    def draw(h: int) -> np.ndarray:
        return np.abs(rng.normal(mu, sd, n))

    return draw
