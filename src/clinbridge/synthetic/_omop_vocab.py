"""The small, self-contained vocabulary the synthetic OMOP generator writes with its data.

Concept ids below 2,000,000,000 are the real OMOP standard concepts (SNOMED conditions, LOINC
measurements, RxNorm ingredients, UCUM units, visit, gender, race and type concepts); ids from
2,000,000,000 up are OMOP's range for local concepts and are used for what the generator invents
(drug products, a drug class, ICD10CM source concepts, note classes). Every concept used in the
data has a CONCEPT row; CONCEPT_ANCESTOR holds self-rows and a two-level hierarchy; CONCEPT_SYNONYM
and 'Maps to' relationships (ICD10CM → SNOMED) make lookups realistic.
"""

from __future__ import annotations

from dataclasses import dataclass

# (concept_id, name, domain, vocabulary, class, standard, code)
Concept = tuple[int, str, str, str, str, str | None, str]

LOCAL = 2_000_000_000

BASE: list[Concept] = [
    (0, "No matching concept", "Metadata", "None", "Undefined", None, "No matching concept"),
    (8507, "MALE", "Gender", "Gender", "Gender", "S", "M"),
    (8532, "FEMALE", "Gender", "Gender", "Gender", "S", "F"),
    (8527, "White", "Race", "Race", "Race", "S", "5"),
    (8516, "Black or African American", "Race", "Race", "Race", "S", "3"),
    (8515, "Asian", "Race", "Race", "Race", "S", "2"),
    (38003563, "Hispanic or Latino", "Ethnicity", "Ethnicity", "Ethnicity", "S", "Hispanic"),
    (
        38003564,
        "Not Hispanic or Latino",
        "Ethnicity",
        "Ethnicity",
        "Ethnicity",
        "S",
        "Not Hispanic",
    ),
    (9201, "Inpatient Visit", "Visit", "Visit", "Visit", "S", "IP"),
    (9202, "Outpatient Visit", "Visit", "Visit", "Visit", "S", "OP"),
    (9203, "Emergency Room Visit", "Visit", "Visit", "Visit", "S", "ER"),
    (262, "Emergency Room and Inpatient Visit", "Visit", "Visit", "Visit", "S", "ERIP"),
    (32037, "Intensive Care", "Visit", "Visit", "Visit", "S", "OMOP4822460"),
    (32817, "EHR", "Type Concept", "Type Concept", "Type Concept", "S", "OMOP4976890"),
    (32678, "UTF-8", "Metadata", "None", "Undefined", None, "UTF-8"),
    (4180186, "English language", "Observation", "SNOMED", "Qualifier Value", "S", "297496006"),
    # units (UCUM)
    (8713, "gram per deciliter", "Unit", "UCUM", "Unit", "S", "g/dL"),
    (8840, "milligram per deciliter", "Unit", "UCUM", "Unit", "S", "mg/dL"),
    (8876, "millimeter mercury column", "Unit", "UCUM", "Unit", "S", "mm[Hg]"),
    (8541, "per minute", "Unit", "UCUM", "Unit", "S", "/min"),
    (9531, "kilogram per square meter", "Unit", "UCUM", "Unit", "S", "kg/m2"),
    (8753, "millimole per liter", "Unit", "UCUM", "Unit", "S", "mmol/L"),
    (8554, "percent", "Unit", "UCUM", "Unit", "S", "%"),
    (9529, "kilogram", "Unit", "UCUM", "Unit", "S", "kg"),
    (8582, "centimeter", "Unit", "UCUM", "Unit", "S", "cm"),
    (586323, "degree Celsius", "Unit", "UCUM", "Unit", "S", "Cel"),
    (8848, "thousand per microliter", "Unit", "UCUM", "Unit", "S", "10*3/uL"),
]


@dataclass(frozen=True)
class Lab:
    key: str
    concept_id: int
    name: str
    loinc: str
    unit_concept_id: int
    unit: str
    decimals: int
    low: float
    high: float


