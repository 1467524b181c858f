"""devset2 over Eunomia Synthea27Nj (OMOP CDM 5.4, 28 persons; tests/data/eunomia-synthea27nj-5.4).

What the source holds (studied before writing): conditions, drugs, vitals and labs with values
(blood pressure as separate systolic and diastolic rows, LDL, HbA1c, creatinine, BMI, weight,
heart rate), inpatient (13), outpatient and emergency (56) visits, 3 deaths; survey answers
(smoking, PHQ-2, insurance) without values; no notes, no CONCEPT_ANCESTOR rows (so no classes),
no ICU. ``now`` is fixed at the end of the data, 2022-10-10.
"""

from __future__ import annotations

import pandas as pd
from _common import G, T, age_at, c, cid, cond, d, drug, e, iso, meas, persons, s_age, s_desc, s_one

DB = "synthea27nj"
NOW = "2022-10-10"


def _p(t: T) -> pd.DataFrame:
    return t["person"]


def _women(t: T) -> set[int]:
    p = _p(t)
    return set(p.loc[p.gender_concept_id == 8532, "person_id"])


def _ever(t: T, name: str, op: str, x: float) -> int:
    m = meas(t, name)
    v = m.value_as_number
    keep = v >= x if op == ">=" else v > x
    return m[keep].person_id.nunique()


def _mean(t: T, name: str, who: set[int] | None = None) -> float:
    m = meas(t, name)
    if who is not None:
        m = m[m.person_id.isin(who)]
    return round(float(m.value_as_number.mean()), 4)


def _last_value(t: T, name: str, pid: int) -> float:
    m = meas(t, name)
    m = m[m.person_id == pid].sort_values("measurement_date")
    return float(m.value_as_number.iloc[-1])


def _visits(t: T, concept: int) -> pd.DataFrame:
    v = t["visit_occurrence"]
    return v[v.visit_concept_id == concept]


def _by_sex(t: T, name: str) -> dict[str, int]:
    p = _p(t)
    p = p[p.person_id.isin(persons(cond(t, name)))]
    return {
        k: int(n)
        for k, n in p.gender_concept_id.map({8507: "male", 8532: "female"}).value_counts().items()
    }


def _frac_ldl(t: T) -> float:
    m = meas(t, "Cholesterol in LDL [Mass/volume] in Serum or Plasma by Direct assay")
    return round(m[m.value_as_number >= 130].person_id.nunique() / m.person_id.nunique(), 6)


def _first_before_age(t: T, name: str, age: int) -> int:
    first = cond(t, name).groupby("person_id").condition_start_date.min()
    birth = _p(t).set_index("person_id").birth_datetime
    return sum(age_at(birth[p], w) < age for p, w in first.items())


def _conds_on(t: T, pid: int, day: str) -> list[str]:
    co = t["condition_occurrence"]
    ids = set(
        co.loc[
            (co.person_id == pid) & (pd.to_datetime(co.condition_start_date) == day),
            "condition_concept_id",
        ]
    )
    cc = t["concept"]
    return sorted(cc.loc[cc.concept_id.isin(ids), "concept_name"])


def _los(t: T) -> float:
    v = _visits(t, 9201)
    return round(
        float(
            (pd.to_datetime(v.visit_end_date) - pd.to_datetime(v.visit_start_date)).dt.days.mean()
        ),
        4,
    )


def _median(t: T, name: str) -> float:
    return float(meas(t, name).value_as_number.median())


def _in_year(t: T, name: str, year: int) -> int:
    b = cond(t, name)
    return b[pd.to_datetime(b.condition_start_date).dt.year == year].person_id.nunique()


_ = cid, drug, iso

LDL = "Cholesterol in LDL [Mass/volume] in Serum or Plasma by Direct assay"
SBP = "Systolic blood pressure"
DBP = "Diastolic blood pressure"
A1C = "Hemoglobin A1c/Hemoglobin.total in Blood"
BMI = "Body mass index (BMI) [Ratio]"
CREAT = "Creatinine [Mass/volume] in Blood"
HR = "Heart rate"
WT = "Body weight"
HTN = s_desc("Essential hypertension")


def _m(name: str, cond_sql: str = "TRUE") -> str:
    return f"measurement_concept_id = {s_one(name)} AND value_as_number IS NOT NULL AND {cond_sql}"


