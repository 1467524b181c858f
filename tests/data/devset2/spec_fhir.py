"""devset2 over a FHIR R4 load: the Synthea data in tests/data/fhir (5 transaction bundles + the
10-patient bulk NDJSON export: 18 Patient resources), loaded with ``clinbridge load fhir``.

What the source holds (studied before writing): conditions (SNOMED), encounters by class (AMB,
EMER 29, IMP 50, HH, VR; no ICU), observations with values for the 5 bundle patients only
(vitals with blood pressure as systolic/diastolic components, lipids, HbA1c for one patient),
medication requests (RxNorm, no vocabulary attached: no drug classes), immunizations (CVX),
4 deceased patients. Patients are named by their FHIR ids (uuids). ``now`` is fixed at the end of
the data, 2023-03-22.
"""

from __future__ import annotations

import pandas as pd
from _common import G, T, age_at, c, d, e, iso

DB = "fhir"
NOW = "2023-03-22"

DENNY = "14867dba-fb11-4df3-9829-8e8e081b39e6"
JANNET = "dba1d054-cce0-4fd8-94e3-9ee867667cfe"
MARTINA = "beaf0c3d-bcd4-4155-8a7b-f493bdc8f9fe"
EDDIE = "f71747e7-e5dd-4e04-8d0a-0c6bc545c2a4"
BRENDON = "fbeb6608-4810-453b-a3a6-b34f321410b1"
ROCKY = "8e1a0a7c-e308-444b-075a-3c2b1f60f881"
SUMIKO = "129c6ac7-8d06-89de-ad63-0204a93e76c3"
CORRIN = "ca15b832-01e4-41dd-6a52-97bd3e5510cb"

PREDIAB, ANEMIA, COVID = "15777000", "271737000", "840539006"
SBP, BMI, LDL, A1C = "8480-6", "39156-5", "18262-6", "4548-4"
FLU = "140"


def _cond_pts(t: T, code: str) -> set[str]:
    co = t["condition"]
    return set(co.loc[co.code == code, "patient"])


def _obs(t: T, code: str, pid: str | None = None) -> pd.DataFrame:
    o = t["observation"]
    o = o[o.code == code]
    return o[o.patient == pid] if pid else o


def _last(t: T, code: str, pid: str) -> float:
    return round(float(_obs(t, code, pid).sort_values("time").value.iloc[-1]), 6)


def _enc(t: T, cls: str) -> pd.DataFrame:
    en = t["encounter"]
    return en[en.cls == cls]


def _los(t: T) -> float:
    v = _enc(t, "IMP")
    return round(float(((v.end - v.start).dt.total_seconds() / 86400).mean()), 4)


def _dead(t: T) -> pd.DataFrame:
    p = t["patient"]
    return p[p.deceased.notna()]


def _by_sex(t: T, code: str) -> dict[str, int]:
    p = t["patient"]
    return {k: int(v) for k, v in p[p.id.isin(_cond_pts(t, code))].gender.value_counts().items()}


def _female_frac(t: T, code: str) -> float:
    p = t["patient"]
    p = p[p.id.isin(_cond_pts(t, code))]
    return round(float((p.gender == "female").mean()), 6)


def _flu_per_year(t: T) -> dict[str, int]:
    im = t["immunization"]
    y = im.loc[im.code == FLU, "time"].dt.year
    y = y[(y >= 2016) & (y <= 2022)]
    return {str(k): int(v) for k, v in y.value_counts().sort_index().items()}


def _age_at_death(t: T, pid: str) -> int:
    p = t["patient"].set_index("id")
    return age_at(p.birth_date[pid], p.deceased[pid])


def _imm_count(t: T, pid: str, code: str) -> int:
    im = t["immunization"]
    return int(((im.patient == pid) & (im.code == code)).sum())


def _has_covid_vax(t: T, pid: str) -> bool:
    im = t["immunization"]
    return bool(((im.patient == pid) & im.display.str.contains("COVID-19")).any())


