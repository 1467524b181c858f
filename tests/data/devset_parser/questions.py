"""Parser dev questions (issue 8), written before the parser was run on any of them.

Three voices: bedside clinician (shorthand, typos), epidemiologist (careful, parentheticals),
data manager (literal). Gold is hand-written DuckDB SQL over the loaded databases
(``build.py`` runs it and writes ``devset_parser.jsonl``). ``gold`` = "ABSTAIN" marks a
question the source cannot answer; ``expect_reason`` names the abstention reason expected
when it is specific (``ambiguous``). Every third question (by position) is in the sealed split.
"""

from __future__ import annotations

EU_DESC = "SELECT descendant_concept_id FROM concept_ancestor WHERE ancestor_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = '{}')"
NOW_EU = "2019-12-31"


def d(name: str) -> str:
    return EU_DESC.format(name)


AGE = "(date_diff('year', p.birth_datetime, DATE '{now}') - CASE WHEN strftime(p.birth_datetime, '%m%d') > strftime(DATE '{now}', '%m%d') THEN 1 ELSE 0 END)"

EUNOMIA: list[dict] = [
    {
        "q": "how many pts have ever gotten a dx of GI bleed?",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN ({d('Gastrointestinal hemorrhage')})",
    },
    {
        "q": "Number of patients who at any point were prescribed celecoxib",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": f"SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN ({d('celecoxib')})",
    },
    {
        "q": "What share of the pts with a peptic ulcer are female?",
        "cat": "proportion",
        "voice": "bedside",
        "sql": f"SELECT avg(CASE WHEN p.gender_concept_id = 8532 THEN 1.0 ELSE 0 END) FROM person p WHERE p.person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN ({d('Peptic ulcer')}))",
    },
    {
        "q": "How many patients have had some type of sinusitis?",
        "cat": "concept_class",
        "voice": "epidemiologist",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN ({d('Sinusitis')})",
    },
    {
        "q": "how many patients w/ afib",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN ({d('Atrial fibrillation')})",
    },
    {
        "q": "How many people were given a product containing acetaminophen (any strength or combination)?",
        "cat": "concept_class",
        "voice": "epidemiologist",
        "sql": "SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN (SELECT concept_id FROM concept WHERE domain_id = 'Drug' AND lower(concept_name) LIKE '%acetaminophen%')",
    },
    {
        "q": "Did patient 1 ever have a CVA?",
        "cat": "patient_lookup",
        "voice": "bedside",
        "sql": f"SELECT count(*) > 0 FROM condition_occurrence WHERE person_id = 1 AND condition_concept_id IN ({d('Cerebrovascular accident')})",
    },
    {
        "q": "How many patients were diagnosed with osteoarthritis before the age of 40?",
        "cat": "age_at_event",
        "voice": "epidemiologist",
        "sql": f"SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN person p USING (person_id) WHERE c.condition_concept_id IN ({d('Osteoarthritis')}) AND (date_diff('year', p.birth_datetime, c.condition_start_date) - CASE WHEN strftime(p.birth_datetime, '%m%d') > strftime(c.condition_start_date, '%m%d') THEN 1 ELSE 0 END) < 40",
    },
    {
        "q": "What was the last oral temperature reading of patient 3?",
        "cat": "answer_type",
        "voice": "bedside",
        "gold": "ABSTAIN",
        "note": "Eunomia stores no numeric values for oral temperature: a date is not the value",
    },
    {
        "q": "How many patients died?",
        "cat": "unanswerable",
        "voice": "data_manager",
        "gold": "ABSTAIN",
        "note": "the death table is empty",
    },
    {
        "q": "How many ER visits were recorded?",
        "cat": "unanswerable",
        "voice": "data_manager",
        "gold": "ABSTAIN",
        "note": "Eunomia records only inpatient visits",
    },
    {
        "q": "How many patients carry a BRCA1 mutation?",
        "cat": "unanswerable",
        "voice": "epidemiologist",
        "gold": "ABSTAIN",
        "note": "no genetic data",
    },
    {
        "q": "how many pts had a GI bleed and were on clopidogrel at some point",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN ({d('Gastrointestinal hemorrhage')}) AND person_id IN (SELECT person_id FROM drug_exposure WHERE drug_concept_id IN ({d('clopidogrel')}))",
    },
    {
        "q": "How many female patients aged 65 or older have osteoporosis?",
        "cat": "cohort_count",
        "voice": "epidemiologist",
        "now": NOW_EU,
        "sql": f"SELECT count(DISTINCT p.person_id) FROM person p WHERE p.gender_concept_id = 8532 AND {AGE.format(now=NOW_EU)} >= 65 AND p.person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN ({d('Osteoporosis')}))",
    },
    {
        "q": "When was patient 2's first diagnosis of acute bronchitis?",
        "cat": "patient_lookup",
        "voice": "bedside",
        "sql": f"SELECT min(condition_start_date)::VARCHAR FROM condition_occurrence WHERE person_id = 2 AND condition_concept_id IN ({d('Acute bronchitis')})",
    },
    {
        "q": "How many patients took any statin?",
        "cat": "concept_class",
        "voice": "epidemiologist",
        "sql": "SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN (SELECT concept_id FROM concept WHERE domain_id = 'Drug' AND (lower(concept_name) LIKE '%simvastatin%' OR lower(concept_name) LIKE '%atorvastatin%' OR lower(concept_name) LIKE '%rosuvastatin%' OR lower(concept_name) LIKE '%pravastatin%' OR lower(concept_name) LIKE '%lovastatin%' OR lower(concept_name) LIKE '%fluvastatin%' OR lower(concept_name) LIKE '%pitavastatin%'))",
    },
    {
        "q": "Number of patients who got warfarin at some point",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": f"SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN ({d('Warfarin')})",
    },
    {
        "q": "How many patients had a GI bleed within 30 days after their first celecoxib exposure?",
        "cat": "time_window",
        "voice": "epidemiologist",
        "sql": f"WITH f AS (SELECT person_id, min(drug_exposure_start_date) d FROM drug_exposure WHERE drug_concept_id IN ({d('celecoxib')}) GROUP BY 1) SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN f USING (person_id) WHERE c.condition_concept_id IN ({d('Gastrointestinal hemorrhage')}) AND c.condition_start_date BETWEEN f.d AND f.d + INTERVAL 30 DAY",
    },
    {
        "q": "How many pts with a hx of MI?",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN ({d('Myocardial infarction')})",
    },
    {
        "q": "Which drugs has patient 1 been given?",
        "cat": "patient_lookup",
        "voice": "bedside",
        "sql": "SELECT DISTINCT c.concept_name FROM drug_exposure e JOIN concept c ON c.concept_id = e.drug_concept_id WHERE e.person_id = 1",
        "list": True,
    },
    {
        "q": "How many patients had an osteoporosis diagnosis in 2015 (calendar year)?",
        "cat": "calendar",
        "voice": "epidemiologist",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN ({d('Osteoporosis')}) AND condition_start_date BETWEEN DATE '2015-01-01' AND DATE '2015-12-31'",
    },
    {
        "q": "how many patients hv had a fracture of the forearm",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN ({d('Fracture of forearm')})",
    },
    {
        "q": "How many patients with ulcerative colitis were never prescribed celecoxib?",
        "cat": "cohort_count",
        "voice": "epidemiologist",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN ({d('Ulcerative colitis')}) AND person_id NOT IN (SELECT person_id FROM drug_exposure WHERE drug_concept_id IN ({d('celecoxib')}))",
    },
    {
        "q": "How many patients had a diagnosis of esophagitis?",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN ({d('Esophagitis')})",
    },
    {
        "q": "Count of diclofenac users (a given patient counted once)",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": f"SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN ({d('Diclofenac')})",
    },
    {
        "q": "How many patients had a hemorrhage of the gastrointestinal tract and also peptic ulcer?",
        "cat": "cohort_count",
        "voice": "epidemiologist",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN ({d('Gastrointestinal hemorrhage')}) AND person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN ({d('Peptic ulcer')}))",
    },
    {
        "q": "How many patients are there in total?",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": "SELECT count(*) FROM person",
    },
]

