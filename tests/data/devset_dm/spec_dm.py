"""devset_dm: data-manager-voice questions that name the schema (tables, fields, codes, ids).

Written before running the parser, over the three devset2 databases (GiBleed, Synthea27Nj, the
FHIR load). Gold: hand SQL on the database ``tests/data/devset2/databases.py`` builds, checked
by pandas over the raw source files (OMOP CSV; FHIR JSON). Conventions beyond devset2's: a
literal concept id / code means exactly that concept (the ids chosen have no descendants with
rows, so the devset2 'with descendants' convention gives the same gold); "rows"/"records"/
"resources" count events, "person_id"/"patients" count distinct persons.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from _common import G, T, d, iso

NOW = {"gibleed": "2019-07-03", "synthea27nj": "2022-10-10", "fhir": "2023-03-22"}


def _rows(t: T, table: str, **eq: Any) -> pd.DataFrame:
    df = t[table]
    for col, v in eq.items():
        df = df[df[col] == v]
    return df


def _np(df: pd.DataFrame, col: str = "person_id") -> int:
    return int(df[col].nunique())


def _ids(df: pd.DataFrame, col: str = "person_id") -> list[Any]:
    vals = df[col].dropna().unique().tolist()
    return sorted(int(v) if not isinstance(v, str) else v for v in vals)


def _num(df: pd.DataFrame) -> pd.DataFrame:
    return df[df.value_as_number.notna()]


def _loinc(t: T, code: str) -> int:
    cc = t["concept"]
    hit = cc[(cc.vocabulary_id == "LOINC") & (cc.concept_code.astype(str) == code)]
    return int(hit.concept_id.iloc[0])


# ------------------------------------------------------------------------------ GiBleed
GIBLEED = [
    G(
        "dm-gb-pharyngitis-persons",
        "cohort_count",
        "count",
        [
            d(
                "how many distinct person_id in condition_occurrence with condition_concept_id 4112343"
            ),
        ],
        sql="SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id = 4112343",
        check=lambda t: _np(_rows(t, "condition_occurrence", condition_concept_id=4112343)),
    ),
    G(
        "dm-gb-celecoxib-rows",
        "event_count",
        "count",
        [
            d("number of rows in drug_exposure where drug_concept_id = 1118084"),
        ],
        sql="SELECT count(*) FROM drug_exposure WHERE drug_concept_id = 1118084",
        check=lambda t: len(_rows(t, "drug_exposure", drug_concept_id=1118084)),
    ),
    G(
        "dm-gb-snomed-persons",
        "cohort_count",
        "count",
        [
            d("count of persons with SNOMED 65363002 in condition_occurrence"),
        ],
        sql="SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id = 372328",
        check=lambda t: _np(_rows(t, "condition_occurrence", condition_concept_id=372328)),
    ),
    G(
        "dm-gb-rxnorm-persons",
        "cohort_count",
        "count",
        [
            d("distinct person_id count in drug_exposure for RxNorm code 140587"),
        ],
        sql="SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id = 1118084",
        check=lambda t: _np(_rows(t, "drug_exposure", drug_concept_id=1118084)),
    ),
    G(
        "dm-gb-asthma-list",
        "list",
        "list",
        [
            d("list the person_ids in condition_occurrence with condition_concept_id 317009"),
        ],
        sql="SELECT list(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id = 317009",
        check=lambda t: _ids(_rows(t, "condition_occurrence", condition_concept_id=317009)),
    ),
    G(
        "dm-gb-person-celecoxib-yes",
        "patient_yesno",
        "yesno",
        [
            d("does person 5 have a row in drug_exposure with drug_concept_id 1118084"),
        ],
        sql="SELECT count(*) > 0 FROM drug_exposure WHERE person_id = 5 AND drug_concept_id = 1118084",
        check=lambda t: len(_rows(t, "drug_exposure", person_id=5, drug_concept_id=1118084)) > 0,
    ),
    G(
        "dm-gb-person-asthma-no",
        "patient_yesno",
        "yesno",
        [
            d(
                "is there a condition_occurrence record with condition_concept_id 317009 for person_id 42"
            ),
        ],
        sql="SELECT count(*) > 0 FROM condition_occurrence WHERE person_id = 42 AND condition_concept_id = 317009",
        check=lambda t: (
            len(_rows(t, "condition_occurrence", person_id=42, condition_concept_id=317009)) > 0
        ),
    ),
    G(
        "dm-gb-female-persons",
        "cohort_count",
        "count",
        [
            d("how many rows in the person table have gender_concept_id 8532"),
        ],
        sql="SELECT count(*) FROM person WHERE gender_concept_id = 8532",
        check=lambda t: len(_rows(t, "person", gender_concept_id=8532)),
    ),
    G(
        "dm-gb-inpatient-persons",
        "cohort_count",
        "count",
        [
            d("count distinct person_id in visit_occurrence with visit_concept_id 9201"),
        ],
        sql="SELECT count(DISTINCT person_id) FROM visit_occurrence WHERE visit_concept_id = 9201",
        check=lambda t: _np(_rows(t, "visit_occurrence", visit_concept_id=9201)),
    ),
    G(
        "dm-gb-cardioversion-rows",
        "event_count",
        "count",
        [
            d("how many procedure_occurrence records have procedure_concept_id 4078793"),
        ],
        sql="SELECT count(*) FROM procedure_occurrence WHERE procedure_concept_id = 4078793",
        check=lambda t: len(_rows(t, "procedure_occurrence", procedure_concept_id=4078793)),
    ),
    G(
        "dm-gb-fev-persons",
        "cohort_count",
        "count",
        [
            d("persons with a measurement row for LOINC 19926-5: how many"),
        ],
        sql="SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id = 3011505",
        check=lambda t: _np(_rows(t, "measurement", measurement_concept_id=_loinc(t, "19926-5"))),
    ),
    G(
        "dm-gb-acetaminophen-days-supply",
        "value",
        "value",
        [
            d("mean days_supply in drug_exposure for drug_concept_id 1127433"),
        ],
        sql="SELECT avg(days_supply) FROM drug_exposure WHERE drug_concept_id = 1127433",
        check=lambda t: float(
            _rows(t, "drug_exposure", drug_concept_id=1127433).days_supply.mean()
        ),
        tol=0.01,
    ),
    G(
        "dm-gb-person-otitis-first",
        "patient_date",
        "date",
        [
            d("earliest condition_start_date for person_id 3 with condition_concept_id 372328"),
        ],
        sql="SELECT min(condition_start_date) FROM condition_occurrence WHERE person_id = 3 AND condition_concept_id = 372328",
        check=lambda t: iso(
            pd.to_datetime(
                _rows(
                    t, "condition_occurrence", person_id=3, condition_concept_id=372328
                ).condition_start_date
            ).min()
        ),
    ),
    G(
        "dm-gb-person-rows",
        "patient_count",
        "count",
        [
            d("how many condition_occurrence rows does person_id 6 have"),
        ],
        sql="SELECT count(*) FROM condition_occurrence WHERE person_id = 6",
        check=lambda t: len(_rows(t, "condition_occurrence", person_id=6)),
    ),
    G(
        "dm-gb-source-value-rows",
        "event_count",
        "count",
        [
            d("count condition_occurrence records where condition_source_value = '444814009'"),
        ],
        sql="SELECT count(*) FROM condition_occurrence WHERE condition_source_value = '444814009'",
        check=lambda t: len(
            t["condition_occurrence"][
                t["condition_occurrence"].condition_source_value.astype(str) == "444814009"
            ]
        ),
    ),
    G(
        "dm-gb-female-pharyngitis",
        "cohort_count",
        "count",
        [
            d(
                "number of person_id with gender_concept_id = 8532 and a condition_occurrence of concept 4112343"
            ),
        ],
        sql=(
            "SELECT count(DISTINCT o.person_id) FROM condition_occurrence o JOIN person p USING (person_id) "
            "WHERE o.condition_concept_id = 4112343 AND p.gender_concept_id = 8532"
        ),
        check=lambda t: len(
            set(_rows(t, "condition_occurrence", condition_concept_id=4112343).person_id)
            & set(_rows(t, "person", gender_concept_id=8532).person_id)
        ),
    ),
    # abstentions
    G(
        "dm-gb-abstain-temp-values",
        "abstain",
        "abstain",
        [
            d("mean value_as_number in measurement for measurement_concept_id 3006322"),
        ],
        missing="numeric values (value_as_number is empty for that measurement)",
    ),
    G(
        "dm-gb-abstain-no-concept",
        "abstain",
        "abstain",
        [
            d(
                "how many distinct person_id in condition_occurrence with condition_concept_id 99999999"
            ),
        ],
        missing="concept 99999999 (not in the vocabulary, no rows)",
    ),
    G(
        "dm-gb-abstain-no-table",
        "abstain",
        "abstain",
        [
            d("count rows in the lab_results table where result_flag = 'H'"),
        ],
        missing="table lab_results / field result_flag (not in the catalog)",
    ),
    G(
        "dm-gb-abstain-no-field",
        "abstain",
        "abstain",
        [
            d("how many person_id in drug_exposure with adherence_score > 0.8"),
        ],
        missing="field adherence_score (not in the catalog)",
    ),
]

# ------------------------------------------------------------------------------ Synthea27Nj
HBA1C, SBP, BMI, CREAT, WT, CHOL = 3004410, 3004249, 3038553, 3051825, 3025315, 3027114

SYNTHEA = [
    G(
        "dm-sy-a1c-rows-gt7",
        "event_count",
        "count",
        [
            d("measurement rows where value_as_number > 7 for LOINC 4548-4"),
        ],
        sql="SELECT count(*) FROM measurement WHERE measurement_concept_id = (SELECT concept_id FROM concept WHERE vocabulary_id='LOINC' AND concept_code='4548-4') AND value_as_number > 7",
        check=lambda t: int(
            (
                _rows(t, "measurement", measurement_concept_id=_loinc(t, "4548-4")).value_as_number
                > 7
            ).sum()
        ),
    ),
    G(
        "dm-sy-sbp-persons-ge140",
        "cohort_count",
        "count",
        [
            d(
                "distinct person_id in measurement with measurement_concept_id 3004249 and value_as_number >= 140"
            ),
        ],
        sql="SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id = 3004249 AND value_as_number >= 140",
        check=lambda t: _np(
            _rows(t, "measurement", measurement_concept_id=3004249).query("value_as_number >= 140")
        ),
    ),
    G(
        "dm-sy-chol-mean",
        "value",
        "value",
        [
            d("average value_as_number for LOINC 2093-3 in the measurement table"),
        ],
        sql="SELECT avg(value_as_number) FROM measurement WHERE measurement_concept_id = (SELECT concept_id FROM concept WHERE vocabulary_id='LOINC' AND concept_code='2093-3')",
        check=lambda t: float(
            _num(
                _rows(t, "measurement", measurement_concept_id=_loinc(t, "2093-3"))
            ).value_as_number.mean()
        ),
        tol=0.01,
    ),
    G(
        "dm-sy-weight-max",
        "value",
        "value",
        [
            d("max value_as_number of measurement_concept_id 3025315"),
        ],
        sql="SELECT max(value_as_number) FROM measurement WHERE measurement_concept_id = 3025315",
        check=lambda t: float(
            _rows(t, "measurement", measurement_concept_id=3025315).value_as_number.max()
        ),
        tol=0.01,
    ),
    G(
        "dm-sy-death-list",
        "list",
        "list",
        [
            d("list the person_id values in the death table"),
        ],
        sql="SELECT list(DISTINCT person_id) FROM death",
        check=lambda t: _ids(t["death"]),
    ),
    G(
        "dm-sy-death-count",
        "cohort_count",
        "count",
        [
            d("how many persons have a record in death"),
        ],
        sql="SELECT count(DISTINCT person_id) FROM death",
        check=lambda t: _np(t["death"]),
    ),
    G(
        "dm-sy-anemia-list",
        "list",
        "list",
        [
            d("which person_ids have condition_concept_id 439777 in condition_occurrence"),
        ],
        sql="SELECT list(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id = 439777",
        check=lambda t: _ids(_rows(t, "condition_occurrence", condition_concept_id=439777)),
    ),
    G(
        "dm-sy-inpatient-rows",
        "event_count",
        "count",
        [
            d("count of visit_occurrence rows with visit_concept_id = 9201"),
        ],
        sql="SELECT count(*) FROM visit_occurrence WHERE visit_concept_id = 9201",
        check=lambda t: len(_rows(t, "visit_occurrence", visit_concept_id=9201)),
    ),
    G(
        "dm-sy-er-persons",
        "cohort_count",
        "count",
        [
            d("number of distinct person_id in visit_occurrence where visit_concept_id is 9203"),
        ],
        sql="SELECT count(DISTINCT person_id) FROM visit_occurrence WHERE visit_concept_id = 9203",
        check=lambda t: _np(_rows(t, "visit_occurrence", visit_concept_id=9203)),
    ),
    G(
        "dm-sy-person-anemia-yes",
        "patient_yesno",
        "yesno",
        [
            d("does person_id 7 have a condition_occurrence row for SNOMED 271737000"),
        ],
        sql="SELECT count(*) > 0 FROM condition_occurrence WHERE person_id = 7 AND condition_concept_id = 439777",
        check=lambda t: (
            len(_rows(t, "condition_occurrence", person_id=7, condition_concept_id=439777)) > 0
        ),
    ),
    G(
        "dm-sy-person-anemia-no",
        "patient_yesno",
        "yesno",
        [
            d("does person 8 have a row in condition_occurrence with condition_concept_id 439777"),
        ],
        sql="SELECT count(*) > 0 FROM condition_occurrence WHERE person_id = 8 AND condition_concept_id = 439777",
        check=lambda t: (
            len(_rows(t, "condition_occurrence", person_id=8, condition_concept_id=439777)) > 0
        ),
    ),
    G(
        "dm-sy-hctz-rows",
        "event_count",
        "count",
        [
            d("how many drug_exposure records for RxNorm 310798"),
        ],
        sql="SELECT count(*) FROM drug_exposure WHERE drug_concept_id = 19078106",
        check=lambda t: len(_rows(t, "drug_exposure", drug_concept_id=19078106)),
    ),
    G(
        "dm-sy-person-creat-min",
        "patient_value",
        "value",
        [
            d("min value_as_number for measurement_concept_id 3051825 where person_id = 13"),
        ],
        sql="SELECT min(value_as_number) FROM measurement WHERE measurement_concept_id = 3051825 AND person_id = 13",
        check=lambda t: float(
            _rows(
                t, "measurement", measurement_concept_id=3051825, person_id=13
            ).value_as_number.min()
        ),
        tol=0.01,
    ),
    G(
        "dm-sy-sbp-between-rows",
        "event_count",
        "count",
        [
            d("count measurement rows for LOINC 8480-6 with value_as_number between 130 and 139"),
        ],
        sql="SELECT count(*) FROM measurement WHERE measurement_concept_id = 3004249 AND value_as_number BETWEEN 130 AND 139",
        check=lambda t: int(
            _rows(t, "measurement", measurement_concept_id=3004249)
            .value_as_number.between(130, 139)
            .sum()
        ),
    ),
    G(
        "dm-sy-bmi-low-persons",
        "cohort_count",
        "count",
        [
            d("how many person_id have measurement_concept_id 3038553 with value_as_number < 18.5"),
        ],
        sql="SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id = 3038553 AND value_as_number < 18.5",
        check=lambda t: _np(
            _rows(t, "measurement", measurement_concept_id=3038553).query("value_as_number < 18.5")
        ),
    ),
    G(
        "dm-sy-person-creat-last-date",
        "patient_date",
        "date",
        [
            d("latest measurement_date for LOINC 38483-4 for person_id 16"),
        ],
        sql="SELECT max(measurement_date) FROM measurement WHERE measurement_concept_id = 3051825 AND person_id = 16",
        check=lambda t: iso(
            pd.to_datetime(
                _rows(
                    t, "measurement", measurement_concept_id=3051825, person_id=16
                ).measurement_date
            ).max()
        ),
    ),
    G(
        "dm-sy-a1c-list-ge65",
        "list",
        "list",
        [
            d("list person ids with a measurement of LOINC 4548-4 where value_as_number >= 6.5"),
        ],
        sql="SELECT list(DISTINCT person_id) FROM measurement WHERE measurement_concept_id = (SELECT concept_id FROM concept WHERE vocabulary_id='LOINC' AND concept_code='4548-4') AND value_as_number >= 6.5",
        check=lambda t: _ids(
            _rows(t, "measurement", measurement_concept_id=_loinc(t, "4548-4")).query(
                "value_as_number >= 6.5"
            )
        ),
    ),
    # abstentions
    G(
        "dm-sy-abstain-no-code",
        "abstain",
        "abstain",
        [
            d("measurement rows where value_as_number > 7 for LOINC 99999-9"),
        ],
        missing="LOINC 99999-9 (not in the vocabulary, no rows)",
    ),
    G(
        "dm-sy-abstain-no-field",
        "abstain",
        "abstain",
        [
            d("count persons with frailty_index >= 0.25 in the person table"),
        ],
        missing="field frailty_index (not in the catalog)",
    ),
    G(
        "dm-sy-abstain-no-table",
        "abstain",
        "abstain",
        [
            d("how many rows in the genomic_variant table for person_id 7"),
        ],
        missing="table genomic_variant (not in the catalog)",
    ),
]

# ------------------------------------------------------------------------------ FHIR
FOLKS = {
    "EDDIE": "f71747e7-e5dd-4e04-8d0a-0c6bc545c2a4",
    "SUMIKO": "129c6ac7-8d06-89de-ad63-0204a93e76c3",
    "JANNET": "dba1d054-cce0-4fd8-94e3-9ee867667cfe",
    "BRENDON": "fbeb6608-4810-453b-a3a6-b34f321410b1",
}


def _res(t: T, kind: str) -> list[dict[str, Any]]:
    return [r for r in t["raw"].r if r.get("resourceType") == kind]


def _subject(r: dict[str, Any]) -> str | None:
    ref = (r.get("subject") or r.get("patient") or {}).get("reference")
    return ref.split("/")[-1].split(":")[-1] if ref else None


def _status(r: dict[str, Any], key: str) -> str | None:
    cc = r.get(key) or {}
    return ((cc.get("coding") or [{}])[0]).get("code")


def _obs(t: T, code: str) -> pd.DataFrame:
    o = t["observation"]
    return o[o.code == code]


def _enc(t: T, cls: str) -> pd.DataFrame:
    en = t["encounter"]
    return en[en.cls == cls]


def _cond(t: T, code: str) -> pd.DataFrame:
    co = t["condition"]
    return co[co.code == code]


FHIR = [
    G(
        "dm-fh-sbp-rows",
        "event_count",
        "count",
        [
            d("how many Observation resources with code 8480-6"),
        ],
        sql="SELECT count(*) FROM fhir_observation WHERE code = '8480-6' AND value_num IS NOT NULL",
        check=lambda t: len(_obs(t, "8480-6")),
    ),
    G(
        "dm-fh-emer-patients",
        "cohort_count",
        "count",
        [
            d("patients with Encounter.class = EMER"),
        ],
        sql="SELECT count(DISTINCT patient_id) FROM fhir_encounter WHERE class_code = 'EMER'",
        check=lambda t: int(_enc(t, "EMER").patient.nunique()),
    ),
    G(
        "dm-fh-imp-rows",
        "event_count",
        "count",
        [
            d("count Encounter resources where class is IMP"),
        ],
        sql="SELECT count(*) FROM fhir_encounter WHERE class_code = 'IMP'",
        check=lambda t: len(_enc(t, "IMP")),
    ),
    G(
        "dm-fh-sinusitis-patients",
        "cohort_count",
        "count",
        [
            d("number of distinct patients with a Condition resource coded 444814009"),
        ],
        sql="SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE code = '444814009'",
        check=lambda t: int(_cond(t, "444814009").patient.nunique()),
    ),
    G(
        "dm-fh-anemia-list",
        "list",
        "list",
        [
            d("list patient ids with Condition.code 271737000"),
        ],
        sql="SELECT list(DISTINCT patient_id) FROM fhir_condition WHERE code = '271737000'",
        check=lambda t: _ids(_cond(t, "271737000"), "patient"),
    ),
    G(
        "dm-fh-flu-rows",
        "event_count",
        "count",
        [
            d("how many Immunization resources have vaccineCode 140"),
        ],
        sql="SELECT count(*) FROM fhir_immunization WHERE code = '140'",
        check=lambda t: int((t["immunization"].code == "140").sum()),
    ),
    G(
        "dm-fh-glucose-patients-gt95",
        "cohort_count",
        "count",
        [
            d("patients with an Observation 2339-0 where valueQuantity.value > 95"),
        ],
        sql="SELECT count(DISTINCT patient_id) FROM fhir_observation WHERE code = '2339-0' AND value_num > 95",
        check=lambda t: int(_obs(t, "2339-0").query("value > 95").patient.nunique()),
    ),
    G(
        "dm-fh-bmi-mean",
        "value",
        "value",
        [
            d("mean Observation.valueQuantity.value for LOINC 39156-5"),
        ],
        sql="SELECT avg(value_num) FROM fhir_observation WHERE code = '39156-5'",
        check=lambda t: float(_obs(t, "39156-5").value.mean()),
        tol=0.01,
    ),
    G(
        "dm-fh-dbp-max",
        "value",
        "value",
        [
            d("max value of Observation code 8462-4"),
        ],
        sql="SELECT max(value_num) FROM fhir_observation WHERE code = '8462-4'",
        check=lambda t: float(_obs(t, "8462-4").value.max()),
        tol=0.01,
    ),
    G(
        "dm-fh-active-conditions",
        "event_count",
        "count",
        [
            d("count of Condition resources with clinicalStatus = active"),
        ],
        sql="SELECT count(*) FROM fhir_condition WHERE clinical_status = 'active'",
        check=lambda t: sum(_status(r, "clinicalStatus") == "active" for r in _res(t, "Condition")),
    ),
    G(
        "dm-fh-patient-a1c-yes",
        "patient_yesno",
        "yesno",
        [
            d(f"does patient {FOLKS['EDDIE']} have an Observation with code 4548-4"),
        ],
        sql=f"SELECT count(*) > 0 FROM fhir_observation WHERE code = '4548-4' AND patient_id = '{FOLKS['EDDIE']}'",
        check=lambda t: bool((_obs(t, "4548-4").patient == FOLKS["EDDIE"]).any()),
    ),
    G(
        "dm-fh-patient-a1c-no",
        "patient_yesno",
        "yesno",
        [
            d(f"is there any Observation 4548-4 for Patient/{FOLKS['JANNET']}"),
        ],
        sql=f"SELECT count(*) > 0 FROM fhir_observation WHERE code = '4548-4' AND patient_id = '{FOLKS['JANNET']}'",
        check=lambda t: bool((_obs(t, "4548-4").patient == FOLKS["JANNET"]).any()),
    ),
    G(
        "dm-fh-female-patients",
        "cohort_count",
        "count",
        [
            d("how many Patient resources have gender = female"),
        ],
        sql="SELECT count(*) FROM fhir_patient WHERE gender = 'female'",
        check=lambda t: int((t["patient"].gender == "female").sum()),
    ),
    G(
        "dm-fh-patient-amb-rows",
        "patient_count",
        "count",
        [
            d(f"number of Encounter resources with class AMB for patient {FOLKS['BRENDON']}"),
        ],
        sql=f"SELECT count(*) FROM fhir_encounter WHERE class_code = 'AMB' AND patient_id = '{FOLKS['BRENDON']}'",
        check=lambda t: int((_enc(t, "AMB").patient == FOLKS["BRENDON"]).sum()),
    ),
    G(
        "dm-fh-imp-list",
        "list",
        "list",
        [
            d("which patient ids have an Encounter with class = IMP"),
        ],
        sql="SELECT list(DISTINCT patient_id) FROM fhir_encounter WHERE class_code = 'IMP'",
        check=lambda t: _ids(_enc(t, "IMP"), "patient"),
    ),
    G(
        "dm-fh-system-code-patients",
        "cohort_count",
        "count",
        [
            d("count patients with Condition code http://snomed.info/sct|195662009"),
        ],
        sql="SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE code = '195662009'",
        check=lambda t: int(_cond(t, "195662009").patient.nunique()),
    ),
    # abstentions
    G(
        "dm-fh-abstain-no-code",
        "abstain",
        "abstain",
        [
            d("how many Observation resources with code 99999-9"),
        ],
        missing="code 99999-9 (no rows)",
    ),
    G(
        "dm-fh-abstain-no-class",
        "abstain",
        "abstain",
        [
            d("patients with Encounter.class = ICU"),
        ],
        missing="encounter class ICU (no such class in the data)",
    ),
    G(
        "dm-fh-abstain-no-field",
        "abstain",
        "abstain",
        [
            d("count Observation resources where dataAbsentReason = masked"),
        ],
        missing="field dataAbsentReason (not in the catalog)",
    ),
]

GROUPS = {"gibleed": GIBLEED, "synthea27nj": SYNTHEA, "fhir": FHIR}
