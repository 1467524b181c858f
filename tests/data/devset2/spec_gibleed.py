"""devset2 over Eunomia GiBleed (OMOP CDM 5.3, 2,694 persons; synthetic_data/eunomia-gibleed-5.3).

What the source holds (studied before writing): conditions, drug exposures (RxNorm, CVX), only
inpatient visits (1,037), measurements without numeric values, no deaths, no costs, a trimmed
vocabulary (no ATC classes; a few SNOMED parents such as Sinusitis, Traumatic brain injury; RxNorm
ingredients above their products). ``now`` is fixed at the end of the data, 2019-07-03.
"""

from __future__ import annotations

import pandas as pd
from _common import (
    G,
    T,
    age_at,
    c,
    cid,
    cond,
    d,
    desc,
    drug,
    e,
    iso,
    persons,
    s_age,
    s_desc,
)
from _gibleed_checks import (
    NOW,
    _age_groups,
    _bleed_after_first,
    _bleed_in_inpatient,
    _both,
    _by_sex,
    _celecoxib_and_bleed,
    _cond_names,
    _drug_names_on,
    _events_in_year,
    _except,
    _first_years,
    _frac_bleed_ulcer,
    _frac_female,
    _fracture,
    _fracture_ids,
    _has,
    _last_visit,
    _mean_age_first,
    _mean_age_now,
    _mean_los,
    _median_days_cel_bleed,
    _n_conditions,
    _n_drug,
    _n_women_with,
    _person,
    _visits,
)

DB = "gibleed"


_ = cid, desc  # re-exported helpers used by other specs
_ = pd, _fracture_ids, _visits  # in scope for the groups run in this namespace

GI = s_desc("Gastrointestinal hemorrhage")
ALZ = s_desc("Alzheimer's disease")
IP = "(SELECT visit_occurrence_id FROM visit_occurrence WHERE visit_concept_id = 9201)"