GROUPS = [
    G(
        "nj-htn",
        "cohort_count",
        "count",
        [
            c("how many htn pts"),
            e("How many patients carry a diagnosis of essential hypertension?"),
            d("count of patients with a hypertension diagnosis"),
        ],
        sql=f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {HTN}",
        check=lambda t: len(persons(cond(t, "Essential hypertension"))),
    ),
    G(
        "nj-anemia-women",
        "cohort_count",
        "count",
        [
            c("F pts w anemia how many"),
            e("How many women have been diagnosed with anemia at any point?"),
            d("number of female patients with an anaemia diagnosis"),
        ],
        sql=(
            "SELECT count(DISTINCT o.person_id) FROM condition_occurrence o JOIN person p USING (person_id) "
            f"WHERE o.condition_concept_id IN {s_desc('Anemia')} AND p.gender_concept_id = 8532"
        ),
        check=lambda t: len(persons(cond(t, "Anemia")) & _women(t)),
    ),
    G(
        "nj-ldl130",
        "lab_threshold",
        "count",
        [
            c("pts w LDL 130+"),
            e("How many patients have ever had an LDL cholesterol of 130 mg/dL or more?"),
            d("count of patients with at least one LDL of 130 or more"),
        ],
        sql=f"SELECT count(DISTINCT person_id) FROM measurement WHERE {_m(LDL, 'value_as_number >= 130')}",
        check=lambda t: _ever(t, LDL, ">=", 130),
    ),
    G(
        "nj-sbp140",
        "lab_threshold",
        "count",
        [
            c("how many pts had SBP 140+"),
            e(
                "How many patients had at least one systolic blood pressure reading of 140 mmHg or higher?"
            ),
            d("number of patients with any systolic BP of 140 or above"),
        ],
        sql=f"SELECT count(DISTINCT person_id) FROM measurement WHERE {_m(SBP, 'value_as_number >= 140')}",
        check=lambda t: _ever(t, SBP, ">=", 140),
    ),
    G(
        "nj-dbp90",
        "lab_threshold",
        "count",
        [
            c("# pts w DBP of 90 or more"),
            e(
                "How many patients have had a diastolic blood pressure of 90 mmHg or greater at any time?"
            ),
            d("count patients with diastolic blood pressure >= 90"),
        ],
        sql=f"SELECT count(DISTINCT person_id) FROM measurement WHERE {_m(DBP, 'value_as_number >= 90')}",
        check=lambda t: _ever(t, DBP, ">=", 90),
    ),
    G(
        "nj-a1c65",
        "lab_threshold",
        "count",
        [
            c("pts with A1c above 6.5"),
            e("How many patients have ever had a hemoglobin A1c greater than 6.5%?"),
            d("number of patients with any HbA1c result over 6.5 percent"),
        ],
        sql=f"SELECT count(DISTINCT person_id) FROM measurement WHERE {_m(A1C, 'value_as_number > 6.5')}",
        check=lambda t: _ever(t, A1C, ">", 6.5),
    ),
    G(
        "nj-creat15",
        "lab_threshold",
        "count",
        [
            c("anyone w creat over 1.5? how many"),
            e("How many patients have had a blood creatinine above 1.5 mg/dL?"),
            d("count of patients with a creatinine value greater than 1.5"),
        ],
        sql=f"SELECT count(DISTINCT person_id) FROM measurement WHERE {_m(CREAT, 'value_as_number > 1.5')}",
        check=lambda t: _ever(t, CREAT, ">", 1.5),
    ),
    G(
        "nj-bmi-women",
        "aggregate",
        "value",
        [
            c("mean BMI in F pts"),
            e(
                "What is the average body mass index of female patients, averaging over all their recorded measurements?"
            ),
            d("average BMI value for women"),
        ],
        unit="kg/m2",
        tol=0.01,
        sql=(
            "SELECT round(avg(value_as_number), 4) FROM measurement WHERE "
            + _m(BMI, "person_id IN (SELECT person_id FROM person WHERE gender_concept_id = 8532)")
        ),
        check=lambda t: _mean(t, BMI, _women(t)),
    ),
    G(
        "nj-median-hr",
        "aggregate",
        "value",
        [
            c("median HR across all pts"),
            e(
                "What is the median recorded heart rate, in beats per minute, over all measurements?"
            ),
            d("median heart rate value"),
        ],
        unit="/min",
        tol=0.01,
        sql=f"SELECT median(value_as_number) FROM measurement WHERE {_m(HR)}",
        check=lambda t: _median(t, HR),
    ),
    G(
        "nj-sbp-htn",
        "aggregate",
        "value",
        [
            c("avg SBP in htn pts"),
            e(
                "Among patients with essential hypertension, what is the mean systolic blood pressure "
                "over all their readings?"
            ),
            d("mean systolic blood pressure for patients with a hypertension diagnosis"),
        ],
        unit="mmHg",
        tol=0.01,
        sql=(
            "SELECT round(avg(value_as_number), 4) FROM measurement WHERE "
            + _m(
                SBP,
                f"person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {HTN})",
            )
        ),
        check=lambda t: _mean(t, SBP, persons(cond(t, "Essential hypertension"))),
    ),
    G(
        "nj-ldl130-frac",
        "proportion",
        "value",
        [
            c("what fraction of pts w an LDL had one 130+"),
            e(
                "Among patients with at least one LDL measurement, what proportion ever had an LDL of "
                "130 mg/dL or more?"
            ),
            d("share of LDL-tested patients with any LDL >= 130"),
        ],
        unit="fraction",
        tol=0.001,
        sql=(
            f"SELECT round((SELECT count(DISTINCT person_id) FROM measurement WHERE {_m(LDL, 'value_as_number >= 130')}) / "
            f"(SELECT count(DISTINCT person_id) FROM measurement WHERE {_m(LDL)}), 6)"
        ),
        check=_frac_ldl,
    ),
    # ------------------------------------------------------------------ patient lookups
    G(
        "nj-p26-last-weight",
        "patient_lookup",
        "value",
        [
            c("most recent wt for pt 26"),
            e("What is patient 26's latest recorded body weight in kilograms?"),
            d("last body weight measurement of patient 26"),
        ],
        unit="kg",
        tol=0.05,
        sql=f"SELECT value_as_number FROM measurement WHERE person_id = 26 AND {_m(WT)} ORDER BY measurement_date DESC LIMIT 1",
        check=lambda t: _last_value(t, WT, 26),
    ),
    G(
        "nj-p16-max-sbp",
        "patient_lookup",
        "value",
        [
            c("highest SBP ever for pt 16"),
            e("What is the maximum systolic blood pressure ever recorded for patient 16?"),
            d("patient 16: max systolic blood pressure value"),
        ],
        unit="mmHg",
        tol=0.05,
        sql=f"SELECT max(value_as_number) FROM measurement WHERE person_id = 16 AND {_m(SBP)}",
        check=lambda t: float(meas(t, SBP).query("person_id == 16").value_as_number.max()),
    ),
    G(
        "nj-p13-gout",
        "patient_lookup",
        "yesno",
        [
            c("does pt 13 have gout"),
            e("Has patient 13 ever been diagnosed with gout?"),
            d("gout diagnosis on record for patient 13? yes/no"),
        ],
        sql=f"SELECT count(*) > 0 FROM condition_occurrence WHERE person_id = 13 AND condition_concept_id IN {s_desc('Gout')}",
        check=lambda t: bool((cond(t, "Gout").person_id == 13).any()),
    ),
    G(
        "nj-p19-conditions-day",
        "patient_lookup",
        "list",
        [
            c("what was pt 19 dx'd with on 4/3/2021"),
            e("Which conditions were diagnosed for patient 19 on 3 April 2021?"),
            d("list the conditions recorded for patient 19 with start date 2021-04-03"),
        ],
        sql=(
            "SELECT list(DISTINCT c.concept_name ORDER BY c.concept_name) FROM condition_occurrence o JOIN concept c "
            "ON c.concept_id = o.condition_concept_id WHERE o.person_id = 19 AND o.condition_start_date = DATE '2021-04-03'"
        ),
        check=lambda t: _conds_on(t, 19, "2021-04-03"),
    ),
    G(
        "nj-htn-before40",
        "age_at_event",
        "count",
        [
            c("how many pts got htn before 40"),
            e(
                "How many patients received their first essential hypertension diagnosis before the "
                "age of 40?"
            ),
            d("count of hypertension patients whose first diagnosis came at age < 40"),
        ],
        sql=(
            "SELECT count(*) FROM person p JOIN (SELECT person_id, min(condition_start_date) AS d FROM condition_occurrence "
            f"WHERE condition_concept_id IN {HTN} GROUP BY 1) f USING (person_id) WHERE "
            + s_age("p.birth_datetime", "f.d")
            + " < 40"
        ),
        check=lambda t: _first_before_age(t, "Essential hypertension", 40),
    ),
    # ------------------------------------------------------------------ deaths
    G(
        "nj-died-ids",
        "deaths",
        "list",
        [
            c("which pts died"),
            e("Which patients have a date of death recorded?"),
            d("list of patient ids with a death record"),
        ],
        sql="SELECT list(DISTINCT person_id ORDER BY person_id) FROM death",
        check=lambda t: sorted(int(x) for x in t["death"].person_id.unique()),
    ),
    # ------------------------------------------------------------------ encounters
    G(
        "nj-er-2022",
        "encounter_filter",
        "count",
        [
            c("ER visits in 2022?"),
            e("How many emergency department visits took place in calendar year 2022?"),
            d("count of emergency room encounters with a 2022 start date"),
        ],
        sql="SELECT count(*) FROM visit_occurrence WHERE visit_concept_id = 9203 AND year(visit_start_date) = 2022",
        check=lambda t: int(
            (pd.to_datetime(_visits(t, 9203).visit_start_date).dt.year == 2022).sum()
        ),
    ),
    G(
        "nj-inpatient-pts",
        "encounter_filter",
        "count",
        [
            c("how many pts were ever admitted inpt"),
            e("How many patients have had at least one inpatient hospitalisation?"),
            d("number of patients with an inpatient visit"),
        ],
        sql="SELECT count(DISTINCT person_id) FROM visit_occurrence WHERE visit_concept_id = 9201",
        check=lambda t: _visits(t, 9201).person_id.nunique(),
    ),
    G(
        "nj-los",
        "length_of_stay",
        "value",
        [
            c("avg inpt LOS in days"),
            e(
                "What is the mean length of an inpatient stay, in days (discharge minus admission date)?"
            ),
            d("average length of stay of inpatient visits"),
        ],
        unit="days",
        tol=0.01,
        sql="SELECT round(avg(date_diff('day', visit_start_date, visit_end_date)), 4) FROM visit_occurrence WHERE visit_concept_id = 9201",
        check=_los,
    ),
    G(
        "nj-sinusitis-by-sex",
        "group_by",
        "table",
        [
            c("viral sinusitis pts by sex"),
            e("How many patients with viral sinusitis are there, broken down by sex?"),
            d("count of viral sinusitis patients per gender"),
        ],
        sql=(
            "SELECT CASE p.gender_concept_id WHEN 8507 THEN 'male' WHEN 8532 THEN 'female' END, count(DISTINCT p.person_id) "
            f"FROM person p JOIN condition_occurrence o USING (person_id) WHERE o.condition_concept_id IN {s_desc('Viral sinusitis')} "
            "GROUP BY 1 ORDER BY 1"
        ),
        check=lambda t: _by_sex(t, "Viral sinusitis"),
    ),
    G(
        "nj-covid-2021",
        "calendar",
        "count",
        [
            c("covid pts in 2021"),
            e("How many patients were diagnosed with COVID-19 during 2021?"),
            d("number of patients with a COVID-19 diagnosis dated in 2021"),
        ],
        sql=(
            "SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN "
            f"{s_desc('COVID-19')} AND year(condition_start_date) = 2021"
        ),
        check=lambda t: _in_year(t, "COVID-19", 2021),
    ),
    # ------------------------------------------------------------------ ambiguous (gold: ask)
    G(
        "nj-a-mean-bp",
        "ambiguous",
        "ambiguous",
        [
            c("avg BP in htn pts"),
            e("What is the mean blood pressure among patients with essential hypertension?"),
            d("average blood pressure value for hypertensive patients"),
        ],
        missing="which blood pressure: systolic or diastolic",
        alternatives=["Systolic blood pressure", "Diastolic blood pressure"],
    ),
    G(
        "nj-a-bp100",
        "ambiguous",
        "ambiguous",
        [
            c("how many pts w BP over 100"),
            e("How many patients have had a blood pressure above 100 mmHg?"),
            d("count of patients with a blood pressure reading greater than 100"),
        ],
        missing="which blood pressure: systolic or diastolic",
        alternatives=["Systolic blood pressure", "Diastolic blood pressure"],
    ),
    # ------------------------------------------------------------------ unanswerable (gold: abstain)
    G(
        "nj-u-phq2",
        "unanswerable",
        "abstain",
        [
            c("pt 18 last PHQ2 score"),
            e("What was patient 18's most recent PHQ-2 total score?"),
            d("latest PHQ-2 score value for patient 18"),
        ],
        missing="PHQ-2 score values (recorded without a value)",
    ),
    G(
        "nj-u-icu",
        "unanswerable",
        "abstain",
        [
            c("how many ICU admits"),
            e("How many patients were admitted to an intensive care unit?"),
            d("count of ICU stays"),
        ],
        missing="ICU encounters (none recorded in this source)",
    ),
    G(
        "nj-u-statin-class",
        "unanswerable",
        "abstain",
        [
            c("pts on any statin except simva"),
            e("How many patients were prescribed any statin other than simvastatin?"),
            d("count of patients with a statin exposure, excluding simvastatin"),
        ],
        missing="the drug class statin (no concept hierarchy or ATC classes in this vocabulary)",
    ),
    G(
        "nj-u-notes",
        "unanswerable",
        "abstain",
        [
            c("what did the notes say about pt 16's cardiac arrest"),
            e("Summarise the clinical notes describing patient 16's cardiac arrest."),
            d("show the note text for patient 16's cardiac arrest visit"),
        ],
        missing="clinical notes (the NOTE table is empty)",
    ),
    G(
        "nj-u-insurance",
        "unanswerable",
        "abstain",
        [
            c("how many pts on medicaid"),
            e("How many patients have Medicaid as their primary insurance?"),
            d("count of patients by primary insurance = Medicaid"),
        ],
        missing="insurance values (primary insurance recorded without an answer; no payer plan periods)",
    ),
]


