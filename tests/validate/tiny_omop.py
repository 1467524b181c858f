"""A tiny OMOP-shaped DuckDB database and its catalog, built in-process for the validator,
example-bank and LLM tests (hand-written rows; every number below is chosen by hand so the
tests can state the expected answers)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

from clinbridge.catalog import (
    Catalog,
    ColumnInfo,
    Dictionary,
    EncounterTable,
    EventStream,
    PatientTable,
    TableInfo,
)
from clinbridge.db import Database

CONCEPTS = [
    # concept_id, name, domain, vocabulary, class, standard, code
    (8507, "MALE", "Gender", "Gender", "Gender", "S", "M"),
    (8532, "FEMALE", "Gender", "Gender", "Gender", "S", "F"),
    (9201, "Inpatient Visit", "Visit", "Visit", "Visit", "S", "IP"),
    (9202, "Outpatient Visit", "Visit", "Visit", "Visit", "S", "OP"),
    (9203, "Emergency Room Visit", "Visit", "Visit", "Visit", "S", "ER"),
    (
        192671,
        "Gastrointestinal hemorrhage",
        "Condition",
        "SNOMED",
        "Clinical Finding",
        "S",
        "74474003",
    ),
    (
        4338225,
        "Upper gastrointestinal hemorrhage",
        "Condition",
        "SNOMED",
        "Clinical Finding",
        "S",
        "37372002",
    ),
    (
        201826,
        "Type 2 diabetes mellitus",
        "Condition",
        "SNOMED",
        "Clinical Finding",
        "S",
        "44054006",
    ),
    (4329847, "Myocardial infarction", "Condition", "SNOMED", "Clinical Finding", "S", "22298006"),
    (1118084, "celecoxib", "Drug", "RxNorm", "Ingredient", "S", "140587"),
    (1124300, "diclofenac", "Drug", "RxNorm", "Ingredient", "S", "3355"),
    (1112807, "aspirin", "Drug", "RxNorm", "Ingredient", "S", "1191"),
    (
        3004410,
        "Hemoglobin A1c/Hemoglobin.total in Blood",
        "Measurement",
        "LOINC",
        "Lab Test",
        "S",
        "4548-4",
    ),
    (
        3000963,
        "Hemoglobin [Mass/volume] in Blood",
        "Measurement",
        "LOINC",
        "Lab Test",
        "S",
        "718-7",
    ),
    (3025315, "Body weight", "Measurement", "LOINC", "Clinical Observation", "S", "29463-7"),
    (3027018, "Heart rate", "Measurement", "LOINC", "Clinical Observation", "S", "8867-4"),
    (8713, "gram per deciliter", "Unit", "UCUM", "Unit", "S", "g/dL"),
    (8554, "percent", "Unit", "UCUM", "Unit", "S", "%"),
    (9529, "kilogram", "Unit", "UCUM", "Unit", "S", "kg"),
    (8739, "pound (US)", "Unit", "UCUM", "Unit", "S", "[lb_av]"),
]
ANCESTORS = [(c[0], c[0]) for c in CONCEPTS] + [(192671, 4338225)]
SYNONYMS = [(201826, "T2DM"), (192671, "GI bleed")]
PERSONS = [  # person_id, gender, year_of_birth
    (1, 8507, 1950),
    (2, 8532, 1960),
    (3, 8532, 1970),
    (4, 8507, 1980),
    (5, 8532, 1990),
    (6, 8507, 2000),
]
OBS = [(p, p, "2000-01-01", "2020-12-31") for p in range(1, 6)] + [
    (6, 6, "2015-01-01", "2016-12-31")
]
VISITS = [  # visit_id, person, concept, start, end
    (10, 1, 9201, "2010-03-01", "2010-03-05"),
    (11, 1, 9203, "2012-06-01", "2012-06-01"),
    (12, 2, 9202, "2011-01-10", "2011-01-10"),
    (13, 3, 9201, "2015-05-01", "2015-05-11"),
    (14, 4, 9203, "2018-02-02", "2018-02-03"),
]
CONDITIONS = [  # id, person, concept, date
    (100, 1, 4338225, "2010-03-02"),
    (101, 2, 192671, "2011-01-10"),
    (102, 3, 201826, "2015-05-02"),
    (103, 4, 201826, "2018-02-02"),
    (104, 1, 201826, "2005-01-01"),
]
DRUGS = [  # id, person, concept, start, days_supply, quantity
    (200, 1, 1118084, "2010-02-20", 30, 60.0),
    (201, 2, 1118084, "2010-12-25", 30, 60.0),
    (202, 3, 1124300, "2015-04-01", 14, 28.0),
    (203, 1, 1112807, "2009-01-01", 90, 90.0),
]
MEASUREMENTS = [  # id, person, concept, date, value, unit_concept_id, unit_source_value
    (300, 1, 3004410, "2010-03-02", 7.5, 8554, "%"),
    (301, 2, 3004410, "2011-01-10", 6.1, 8554, "%"),
    (302, 3, 3004410, "2015-05-02", 8.9, 8554, "%"),
    (303, 1, 3000963, "2010-03-02", 11.2, 8713, "g/dL"),
    (304, 2, 3000963, "2011-01-10", 13.4, 8713, "g/dL"),
    (305, 1, 3025315, "2010-03-02", 80.0, 9529, "kg"),
    (306, 2, 3025315, "2011-01-10", 65.0, 9529, "kg"),
    (307, 3, 3025315, "2015-05-02", 176.0, 8739, "lb"),
    (308, 1, 3027018, "2010-03-02", None, 0, None),
    (309, 2, 3027018, "2011-01-10", None, 0, None),
]


def build(path: Path) -> None:
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE concept (concept_id INTEGER, concept_name VARCHAR, domain_id VARCHAR, vocabulary_id VARCHAR,"
        " concept_class_id VARCHAR, standard_concept VARCHAR, concept_code VARCHAR)"
    )
    con.executemany("INSERT INTO concept VALUES (?,?,?,?,?,?,?)", CONCEPTS)
    con.execute(
        "CREATE TABLE concept_ancestor (ancestor_concept_id INTEGER, descendant_concept_id INTEGER)"
    )
    con.executemany("INSERT INTO concept_ancestor VALUES (?,?)", ANCESTORS)
    con.execute("CREATE TABLE concept_synonym (concept_id INTEGER, concept_synonym_name VARCHAR)")
    con.executemany("INSERT INTO concept_synonym VALUES (?,?)", SYNONYMS)
    con.execute(
        "CREATE TABLE person (person_id INTEGER, gender_concept_id INTEGER, year_of_birth INTEGER)"
    )
    con.executemany("INSERT INTO person VALUES (?,?,?)", PERSONS)
    con.execute(
        "CREATE TABLE observation_period (observation_period_id INTEGER, person_id INTEGER,"
        " observation_period_start_date DATE, observation_period_end_date DATE)"
    )
    con.executemany("INSERT INTO observation_period VALUES (?,?,?,?)", OBS)
    con.execute(
        "CREATE TABLE visit_occurrence (visit_occurrence_id INTEGER, person_id INTEGER, visit_concept_id INTEGER,"
        " visit_start_date DATE, visit_end_date DATE)"
    )
    con.executemany("INSERT INTO visit_occurrence VALUES (?,?,?,?,?)", VISITS)
    con.execute(
        "CREATE TABLE condition_occurrence (condition_occurrence_id INTEGER, person_id INTEGER,"
        " condition_concept_id INTEGER, condition_start_date DATE)"
    )
    con.executemany("INSERT INTO condition_occurrence VALUES (?,?,?,?)", CONDITIONS)
    con.execute(
        "CREATE TABLE drug_exposure (drug_exposure_id INTEGER, person_id INTEGER, drug_concept_id INTEGER,"
        " drug_exposure_start_date DATE, days_supply INTEGER, quantity DOUBLE)"
    )
    con.executemany("INSERT INTO drug_exposure VALUES (?,?,?,?,?,?)", DRUGS)
    con.execute(
        "CREATE TABLE measurement (measurement_id INTEGER, person_id INTEGER, measurement_concept_id INTEGER,"
        " measurement_date DATE, value_as_number DOUBLE, unit_concept_id INTEGER, unit_source_value VARCHAR)"
    )
    con.executemany("INSERT INTO measurement VALUES (?,?,?,?,?,?,?)", MEASUREMENTS)
    con.close()


def _tables(db: Database) -> tuple[TableInfo, ...]:
    kinds = {
        "INTEGER": "integer",
        "BIGINT": "integer",
        "DOUBLE": "float",
        "VARCHAR": "string",
        "DATE": "date",
    }
    return tuple(
        TableInfo(
            name=t,
            columns=tuple(
                ColumnInfo(name=c, type=kinds.get(ty.upper(), "unknown")) for c, ty in db.columns(t)
            ),
        )
        for t in db.table_names()
    )


def catalog(db: Database | None = None) -> Catalog:
    concept = Dictionary(
        name="concept",
        table="concept",
        code_column="concept_id",
        label_column="concept_name",
        system_column="vocabulary_id",
        source_code_column="concept_code",
        standard_column="standard_concept",
        domain_column="domain_id",
        synonym_table="concept_synonym",
        synonym_code_column="concept_id",
        synonym_label_column="concept_synonym_name",
        ancestor_table="concept_ancestor",
        ancestor_column="ancestor_concept_id",
        descendant_column="descendant_concept_id",
    )
    return Catalog(
        source="tiny",
        adapter="omop",
        dialect="duckdb",
        cdm_version="5.3",
        patients=PatientTable(
            table="person",
            id_column="person_id",
            birth_year_column="year_of_birth",
            sex_column="gender_concept_id",
            sex_values={"8507": "male", "8532": "female"},
            observation_table="observation_period",
            observation_patient_column="person_id",
            observation_start_column="observation_period_start_date",
            observation_end_column="observation_period_end_date",
        ),
        encounters=EncounterTable(
            table="visit_occurrence",
            id_column="visit_occurrence_id",
            patient_column="person_id",
            start_column="visit_start_date",
            end_column="visit_end_date",
            type_column="visit_concept_id",
            type_map={"9201": "inpatient", "9202": "outpatient", "9203": "emergency"},
        ),
        streams=(
            EventStream(
                name="condition",
                kind="condition",
                table="condition_occurrence",
                patient_column="person_id",
                time_column="condition_start_date",
                code_column="condition_concept_id",
                dictionary="concept",
                description="diagnoses (conditions) of patients",
            ),
            EventStream(
                name="drug",
                kind="drug",
                table="drug_exposure",
                patient_column="person_id",
                time_column="drug_exposure_start_date",
                code_column="drug_concept_id",
                dictionary="concept",
                days_supply_column="days_supply",
                quantity_column="quantity",
                description="drug exposures (prescriptions, administrations)",
            ),
            EventStream(
                name="measurement",
                kind="measurement",
                table="measurement",
                patient_column="person_id",
                time_column="measurement_date",
                code_column="measurement_concept_id",
                value_column="value_as_number",
                unit_column="unit_concept_id",
                unit_dictionary="concept",
                dictionary="concept",
                description="laboratory results and vital signs with values and units",
            ),
        ),
        dictionaries=(concept,),
        data_start="2000-01-01",
        data_end="2020-12-31",
        tables=_tables(db) if db is not None else (),
    )


@dataclass
class Tiny:
    url: str
    path: Path
    catalog: Catalog
    db: Database


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Tiny:
    path = tmp_path_factory.mktemp("tiny") / "tiny.duckdb"
    build(path)
    url = f"duckdb:///{path}"
    db = Database.open(url)
    # a catalog lists the tables it may read (the guard refuses a catalog that lists none)
    tables = tuple(
        TableInfo(name=t, columns=tuple(ColumnInfo(name=c) for c, _ in db.columns(t)))
        for t in db.table_names()
    )
    yield Tiny(url, path, catalog().model_copy(update={"tables": tables}), db)
    db.close()