LABS: dict[str, Lab] = {
    lab.key: lab
    for lab in (
        Lab(
            "hgb",
            3000963,
            "Hemoglobin [Mass/volume] in Blood",
            "718-7",
            8713,
            "g/dL",
            1,
            12.0,
            17.5,
        ),
        Lab(
            "creat",
            3016723,
            "Creatinine [Mass/volume] in Serum or Plasma",
            "2160-0",
            8840,
            "mg/dL",
            2,
            0.6,
            1.3,
        ),
        Lab(
            "gluc",
            3004501,
            "Glucose [Mass/volume] in Serum or Plasma",
            "2345-7",
            8840,
            "mg/dL",
            0,
            70,
            99,
        ),
        Lab("sbp", 3004249, "Systolic blood pressure", "8480-6", 8876, "mmHg", 0, 90, 120),
        Lab("dbp", 3012888, "Diastolic blood pressure", "8462-4", 8876, "mmHg", 0, 60, 80),
        Lab("hr", 3027018, "Heart rate", "8867-4", 8541, "/min", 0, 60, 100),
        Lab("bmi", 3038553, "Body mass index (BMI) [Ratio]", "39156-5", 9531, "kg/m2", 1, 18.5, 25),
        Lab(
            "k",
            3023103,
            "Potassium [Moles/volume] in Serum or Plasma",
            "2823-3",
            8753,
            "mmol/L",
            1,
            3.5,
            5.1,
        ),
        Lab(
            "na",
            3019550,
            "Sodium [Moles/volume] in Serum or Plasma",
            "2951-2",
            8753,
            "mmol/L",
            0,
            135,
            145,
        ),
        Lab(
            "a1c",
            3004410,
            "Hemoglobin A1c/Hemoglobin.total in Blood",
            "4548-4",
            8554,
            "%",
            1,
            4.0,
            5.6,
        ),
        Lab("wt", 3025315, "Body weight", "29463-7", 9529, "kg", 1, 0, 0),
        Lab("temp", 3020891, "Body temperature", "8310-5", 586323, "Cel", 1, 36.1, 37.2),
        Lab(
            "wbc",
            3000905,
            "Leukocytes [#/volume] in Blood by Automated count",
            "6690-2",
            8848,
            "10*3/uL",
            1,
            4.5,
            11.0,
        ),
        Lab(
            "plt",
            3024929,
            "Platelets [#/volume] in Blood by Automated count",
            "777-3",
            8848,
            "10*3/uL",
            0,
            150,
            400,
        ),
        # last, so that adding it left every other lab's row order unchanged
        Lab("ht", 3036277, "Body height", "8302-2", 8582, "cm", 1, 0, 0),
    )
}

# Conditions: key -> (concept_id, name, SNOMED code)
CONDITIONS: dict[str, tuple[int, str, str]] = {
    "dm": (201820, "Diabetes mellitus", "73211009"),
    "t2dm": (201826, "Type 2 diabetes mellitus", "44054006"),
    "t1dm": (201254, "Type 1 diabetes mellitus", "46635009"),
    "cvd": (134057, "Disorder of cardiovascular system", "49601007"),
    "htn_any": (316866, "Hypertensive disorder", "38341003"),
    "htn": (320128, "Essential hypertension", "59621000"),
    "hf": (316139, "Heart failure", "84114007"),
    "chf": (319835, "Congestive heart failure", "42343007"),
    "afib": (313217, "Atrial fibrillation", "49436004"),
    "mi": (4329847, "Myocardial infarction", "22298006"),
    "ami": (312327, "Acute myocardial infarction", "57054005"),
    "kidney": (198124, "Kidney disease", "90708001"),
    "ckd": (46271022, "Chronic kidney disease", "709044004"),
    "aki": (197320, "Acute renal failure syndrome", "14669001"),
    "hld": (432867, "Hyperlipidemia", "55822004"),
    "obesity": (433736, "Obesity", "414916001"),
    "asthma": (317009, "Asthma", "195967001"),
    "copd": (255573, "Chronic obstructive lung disease", "13645005"),
    "depression": (440383, "Depressive disorder", "35489007"),
    "anemia": (439777, "Anemia", "271737000"),
    "pneumonia": (255848, "Pneumonia", "233604007"),
    "sepsis": (132797, "Sepsis", "91302008"),
    "gib": (192671, "Gastrointestinal hemorrhage", "74474003"),
}