def _first_cond(t: T, pid: str, code: str) -> str:
    co = t["condition"]
    return iso(co.loc[(co.patient == pid) & (co.code == code), "onset"].min())


def _er_in_year(t: T, year: int) -> int:
    return int((_enc(t, "EMER").start.dt.year == year).sum())


M = "fhir_measurement"


def _sq_cond(code: str) -> str:
    return f"(SELECT DISTINCT patient_id FROM fhir_condition WHERE code = '{code}')"


GROUPS = [
    G(
        "fh-women",
        "cohort_count",
        "count",
        [
            c("# F pts"),
            e("How many of the patients are female?"),
            d("count of patients with gender female"),
        ],
        sql="SELECT count(*) FROM fhir_patient WHERE gender = 'female'",
        check=lambda t: int((t["patient"].gender == "female").sum()),
    ),
    G(
        "fh-anemia",
        "cohort_count",
        "count",
        [
            c("how many w anaemia"),
            e("How many patients have ever been diagnosed with anemia?"),
            d("count of patients with an anemia (disorder) condition"),
        ],
        sql=f"SELECT count(*) FROM {_sq_cond(ANEMIA)}",
        check=lambda t: len(_cond_pts(t, ANEMIA)),
    ),
    G(
        "fh-covid",
        "cohort_count",
        "count",
        [
            c("confirmed covid pts how many (not suspected)"),
            e("How many patients had a confirmed COVID-19 diagnosis (excluding suspected cases)?"),
            d("number of patients with a COVID-19 condition, suspected COVID-19 not counted"),
        ],
        sql=f"SELECT count(*) FROM {_sq_cond(COVID)}",
        check=lambda t: len(_cond_pts(t, COVID)),
    ),
    G(
        "fh-er-patients",
        "encounter_filter",
        "count",
        [
            c("how many pts ever came thru the ED"),
            e("How many patients have had at least one emergency encounter?"),
            d("count of patients with an encounter of class emergency"),
        ],
        sql="SELECT count(DISTINCT patient_id) FROM fhir_encounter WHERE class_code = 'EMER'",
        check=lambda t: _enc(t, "EMER").patient.nunique(),
    ),
    G(
        "fh-inpatient-encounters",
        "encounter_filter",
        "count",
        [
            c("total # of inpt encounters"),
            e("How many inpatient encounters are recorded in total?"),
            d("number of encounters with class inpatient"),
        ],
        sql="SELECT count(*) FROM fhir_encounter WHERE class_code = 'IMP'",
        check=lambda t: len(_enc(t, "IMP")),
    ),
    G(
        "fh-er-2022",
        "calendar",
        "count",
        [
            c("ED visits in 2022"),
            e("How many emergency encounters began during calendar year 2022?"),
            d("count of emergency class encounters starting in 2022"),
        ],
        sql="SELECT count(*) FROM fhir_encounter WHERE class_code = 'EMER' AND year(start_time) = 2022",
        check=lambda t: _er_in_year(t, 2022),
    ),
    G(
        "fh-los",
        "length_of_stay",
        "value",
        [
            c("mean inpt LOS (days)"),
            e(
                "What is the mean length of stay of inpatient encounters, in days (end minus start of the encounter period)?"
            ),
            d("average inpatient encounter duration in days"),
        ],
        unit="days",
        tol=0.5,
        sql=(
            "SELECT round(avg(epoch(end_time) - epoch(start_time)) / 86400, 4) FROM fhir_encounter WHERE class_code = 'IMP'"
        ),
        check=_los,
        note="fractional days; tolerance 0.5 day accepts whole-day counting",
    ),
    G(
        "fh-imp-patients",
        "patient_list",
        "list",
        [
            c("which pts were admitted"),
            e("Which patients have had an inpatient encounter?"),
            d("list the patient ids with at least one inpatient encounter"),
        ],
        sql="SELECT list(DISTINCT patient_id ORDER BY patient_id) FROM fhir_encounter WHERE class_code = 'IMP'",
        check=lambda t: sorted(_enc(t, "IMP").patient.unique()),
    ),
    G(
        "fh-deaths",
        "deaths",
        "count",
        [
            c("how many pts died"),
            e("How many patients are recorded as deceased?"),
            d("count of patients with a death date"),
        ],
        sql="SELECT count(*) FROM fhir_patient WHERE death_date IS NOT NULL",
        check=lambda t: len(_dead(t)),
    ),
    G(
        "fh-death-ids",
        "deaths",
        "list",
        [
            c("which pts are deceased"),
            e("Which patients have died?"),
            d("ids of the deceased patients"),
        ],
        sql="SELECT list(id ORDER BY id) FROM fhir_patient WHERE death_date IS NOT NULL",
        check=lambda t: sorted(_dead(t).id),
    ),
    G(
        "fh-eddie-age-death",
        "deaths",
        "value",
        [
            c(f"pt {EDDIE} age at death"),
            e(f"How old, in completed years, was patient {EDDIE} at death?"),
            d(f"age at death of patient {EDDIE}"),
        ],
        unit="years",
        tol=0.5,
        sql=(
            "SELECT date_diff('year', birth_date, death_date) - CASE WHEN strftime(birth_date, '%m%d') > strftime(death_date, '%m%d') "
            f"THEN 1 ELSE 0 END FROM fhir_patient WHERE id = '{EDDIE}'"
        ),
        check=lambda t: _age_at_death(t, EDDIE),
    ),
    G(
        "fh-eddie-death-date-by-name",
        "deaths",
        "date",
        [
            c("when did Eddie Lakin die"),
            e("What is the date of death of the patient named Eddie Lakin?"),
            d("death date for patient Eddie Lakin"),
        ],
        sql="SELECT death_date FROM fhir_patient WHERE given_name = 'Eddie' AND family_name = 'Lakin'",
        check=lambda t: iso(
            t["patient"].query("given == 'Eddie' and family == 'Lakin'").deceased.iloc[0]
        ),
    ),
    G(
        "fh-brendon-birth",
        "patient_lookup",
        "date",
        [
            c(f"DOB for pt {BRENDON}?"),
            e(f"What is the date of birth of patient {BRENDON}?"),
            d(f"birth date of patient {BRENDON}"),
        ],
        sql=f"SELECT birth_date FROM fhir_patient WHERE id = '{BRENDON}'",
        check=lambda t: t["patient"].set_index("id").birth_date[BRENDON],
    ),
    G(
        "fh-denny-last-bmi",
        "patient_lookup",
        "value",
        [
            c(f"last BMI pt {DENNY}"),
            e(f"What was the most recent body mass index recorded for patient {DENNY}?"),
            d(f"latest BMI value for patient {DENNY}"),
        ],
        unit="kg/m2",
        tol=0.01,
        sql=f"SELECT round(arg_max(value_num, effective_time), 6) FROM {M} WHERE patient_id = '{DENNY}' AND code = '{BMI}'",
        check=lambda t: _last(t, BMI, DENNY),
    ),
    G(
        "fh-jannet-last-sbp",
        "patient_lookup",
        "value",
        [
            c(f"most recent SBP for {JANNET}"),
            e(f"What was patient {JANNET}'s latest systolic blood pressure?"),
            d(f"last systolic blood pressure value of patient {JANNET}"),
        ],
        unit="mmHg",
        tol=0.01,
        sql=f"SELECT round(arg_max(value_num, effective_time), 6) FROM {M} WHERE patient_id = '{JANNET}' AND code = '{SBP}'",
        check=lambda t: _last(t, SBP, JANNET),
    ),
    G(
        "fh-martina-last-ldl",
        "patient_lookup",
        "value",
        [
            c(f"pt {MARTINA} last LDL"),
            e(f"What was the most recent LDL cholesterol result for patient {MARTINA}?"),
            d(f"latest LDL value recorded for patient {MARTINA}"),
        ],
        unit="mg/dL",
        tol=0.01,
        sql=f"SELECT round(arg_max(value_num, effective_time), 6) FROM {M} WHERE patient_id = '{MARTINA}' AND code = '{LDL}'",
        check=lambda t: _last(t, LDL, MARTINA),
    ),
    G(
        "fh-eddie-mean-a1c",
        "patient_lookup",
        "value",
        [
            c(f"avg A1c for pt {EDDIE}"),
            e(f"What is the mean of all hemoglobin A1c results for patient {EDDIE}?"),
            d(f"average HbA1c of patient {EDDIE}"),
        ],
        unit="%",
        tol=0.01,
        sql=f"SELECT round(avg(value_num), 6) FROM {M} WHERE patient_id = '{EDDIE}' AND code = '{A1C}'",
        check=lambda t: round(float(_obs(t, A1C, EDDIE).value.mean()), 6),
    ),
    G(
        "fh-rocky-covid-vax",
        "patient_lookup",
        "yesno",
        [
            c(f"has {ROCKY} had a covid shot"),
            e(f"Has patient {ROCKY} received any COVID-19 vaccine?"),
            d(f"COVID-19 immunization on record for patient {ROCKY}? yes/no"),
        ],
        sql=f"SELECT count(*) > 0 FROM fhir_immunization WHERE patient_id = '{ROCKY}' AND display LIKE '%COVID-19%'",
        check=lambda t: _has_covid_vax(t, ROCKY),
    ),
    G(
        "fh-sumiko-flu-count",
        "patient_lookup",
        "count",
        [
            c(f"how many flu shots has {SUMIKO} had"),
            e(f"How many seasonal influenza vaccinations has patient {SUMIKO} received?"),
            d(f"count of influenza immunizations for patient {SUMIKO}"),
        ],
        sql=f"SELECT count(*) FROM fhir_immunization WHERE patient_id = '{SUMIKO}' AND code = '{FLU}'",
        check=lambda t: _imm_count(t, SUMIKO, FLU),
    ),
    G(
        "fh-corrin-last-er",
        "patient_lookup",
        "date",
        [
            c(f"last ED visit date for {CORRIN}"),
            e(f"On what date was patient {CORRIN}'s most recent emergency encounter?"),
            d(f"date of the latest emergency encounter of patient {CORRIN}"),
        ],
        sql=f"SELECT CAST(max(start_time) AS DATE) FROM fhir_encounter WHERE patient_id = '{CORRIN}' AND class_code = 'EMER'",
        check=lambda t: iso(_enc(t, "EMER").query("patient == @CORRIN").start.max()),
    ),
    G(
        "fh-rocky-first-prediabetes",
        "first_occurrence",
        "date",
        [
            c(f"when was {ROCKY} first dx'd prediabetic"),
            e(f"When was prediabetes first recorded for patient {ROCKY}?"),
            d(f"onset date of the first prediabetes condition of patient {ROCKY}"),
        ],
        sql=f"SELECT CAST(min(onset_time) AS DATE) FROM fhir_condition WHERE patient_id = '{ROCKY}' AND code = '{PREDIAB}'",
        check=lambda t: _first_cond(t, ROCKY, PREDIAB),
    ),
    G(
        "fh-prediabetes-by-sex",
        "group_by",
        "table",
        [
            c("prediabetes pts by sex"),
            e("How many patients with prediabetes are there of each sex?"),
            d("breakdown of prediabetes patients by gender"),
        ],
        sql=f"SELECT gender, count(*) FROM fhir_patient WHERE id IN {_sq_cond(PREDIAB)} GROUP BY 1 ORDER BY 1",
        check=lambda t: _by_sex(t, PREDIAB),
    ),
    G(
        "fh-prediabetes-female-frac",
        "proportion",
        "value",
        [
            c("what % of prediabetics are F"),
            e("What proportion of patients with prediabetes are female?"),
            d("share of women among prediabetes patients"),
        ],
        unit="fraction",
        tol=0.001,
        sql=(
            "SELECT round(avg(CASE WHEN gender = 'female' THEN 1.0 ELSE 0.0 END), 6) FROM fhir_patient "
            f"WHERE id IN {_sq_cond(PREDIAB)}"
        ),
        check=lambda t: _female_frac(t, PREDIAB),
    ),
    G(
        "fh-flu-per-year",
        "per_year",
        "table",
        [
            c("flu shots given per yr 2016-2022"),
            e(
                "How many seasonal influenza vaccinations were given in each calendar year from 2016 to 2022?"
            ),
            d("table of influenza immunization counts by year, 2016 through 2022"),
        ],
        sql=(
            "SELECT CAST(year(occurrence_time) AS VARCHAR), count(*) FROM fhir_immunization WHERE code = '140' "
            "AND year(occurrence_time) BETWEEN 2016 AND 2022 GROUP BY 1 ORDER BY 1"
        ),
        check=_flu_per_year,
    ),
    # ------------------------------------------------------------------ ambiguous / unanswerable
    G(
        "fh-u-troponin",
        "unanswerable",
        "abstain",
        [
            c(f"trop for {DENNY}?"),
            e(f"What was patient {DENNY}'s highest troponin level?"),
            d(f"max troponin result for patient {DENNY}"),
        ],
        missing="troponin (no such observation in this source)",
    ),
    G(
        "fh-u-statin-class",
        "unanswerable",
        "abstain",
        [
            c("how many pts on any statin"),
            e("How many patients were prescribed a statin of any kind?"),
            d("count of patients with a medication request in the statin class"),
        ],
        missing="the drug class statin (no vocabulary attached to this FHIR source)",
    ),
    G(
        "fh-u-packyears",
        "unanswerable",
        "abstain",
        [
            c(f"pack yrs for {EDDIE}"),
            e(f"How many pack-years of smoking does patient {EDDIE} have?"),
            d(f"smoking pack-years value for patient {EDDIE}"),
        ],
        missing="smoking pack-years (not recorded)",
    ),
    G(
        "fh-u-brca",
        "unanswerable",
        "abstain",
        [
            c("any pts BRCA1+?"),
            e("How many patients carry a BRCA1 mutation?"),
            d("count of patients with a positive BRCA1 genetic test"),
        ],
        missing="BRCA1 genetic results (not in this source)",
    ),
]