GROUPS = [
    # ------------------------------------------------------------------ cohort counts
    G(
        "gb-bleed",
        "cohort_count",
        "count",
        [
            c("how many pts w GI bleed"),
            e(
                "How many persons have at least one recorded diagnosis of gastrointestinal "
                "hemorrhage at any point in their record?"
            ),
            d("count of patients with a gastrointestinal haemorrhage diagnosis"),
        ],
        sql=f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {GI}",
        check=lambda t: _n_conditions(t, "Gastrointestinal hemorrhage"),
    ),
    G(
        "gb-afib-women",
        "cohort_count",
        "count",
        [
            c("# of F pts with afib"),
            e("How many female patients have ever been diagnosed with atrial fibrillation?"),
            d("Number of women with an atrial fibrillation diagnosis in the database"),
        ],
        sql=(
            "SELECT count(DISTINCT o.person_id) FROM condition_occurrence o JOIN person p USING (person_id) "
            f"WHERE o.condition_concept_id IN {s_desc('Atrial fibrillation')} AND p.gender_concept_id = 8532"
        ),
        check=lambda t: _n_women_with(t, "Atrial fibrillation"),
    ),
    G(
        "gb-oa-typo",
        "cohort_count",
        "count",
        [
            c("pts with osteoarthritus"),
            e("How many individuals have a diagnosis of osteoarthritis (of any joint)?"),
            d("how many patients have osteoartritis on their problem list"),
        ],
        sql=f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {s_desc('Osteoarthritis')}",
        check=lambda t: _n_conditions(t, "Osteoarthritis"),
    ),
    G(
        "gb-celecoxib-bleed",
        "cohort_count",
        "count",
        [
            c("pts on celecoxib who ever had a GI bleed - how many"),
            e(
                "How many patients were both exposed to celecoxib and diagnosed with gastrointestinal "
                "hemorrhage, in any order?"
            ),
            d("number of patients with a celecoxib exposure and a GI hemorrhage diagnosis"),
        ],
        sql=(
            "SELECT count(*) FROM (SELECT person_id FROM drug_exposure WHERE drug_concept_id IN "
            f"{s_desc('celecoxib')} INTERSECT SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {GI})"
        ),
        check=_celecoxib_and_bleed,
    ),
    G(
        "gb-fracture-any",
        "concept_class",
        "count",
        [
            c("how many pts had any kind of fracture"),
            e("How many patients have had a fracture of some type (any bone)?"),
            d("count of patients with any fracture diagnosis"),
        ],
        sql=(
            "SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN "
            "(SELECT concept_id FROM concept WHERE domain_id = 'Condition' AND lower(concept_name) LIKE '%fracture%')"
        ),
        check=_fracture,
        note="every condition concept whose name says fracture (the vocabulary has no common parent)",
    ),
    G(
        "gb-tbi-class",
        "concept_class",
        "count",
        [
            c("how many pts w TBI incl concussions"),
            e(
                "How many patients sustained a traumatic brain injury of any kind, concussions included?"
            ),
            d("count patients with traumatic brain injury or any of its subtypes"),
        ],
        sql=f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN {s_desc('Traumatic brain injury')}",
        check=lambda t: _n_conditions(t, "Traumatic brain injury"),
    ),
    G(
        "gb-hydrocodone-products",
        "concept_class",
        "count",
        [
            c("how many pts got anything w hydrocodone in it"),
            e("How many patients were exposed to any product containing hydrocodone?"),
            d("number of patients with a drug exposure to a hydrocodone-containing product"),
        ],
        sql=f"SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN {s_desc('Hydrocodone')}",
        check=lambda t: _n_drug(t, "Hydrocodone"),
    ),
    G(
        "gb-apap-except",
        "concept_class",
        "count",
        [
            c("pts on any acetaminophen product except the 325 mg tabs"),
            e(
                "How many patients received an acetaminophen-containing product other than "
                "Acetaminophen 325 MG Oral Tablet?"
            ),
            d(
                "count of patients exposed to acetaminophen products, excluding Acetaminophen 325 MG Oral Tablet"
            ),
        ],
        sql=(
            "SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN "
            f"{s_desc('Acetaminophen')} AND drug_concept_id <> 1127433"
        ),
        check=_except,
        note="patients with at least one exposure to an acetaminophen product that is not the 325 mg tablet",
    ),
    # ------------------------------------------------------------------ windows, first occurrence
    G(
        "gb-diclofenac-60d",
        "time_window",
        "count",
        [
            c("GI bleed within 60d of starting diclofenac - how many pts"),
            e(
                "How many patients had a gastrointestinal hemorrhage within 60 days after their first "
                "diclofenac exposure (counting the exposure day as day 0)?"
            ),
            d("number of patients with a GI bleed 0-60 days after first diclofenac"),
        ],
        sql=(
            "WITH f AS (SELECT person_id, min(drug_exposure_start_date) AS d0 FROM drug_exposure WHERE drug_concept_id IN "
            f"{s_desc('Diclofenac')} GROUP BY 1) SELECT count(DISTINCT o.person_id) FROM condition_occurrence o JOIN f USING (person_id) "
            f"WHERE o.condition_concept_id IN {GI} AND o.condition_start_date BETWEEN f.d0 AND f.d0 + INTERVAL 60 DAY"
        ),
        check=lambda t: _bleed_after_first(t, "Diclofenac", 0, 60),
    ),
    G(
        "gb-first-sinusitis-1990s",
        "first_occurrence",
        "count",
        [
            c("how many pts had their 1st ever viral sinusitis in the 90s"),
            e(
                "For how many patients did the first recorded episode of viral sinusitis fall "
                "between 1990 and 1999 inclusive?"
            ),
            d("number of patients whose earliest viral sinusitis diagnosis date is in 1990-1999"),
        ],
        sql=(
            "SELECT count(*) FROM (SELECT person_id, min(condition_start_date) AS d FROM condition_occurrence "
            f"WHERE condition_concept_id IN {s_desc('Viral sinusitis')} GROUP BY 1) WHERE year(d) BETWEEN 1990 AND 1999"
        ),
        check=lambda t: _first_years(t, "Viral sinusitis", 1990, 1999),
    ),
    G(
        "gb-age-first-bleed",
        "age_at_event",
        "value",
        [
            c("avg age at first GI bleed?"),
            e(
                "What is the mean age, in completed years, of patients at their first diagnosis of "
                "gastrointestinal hemorrhage?"
            ),
            d("average age at first GI hemorrhage diagnosis across patients"),
        ],
        unit="years",
        tol=0.6,
        sql=(
            "SELECT round(avg(" + s_age("p.birth_datetime", "f.d") + "), 4) FROM person p JOIN "
            "(SELECT person_id, min(condition_start_date) AS d FROM condition_occurrence WHERE condition_concept_id IN "
            f"{GI} GROUP BY 1) f USING (person_id)"
        ),
        check=lambda t: _mean_age_first(t, "Gastrointestinal hemorrhage"),
        note="tolerance 0.6 years accepts ages measured in fractional years",
    ),
    G(
        "gb-days-cel-bleed",
        "time_between",
        "value",
        [
            c("median days from starting celecoxib to GI bleed, pts who bled after"),
            e(
                "Among patients whose first gastrointestinal hemorrhage came after their first "
                "celecoxib exposure, what is the median number of days between the two?"
            ),
            d("median time in days between first celecoxib and first later GI hemorrhage"),
        ],
        unit="days",
        tol=0.5,
        sql=(
            "WITH a AS (SELECT person_id, min(drug_exposure_start_date) AS d FROM drug_exposure WHERE drug_concept_id IN "
            f"{s_desc('celecoxib')} GROUP BY 1), b AS (SELECT person_id, min(condition_start_date) AS d FROM condition_occurrence "
            f"WHERE condition_concept_id IN {GI} GROUP BY 1) SELECT median(date_diff('day', a.d, b.d)) FROM a JOIN b USING (person_id) WHERE b.d > a.d"
        ),
        check=_median_days_cel_bleed,
    ),
    # ------------------------------------------------------------------ encounters
    G(
        "gb-los",
        "length_of_stay",
        "value",
        [
            c("avg LOS for inpt admissions?"),
            e(
                "What is the mean length of stay, in days, of inpatient visits (discharge date minus admission date)?"
            ),
            d("average inpatient length of stay in days"),
        ],
        unit="days",
        tol=0.01,
        sql="SELECT round(avg(date_diff('day', visit_start_date, visit_end_date)), 4) FROM visit_occurrence WHERE visit_concept_id = 9201",
        check=_mean_los,
    ),
    G(
        "gb-bleed-inpatient",
        "encounter_filter",
        "count",
        [
            c("how many pts dx'd w GI bleed during an inpt stay"),
            e(
                "How many patients had a gastrointestinal hemorrhage recorded during an inpatient "
                "admission?"
            ),
            d("count of patients with a GI hemorrhage condition linked to an inpatient visit"),
        ],
        sql=(
            "SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN "
            f"{GI} AND visit_occurrence_id IN {IP}"
        ),
        check=_bleed_in_inpatient,
    ),
    G(
        "gb-bleed-events-2017",
        "calendar",
        "count",
        [
            c("how many GI bleed dx were recorded in 2017 (events not pts)"),
            e("How many gastrointestinal hemorrhage diagnosis records are dated in 2017?"),
            d("count of GI hemorrhage condition occurrences in 2017"),
        ],
        sql=f"SELECT count(*) FROM condition_occurrence WHERE condition_concept_id IN {GI} AND year(condition_start_date) = 2017",
        check=lambda t: _events_in_year(t, "Gastrointestinal hemorrhage", 2017),
    ),
    # ------------------------------------------------------------------ group-by, proportions, aggregates
    G(
        "gb-ulcer-by-sex",
        "group_by",
        "table",
        [
            c("peptic ulcer pts by sex"),
            e("How many patients with a peptic ulcer diagnosis are there in each sex?"),
            d("breakdown of patients with peptic ulcer by gender"),
        ],
        sql=(
            "SELECT CASE p.gender_concept_id WHEN 8507 THEN 'male' WHEN 8532 THEN 'female' END AS sex, "
            "count(DISTINCT p.person_id) FROM person p JOIN condition_occurrence o USING (person_id) "
            f"WHERE o.condition_concept_id IN {s_desc('Peptic ulcer')} GROUP BY 1 ORDER BY 1"
        ),
        check=lambda t: _by_sex(t, "Peptic ulcer"),
    ),
    G(
        "gb-bleed-age-groups",
        "group_by",
        "table",
        [
            c("GI bleed pts by age group at first bleed, under 40 vs 40+"),
            e(
                "How many patients had their first gastrointestinal hemorrhage in each age band "
                "(under 40, 40 and over; age in completed years at diagnosis)?"
            ),
            d("count of GI bleed patients per age group (<40 / 40+) at first diagnosis"),
        ],
        sql=(
            "SELECT CASE WHEN a < 40 THEN '<40' ELSE '40+' END AS g, count(*) FROM "
            "(SELECT "
            + s_age("p.birth_datetime", "f.d")
            + " AS a FROM person p JOIN (SELECT person_id, min(condition_start_date) AS d "
            f"FROM condition_occurrence WHERE condition_concept_id IN {GI} GROUP BY 1) f USING (person_id)) GROUP BY 1 ORDER BY 1"
        ),
        check=_age_groups,
    ),
    G(
        "gb-celecoxib-female",
        "proportion",
        "value",
        [
            c("what % of celecoxib pts are F"),
            e("What proportion of patients exposed to celecoxib are female?"),
            d("share of women among patients with a celecoxib exposure"),
        ],
        unit="fraction",
        tol=0.001,
        sql=(
            "SELECT round(avg(CASE WHEN gender_concept_id = 8532 THEN 1.0 ELSE 0.0 END), 6) FROM person WHERE person_id IN "
            f"(SELECT person_id FROM drug_exposure WHERE drug_concept_id IN {s_desc('celecoxib')})"
        ),
        check=lambda t: _frac_female(t, "celecoxib"),
    ),
    G(
        "gb-bleed-ulcer-frac",
        "proportion",
        "value",
        [
            c("of the GI bleed pts what fraction also had a peptic ulcer"),
            e(
                "Among patients with gastrointestinal hemorrhage, what percentage also have a peptic "
                "ulcer diagnosis at any time?"
            ),
            d("proportion of GI hemorrhage patients who also have a peptic ulcer on record"),
        ],
        unit="fraction",
        tol=0.001,
        sql=(
            f"WITH b AS (SELECT DISTINCT person_id FROM condition_occurrence WHERE condition_concept_id IN {GI}), "
            f"u AS (SELECT DISTINCT person_id FROM condition_occurrence WHERE condition_concept_id IN {s_desc('Peptic ulcer')}) "
            "SELECT round((SELECT count(*) FROM b JOIN u USING (person_id)) / (SELECT count(*) FROM b), 6)"
        ),
        check=_frac_bleed_ulcer,
    ),
    G(
        "gb-age-alzheimer",
        "aggregate",
        "value",
        [
            c("mean age of alzheimers pts now"),
            e(
                "What is the current mean age (completed years) of patients diagnosed with Alzheimer's disease?"
            ),
            d("average present-day age of patients with an Alzheimer's disease diagnosis"),
        ],
        now=NOW,
        unit="years",
        tol=0.6,
        sql=(
            "SELECT round(avg("
            + s_age("birth_datetime", repr(NOW))
            + "), 4) FROM person WHERE person_id IN "
            f"(SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN {ALZ})"
        ),
        check=lambda t: _mean_age_now(t, "Alzheimer's disease"),
        note="Alzheimer's disease with its descendant (familial early onset)",
    ),
    # ------------------------------------------------------------------ patient lookups (id in the question)
    G(
        "gb-p320-first-oa",
        "patient_lookup",
        "date",
        [
            c("pt 320 - when was OA first dx"),
            e("On what date was patient 320 first diagnosed with osteoarthritis?"),
            d("first osteoarthritis diagnosis date for patient 320"),
        ],
        sql=f"SELECT min(condition_start_date) FROM condition_occurrence WHERE person_id = 320 AND condition_concept_id IN {s_desc('Osteoarthritis')}",
        check=lambda t: iso(
            cond(t, "Osteoarthritis").query("person_id == 320").condition_start_date.min()
        ),
    ),
    G(
        "gb-p320-celecoxib",
        "patient_lookup",
        "yesno",
        [
            c("was pt 320 ever on celecoxib"),
            e("Has patient 320 ever been exposed to celecoxib?"),
            d("does patient 320 have any celecoxib exposure record? yes/no"),
        ],
        sql=f"SELECT count(*) > 0 FROM drug_exposure WHERE person_id = 320 AND drug_concept_id IN {s_desc('celecoxib')}",
        check=lambda t: _has(t, 320, drug(t, "celecoxib")),
    ),
    G(
        "gb-p1088-warfarin",
        "patient_lookup",
        "yesno",
        [
            c("pt 1088 on warfarin?"),
            e("Was patient 1088 ever prescribed warfarin?"),
            d("any warfarin exposure for patient 1088 (yes or no)"),
        ],
        sql=f"SELECT count(*) > 0 FROM drug_exposure WHERE person_id = 1088 AND drug_concept_id IN {s_desc('Warfarin')}",
        check=lambda t: _has(t, 1088, drug(t, "Warfarin")),
    ),
    G(
        "gb-p1088-last-admit",
        "patient_lookup",
        "date",
        [
            c("pt 1088 last admission date"),
            e("When did patient 1088's most recent inpatient admission begin?"),
            d("latest inpatient visit start date for patient 1088"),
        ],
        sql="SELECT max(visit_start_date) FROM visit_occurrence WHERE person_id = 1088 AND visit_concept_id = 9201",
        check=lambda t: _last_visit(t, 1088),
    ),
    G(
        "gb-p1088-conditions",
        "patient_lookup",
        "list",
        [
            c("list all dx for pt 1088"),
            e("Which distinct conditions have been recorded for patient 1088?"),
            d("list of the distinct condition names on file for patient 1088"),
        ],
        sql=(
            "SELECT list(DISTINCT c.concept_name ORDER BY c.concept_name) FROM condition_occurrence o JOIN concept c "
            "ON c.concept_id = o.condition_concept_id WHERE o.person_id = 1088"
        ),
        check=lambda t: _cond_names(t, 1088),
    ),
    G(
        "gb-p320-drugs-19571110",
        "patient_lookup",
        "list",
        [
            c("what meds did pt 320 get on 11/10/1957"),
            e("Which drugs was patient 320 exposed to on 10 November 1957?"),
            d("list drug exposures starting 1957-11-10 for patient 320"),
        ],
        sql=(
            "SELECT list(DISTINCT c.concept_name ORDER BY c.concept_name) FROM drug_exposure o JOIN concept c "
            "ON c.concept_id = o.drug_concept_id WHERE o.person_id = 320 AND o.drug_exposure_start_date = DATE '1957-11-10'"
        ),
        check=lambda t: _drug_names_on(t, 320, "1957-11-10"),
    ),
    G(
        "gb-emphysema-mi-ids",
        "patient_list",
        "list",
        [
            c("which pts have both emphysema and an MI"),
            e(
                "Which patients have diagnoses of both pulmonary emphysema and myocardial infarction?"
            ),
            d("ids of patients with pulmonary emphysema and myocardial infarction"),
        ],
        sql=(
            "SELECT list(person_id ORDER BY person_id) FROM (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN "
            f"{s_desc('Pulmonary emphysema')} INTERSECT SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN "
            f"{s_desc('Myocardial infarction')})"
        ),
        check=lambda t: _both(t, "Pulmonary emphysema", "Myocardial infarction"),
    ),
    # ------------------------------------------------------------------ unanswerable (gold: abstain)
    G(
        "gb-u-temp-value",
        "unanswerable",
        "abstain",
        [
            c("avg oral temp across pts?"),
            e("What is the mean recorded oral temperature, in degrees Celsius?"),
            d("average oral temperature value over all measurements"),
        ],
        missing="numeric values of oral temperature (measurements carry no value)",
    ),
    G(
        "gb-u-a1c-patient",
        "unanswerable",
        "abstain",
        [
            c("pt 320 last A1c?"),
            e("What was patient 320's most recent hemoglobin A1c result?"),
            d("latest HbA1c value for patient 320"),
        ],
        missing="hemoglobin A1c (no such measurement in this source)",
    ),
    G(
        "gb-u-cost",
        "unanswerable",
        "abstain",
        [
            c("total cost of GI bleed admits?"),
            e("What was the total cost of inpatient admissions for gastrointestinal hemorrhage?"),
            d("sum of costs for GI hemorrhage hospitalisations"),
        ],
        missing="costs (the COST table is empty)",
    ),
    G(
        "gb-u-predict",
        "unanswerable",
        "abstain",
        [
            c("which celecoxib pts will bleed next yr"),
            e(
                "Which patients currently on celecoxib are likely to develop a GI bleed in the coming year?"
            ),
            d("predict the celecoxib patients at highest risk of a future GI hemorrhage"),
        ],
        missing="prediction (the system answers from stored data only)",
    ),
]