# ---------------------------------------------------------------------- batch 2 (typing-fast voice)


GROUPS += [
    G(
        "nj-ckd",
        "cohort_count",
        "count",
        [
            c("any pts w CKD"),
            e("How many patients have a diagnosis of chronic kidney disease?"),
            d("count of patients with chronic kidney disease"),
        ],
        sql=(
            "SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN "
            "(SELECT concept_id FROM concept WHERE concept_name LIKE 'Chronic kidney disease%')"
        ),
        check=lambda t: (
            t["condition_occurrence"]
            .merge(t["concept"], left_on="condition_concept_id", right_on="concept_id")
            .query("concept_name.str.startswith('Chronic kidney disease')", engine="python")
            .person_id.nunique()
        ),
    ),
    G(
        "nj-pharyngitis-typo",
        "cohort_count",
        "count",
        [
            c("how many pts had acute viral pharyngitus"),
            e("How many patients have had acute viral pharyngitis?"),
            d("number of patients with an acute viral faryngitis diagnosis"),
        ],
        sql=f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {s_desc('Acute viral pharyngitis')}",
        check=lambda t: len(persons(cond(t, "Acute viral pharyngitis"))),
    ),
    G(
        "nj-p10-mean-a1c",
        "patient_lookup",
        "value",
        [
            c("pt 10 avg a1c"),
            e("What is the mean of patient 10's hemoglobin A1c results?"),
            d("average HbA1c over all measurements of patient 10"),
        ],
        unit="%",
        tol=0.01,
        sql=f"SELECT round(avg(value_as_number), 4) FROM measurement WHERE person_id = 10 AND {_m(A1C)}",
        check=lambda t: round(
            float(meas(t, A1C).query("person_id == 10").value_as_number.mean()), 4
        ),
    ),
]


GROUPS += [
    G(
        "nj-a-p16-bp",
        "ambiguous",
        "ambiguous",
        [
            c("pt 16 avg BP"),
            e("What is patient 16's average blood pressure across all visits?"),
            d("mean blood pressure value of patient 16"),
        ],
        missing="which blood pressure: systolic or diastolic",
        alternatives=["Systolic blood pressure", "Diastolic blood pressure"],
    ),
]
