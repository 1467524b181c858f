"""Dev-set questions over the synthetic OMOP CDM (``clinbridge synth omop``, 300 patients, seed 1).

Same conventions as ``spec_eunomia.py``. Inpatient stays are visits 9201 and 262 (ER and
inpatient), emergency visits 9203, intensive care 32037; length of stay is end − start in days.
Gold comes from hand SQL over the generator's tables and from pandas, never from clinbridge.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

T = dict[str, pd.DataFrame]

HB, CREAT, GLU, A1C, SBP, K, NA_, BMI, WT = (
    3000963,
    3016723,
    3004501,
    3004410,
    3004249,
    3023103,
    3019550,
    3038553,
    3025315,
)
T2DM, HF, AFIB, PNEU, GIB, HTN, AKI, CKD, COPD, ASTHMA, DEP, AMI = (
    201826,
    316139,
    313217,
    255848,
    192671,
    320128,
    197320,
    46271022,
    255573,
    317009,
    440383,
    312327,
)
METFORMIN, FUROSEMIDE, LISINOPRIL, CEFTRIAXONE, APIXABAN, ATORVA = (
    1503297,
    956874,
    1308216,
    1777806,
    43013024,
    1545958,
)
IP = (9201, 262)
DESC = "(SELECT descendant_concept_id FROM concept_ancestor WHERE ancestor_concept_id = {})"


def d(cid: int) -> str:
    return DESC.format(cid)


def _desc(t: T, cid: int) -> set[int]:
    ca = t["concept_ancestor"]
    return set(ca.loc[ca.ancestor_concept_id == cid, "descendant_concept_id"].astype(int)) | {cid}


def _has(t: T, table: str, col: str, cid: int) -> set[int]:
    df = t[table]
    return set(df.loc[df[col].isin(_desc(t, cid)), "person_id"])


def _cond(t: T, cid: int) -> set[int]:
    return _has(t, "condition_occurrence", "condition_concept_id", cid)


def _drug(t: T, cid: int) -> set[int]:
    return _has(t, "drug_exposure", "drug_concept_id", cid)


def _meas(t: T, cid: int) -> pd.DataFrame:
    m = t["measurement"]
    return m[m.measurement_concept_id == cid]


def _visits(t: T, types: tuple[int, ...]) -> pd.DataFrame:
    v = t["visit_occurrence"]
    return v[v.visit_concept_id.isin(types)]


def _los(v: pd.DataFrame) -> pd.Series:
    return (pd.to_datetime(v.visit_end_date) - pd.to_datetime(v.visit_start_date)).dt.days


def _age(birth: pd.Series, now: str) -> pd.Series:
    n = pd.Timestamp(now)
    b = pd.to_datetime(birth)
    before = (b.dt.month > n.month) | ((b.dt.month == n.month) & (b.dt.day > n.day))
    return n.year - b.dt.year - before.astype(int)


def _patient_last(t: T, pid: int, cid: int, *, first: bool = False) -> float:
    m = _meas(t, cid)
    m = m[m.person_id == pid].sort_values(["measurement_date", "measurement_id"])
    return float(m.iloc[0 if first else -1].value_as_number)


def _in_visit(t: T, table: str, pid: int, types: tuple[int, ...], *, last: bool) -> pd.DataFrame:
    v = _visits(t, types)
    v = v[v.person_id == pid].sort_values("visit_start_date")
    vid = v.iloc[-1 if last else 0].visit_occurrence_id
    df = t[table]
    return df[df.visit_occurrence_id == vid]


def _names(t: T, df: pd.DataFrame, col: str) -> list[str]:
    c = t["concept"]
    return sorted(set(c.loc[c.concept_id.isin(df[col]), "concept_name"]))


AGE = (
    "(date_diff('year', p.birth_datetime, DATE '{now}') - "
    "CASE WHEN strftime(p.birth_datetime, '%m%d') > strftime(DATE '{now}', '%m%d') THEN 1 ELSE 0 END)"
)

QUESTIONS: list[dict[str, Any]] = [
    # -- aggregates of measurement values --------------------------------------------------------
    {
        "id": "sy-001",
        "category": "aggregate",
        "question": "What is the mean hemoglobin across all measurements?",
        "sql": f"SELECT avg(value_as_number) FROM measurement WHERE measurement_concept_id = {HB}",
        "pandas": lambda t: float(_meas(t, HB).value_as_number.mean()),
    },
    {
        "id": "sy-002",
        "category": "aggregate",
        "question": "Median serum creatinine value",
        "sql": f"SELECT median(value_as_number) FROM measurement WHERE measurement_concept_id = {CREAT}",
        "pandas": lambda t: float(_meas(t, CREAT).value_as_number.median()),
    },
    {
        "id": "sy-003",
        "category": "aggregate",
        "question": "What was the highest blood glucose ever recorded?",
        "sql": f"SELECT max(value_as_number) FROM measurement WHERE measurement_concept_id = {GLU}",
        "pandas": lambda t: float(_meas(t, GLU).value_as_number.max()),
    },
    {
        "id": "sy-004",
        "category": "aggregate",
        "question": "Average HbA1c among patients with type 2 diabetes",
        "sql": f"SELECT avg(value_as_number) FROM measurement WHERE measurement_concept_id = {A1C} AND person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(T2DM)})",
        "pandas": lambda t: float(
            _meas(t, A1C).loc[lambda m: m.person_id.isin(_cond(t, T2DM)), "value_as_number"].mean()
        ),
    },
    {
        "id": "sy-005",
        "category": "aggregate",
        "question": "What is the average length of stay in the ICU?",
        "sql": "SELECT avg(date_diff('day', visit_start_date, visit_end_date)) FROM visit_occurrence WHERE visit_concept_id = 32037",
        "pandas": lambda t: float(_los(_visits(t, (32037,))).mean()),
    },
    {
        "id": "sy-006",
        "category": "aggregate",
        "question": "What is the longest inpatient stay, in days?",
        "sql": f"SELECT max(date_diff('day', visit_start_date, visit_end_date)) FROM visit_occurrence WHERE visit_concept_id IN {IP}",
        "pandas": lambda t: int(_los(_visits(t, IP)).max()),
    },
    {
        "id": "sy-007",
        "category": "aggregate",
        "question": "Mean systolic blood pressure of women",
        "sql": f"SELECT avg(value_as_number) FROM measurement m JOIN person p USING (person_id) WHERE measurement_concept_id = {SBP} AND p.gender_concept_id = 8532",
        "pandas": lambda t: float(
            _meas(t, SBP)
            .loc[
                lambda m: m.person_id.isin(
                    t["person"].query("gender_concept_id == 8532").person_id
                ),
                "value_as_number",
            ]
            .mean()
        ),
    },
    {
        "id": "sy-008",
        "category": "aggregate",
        "question": "What is the average days supply of metformin?",
        "sql": f"SELECT avg(days_supply) FROM drug_exposure WHERE drug_concept_id IN {d(METFORMIN)}",
        "pandas": lambda t: float(
            t["drug_exposure"]
            .loc[lambda x: x.drug_concept_id.isin(_desc(t, METFORMIN)), "days_supply"]
            .mean()
        ),
    },
    {
        "id": "sy-009",
        "category": "aggregate",
        "question": "How many emergency room visits are recorded?",
        "sql": "SELECT count(*) FROM visit_occurrence WHERE visit_concept_id = 9203",
        "pandas": lambda t: len(_visits(t, (9203,))),
    },
    # -- cohort counts with value filters ------------------------------------------------------
    {
        "id": "sy-010",
        "category": "cohort_count",
        "question": "How many patients had an HbA1c above 9%?",
        "sql": f"SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id = {A1C} AND value_as_number > 9",
        "pandas": lambda t: int(
            _meas(t, A1C).loc[lambda m: m.value_as_number > 9, "person_id"].nunique()
        ),
    },
    {
        "id": "sy-011",
        "category": "cohort_count",
        "question": "How many patients have had a hemoglobin below 10 g/dL?",
        "sql": f"SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id = {HB} AND value_as_number < 10",
        "pandas": lambda t: int(
            _meas(t, HB).loc[lambda m: m.value_as_number < 10, "person_id"].nunique()
        ),
    },
    {
        "id": "sy-012",
        "category": "cohort_count",
        "question": "How many patients with heart failure are on furosemide?",
        "sql": f"SELECT count(*) FROM (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(HF)} INTERSECT SELECT person_id FROM drug_exposure WHERE drug_concept_id IN {d(FUROSEMIDE)})",
        "pandas": lambda t: len(_cond(t, HF) & _drug(t, FUROSEMIDE)),
    },
    {
        "id": "sy-013",
        "category": "cohort_count",
        "question": "How many patients with type 2 diabetes were never prescribed metformin?",
        "sql": f"SELECT count(*) FROM (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(T2DM)} EXCEPT SELECT person_id FROM drug_exposure WHERE drug_concept_id IN {d(METFORMIN)})",
        "pandas": lambda t: len(_cond(t, T2DM) - _drug(t, METFORMIN)),
    },
    {
        "id": "sy-014",
        "category": "cohort_count",
        "question": "How many patients were admitted to intensive care?",
        "sql": "SELECT count(DISTINCT person_id) FROM visit_occurrence WHERE visit_concept_id = 32037",
        "pandas": lambda t: int(_visits(t, (32037,)).person_id.nunique()),
    },
    {
        "id": "sy-015",
        "category": "cohort_count",
        "question": "How many patients had at least 3 emergency visits?",
        "sql": "SELECT count(*) FROM (SELECT person_id FROM visit_occurrence WHERE visit_concept_id = 9203 GROUP BY person_id HAVING count(*) >= 3)",
        "pandas": lambda t: int((_visits(t, (9203,)).groupby("person_id").size() >= 3).sum()),
    },
    {
        "id": "sy-016",
        "category": "cohort_count",
        "now": "2024-12-31",
        "question": "How many men aged 65 or older have atrial fibrillation?",
        "sql": f"SELECT count(DISTINCT p.person_id) FROM person p WHERE p.gender_concept_id = 8507 AND {AGE.format(now='2024-12-31')} >= 65 AND p.person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(AFIB)})",
        "pandas": lambda t: int(
            (lambda p: (_age(p.birth_datetime, "2024-12-31") >= 65).sum())(
                t["person"][
                    (t["person"].gender_concept_id == 8507)
                    & t["person"].person_id.isin(_cond(t, AFIB))
                ]
            )
        ),
    },
    # -- proportions -----------------------------------------------------------------------------
    {
        "id": "sy-017",
        "category": "proportion",
        "question": "What proportion of patients with diabetes have an HbA1c greater than 8%?",
        "sql": f"SELECT (SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id = {A1C} AND value_as_number > 8 AND person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(201820)}))::DOUBLE / (SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {d(201820)})",
        "pandas": lambda t: (
            len(
                set(_meas(t, A1C).loc[lambda m: m.value_as_number > 8, "person_id"])
                & _cond(t, 201820)
            )
            / len(_cond(t, 201820))
        ),
    },
    {
        "id": "sy-018",
        "category": "proportion",
        "question": "What percentage of patients diagnosed with pneumonia received ceftriaxone?",
        "sql": f"SELECT (SELECT count(*) FROM (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(PNEU)} INTERSECT SELECT person_id FROM drug_exposure WHERE drug_concept_id IN {d(CEFTRIAXONE)}))::DOUBLE / (SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {d(PNEU)})",
        "pandas": lambda t: len(_cond(t, PNEU) & _drug(t, CEFTRIAXONE)) / len(_cond(t, PNEU)),
    },
    {
        "id": "sy-019",
        "category": "proportion",
        "question": "What fraction of all patients have chronic kidney disease?",
        "sql": f"SELECT (SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {d(CKD)})::DOUBLE / count(*) FROM person",
        "pandas": lambda t: len(_cond(t, CKD)) / len(t["person"]),
    },
    # -- patient-level lookups -------------------------------------------------------------------
    {
        "id": "sy-020",
        "category": "patient_lookup",
        "patient_id": "72",
        "question": "What was this patient's most recent creatinine?",
        "sql": f"SELECT value_as_number FROM measurement WHERE person_id = 72 AND measurement_concept_id = {CREAT} ORDER BY measurement_date DESC, measurement_id DESC LIMIT 1",
        "pandas": lambda t: _patient_last(t, 72, CREAT),
    },
    {
        "id": "sy-021",
        "category": "patient_lookup",
        "patient_id": "72",
        "question": "What was the patient's first recorded systolic blood pressure?",
        "sql": f"SELECT value_as_number FROM measurement WHERE person_id = 72 AND measurement_concept_id = {SBP} ORDER BY measurement_date, measurement_id LIMIT 1",
        "pandas": lambda t: _patient_last(t, 72, SBP, first=True),
    },
    {
        "id": "sy-022",
        "category": "patient_lookup",
        "patient_id": "72",
        "question": "What is the highest potassium this patient has ever had?",
        "sql": f"SELECT max(value_as_number) FROM measurement WHERE person_id = 72 AND measurement_concept_id = {K}",
        "pandas": lambda t: float(_meas(t, K).query("person_id == 72").value_as_number.max()),
    },
    {
        "id": "sy-023",
        "category": "patient_lookup",
        "patient_id": "72",
        "question": "List the medications this patient has received.",
        "sql": "SELECT list(DISTINCT c.concept_name ORDER BY c.concept_name) FROM drug_exposure e JOIN concept c ON c.concept_id = e.drug_concept_id WHERE e.person_id = 72",
        "pandas": lambda t: _names(
            t, t["drug_exposure"].query("person_id == 72"), "drug_concept_id"
        ),
    },
    {
        "id": "sy-024",
        "category": "patient_lookup",
        "patient_id": "72",
        "question": "How many emergency department visits has the patient had?",
        "sql": "SELECT count(*) FROM visit_occurrence WHERE person_id = 72 AND visit_concept_id = 9203",
        "pandas": lambda t: int((_visits(t, (9203,)).person_id == 72).sum()),
    },
    {
        "id": "sy-025",
        "category": "patient_lookup",
        "patient_id": "69",
        "question": "Has this patient ever been in the ICU?",
        "sql": "SELECT count(*) > 0 FROM visit_occurrence WHERE person_id = 69 AND visit_concept_id = 32037",
        "pandas": lambda t: bool((_visits(t, (32037,)).person_id == 69).any()),
    },
    {
        "id": "sy-026",
        "category": "patient_lookup",
        "patient_id": "72",
        "question": "Does the patient have a diagnosis of heart failure?",
        "sql": f"SELECT count(*) > 0 FROM condition_occurrence WHERE person_id = 72 AND condition_concept_id IN {d(HF)}",
        "pandas": lambda t: 72 in _cond(t, HF),
    },
    # -- encounter scope -------------------------------------------------------------------------
    {
        "id": "sy-027",
        "category": "encounter_scope",
        "patient_id": "72",
        "question": "What was the patient's hemoglobin during their last emergency visit?",
        "sql": f"SELECT value_as_number FROM measurement WHERE measurement_concept_id = {HB} AND visit_occurrence_id = (SELECT visit_occurrence_id FROM visit_occurrence WHERE person_id = 72 AND visit_concept_id = 9203 ORDER BY visit_start_date DESC LIMIT 1) ORDER BY measurement_date DESC LIMIT 1",
        "pandas": lambda t: float(
            _in_visit(t, "measurement", 72, (9203,), last=True)
            .query(f"measurement_concept_id == {HB}")
            .sort_values("measurement_date")
            .iloc[-1]
            .value_as_number
        ),
    },
    {
        "id": "sy-028",
        "category": "encounter_scope",
        "patient_id": "72",
        "question": "Which drugs were given during the patient's first ICU stay?",
        "sql": "SELECT list(DISTINCT c.concept_name ORDER BY c.concept_name) FROM drug_exposure e JOIN concept c ON c.concept_id = e.drug_concept_id WHERE e.visit_occurrence_id = (SELECT visit_occurrence_id FROM visit_occurrence WHERE person_id = 72 AND visit_concept_id = 32037 ORDER BY visit_start_date LIMIT 1)",
        "pandas": lambda t: _names(
            t, _in_visit(t, "drug_exposure", 72, (32037,), last=False), "drug_concept_id"
        ),
    },
    {
        "id": "sy-029",
        "category": "encounter_scope",
        "patient_id": "69",
        "question": "What was the maximum heart rate during this patient's last ICU admission?",
        "sql": "SELECT max(value_as_number) FROM measurement WHERE measurement_concept_id = 3027018 AND visit_occurrence_id = (SELECT visit_occurrence_id FROM visit_occurrence WHERE person_id = 69 AND visit_concept_id = 32037 ORDER BY visit_start_date DESC LIMIT 1)",
        "pandas": lambda t: float(
            _in_visit(t, "measurement", 69, (32037,), last=True)
            .query("measurement_concept_id == 3027018")
            .value_as_number.max()
        ),
    },
    # -- time windows ------------------------------------------------------------------------------
    {
        "id": "sy-030",
        "category": "time_window",
        "question": "How many patients with heart failure were prescribed furosemide within 90 days after their diagnosis?",
        "sql": f"WITH a AS (SELECT person_id, min(condition_start_date) AS d0 FROM condition_occurrence WHERE condition_concept_id IN {d(HF)} GROUP BY person_id) SELECT count(DISTINCT e.person_id) FROM drug_exposure e JOIN a USING (person_id) WHERE e.drug_concept_id IN {d(FUROSEMIDE)} AND date_diff('day', a.d0, e.drug_exposure_start_date) BETWEEN 0 AND 90",
        "pandas": lambda t: (
            lambda m: int(
                m.loc[
                    (lambda dd: (dd >= 0) & (dd <= 90))(
                        (pd.to_datetime(m.drug_exposure_start_date) - pd.to_datetime(m.d0)).dt.days
                    ),
                    "person_id",
                ].nunique()
            )
        )(
            t["drug_exposure"][t["drug_exposure"].drug_concept_id.isin(_desc(t, FUROSEMIDE))].merge(
                t["condition_occurrence"][
                    t["condition_occurrence"].condition_concept_id.isin(_desc(t, HF))
                ]
                .groupby("person_id")
                .condition_start_date.min()
                .rename("d0")
                .reset_index(),
                on="person_id",
            )
        ),
    },
    {
        "id": "sy-031",
        "category": "time_window",
        "now": "2024-12-31",
        "question": "How many patients had a creatinine above 2 mg/dL in the last 2 years?",
        "sql": f"SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id = {CREAT} AND value_as_number > 2 AND measurement_date BETWEEN DATE '2024-12-31' - INTERVAL 730 DAY AND DATE '2024-12-31'",
        "pandas": lambda t: int(
            _meas(t, CREAT)
            .loc[
                lambda m: (
                    (m.value_as_number > 2)
                    & (
                        pd.to_datetime(m.measurement_date)
                        >= pd.Timestamp("2024-12-31") - pd.Timedelta(days=730)
                    )
                    & (pd.to_datetime(m.measurement_date) <= pd.Timestamp("2024-12-31"))
                ),
                "person_id",
            ]
            .nunique()
        ),
    },
    {
        "id": "sy-032",
        "category": "time_window",
        "question": "How many patients developed acute kidney injury within 30 days after a pneumonia?",
        "sql": f"WITH a AS (SELECT person_id, min(condition_start_date) AS d0 FROM condition_occurrence WHERE condition_concept_id IN {d(PNEU)} GROUP BY person_id) SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN a USING (person_id) WHERE c.condition_concept_id IN {d(AKI)} AND date_diff('day', a.d0, c.condition_start_date) BETWEEN 0 AND 30",
        "pandas": lambda t: (
            lambda m: int(
                m.loc[
                    (lambda dd: (dd >= 0) & (dd <= 30))(
                        (pd.to_datetime(m.condition_start_date) - pd.to_datetime(m.d0)).dt.days
                    ),
                    "person_id",
                ].nunique()
            )
        )(
            t["condition_occurrence"][
                t["condition_occurrence"].condition_concept_id.isin(_desc(t, AKI))
            ].merge(
                t["condition_occurrence"][
                    t["condition_occurrence"].condition_concept_id.isin(_desc(t, PNEU))
                ]
                .groupby("person_id")
                .condition_start_date.min()
                .rename("d0")
                .reset_index(),
                on="person_id",
            )
        ),
    },
    # -- calendar ----------------------------------------------------------------------------------
    {
        "id": "sy-033",
        "category": "calendar",
        "question": "How many ER visits were there in 2020?",
        "sql": "SELECT count(*) FROM visit_occurrence WHERE visit_concept_id = 9203 AND year(visit_start_date) = 2020",
        "pandas": lambda t: int(
            (pd.to_datetime(_visits(t, (9203,)).visit_start_date).dt.year == 2020).sum()
        ),
    },
    {
        "id": "sy-034",
        "category": "calendar",
        "now": "2024-06-30",
        "question": "How many patients had an inpatient admission last year?",
        "sql": f"SELECT count(DISTINCT person_id) FROM visit_occurrence WHERE visit_concept_id IN {IP} AND year(visit_start_date) = 2023",
        "pandas": lambda t: int(
            _visits(t, IP)
            .loc[lambda v: pd.to_datetime(v.visit_start_date).dt.year == 2023, "person_id"]
            .nunique()
        ),
    },
    {
        "id": "sy-035",
        "category": "calendar",
        "question": "Average glucose value measured between 2018 and 2019",
        "sql": f"SELECT avg(value_as_number) FROM measurement WHERE measurement_concept_id = {GLU} AND measurement_date BETWEEN DATE '2018-01-01' AND DATE '2019-12-31'",
        "pandas": lambda t: float(
            _meas(t, GLU)
            .loc[
                lambda m: pd.to_datetime(m.measurement_date).dt.year.between(2018, 2019),
                "value_as_number",
            ]
            .mean()
        ),
    },
    # -- group by ----------------------------------------------------------------------------------
    {
        "id": "sy-036",
        "category": "group_by",
        "question": "Mean hemoglobin by sex",
        "sql": f"SELECT map_from_entries(list((CASE WHEN p.gender_concept_id = 8507 THEN 'male' ELSE 'female' END, v))) FROM (SELECT p.gender_concept_id, avg(m.value_as_number) AS v FROM measurement m JOIN person p USING (person_id) WHERE m.measurement_concept_id = {HB} GROUP BY 1) p",
        "pandas": lambda t: {
            ("male" if k == 8507 else "female"): float(v)
            for k, v in _meas(t, HB)
            .merge(t["person"], on="person_id")
            .groupby("gender_concept_id")
            .value_as_number.mean()
            .items()
        },
    },
    {
        "id": "sy-037",
        "category": "group_by",
        "question": "Number of ICU admissions per year",
        "sql": "SELECT map_from_entries(list((y, n))) FROM (SELECT year(visit_start_date)::VARCHAR AS y, count(*) AS n FROM visit_occurrence WHERE visit_concept_id = 32037 GROUP BY 1)",
        "pandas": lambda t: {
            str(k): int(v)
            for k, v in pd.to_datetime(_visits(t, (32037,)).visit_start_date)
            .dt.year.value_counts()
            .items()
        },
    },
    {
        "id": "sy-038",
        "category": "group_by",
        "question": "How many patients with atrial fibrillation are there by gender?",
        "sql": f"SELECT map_from_entries(list((CASE WHEN gender_concept_id = 8507 THEN 'male' ELSE 'female' END, n))) FROM (SELECT gender_concept_id, count(*) AS n FROM person WHERE person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(AFIB)}) GROUP BY 1)",
        "pandas": lambda t: {
            ("male" if k == 8507 else "female"): int(v)
            for k, v in t["person"][t["person"].person_id.isin(_cond(t, AFIB))]
            .groupby("gender_concept_id")
            .size()
            .items()
        },
    },
    # -- unanswerable ------------------------------------------------------------------------------
    {
        "id": "sy-039",
        "category": "unanswerable",
        "answerable": False,
        "question": "What is the average LDL cholesterol?",
        "reason": "cholesterol not measured",
    },
    {
        "id": "sy-040",
        "category": "unanswerable",
        "answerable": False,
        "question": "How many patients have lung cancer?",
        "reason": "no cancer in vocabulary or data",
    },
    {
        "id": "sy-041",
        "category": "unanswerable",
        "answerable": False,
        "question": "What is the 30-day mortality after an ICU admission?",
        "reason": "death outcomes not expressible",
    },
    {
        "id": "sy-042",
        "category": "unanswerable",
        "answerable": False,
        "patient_id": "72",
        "question": "What is this patient's household income?",
        "reason": "not stored",
    },
    {
        "id": "sy-043",
        "category": "unanswerable",
        "answerable": False,
        "question": "How many patients received chemotherapy?",
        "reason": "no chemotherapy",
    },
    {
        "id": "sy-044",
        "category": "unanswerable",
        "answerable": False,
        "question": "Which hospital ward had the most admissions?",
        "reason": "ward/care site not stored",
    },
    {
        "id": "sy-045",
        "category": "unanswerable",
        "answerable": False,
        "question": "What was the average oxygen saturation in the ICU?",
        "reason": "SpO2 not measured",
    },
]