S27: list[dict] = [
    {
        "q": "How many pts have htn?",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Essential hypertension')",
    },
    {
        "q": "What was the highest SBP ever recorded?",
        "cat": "aggregate",
        "voice": "bedside",
        "sql": "SELECT max(value_as_number) FROM measurement WHERE measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Systolic blood pressure')",
    },
    {
        "q": "How many patients had an LDL of 130 or more?",
        "cat": "value_threshold",
        "voice": "epidemiologist",
        "sql": "SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name LIKE 'Cholesterol in LDL%') AND value_as_number >= 130",
    },
    {
        "q": "How many patients had a BMI of 30 or more at any point?",
        "cat": "value_threshold",
        "voice": "epidemiologist",
        "sql": "SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Body mass index (BMI) [Ratio]') AND value_as_number >= 30",
    },
    {
        "q": "whats the avg A1c across all measurements",
        "cat": "aggregate",
        "voice": "bedside",
        "sql": "SELECT avg(value_as_number) FROM measurement WHERE measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Hemoglobin A1c/Hemoglobin.total in Blood')",
    },
    {
        "q": "how many F pts",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": "SELECT count(*) FROM person WHERE gender_concept_id = 8532",
    },
    {
        "q": "How many patients have died?",
        "cat": "death",
        "voice": "data_manager",
        "sql": "SELECT count(DISTINCT person_id) FROM death",
    },
    {
        "q": "What is patient 7's most recent blood pressure?",
        "cat": "ambiguous",
        "voice": "bedside",
        "gold": "ABSTAIN",
        "expect_reason": "ambiguous",
        "note": "systolic and diastolic equally",
    },
    {
        "q": "How many people were ever given lisinopril?",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": "SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN (SELECT concept_id FROM concept WHERE lower(concept_name) LIKE '%lisinopril%')",
    },
    {
        "q": "How many patients received any product containing acetaminophen?",
        "cat": "concept_class",
        "voice": "epidemiologist",
        "sql": "SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN (SELECT concept_id FROM concept WHERE domain_id = 'Drug' AND lower(concept_name) LIKE '%acetaminophen%')",
    },
    {
        "q": "How many ED visits were there in total?",
        "cat": "encounter",
        "voice": "data_manager",
        "sql": "SELECT count(*) FROM visit_occurrence WHERE visit_concept_id = 9203",
    },
    {
        "q": "How many inpatient admissions are recorded?",
        "cat": "encounter",
        "voice": "data_manager",
        "sql": "SELECT count(*) FROM visit_occurrence WHERE visit_concept_id = 9201",
    },
    {
        "q": "Mean hemoglobin for women (g/dL)",
        "cat": "aggregate",
        "voice": "epidemiologist",
        "sql": "SELECT avg(m.value_as_number) FROM measurement m JOIN person p USING (person_id) WHERE p.gender_concept_id = 8532 AND m.measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Hemoglobin [Mass/volume] in Blood')",
    },
    {
        "q": "How many patients had a heart rate above 100 /min at least once?",
        "cat": "value_threshold",
        "voice": "epidemiologist",
        "sql": "SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Heart rate') AND value_as_number > 100",
    },
    {
        "q": "Number of patients with a COVID-19 dx",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": "SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'COVID-19')",
    },
    {
        "q": "Which meds has patient 7 been prescribed?",
        "cat": "patient_lookup",
        "voice": "bedside",
        "sql": "SELECT DISTINCT c.concept_name FROM drug_exposure e JOIN concept c ON c.concept_id = e.drug_concept_id WHERE e.person_id = 7",
        "list": True,
    },
    {
        "q": "Did patient 11 ever have a dx of anemia?",
        "cat": "patient_lookup",
        "voice": "bedside",
        "sql": "SELECT count(*) > 0 FROM condition_occurrence WHERE person_id = 11 AND condition_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Anemia')",
    },
    {
        "q": "How many patients had a diastolic BP over 90?",
        "cat": "value_threshold",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Diastolic blood pressure') AND value_as_number > 90",
    },
    {
        "q": "What was the last glucose of patient 1234?",
        "cat": "unanswerable",
        "voice": "bedside",
        "gold": "ABSTAIN",
        "note": "no such patient",
    },
    {
        "q": "How many patients have had an MRI of the knee?",
        "cat": "unanswerable",
        "voice": "data_manager",
        "gold": "ABSTAIN",
        "note": "no such procedure in the data",
    },
    {
        "q": "How many deaths were recorded in 2019?",
        "cat": "death",
        "voice": "data_manager",
        "sql": "SELECT count(*) FROM death WHERE death_date BETWEEN DATE '2019-01-01' AND DATE '2019-12-31'",
    },
    {
        "q": "How many patients had viral sinusitis?",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": "SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Viral sinusitis')",
    },
    {
        "q": "What was the lowest body weight recorded for patient 2 (in kg)?",
        "cat": "patient_lookup",
        "voice": "bedside",
        "sql": "SELECT min(value_as_number) FROM measurement WHERE person_id = 2 AND measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Body weight')",
    },
    {
        "q": "how many pts on amlodipine",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN (SELECT concept_id FROM concept WHERE lower(concept_name) LIKE '%amlodipine%')",
    },
    {
        "q": "How many patients had a hemoglobin A1c above 6.5%?",
        "cat": "value_threshold",
        "voice": "epidemiologist",
        "sql": "SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Hemoglobin A1c/Hemoglobin.total in Blood') AND value_as_number > 6.5",
    },
    {
        "q": "How many male patients had acute bronchitis?",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": "SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN person p USING (person_id) WHERE p.gender_concept_id = 8507 AND c.condition_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Acute bronchitis')",
    },
    {
        "q": "Average respiratory rate across all readings?",
        "cat": "aggregate",
        "voice": "data_manager",
        "sql": "SELECT avg(value_as_number) FROM measurement WHERE measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Respiratory rate')",
    },
]