# ICD10CM source concepts (local ids except K92.2, Eunomia's 35208414) and their 'Maps to' target.
ICD10: dict[str, tuple[int, str, str]] = {
    "t2dm": (LOCAL + 101, "Type 2 diabetes mellitus without complications", "E11.9"),
    "htn": (LOCAL + 102, "Essential (primary) hypertension", "I10"),
    "pneumonia": (LOCAL + 103, "Pneumonia, unspecified organism", "J18.9"),
    "afib": (LOCAL + 104, "Unspecified atrial fibrillation", "I48.91"),
    "gib": (35208414, "Gastrointestinal hemorrhage, unspecified", "K92.2"),
}

# Hierarchy (ancestor key, descendant key) among CONDITIONS; levels follow from chains.
CONDITION_PARENTS: list[tuple[str, str]] = [
    ("dm", "t2dm"),
    ("dm", "t1dm"),
    ("cvd", "htn_any"),
    ("htn_any", "htn"),
    ("cvd", "hf"),
    ("hf", "chf"),
    ("cvd", "afib"),
    ("cvd", "mi"),
    ("mi", "ami"),
    ("kidney", "ckd"),
    ("kidney", "aki"),
]


@dataclass(frozen=True)
class Drug:
    key: str
    ingredient_id: int
    ingredient: str
    rxnorm: str
    product_id: int
    product: str
    doses_per_day: float
    route: str = "oral"


DRUGS: dict[str, Drug] = {
    d.key: d
    for d in (
        Drug(
            "metformin",
            1503297,
            "metformin",
            "6809",
            LOCAL + 1001,
            "metformin hydrochloride 500 MG Oral Tablet",
            2,
        ),
        Drug(
            "glargine",
            1502905,
            "insulin glargine",
            "274783",
            LOCAL + 1002,
            "insulin glargine 100 UNT/ML Injectable Solution",
            1,
            "subcutaneous",
        ),
        Drug(
            "lisinopril",
            1308216,
            "lisinopril",
            "29046",
            LOCAL + 1003,
            "lisinopril 10 MG Oral Tablet",
            1,
        ),
        Drug(
            "amlodipine",
            1332418,
            "amlodipine",
            "17767",
            LOCAL + 1004,
            "amlodipine 5 MG Oral Tablet",
            1,
        ),
        Drug(
            "atorvastatin",
            1545958,
            "atorvastatin",
            "83367",
            LOCAL + 1005,
            "atorvastatin 20 MG Oral Tablet",
            1,
        ),
        Drug(
            "apixaban",
            43013024,
            "apixaban",
            "1364430",
            LOCAL + 1006,
            "apixaban 5 MG Oral Tablet",
            2,
        ),
        Drug(
            "warfarin",
            1310149,
            "warfarin",
            "11289",
            LOCAL + 1007,
            "warfarin sodium 5 MG Oral Tablet",
            1,
        ),
        Drug(
            "furosemide",
            956874,
            "furosemide",
            "4603",
            LOCAL + 1008,
            "furosemide 40 MG Oral Tablet",
            1,
        ),
        Drug(
            "albuterol",
            1154343,
            "albuterol",
            "435",
            LOCAL + 1009,
            "albuterol 0.09 MG/ACTUAT Metered Dose Inhaler",
            2,
            "inhalation",
        ),
        Drug(
            "sertraline",
            739138,
            "sertraline",
            "36437",
            LOCAL + 1010,
            "sertraline 50 MG Oral Tablet",
            1,
        ),
        Drug(
            "celecoxib",
            1118084,
            "celecoxib",
            "140587",
            LOCAL + 1011,
            "celecoxib 200 MG Oral Capsule",
            1,
        ),
        Drug(
            "diclofenac",
            1124300,
            "diclofenac",
            "3355",
            LOCAL + 1012,
            "diclofenac sodium 75 MG Delayed Release Oral Tablet",
            2,
        ),
        Drug(
            "amoxicillin",
            1713332,
            "amoxicillin",
            "723",
            LOCAL + 1013,
            "amoxicillin 500 MG Oral Capsule",
            3,
        ),
        Drug(
            "ceftriaxone",
            1777806,
            "ceftriaxone",
            "2193",
            LOCAL + 1014,
            "ceftriaxone 1000 MG Injection",
            1,
            "intravenous",
        ),
        Drug(
            "vancomycin",
            1707687,
            "vancomycin",
            "11124",
            LOCAL + 1015,
            "vancomycin 1000 MG Injection",
            2,
            "intravenous",
        ),
        Drug(
            "heparin",
            1367571,
            "heparin",
            "5224",
            LOCAL + 1016,
            "heparin sodium 5000 UNT/ML Injectable Solution",
            2,
            "subcutaneous",
        ),
        Drug(
            "acetaminophen",
            1125315,
            "acetaminophen",
            "161",
            LOCAL + 1017,
            "acetaminophen 500 MG Oral Tablet",
            3,
        ),
        Drug(
            "omeprazole",
            923645,
            "omeprazole",
            "7646",
            LOCAL + 1018,
            "omeprazole 20 MG Delayed Release Oral Capsule",
            1,
        ),
    )
}