# ---------------------------------------------------------------------- batch 2 (typing-fast voice)
CKD_CODES = ("431855005", "431856006", "433144002", "431857002", "46177005")
HTN_CODES = ("59621000", "38341003")
DBP = "8462-4"
WEIGHT = "29463-7"


def _any_codes(t: T, codes: tuple[str, ...]) -> int:
    co = t["condition"]
    return co[co.code.isin(codes)].patient.nunique()


GROUPS += [
    G(
        "fh-ckd",
        "cohort_count",
        "count",
        [
            c("pts w CKD any stage"),
            e(
                "How many patients have chronic kidney disease of any stage, end-stage renal disease included?"
            ),
            d("number of patients with CKD stage 1 to 4 or ESRD"),
        ],
        sql=f"SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE code IN {CKD_CODES}",
        check=lambda t: _any_codes(t, CKD_CODES),
    ),
    G(
        "fh-hpv",
        "cohort_count",
        "count",
        [
            c("# pts got HPV vax"),
            e("How many patients have received an HPV vaccine?"),
            d("count of patients with an HPV immunization"),
        ],
        sql="SELECT count(DISTINCT patient_id) FROM fhir_immunization WHERE code = '62'",
        check=lambda t: t["immunization"].query("code == '62'").patient.nunique(),
    ),
    G(
        "fh-brendon-max-weight",
        "patient_lookup",
        "value",
        [
            c(f"max wt {BRENDON}"),
            e(f"What is the highest body weight ever recorded for patient {BRENDON}, in kg?"),
            d(f"maximum body weight value of patient {BRENDON}"),
        ],
        unit="kg",
        tol=0.01,
        sql=f"SELECT round(max(value_num), 6) FROM {M} WHERE patient_id = '{BRENDON}' AND code = '{WEIGHT}'",
        check=lambda t: round(float(_obs(t, WEIGHT, BRENDON).value.max()), 6),
    ),
]


GROUPS += []