FHIR: list[dict] = [
    {
        "q": "How many patients are in the dataset?",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": "SELECT count(*) FROM fhir_patient",
    },
    {
        "q": "how many female pts?",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": "SELECT count(*) FROM fhir_patient WHERE gender = 'female'",
    },
    {
        "q": "What was the last SBP of patient fbeb6608-4810-453b-a3a6-b34f321410b1?",
        "cat": "patient_lookup",
        "voice": "bedside",
        "sql": "SELECT value_num FROM fhir_measurement WHERE patient_id = 'fbeb6608-4810-453b-a3a6-b34f321410b1' AND display = 'Systolic Blood Pressure' ORDER BY effective_time DESC LIMIT 1",
    },
    {
        "q": "How many patients have prediabetes?",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE display = 'Prediabetes'",
    },
    {
        "q": "How many patients have had acute bronchitis?",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE display LIKE 'Acute bronchitis%'",
    },
    {
        "q": "What is the mean BMI across all readings?",
        "cat": "aggregate",
        "voice": "epidemiologist",
        "sql": "SELECT avg(value_num) FROM fhir_measurement WHERE display = 'Body Mass Index'",
    },
    {
        "q": "How many pts had an LDL above 130 mg/dL?",
        "cat": "value_threshold",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_measurement WHERE display = 'Low Density Lipoprotein Cholesterol' AND value_num > 130",
    },
    {
        "q": "How many emergency encounters are there?",
        "cat": "encounter",
        "voice": "data_manager",
        "sql": "SELECT count(*) FROM fhir_encounter WHERE class_code = 'EMER'",
    },
    {
        "q": "How many patients have died?",
        "cat": "death",
        "voice": "data_manager",
        "sql": "SELECT count(*) FROM fhir_patient WHERE death_date IS NOT NULL OR deceased",
    },
    {
        "q": "Has patient dba1d054-cce0-4fd8-94e3-9ee867667cfe ever been diagnosed with anemia?",
        "cat": "patient_lookup",
        "voice": "bedside",
        "sql": "SELECT count(*) > 0 FROM fhir_condition WHERE patient_id = 'dba1d054-cce0-4fd8-94e3-9ee867667cfe' AND display LIKE 'Anemia%'",
    },
    {
        "q": "What's the average blood pressure?",
        "cat": "ambiguous",
        "voice": "bedside",
        "gold": "ABSTAIN",
        "expect_reason": "ambiguous",
        "note": "systolic and diastolic equally",
    },
    {
        "q": "How many patients had a hemoglobin below 13 g/dL?",
        "cat": "value_threshold",
        "voice": "epidemiologist",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_measurement WHERE display = 'Hemoglobin [Mass/volume] in Blood' AND value_num < 13",
    },
    {
        "q": "How many patients have a BRCA genetic test result?",
        "cat": "unanswerable",
        "voice": "epidemiologist",
        "gold": "ABSTAIN",
        "note": "no genetic tests",
    },
    {
        "q": "How many inpatient encounters are recorded?",
        "cat": "encounter",
        "voice": "data_manager",
        "sql": "SELECT count(*) FROM fhir_encounter WHERE class_code = 'IMP'",
    },
    {
        "q": "What is the highest body weight recorded (kg)?",
        "cat": "aggregate",
        "voice": "data_manager",
        "sql": "SELECT max(value_num) FROM fhir_measurement WHERE display = 'Body Weight'",
    },
    {
        "q": "How many patients had a UTI?",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE lower(display) LIKE '%urinary tract infection%'",
    },
    {
        "q": "How many pts with viral sinusitis?",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE display LIKE 'Viral sinusitis%'",
    },
    {
        "q": "How many patients had a total cholesterol above 200 mg/dL?",
        "cat": "value_threshold",
        "voice": "epidemiologist",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_measurement WHERE display = 'Total Cholesterol' AND value_num > 200",
    },
    {
        "q": "How many patients had a fever?",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE display LIKE 'Fever%'",
    },
    {
        "q": "How many male patients are there?",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": "SELECT count(*) FROM fhir_patient WHERE gender = 'male'",
    },
]