NSAID_CLASS = (LOCAL + 2001, "Anti-inflammatory and antirheumatic products, non-steroids", "M01A")
NSAIDS = ("celecoxib", "diclofenac")
NOTE_CLASS = (LOCAL + 3001, "Discharge summary", "CB-NOTE-DS")

SYNONYMS: list[tuple[int, str]] = [
    (201826, "Type II diabetes mellitus"),
    (201826, "T2DM"),
    (201826, "Adult-onset diabetes"),
    (201820, "Diabetes"),
    (320128, "High blood pressure"),
    (320128, "HTN"),
    (316866, "Hypertension"),
    (312327, "Heart attack"),
    (312327, "AMI"),
    (313217, "AF"),
    (313217, "AFib"),
    (316139, "Cardiac failure"),
    (46271022, "CKD"),
    (197320, "Acute kidney injury"),
    (197320, "AKI"),
    (255573, "COPD"),
    (440383, "Depression"),
    (192671, "GI bleed"),
    (192671, "Gastrointestinal bleeding"),
    (3000963, "Hemoglobin"),
    (3000963, "Haemoglobin"),
    (3000963, "Hb"),
    (3016723, "Creatinine"),
    (3004501, "Glucose"),
    (3004501, "Blood sugar"),
    (3004249, "Systolic BP"),
    (3012888, "Diastolic BP"),
    (3027018, "Pulse"),
    (3038553, "BMI"),
    (3038553, "Body mass index"),
    (3023103, "Potassium"),
    (3019550, "Sodium"),
    (3004410, "HbA1c"),
    (3004410, "A1c"),
    (3004410, "Glycated hemoglobin"),
    (3025315, "Weight"),
    (3036277, "Height"),
    (3020891, "Temperature"),
    (3000905, "White blood cell count"),
    (3000905, "WBC"),
    (3024929, "Platelet count"),
    (NSAID_CLASS[0], "NSAIDs"),
    (NSAID_CLASS[0], "Nonsteroidal anti-inflammatory drugs"),
    (1125315, "paracetamol"),
    (1154343, "salbutamol"),
]

VOCABULARIES: list[tuple[str, str]] = [
    ("None", "OMOP Standardized Vocabularies"),
    ("SNOMED", "Systematic Nomenclature of Medicine - Clinical Terms (IHTSDO)"),
    ("LOINC", "Logical Observation Identifiers Names and Codes (Regenstrief Institute)"),
    ("RxNorm", "RxNorm (NLM)"),
    (
        "ICD10CM",
        "International Classification of Diseases, Tenth Revision, Clinical Modification (NCHS)",
    ),
    ("UCUM", "Unified Code for Units of Measure (Regenstrief Institute)"),
    ("Gender", "OMOP Gender"),
    ("Race", "Race and Ethnicity Code Set (USBC)"),
    ("Ethnicity", "OMOP Ethnicity"),
    ("Visit", "OMOP Visit"),
    ("Type Concept", "OMOP Type Concept"),
    ("ATC", "WHO Anatomic Therapeutic Chemical Classification"),
    ("CB Synthetic", "clinbridge synthetic local concepts"),
]

VOCABULARY_VERSION = "cb-synthetic v1"  # cdm_source.vocabulary_version is varchar(20)