# ---------------------------------------------------------------------- batch 2 (typing-fast voice)
def _women_age(t: T, name: str, lo: int) -> int:
    p = _person(t)
    p = p[p.person_id.isin(persons(cond(t, name))) & (p.gender_concept_id == 8532)]
    return int(sum(age_at(b, NOW) >= lo for b in p.birth_datetime))


def _first_before(t: T, name: str, age: int) -> int:
    first = cond(t, name).groupby("person_id").condition_start_date.min()
    birth = _person(t).set_index("person_id").birth_datetime
    return sum(age_at(birth[p], w) < age for p, w in first.items())


GROUPS += [
    G(
        "gb-mi-afib",
        "cohort_count",
        "count",
        [
            c("pts w hx of MI and afib"),
            e(
                "How many patients have both a myocardial infarction and atrial fibrillation on record?"
            ),
            d("count of patients with myocardial infarction AND atrial fibrillation diagnoses"),
        ],
        sql=(
            "SELECT count(*) FROM (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN "
            f"{s_desc('Myocardial infarction')} INTERSECT SELECT person_id FROM condition_occurrence WHERE "
            f"condition_concept_id IN {s_desc('Atrial fibrillation')})"
        ),
        check=lambda t: len(
            persons(cond(t, "Myocardial infarction")) & persons(cond(t, "Atrial fibrillation"))
        ),
    ),
    G(
        "gb-osteoporosis-women65",
        "cohort_count",
        "count",
        [
            c("F pts 65+ y/o w osteoporosis"),
            e("How many women aged 65 or over today have a diagnosis of osteoporosis?"),
            d("number of female patients at least 65 years old with osteoporosis"),
        ],
        now=NOW,
        sql=(
            "SELECT count(DISTINCT p.person_id) FROM person p JOIN condition_occurrence o USING (person_id) "
            f"WHERE o.condition_concept_id IN {s_desc('Osteoporosis')} AND p.gender_concept_id = 8532 AND "
            + s_age("p.birth_datetime", repr(NOW))
            + " >= 65"
        ),
        check=lambda t: _women_age(t, "Osteoporosis", 65),
        note="osteoporosis with its descendant (pathological fracture due to osteoporosis)",
    ),
    G(
        "gb-appendicitis-kids",
        "age_at_event",
        "count",
        [
            c("appendicitus in kids <18 at dx how many"),
            e("How many patients had their first appendicitis diagnosis before the age of 18?"),
            d("count of patients whose first appendicitis was diagnosed under age 18"),
        ],
        sql=(
            "SELECT count(*) FROM person p JOIN (SELECT person_id, min(condition_start_date) AS d FROM condition_occurrence "
            f"WHERE condition_concept_id IN {s_desc('Appendicitis')} GROUP BY 1) f USING (person_id) WHERE "
            + s_age("p.birth_datetime", "f.d")
            + " < 18"
        ),
        check=lambda t: _first_before(t, "Appendicitis", 18),
    ),
    G(
        "gb-ibuprofen-1y",
        "time_window",
        "count",
        [
            c("GI bleed w/in a yr of 1st ibuprofen how many pts"),
            e(
                "How many patients were diagnosed with gastrointestinal hemorrhage within 365 days "
                "after their first ibuprofen exposure (day 0 = the exposure day)?"
            ),
            d(
                "number of patients with a GI hemorrhage 0-365 days after first exposure to ibuprofen"
            ),
        ],
        sql=(
            "WITH f AS (SELECT person_id, min(drug_exposure_start_date) AS d0 FROM drug_exposure WHERE drug_concept_id IN "
            f"{s_desc('Ibuprofen')} GROUP BY 1) SELECT count(DISTINCT o.person_id) FROM condition_occurrence o JOIN f USING (person_id) "
            f"WHERE o.condition_concept_id IN {GI} AND o.condition_start_date BETWEEN f.d0 AND f.d0 + INTERVAL 365 DAY"
        ),
        check=lambda t: _bleed_after_first(t, "Ibuprofen", 0, 365),
    ),
]


GROUPS += [
    G(
        "gb-u-ckd",
        "unanswerable",
        "abstain",
        [
            c("how many CKD pts had a GI bleed"),
            e(
                "Among patients with chronic kidney disease, how many had a gastrointestinal hemorrhage?"
            ),
            d("count of chronic kidney disease patients with a GI hemorrhage"),
        ],
        missing="chronic kidney disease (concept absent from this source)",
    ),
]