# -- second batch (written after the first round of changes, before running the parser on it) --

EUNOMIA += [
    {
        "q": "Out of everyone with osteoarthritis, what fraction also had a GI bleed?",
        "cat": "proportion",
        "voice": "epidemiologist",
        "sql": f"SELECT avg(CASE WHEN person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN ({d('Gastrointestinal hemorrhage')})) THEN 1.0 ELSE 0 END) FROM (SELECT DISTINCT person_id FROM condition_occurrence WHERE condition_concept_id IN ({d('Osteoarthritis')}))",
    },
    {
        "q": "number of pts on naproxen or ibuprofen",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": f"SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN ({d('Naproxen')}) OR drug_concept_id IN ({d('Ibuprofen')})",
    },
    {
        "q": "How many men have been diagnosed with a concussion (with or without loss of consciousness)?",
        "cat": "concept_class",
        "voice": "epidemiologist",
        "sql": "SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN person p USING (person_id) WHERE p.gender_concept_id = 8507 AND c.condition_concept_id IN (SELECT concept_id FROM concept WHERE lower(concept_name) LIKE 'concussion%')",
    },
    {
        "q": "Has pt 5 ever been prescribed amoxicillin?",
        "cat": "patient_lookup",
        "voice": "bedside",
        "sql": f"SELECT count(*) > 0 FROM drug_exposure WHERE person_id = 5 AND drug_concept_id IN ({d('Amoxicillin')})",
    },
    {
        "q": "What is the median age at first diagnosis of atrial fibrillation?",
        "cat": "age_at_event",
        "voice": "epidemiologist",
        "sql": f"WITH f AS (SELECT person_id, min(condition_start_date) d FROM condition_occurrence WHERE condition_concept_id IN ({d('Atrial fibrillation')}) GROUP BY 1) SELECT median(date_diff('year', p.birth_datetime, f.d) - CASE WHEN strftime(p.birth_datetime, '%m%d') > strftime(f.d, '%m%d') THEN 1 ELSE 0 END) FROM f JOIN person p USING (person_id)",
    },
    {
        "q": "How many patients had a cholesterol above 240 mg/dL?",
        "cat": "answer_type",
        "voice": "bedside",
        "gold": "ABSTAIN",
        "note": "Eunomia stores no cholesterol values",
    },
    {
        "q": "How many pts got an opioid at some point?",
        "cat": "concept_class",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN (SELECT concept_id FROM concept WHERE domain_id = 'Drug' AND (lower(concept_name) LIKE '%morphine%' OR lower(concept_name) LIKE '%oxycodone%' OR lower(concept_name) LIKE '%hydrocodone%' OR lower(concept_name) LIKE '%codeine%' OR lower(concept_name) LIKE '%fentanyl%' OR lower(concept_name) LIKE '%tramadol%' OR lower(concept_name) LIKE '%hydromorphone%' OR lower(concept_name) LIKE '%meperidine%' OR lower(concept_name) LIKE '%methadone%' OR lower(concept_name) LIKE '%tapentadol%' OR lower(concept_name) LIKE '%buprenorphine%' OR lower(concept_name) LIKE '%oxymorphone%'))",
    },
    {
        "q": "How many patients with ulcerative colitis are under 30 years old?",
        "cat": "cohort_count",
        "voice": "data_manager",
        "now": NOW_EU,
        "sql": f"SELECT count(DISTINCT p.person_id) FROM person p WHERE {AGE.format(now=NOW_EU)} < 30 AND p.person_id IN (SELECT person_id FROM condition_occurrence WHERE condition_concept_id IN ({d('Ulcerative colitis')}))",
    },
    {
        "q": "What proportion of patients prescribed clopidogrel were women?",
        "cat": "proportion",
        "voice": "epidemiologist",
        "sql": f"SELECT avg(CASE WHEN p.gender_concept_id = 8532 THEN 1.0 ELSE 0 END) FROM person p WHERE p.person_id IN (SELECT person_id FROM drug_exposure WHERE drug_concept_id IN ({d('clopidogrel')}))",
    },
    {
        "q": "How many patients have had gastroesophageal reflux disease?",
        "cat": "unanswerable",
        "voice": "data_manager",
        "gold": "ABSTAIN",
        "note": "not in the data",
    },
    {
        "q": "How many patients had their first GI bleed after 2010?",
        "cat": "first_occurrence",
        "voice": "epidemiologist",
        "sql": f"WITH f AS (SELECT person_id, min(condition_start_date) d FROM condition_occurrence WHERE condition_concept_id IN ({d('Gastrointestinal hemorrhage')}) GROUP BY 1) SELECT count(*) FROM f WHERE d > DATE '2010-12-31'",
    },
    {
        "q": "how many ppl w/ a sprained ankle",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": f"SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN ({d('Sprain of ankle')})",
    },
]

