"""devset_dm, second part: 15 data-manager questions written after the schema reader existed.

They were written before the reader was run on them (a check that it generalises beyond the first
part, ``spec_dm.py``), with the same gold method and the same helpers.
"""

from __future__ import annotations

from _common import G, d
from spec_dm import FOLKS, _np, _obs, _res, _rows, _subject

EDDIE_ = FOLKS["EDDIE"]
LATER = {
    "gibleed": [
        G(
            "dm2-gb-sql-count",
            "cohort_count",
            "count",
            [
                d(
                    "SELECT COUNT(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id = 260139"
                ),
            ],
            sql="SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id = 260139",
            check=lambda t: _np(_rows(t, "condition_occurrence", condition_concept_id=260139)),
        ),
        G(
            "dm2-gb-observation-rows",
            "event_count",
            "count",
            [
                d("total observation rows with observation_concept_id 4323208"),
            ],
            sql="SELECT count(*) FROM observation WHERE observation_concept_id = 4323208",
            check=lambda t: len(_rows(t, "observation", observation_concept_id=4323208)),
        ),
        G(
            "dm2-gb-person-proc-rows",
            "patient_count",
            "count",
            [
                d(
                    "procedure_occurrence records for person_id = 6 with procedure_concept_id = 4125906"
                ),
            ],
            sql="SELECT count(*) FROM procedure_occurrence WHERE person_id = 6 AND procedure_concept_id = 4125906",
            check=lambda t: len(
                _rows(t, "procedure_occurrence", person_id=6, procedure_concept_id=4125906)
            ),
        ),
        G(
            "dm2-gb-male-celecoxib",
            "cohort_count",
            "count",
            [
                d("how many male persons have a drug_exposure with drug_concept_id 1118084"),
            ],
            sql=(
                "SELECT count(DISTINCT d.person_id) FROM drug_exposure d JOIN person p USING (person_id) "
                "WHERE d.drug_concept_id = 1118084 AND p.gender_concept_id = 8507"
            ),
            check=lambda t: len(
                set(_rows(t, "drug_exposure", drug_concept_id=1118084).person_id)
                & set(_rows(t, "person", gender_concept_id=8507).person_id)
            ),
        ),
        G(
            "dm2-gb-abstain-era",
            "abstain",
            "abstain",
            [
                d("mean gap_days in drug_era for drug_concept_id 1118084"),
            ],
            missing="drug_era / gap_days (not read by the plan)",
        ),
    ],
    "synthea27nj": [
        G(
            "dm2-sy-bmi-max-person",
            "patient_value",
            "value",
            [
                d("highest value_as_number for measurement_concept_id 3038553 for person 12"),
            ],
            sql="SELECT max(value_as_number) FROM measurement WHERE measurement_concept_id = 3038553 AND person_id = 12",
            check=lambda t: float(
                _rows(
                    t, "measurement", measurement_concept_id=3038553, person_id=12
                ).value_as_number.max()
            ),
            tol=0.01,
        ),
        G(
            "dm2-sy-bmi-persons-ge30",
            "cohort_count",
            "count",
            [
                d("number of persons with at least one BMI (LOINC 39156-5) value_as_number >= 30"),
            ],
            sql="SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id = 3038553 AND value_as_number >= 30",
            check=lambda t: _np(
                _rows(t, "measurement", measurement_concept_id=3038553).query(
                    "value_as_number >= 30"
                )
            ),
        ),
        G(
            "dm2-sy-proc-rows",
            "event_count",
            "count",
            [
                d("row count of procedure_occurrence"),
            ],
            sql="SELECT count(*) FROM procedure_occurrence",
            check=lambda t: len(t["procedure_occurrence"]),
        ),
        G(
            "dm2-sy-female-anemia-list",
            "list",
            "list",
            [
                d("list person_id for women with condition_concept_id 439777"),
            ],
            sql=(
                "SELECT list(DISTINCT o.person_id) FROM condition_occurrence o JOIN person p USING (person_id) "
                "WHERE o.condition_concept_id = 439777 AND p.gender_concept_id = 8532"
            ),
            check=lambda t: sorted(
                set(_rows(t, "condition_occurrence", condition_concept_id=439777).person_id)
                & set(_rows(t, "person", gender_concept_id=8532).person_id)
            ),
        ),
        G(
            "dm2-sy-abstain-unit",
            "abstain",
            "abstain",
            [
                d(
                    "count measurement rows where unit_source_value = 'kg' and value_as_number > 100"
                ),
            ],
            missing="unit_source_value (the plan cannot filter on it) / no code",
        ),
    ],
    "fhir": [
        G(
            "dm2-fh-search-count",
            "event_count",
            "count",
            [
                d("Immunization?vaccine-code=140 -- how many resources"),
            ],
            sql="SELECT count(*) FROM fhir_immunization WHERE code = '140'",
            check=lambda t: int((t["immunization"].code == "140").sum()),
        ),
        G(
            "dm2-fh-proc-patients",
            "cohort_count",
            "count",
            [
                d("distinct patients with Procedure.code = 430193006"),
            ],
            sql="SELECT count(DISTINCT patient_id) FROM fhir_procedure WHERE code = '430193006'",
            check=lambda t: len(
                {
                    _subject(r)
                    for r in _res(t, "Procedure")
                    if any(
                        c.get("code") == "430193006"
                        for c in (r.get("code") or {}).get("coding", [])
                    )
                }
            ),
        ),
        G(
            "dm2-fh-patient-flu",
            "patient_count",
            "count",
            [
                d(f"count Immunization resources with vaccineCode 140 for Patient/{EDDIE_}"),
            ],
            sql=f"SELECT count(*) FROM fhir_immunization WHERE code = '140' AND patient_id = '{EDDIE_}'",
            check=lambda t: int(
                ((t["immunization"].code == "140") & (t["immunization"].patient == EDDIE_)).sum()
            ),
        ),
        G(
            "dm2-fh-sbp-min",
            "value",
            "value",
            [
                d("minimum valueQuantity.value of Observation 8480-6"),
            ],
            sql="SELECT min(value_num) FROM fhir_observation WHERE code = '8480-6'",
            check=lambda t: float(_obs(t, "8480-6").value.min()),
            tol=0.01,
        ),
        G(
            "dm2-fh-abstain-status",
            "abstain",
            "abstain",
            [
                d("how many Encounter resources have status = finished"),
            ],
            missing="Encounter.status (the plan cannot filter on it)",
        ),
    ],
}
