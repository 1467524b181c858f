"""Dev-set questions over Eunomia GiBleed with hand-written gold SQL and a pandas cross-check.

Each entry: id, question, patient_id, now, category, answerable, gold SQL (DuckDB over the raw
CSV tables, lower-case table names) and a pandas function computing the same value a second way.
``build_devset.py`` runs both, asserts they agree and writes ``eunomia.jsonl``.

Conventions for gold values: counts are integers; proportions are fractions in [0, 1]; dates
are ISO strings; lists are sorted concept names; yes/no is a boolean; group-by answers are
{group: value} objects. Age is in completed years at ``now``. Concept sets include
descendants (CONCEPT_ANCESTOR). "Last year" is the previous calendar year.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

T = dict[str, pd.DataFrame]


def _desc(t: T, cid: int) -> set[int]:
    ca = t["concept_ancestor"]
    out = set(ca.loc[ca.ancestor_concept_id == cid, "descendant_concept_id"].astype(int))
    return out | {cid}


def _persons_with(t: T, table: str, col: str, cid: int) -> set[int]:
    df = t[table]
    return set(df.loc[df[col].isin(_desc(t, cid)), "person_id"])


def _cond(t: T, cid: int) -> set[int]:
    return _persons_with(t, "condition_occurrence", "condition_concept_id", cid)


def _drug(t: T, cid: int) -> set[int]:
    return _persons_with(t, "drug_exposure", "drug_concept_id", cid)


def _first(t: T, table: str, col: str, datecol: str, cid: int) -> pd.Series:
    df = t[table]
    df = df[df[col].isin(_desc(t, cid))]
    return df.groupby("person_id")[datecol].min()


def _age(birth: pd.Series, now: str) -> pd.Series:
    n = pd.Timestamp(now)
    b = pd.to_datetime(birth)
    before = (b.dt.month > n.month) | ((b.dt.month == n.month) & (b.dt.day > n.day))
    return n.year - b.dt.year - before.astype(int)


def _window_count(t: T, cond_id: int, drug_id: int, lo: int, hi: int) -> int:
    first = _first(t, "drug_exposure", "drug_concept_id", "drug_exposure_start_date", drug_id)
    co = t["condition_occurrence"]
    co = co[co.condition_concept_id.isin(_desc(t, cond_id))].merge(
        first.rename("anchor").reset_index(), on="person_id"
    )
    d = (pd.to_datetime(co.condition_start_date) - pd.to_datetime(co.anchor)).dt.days
    return co.loc[(d >= lo) & (d <= hi), "person_id"].nunique()


DESC = "(SELECT descendant_concept_id FROM concept_ancestor WHERE ancestor_concept_id = {})"
AGE = (
    "(date_diff('year', p.birth_datetime, DATE '{now}') - "
    "CASE WHEN strftime(p.birth_datetime, '%m%d') > strftime(DATE '{now}', '%m%d') THEN 1 ELSE 0 END)"
)


def d(cid: int) -> str:
    return DESC.format(cid)


QUESTIONS: list[dict[str, Any]] = [
    # -- cohort counts -------------------------------------------------------------------------
    {
        "id": "eu-001",
        "category": "cohort_count",
        "question": "How many patients have been diagnosed with gastrointestinal hemorrhage?",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {d(192671)}",
        "pandas": lambda t: len(_cond(t, 192671)),
    },
    {
        "id": "eu-002",
        "category": "cohort_count",
        "question": "How many women had a GI bleed?",
        "sql": f"SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN person p USING (person_id) WHERE c.condition_concept_id IN {d(192671)} AND p.gender_concept_id = 8532",
        "pandas": lambda t: len(
            _cond(t, 192671) & set(t["person"].query("gender_concept_id == 8532").person_id)
        ),
    },
    {
        "id": "eu-003",
        "category": "cohort_count",
        "question": "Number of patients exposed to celecoxib",
        "sql": f"SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN {d(1118084)}",
        "pandas": lambda t: len(_drug(t, 1118084)),
    },
    {
        "id": "eu-004",
        "category": "cohort_count",
        "question": "How many male patients received diclofenac?",
        "sql": f"SELECT count(DISTINCT e.person_id) FROM drug_exposure e JOIN person p USING (person_id) WHERE e.drug_concept_id IN {d(1124300)} AND p.gender_concept_id = 8507",
        "pandas": lambda t: len(
            _drug(t, 1124300) & set(t["person"].query("gender_concept_id == 8507").person_id)
        ),
    },
    {
        "id": "eu-005",
        "category": "cohort_count",
        "question": "How many patients have both osteoarthritis and a peptic ulcer?",
        "sql": f"SELECT count(*) FROM (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(80180)} INTERSECT SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(4027663)})",
        "pandas": lambda t: len(_cond(t, 80180) & _cond(t, 4027663)),
    },
    {
        "id": "eu-006",
        "category": "cohort_count",
        "question": "How many patients were prescribed warfarin but never clopidogrel?",
        "sql": f"SELECT count(*) FROM (SELECT person_id FROM drug_exposure WHERE drug_concept_id IN {d(1310149)} EXCEPT SELECT person_id FROM drug_exposure WHERE drug_concept_id IN {d(1322184)})",
        "pandas": lambda t: len(_drug(t, 1310149) - _drug(t, 1322184)),
    },
    {
        "id": "eu-007",
        "category": "cohort_count",
        "question": "How many people underwent an appendectomy?",
        "sql": f"SELECT count(DISTINCT person_id) FROM procedure_occurrence WHERE procedure_concept_id IN {d(4198190)}",
        "pandas": lambda t: len(
            _persons_with(t, "procedure_occurrence", "procedure_concept_id", 4198190)
        ),
    },
    {
        "id": "eu-008",
        "category": "cohort_count",
        "question": "Count the patients with a history of myocardial infarction recorded as an observation",
        "sql": f"SELECT count(DISTINCT person_id) FROM observation WHERE observation_concept_id IN {d(4163874)}",
        "pandas": lambda t: len(_persons_with(t, "observation", "observation_concept_id", 4163874)),
    },
    {
        "id": "eu-009",
        "category": "cohort_count",
        "question": "How many patients were diagnosed with atrial fibrillation before the age of 50?",
        "sql": f"SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN person p USING (person_id) WHERE c.condition_concept_id IN {d(313217)} AND (date_diff('year', p.birth_datetime, c.condition_start_date) - CASE WHEN strftime(p.birth_datetime, '%m%d') > strftime(c.condition_start_date, '%m%d') THEN 1 ELSE 0 END) < 50",
        "pandas": lambda t: (
            lambda co: co.loc[
                [
                    (
                        pd.Timestamp(r.condition_start_date).year
                        - pd.Timestamp(r.birth_datetime).year
                        - int(
                            (
                                pd.Timestamp(r.birth_datetime).month,
                                pd.Timestamp(r.birth_datetime).day,
                            )
                            > (
                                pd.Timestamp(r.condition_start_date).month,
                                pd.Timestamp(r.condition_start_date).day,
                            )
                        )
                    )
                    < 50
                    for r in co.itertuples()
                ],
                "person_id",
            ].nunique()
        )(
            t["condition_occurrence"][
                t["condition_occurrence"].condition_concept_id.isin(_desc(t, 313217))
            ].merge(t["person"], on="person_id")
        ),
    },
    {
        "id": "eu-010",
        "category": "cohort_count",
        "question": "How many patients had at least 3 episodes of acute bronchitis?",
        "sql": f"SELECT count(*) FROM (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(260139)} GROUP BY person_id HAVING count(*) >= 3)",
        "pandas": lambda t: int(
            (
                t["condition_occurrence"]
                .query("condition_concept_id == 260139")
                .groupby("person_id")
                .size()
                >= 3
            ).sum()
        ),
    },
    {
        "id": "eu-011",
        "category": "cohort_count",
        "question": "How many patients have had a hemoglobin test?",
        "sql": f"SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id IN {d(3000963)}",
        "pandas": lambda t: len(_persons_with(t, "measurement", "measurement_concept_id", 3000963)),
    },
    {
        "id": "eu-012",
        "category": "cohort_count",
        "now": "2019-12-31",
        "question": "How many patients older than 60 have osteoporosis?",
        "sql": f"SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN person p USING (person_id) WHERE c.condition_concept_id IN {d(80502)} AND {AGE.format(now='2019-12-31')} > 60",
        "pandas": lambda t: int(
            (lambda p: (_age(p.birth_datetime, "2019-12-31") > 60).sum())(
                t["person"][t["person"].person_id.isin(_cond(t, 80502))]
            )
        ),
    },
    {
        "id": "eu-013",
        "category": "cohort_count",
        "question": "How many patients with heart attack are there?",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {d(4329847)}",
        "pandas": lambda t: len(_cond(t, 4329847)),
    },
    {
        "id": "eu-014",
        "category": "cohort_count",
        "question": "How many female patients took ibuprofen?",
        "sql": f"SELECT count(DISTINCT e.person_id) FROM drug_exposure e JOIN person p USING (person_id) WHERE e.drug_concept_id IN {d(1177480)} AND p.gender_concept_id = 8532",
        "pandas": lambda t: len(
            _drug(t, 1177480) & set(t["person"].query("gender_concept_id == 8532").person_id)
        ),
    },
    # -- proportions ---------------------------------------------------------------------------
    {
        "id": "eu-015",
        "category": "proportion",
        "question": "What percentage of patients exposed to celecoxib developed gastrointestinal hemorrhage?",
        "sql": f"SELECT count(DISTINCT c.person_id)::DOUBLE / (SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN {d(1118084)}) FROM condition_occurrence c WHERE c.condition_concept_id IN {d(192671)} AND c.person_id IN (SELECT person_id FROM drug_exposure WHERE drug_concept_id IN {d(1118084)})",
        "pandas": lambda t: len(_drug(t, 1118084) & _cond(t, 192671)) / len(_drug(t, 1118084)),
    },
    {
        "id": "eu-016",
        "category": "proportion",
        "question": "What proportion of patients with gastrointestinal bleeding are female?",
        "sql": f"SELECT avg(CASE WHEN p.gender_concept_id = 8532 THEN 1.0 ELSE 0.0 END) FROM person p WHERE p.person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(192671)})",
        "pandas": lambda t: (
            len(_cond(t, 192671) & set(t["person"].query("gender_concept_id == 8532").person_id))
            / len(_cond(t, 192671) & set(t["person"].person_id))
        ),
    },
    {
        "id": "eu-017",
        "category": "proportion",
        "question": "Among patients with osteoarthritis, what fraction received diclofenac?",
        "sql": f"SELECT count(DISTINCT person_id)::DOUBLE / (SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {d(80180)}) FROM drug_exposure WHERE drug_concept_id IN {d(1124300)} AND person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(80180)})",
        "pandas": lambda t: len(_cond(t, 80180) & _drug(t, 1124300)) / len(_cond(t, 80180)),
    },
    {
        "id": "eu-018",
        "category": "proportion",
        "question": "What share of all patients had a closed fracture of the hip?",
        "sql": f"SELECT (SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {d(4230399)})::DOUBLE / count(*) FROM person",
        "pandas": lambda t: len(_cond(t, 4230399)) / len(t["person"]),
    },
    {
        "id": "eu-019",
        "category": "proportion",
        "question": "Percentage of diclofenac users who are men",
        "sql": f"SELECT avg(CASE WHEN gender_concept_id = 8507 THEN 1.0 ELSE 0.0 END) FROM person WHERE person_id IN (SELECT person_id FROM drug_exposure WHERE drug_concept_id IN {d(1124300)})",
        "pandas": lambda t: (
            len(_drug(t, 1124300) & set(t["person"].query("gender_concept_id == 8507").person_id))
            / len(_drug(t, 1124300) & set(t["person"].person_id))
        ),
    },
    # -- aggregates ----------------------------------------------------------------------------
    {
        "id": "eu-020",
        "category": "aggregate",
        "question": "What is the average days supply of acetaminophen prescriptions?",
        "sql": f"SELECT avg(days_supply) FROM drug_exposure WHERE drug_concept_id IN {d(1125315)}",
        "pandas": lambda t: float(
            t["drug_exposure"]
            .loc[t["drug_exposure"].drug_concept_id.isin(_desc(t, 1125315)), "days_supply"]
            .mean()
        ),
    },
    {
        "id": "eu-021",
        "category": "aggregate",
        "question": "Median days' supply of amoxicillin exposures",
        "sql": f"SELECT median(days_supply) FROM drug_exposure WHERE drug_concept_id IN {d(1713332)}",
        "pandas": lambda t: float(
            t["drug_exposure"]
            .loc[t["drug_exposure"].drug_concept_id.isin(_desc(t, 1713332)), "days_supply"]
            .median()
        ),
    },
    {
        "id": "eu-022",
        "category": "aggregate",
        "question": "What is the longest days supply recorded for clopidogrel?",
        "sql": f"SELECT max(days_supply) FROM drug_exposure WHERE drug_concept_id IN {d(1322184)}",
        "pandas": lambda t: int(
            t["drug_exposure"]
            .loc[t["drug_exposure"].drug_concept_id.isin(_desc(t, 1322184)), "days_supply"]
            .max()
        ),
    },
    {
        "id": "eu-023",
        "category": "aggregate",
        "question": "What is the mean length of stay for inpatient visits, in days?",
        "sql": "SELECT avg(date_diff('day', visit_start_date, visit_end_date)) FROM visit_occurrence WHERE visit_concept_id = 9201",
        "pandas": lambda t: float(
            (
                pd.to_datetime(t["visit_occurrence"].visit_end_date)
                - pd.to_datetime(t["visit_occurrence"].visit_start_date)
            ).dt.days.mean()
        ),
    },
    {
        "id": "eu-024",
        "category": "aggregate",
        "now": "2019-12-31",
        "question": "What is the average age of patients with Alzheimer's disease?",
        "sql": f"SELECT avg({AGE.format(now='2019-12-31')}) FROM person p WHERE p.person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(378419)})",
        "pandas": lambda t: float(
            _age(
                t["person"][t["person"].person_id.isin(_cond(t, 378419))].birth_datetime,
                "2019-12-31",
            ).mean()
        ),
    },
    {
        "id": "eu-025",
        "category": "aggregate",
        "question": "How many celecoxib exposures are recorded in total?",
        "sql": f"SELECT count(*) FROM drug_exposure WHERE drug_concept_id IN {d(1118084)}",
        "pandas": lambda t: int(t["drug_exposure"].drug_concept_id.isin(_desc(t, 1118084)).sum()),
    },
    {
        "id": "eu-026",
        "category": "aggregate",
        "question": "How many inpatient admissions are there in the database?",
        "sql": "SELECT count(*) FROM visit_occurrence WHERE visit_concept_id = 9201",
        "pandas": lambda t: int((t["visit_occurrence"].visit_concept_id == 9201).sum()),
    },
    {
        "id": "eu-027",
        "category": "aggregate",
        "question": "On average, how many times was each patient with viral sinusitis diagnosed with it?",
        "sql": f"SELECT avg(n) FROM (SELECT person_id, count(*) AS n FROM condition_occurrence WHERE condition_concept_id IN {d(40481087)} GROUP BY person_id)",
        "pandas": lambda t: float(
            t["condition_occurrence"]
            .query("condition_concept_id == 40481087")
            .groupby("person_id")
            .size()
            .mean()
        ),
    },
    {
        "id": "eu-028",
        "category": "aggregate",
        "question": "What was the maximum days supply of any naproxen prescription?",
        "sql": f"SELECT max(days_supply) FROM drug_exposure WHERE drug_concept_id IN {d(1115008)}",
        "pandas": lambda t: int(
            t["drug_exposure"]
            .loc[t["drug_exposure"].drug_concept_id.isin(_desc(t, 1115008)), "days_supply"]
            .max()
        ),
    },
    # -- patient-level lookups ---------------------------------------------------------------
    {
        "id": "eu-029",
        "category": "patient_lookup",
        "patient_id": "3048",
        "question": "When was this patient first diagnosed with osteoarthritis?",
        "sql": f"SELECT strftime(min(condition_start_date), '%Y-%m-%d') FROM condition_occurrence WHERE person_id = 3048 AND condition_concept_id IN {d(80180)}",
        "pandas": lambda t: str(
            t["condition_occurrence"]
            .query("person_id == 3048 and condition_concept_id == 80180")
            .condition_start_date.min()
        )[:10],
    },
    {
        "id": "eu-030",
        "category": "patient_lookup",
        "patient_id": "3048",
        "question": "List all the conditions this patient has had.",
        "sql": "SELECT list(DISTINCT c.concept_name ORDER BY c.concept_name) FROM condition_occurrence o JOIN concept c ON c.concept_id = o.condition_concept_id WHERE o.person_id = 3048",
        "pandas": lambda t: sorted(
            set(
                t["condition_occurrence"]
                .query("person_id == 3048")
                .merge(t["concept"], left_on="condition_concept_id", right_on="concept_id")
                .concept_name
            )
        ),
    },
    {
        "id": "eu-031",
        "category": "patient_lookup",
        "patient_id": "3516",
        "question": "How many visits did the patient have?",
        "sql": "SELECT count(*) FROM visit_occurrence WHERE person_id = 3516",
        "pandas": lambda t: int((t["visit_occurrence"].person_id == 3516).sum()),
    },
    {
        "id": "eu-032",
        "category": "patient_lookup",
        "patient_id": "3048",
        "question": "Has this patient ever had a GI hemorrhage?",
        "sql": f"SELECT count(*) > 0 FROM condition_occurrence WHERE person_id = 3048 AND condition_concept_id IN {d(192671)}",
        "pandas": lambda t: bool(3048 in _cond(t, 192671)),
    },
    {
        "id": "eu-033",
        "category": "patient_lookup",
        "patient_id": "3048",
        "question": "Was the patient ever given diclofenac?",
        "sql": f"SELECT count(*) > 0 FROM drug_exposure WHERE person_id = 3048 AND drug_concept_id IN {d(1124300)}",
        "pandas": lambda t: bool(3048 in _drug(t, 1124300)),
    },
    {
        "id": "eu-034",
        "category": "patient_lookup",
        "patient_id": "2767",
        "question": "What was the date of the patient's most recent hemoglobin measurement?",
        "sql": f"SELECT strftime(max(measurement_date), '%Y-%m-%d') FROM measurement WHERE person_id = 2767 AND measurement_concept_id IN {d(3000963)}",
        "pandas": lambda t: str(
            t["measurement"]
            .query("person_id == 2767 and measurement_concept_id == 3000963")
            .measurement_date.max()
        )[:10],
    },
    {
        "id": "eu-035",
        "category": "patient_lookup",
        "patient_id": "3048",
        "question": "How many different drugs has this patient been exposed to?",
        "sql": "SELECT count(DISTINCT drug_concept_id) FROM drug_exposure WHERE person_id = 3048",
        "pandas": lambda t: int(
            t["drug_exposure"].query("person_id == 3048").drug_concept_id.nunique()
        ),
    },
    {
        "id": "eu-036",
        "category": "patient_lookup",
        "patient_id": "3048",
        "question": "On what date did the patient first take celecoxib?",
        "sql": f"SELECT strftime(min(drug_exposure_start_date), '%Y-%m-%d') FROM drug_exposure WHERE person_id = 3048 AND drug_concept_id IN {d(1118084)}",
        "pandas": lambda t: str(
            t["drug_exposure"]
            .query("person_id == 3048 and drug_concept_id == 1118084")
            .drug_exposure_start_date.min()
        )[:10],
    },
    {
        "id": "eu-037",
        "category": "patient_lookup",
        "patient_id": "3048",
        "question": "When was the last time the patient had viral sinusitis?",
        "sql": f"SELECT strftime(max(condition_start_date), '%Y-%m-%d') FROM condition_occurrence WHERE person_id = 3048 AND condition_concept_id IN {d(40481087)}",
        "pandas": lambda t: str(
            t["condition_occurrence"]
            .query("person_id == 3048 and condition_concept_id == 40481087")
            .condition_start_date.max()
        )[:10],
    },
    # -- time windows relative to anchors -----------------------------------------------------
    {
        "id": "eu-038",
        "category": "time_window",
        "question": "How many patients had a GI bleed within 30 days after their first celecoxib exposure?",
        "sql": f"WITH a AS (SELECT person_id, min(drug_exposure_start_date) AS d0 FROM drug_exposure WHERE drug_concept_id IN {d(1118084)} GROUP BY person_id) SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN a USING (person_id) WHERE c.condition_concept_id IN {d(192671)} AND date_diff('day', a.d0, c.condition_start_date) BETWEEN 0 AND 30",
        "pandas": lambda t: _window_count(t, 192671, 1118084, 0, 30),
    },
    {
        "id": "eu-039",
        "category": "time_window",
        "question": "How many patients were diagnosed with gastrointestinal hemorrhage within one year after starting diclofenac?",
        "sql": f"WITH a AS (SELECT person_id, min(drug_exposure_start_date) AS d0 FROM drug_exposure WHERE drug_concept_id IN {d(1124300)} GROUP BY person_id) SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN a USING (person_id) WHERE c.condition_concept_id IN {d(192671)} AND date_diff('day', a.d0, c.condition_start_date) BETWEEN 0 AND 365",
        "pandas": lambda t: _window_count(t, 192671, 1124300, 0, 365),
    },
    {
        "id": "eu-040",
        "category": "time_window",
        "question": "How many patients had a peptic ulcer before their first exposure to celecoxib?",
        "sql": f"WITH a AS (SELECT person_id, min(drug_exposure_start_date) AS d0 FROM drug_exposure WHERE drug_concept_id IN {d(1118084)} GROUP BY person_id) SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN a USING (person_id) WHERE c.condition_concept_id IN {d(4027663)} AND c.condition_start_date < a.d0",
        "pandas": lambda t: _window_count(t, 4027663, 1118084, -(10**6), -1),
    },
    {
        "id": "eu-041",
        "category": "time_window",
        "question": "How many patients received acetaminophen in their first year of observation?",
        "sql": f"WITH op AS (SELECT person_id, min(observation_period_start_date) AS s FROM observation_period GROUP BY person_id) SELECT count(DISTINCT e.person_id) FROM drug_exposure e JOIN op USING (person_id) WHERE e.drug_concept_id IN {d(1125315)} AND date_diff('day', op.s, e.drug_exposure_start_date) BETWEEN 0 AND 365",
        "pandas": lambda t: (
            lambda m: int(
                m.loc[
                    (lambda dd: (dd >= 0) & (dd <= 365))(
                        (
                            pd.to_datetime(m.drug_exposure_start_date)
                            - pd.to_datetime(m.observation_period_start_date)
                        ).dt.days
                    ),
                    "person_id",
                ].nunique()
            )
        )(
            t["drug_exposure"][t["drug_exposure"].drug_concept_id.isin(_desc(t, 1125315))].merge(
                t["observation_period"]
                .groupby("person_id")
                .observation_period_start_date.min()
                .reset_index(),
                on="person_id",
            )
        ),
    },
    {
        "id": "eu-042",
        "category": "time_window",
        "question": "How many patients had esophagitis in the year before their first gastrointestinal hemorrhage?",
        "sql": f"WITH a AS (SELECT person_id, min(condition_start_date) AS d0 FROM condition_occurrence WHERE condition_concept_id IN {d(192671)} GROUP BY person_id) SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN a USING (person_id) WHERE c.condition_concept_id IN {d(30753)} AND date_diff('day', a.d0, c.condition_start_date) BETWEEN -365 AND -1",
        "pandas": lambda t: (
            lambda co, first: int(
                (
                    lambda m: m.loc[
                        (lambda dd: (dd >= -365) & (dd <= -1))(
                            (
                                pd.to_datetime(m.condition_start_date) - pd.to_datetime(m.anchor)
                            ).dt.days
                        ),
                        "person_id",
                    ].nunique()
                )(
                    co[co.condition_concept_id == 30753].merge(
                        first.rename("anchor").reset_index(), on="person_id"
                    )
                )
            )
        )(
            t["condition_occurrence"],
            _first(
                t, "condition_occurrence", "condition_concept_id", "condition_start_date", 192671
            ),
        ),
    },
    # -- encounter scope -----------------------------------------------------------------------
    {
        "id": "eu-043",
        "category": "encounter_scope",
        "patient_id": "3516",
        "question": "What conditions were recorded during this patient's last inpatient visit?",
        "sql": "SELECT list(DISTINCT k.concept_name ORDER BY k.concept_name) FROM condition_occurrence c JOIN concept k ON k.concept_id = c.condition_concept_id WHERE c.visit_occurrence_id = (SELECT visit_occurrence_id FROM visit_occurrence WHERE person_id = 3516 AND visit_concept_id = 9201 ORDER BY visit_start_date DESC LIMIT 1)",
        "pandas": lambda t: sorted(
            set(
                t["condition_occurrence"][
                    t["condition_occurrence"].visit_occurrence_id
                    == t["visit_occurrence"]
                    .query("person_id == 3516")
                    .sort_values("visit_start_date")
                    .iloc[-1]
                    .visit_occurrence_id
                ]
                .merge(t["concept"], left_on="condition_concept_id", right_on="concept_id")
                .concept_name
            )
        ),
    },
    {
        "id": "eu-044",
        "category": "encounter_scope",
        "patient_id": "3865",
        "question": "Which diagnoses did the patient receive during their first hospitalization?",
        "sql": "SELECT list(DISTINCT k.concept_name ORDER BY k.concept_name) FROM condition_occurrence c JOIN concept k ON k.concept_id = c.condition_concept_id WHERE c.visit_occurrence_id = (SELECT visit_occurrence_id FROM visit_occurrence WHERE person_id = 3865 AND visit_concept_id = 9201 ORDER BY visit_start_date LIMIT 1)",
        "pandas": lambda t: sorted(
            set(
                t["condition_occurrence"][
                    t["condition_occurrence"].visit_occurrence_id
                    == t["visit_occurrence"]
                    .query("person_id == 3865")
                    .sort_values("visit_start_date")
                    .iloc[0]
                    .visit_occurrence_id
                ]
                .merge(t["concept"], left_on="condition_concept_id", right_on="concept_id")
                .concept_name
            )
        ),
    },
    # -- calendar ranges -------------------------------------------------------------------------
    {
        "id": "eu-045",
        "category": "calendar",
        "question": "How many patients were diagnosed with GI hemorrhage in 2015?",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {d(192671)} AND year(condition_start_date) = 2015",
        "pandas": lambda t: int(
            t["condition_occurrence"]
            .query("condition_concept_id == 192671")
            .loc[lambda x: pd.to_datetime(x.condition_start_date).dt.year == 2015, "person_id"]
            .nunique()
        ),
    },
    {
        "id": "eu-046",
        "category": "calendar",
        "question": "How many hospital admissions were there in 2018?",
        "sql": "SELECT count(*) FROM visit_occurrence WHERE visit_concept_id = 9201 AND year(visit_start_date) = 2018",
        "pandas": lambda t: int(
            (pd.to_datetime(t["visit_occurrence"].visit_start_date).dt.year == 2018).sum()
        ),
    },
    {
        "id": "eu-047",
        "category": "calendar",
        "question": "How many patients received celecoxib between 2000 and 2005?",
        "sql": f"SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN {d(1118084)} AND drug_exposure_start_date BETWEEN DATE '2000-01-01' AND DATE '2005-12-31'",
        "pandas": lambda t: int(
            t["drug_exposure"]
            .query("drug_concept_id == 1118084")
            .loc[
                lambda x: pd.to_datetime(x.drug_exposure_start_date).dt.year.between(2000, 2005),
                "person_id",
            ]
            .nunique()
        ),
    },
    {
        "id": "eu-048",
        "category": "calendar",
        "now": "2019-06-30",
        "question": "How many patients had acute bronchitis last year?",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {d(260139)} AND year(condition_start_date) = 2018",
        "pandas": lambda t: int(
            t["condition_occurrence"]
            .query("condition_concept_id == 260139")
            .loc[lambda x: pd.to_datetime(x.condition_start_date).dt.year == 2018, "person_id"]
            .nunique()
        ),
    },
    {
        "id": "eu-049",
        "category": "calendar",
        "question": "How many patients had a streptococcal sore throat since 2017?",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {d(28060)} AND condition_start_date >= DATE '2017-01-01'",
        "pandas": lambda t: int(
            t["condition_occurrence"]
            .query("condition_concept_id == 28060")
            .loc[lambda x: pd.to_datetime(x.condition_start_date) >= "2017-01-01", "person_id"]
            .nunique()
        ),
    },
    # -- group by --------------------------------------------------------------------------------
    {
        "id": "eu-050",
        "category": "group_by",
        "question": "How many patients with gastrointestinal hemorrhage are there, by sex?",
        "sql": f"SELECT map_from_entries(list((CASE WHEN gender_concept_id = 8507 THEN 'male' ELSE 'female' END, n))) FROM (SELECT gender_concept_id, count(*) AS n FROM person WHERE person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {d(192671)}) GROUP BY 1)",
        "pandas": lambda t: {
            ("male" if k == 8507 else "female"): int(v)
            for k, v in t["person"][t["person"].person_id.isin(_cond(t, 192671))]
            .groupby("gender_concept_id")
            .size()
            .items()
        },
    },
    {
        "id": "eu-051",
        "category": "group_by",
        "question": "Number of inpatient visits per year since 2015",
        "sql": "SELECT map_from_entries(list((y, n))) FROM (SELECT year(visit_start_date)::VARCHAR AS y, count(*) AS n FROM visit_occurrence WHERE visit_concept_id = 9201 AND visit_start_date >= DATE '2015-01-01' GROUP BY 1)",
        "pandas": lambda t: {
            str(k): int(v)
            for k, v in pd.to_datetime(t["visit_occurrence"].visit_start_date)
            .dt.year.loc[lambda s: s >= 2015]
            .value_counts()
            .items()
        },
    },
    {
        "id": "eu-052",
        "category": "group_by",
        "question": "How many patients took diclofenac, broken down by gender?",
        "sql": f"SELECT map_from_entries(list((CASE WHEN gender_concept_id = 8507 THEN 'male' ELSE 'female' END, n))) FROM (SELECT gender_concept_id, count(*) AS n FROM person WHERE person_id IN (SELECT person_id FROM drug_exposure WHERE drug_concept_id IN {d(1124300)}) GROUP BY 1)",
        "pandas": lambda t: {
            ("male" if k == 8507 else "female"): int(v)
            for k, v in t["person"][t["person"].person_id.isin(_drug(t, 1124300))]
            .groupby("gender_concept_id")
            .size()
            .items()
        },
    },
    # -- unanswerable ----------------------------------------------------------------------------
    {
        "id": "eu-053",
        "category": "unanswerable",
        "answerable": False,
        "question": "What is the average hemoglobin value?",
        "reason": "hemoglobin measurements exist but carry no numeric values",
    },
    {
        "id": "eu-054",
        "category": "unanswerable",
        "answerable": False,
        "question": "How many patients have type 2 diabetes mellitus?",
        "reason": "diabetes is neither in the vocabulary nor in the data",
    },
    {
        "id": "eu-055",
        "category": "unanswerable",
        "answerable": False,
        "question": "What fraction of patients are enrolled in Medicare?",
        "reason": "payer plan data is empty",
    },
    {
        "id": "eu-056",
        "category": "unanswerable",
        "answerable": False,
        "question": "How many patients carry a BRCA1 mutation?",
        "reason": "genomics not stored",
    },
    {
        "id": "eu-057",
        "category": "unanswerable",
        "answerable": False,
        "question": "How many patients died within 90 days after a gastrointestinal hemorrhage?",
        "reason": "no death records",
    },
    {
        "id": "eu-058",
        "category": "unanswerable",
        "answerable": False,
        "question": "How many ICU stays were there in 2018?",
        "reason": "the source records no ICU encounters",
    },
    {
        "id": "eu-059",
        "category": "unanswerable",
        "answerable": False,
        "question": "Which patients are doing well?",
        "reason": "vague",
    },
    {
        "id": "eu-060",
        "category": "unanswerable",
        "answerable": False,
        "question": "What is the mean body mass index of patients with osteoarthritis?",
        "reason": "BMI not stored",
    },
    {
        "id": "eu-061",
        "category": "unanswerable",
        "answerable": False,
        "question": "What is the average cost of a hospital stay?",
        "reason": "cost table empty",
    },
    {
        "id": "eu-062",
        "category": "unanswerable",
        "answerable": False,
        "patient_id": "3048",
        "question": "What is this patient's blood type?",
        "reason": "blood type not stored",
    },
    {
        "id": "eu-063",
        "category": "unanswerable",
        "answerable": False,
        "question": "How many patients are current smokers?",
        "reason": "smoking status not stored",
    },
    {
        "id": "eu-064",
        "category": "unanswerable",
        "answerable": False,
        "question": "How many patients tested positive for COVID-19?",
        "reason": "not in vocabulary or data",
    },
]