S27 += [
    {
        "q": "What's the most recent heart rate for patient 3?",
        "cat": "patient_lookup",
        "voice": "bedside",
        "sql": "SELECT value_as_number FROM measurement WHERE person_id = 3 AND measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Heart rate') ORDER BY measurement_date DESC, measurement_datetime DESC LIMIT 1",
    },
    {
        "q": "How many patients had a systolic BP of 140 or higher?",
        "cat": "value_threshold",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Systolic blood pressure') AND value_as_number >= 140",
    },
    {
        "q": "Average BMI of male patients?",
        "cat": "aggregate",
        "voice": "epidemiologist",
        "sql": "SELECT avg(m.value_as_number) FROM measurement m JOIN person p USING (person_id) WHERE p.gender_concept_id = 8507 AND m.measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Body mass index (BMI) [Ratio]')",
    },
    {
        "q": "How many patients were on a statin?",
        "cat": "concept_class",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN (SELECT concept_id FROM concept WHERE domain_id = 'Drug' AND (lower(concept_name) LIKE '%simvastatin%' OR lower(concept_name) LIKE '%atorvastatin%' OR lower(concept_name) LIKE '%rosuvastatin%' OR lower(concept_name) LIKE '%pravastatin%' OR lower(concept_name) LIKE '%lovastatin%'))",
    },
    {
        "q": "Did patient 7 ever have a glucose above 200 mg/dL?",
        "cat": "patient_lookup",
        "voice": "bedside",
        "sql": "SELECT count(*) > 0 FROM measurement WHERE person_id = 7 AND measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Glucose [Mass/volume] in Blood') AND value_as_number > 200",
    },
    {
        "q": "How many patients had an ER visit in 2020?",
        "cat": "encounter",
        "voice": "data_manager",
        "sql": "SELECT count(DISTINCT person_id) FROM visit_occurrence WHERE visit_concept_id = 9203 AND visit_start_date BETWEEN DATE '2020-01-01' AND DATE '2020-12-31'",
    },
    {
        "q": "What is the highest potassium ever recorded (mmol/L)?",
        "cat": "aggregate",
        "voice": "data_manager",
        "sql": "SELECT max(value_as_number) FROM measurement WHERE measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Potassium [Moles/volume] in Blood')",
    },
    {
        "q": "How many patients have a cholesterol above 200?",
        "cat": "ambiguous",
        "voice": "bedside",
        "gold": "ABSTAIN",
        "expect_reason": "ambiguous",
        "note": "total, LDL and HDL cholesterol are equally 'cholesterol'",
    },
    {
        "q": "Number of women with a normal pregnancy",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": "SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Normal pregnancy')",
    },
    {
        "q": "How many patients had an A1c of 7 or more?",
        "cat": "value_threshold",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT person_id) FROM measurement WHERE measurement_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Hemoglobin A1c/Hemoglobin.total in Blood') AND value_as_number >= 7",
    },
    {
        "q": "How long did patient 11 stay in hospital on average (days)?",
        "cat": "los",
        "voice": "bedside",
        "sql": "SELECT avg(visit_end_date - visit_start_date) FROM visit_occurrence WHERE person_id = 11 AND visit_concept_id = 9201",
    },
    {
        "q": "How many patients have a documented cardiac arrest?",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": "SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id IN (SELECT concept_id FROM concept WHERE concept_name = 'Cardiac arrest')",
    },
]

FHIR += [
    {
        "q": "How many patients have had a normal pregnancy?",
        "cat": "cohort_count",
        "voice": "data_manager",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE display LIKE 'Normal pregnancy%'",
    },
    {
        "q": "What is the average HDL?",
        "cat": "aggregate",
        "voice": "bedside",
        "sql": "SELECT avg(value_num) FROM fhir_measurement WHERE display = 'High Density Lipoprotein Cholesterol'",
    },
    {
        "q": "how many pts had a DBP over 90",
        "cat": "value_threshold",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_measurement WHERE display = 'Diastolic Blood Pressure' AND value_num > 90",
    },
    {
        "q": "What was the most recent body weight of patient beaf0c3d-bcd4-4155-8a7b-f493bdc8f9fe?",
        "cat": "patient_lookup",
        "voice": "bedside",
        "sql": "SELECT value_num FROM fhir_measurement WHERE patient_id = 'beaf0c3d-bcd4-4155-8a7b-f493bdc8f9fe' AND display = 'Body Weight' ORDER BY effective_time DESC LIMIT 1",
    },
    {
        "q": "How many women have had a miscarriage in the first trimester?",
        "cat": "cohort_count",
        "voice": "epidemiologist",
        "sql": "SELECT count(DISTINCT c.patient_id) FROM fhir_condition c JOIN fhir_patient p ON p.id = c.patient_id WHERE p.gender = 'female' AND c.display LIKE 'Miscarriage in first trimester%'",
    },
    {
        "q": "How many patients had an emergency encounter?",
        "cat": "encounter",
        "voice": "data_manager",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_encounter WHERE class_code = 'EMER'",
    },
    {
        "q": "How many patients have ever had a COVID-19 diagnosis (confirmed, not suspected)?",
        "cat": "cohort_count",
        "voice": "epidemiologist",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE display = 'COVID-19'",
    },
    {
        "q": "What is the patients' average systolic blood pressure?",
        "cat": "aggregate",
        "voice": "epidemiologist",
        "sql": "SELECT avg(value_num) FROM fhir_measurement WHERE display = 'Systolic Blood Pressure'",
    },
    {
        "q": "How many patients are prediabetic?",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT patient_id) FROM fhir_condition WHERE display = 'Prediabetes'",
    },
    {
        "q": "How many patients have a recorded allergy to penicillin?",
        "cat": "unanswerable",
        "voice": "data_manager",
        "gold": "ABSTAIN",
        "note": "allergy to X is a relation the plan cannot express (and the sample's allergies are few)",
    },
    {
        "q": "Lowest hemoglobin recorded, in g/dL?",
        "cat": "aggregate",
        "voice": "data_manager",
        "sql": "SELECT min(value_num) FROM fhir_measurement WHERE display = 'Hemoglobin [Mass/volume] in Blood'",
    },
    {
        "q": "How many male pts have had acute bronchitis?",
        "cat": "cohort_count",
        "voice": "bedside",
        "sql": "SELECT count(DISTINCT c.patient_id) FROM fhir_condition c JOIN fhir_patient p ON p.id = c.patient_id WHERE p.gender = 'male' AND c.display LIKE 'Acute bronchitis%'",
    },
]
