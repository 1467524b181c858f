"""Stop-gap until the OMOP adapter is on main: load Eunomia CSVs into DuckDB and describe them.

Used only when ``clinbridge.adapters.omop`` cannot load/catalog a database itself.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from clinbridge.catalog import (
    Catalog,
    Dictionary,
    EncounterTable,
    EventStream,
    PatientTable,
)

TABLES = (
    "person",
    "observation_period",
    "visit_occurrence",
    "condition_occurrence",
    "drug_exposure",
    "procedure_occurrence",
    "measurement",
    "observation",
    "death",
    "concept",
    "concept_ancestor",
    "concept_synonym",
    "concept_relationship",
)


def load_csvs(csv_dir: Path, target: Path) -> None:
    con = duckdb.connect(str(target))
    for name in TABLES:
        files = list(csv_dir.glob(f"{name.upper()}.csv*"))
        if not files:
            continue
        con.execute(
            f"CREATE TABLE {name} AS SELECT * FROM read_csv_auto('{files[0]}', header=true)"
        )
        for col, typ in con.execute(f"DESCRIBE {name}").fetchall()[:0]:
            del col, typ
        cols = [r[0] for r in con.execute(f"DESCRIBE {name}").fetchall()]
        for c in cols:
            if c.lower() != c:
                con.execute(f'ALTER TABLE {name} RENAME COLUMN "{c}" TO {c.lower()}')
        for c in cols:
            lc = c.lower()
            if lc.endswith("_id") and lc not in {
                "vocabulary_id",
                "domain_id",
                "concept_class_id",
                "relationship_id",
            }:
                con.execute(
                    f"ALTER TABLE {name} ALTER {lc} TYPE BIGINT USING TRY_CAST({lc} AS DOUBLE)::BIGINT"
                )
        if name == "measurement":
            con.execute(
                "ALTER TABLE measurement ALTER value_as_number TYPE DOUBLE USING TRY_CAST(value_as_number AS DOUBLE)"
            )
    con.close()


def catalog() -> Catalog:
    d = Dictionary(
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
        relationship_table="concept_relationship",
    )
    return Catalog(
        source="eunomia",
        adapter="omop",
        dialect="duckdb",
        cdm_version="5.3",
        patients=PatientTable(
            table="person",
            id_column="person_id",
            birth_date_column="birth_datetime",
            birth_year_column="year_of_birth",
            sex_column="gender_concept_id",
            sex_values={"8507": "male", "8532": "female"},
            death_table="death",
            death_patient_column="person_id",
            death_date_column="death_date",
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
            type_map={
                "9201": "inpatient",
                "9203": "emergency",
                "9202": "outpatient",
                "262": "emergency",
            },
        ),
        streams=(
            EventStream(
                name="condition",
                kind="condition",
                table="condition_occurrence",
                patient_column="person_id",
                time_column="condition_start_date",
                code_column="condition_concept_id",
                encounter_column="visit_occurrence_id",
                dictionary="concept",
            ),
            EventStream(
                name="drug",
                kind="drug",
                table="drug_exposure",
                patient_column="person_id",
                time_column="drug_exposure_start_date",
                code_column="drug_concept_id",
                encounter_column="visit_occurrence_id",
                days_supply_column="days_supply",
                quantity_column="quantity",
                dictionary="concept",
            ),
            EventStream(
                name="procedure",
                kind="procedure",
                table="procedure_occurrence",
                patient_column="person_id",
                time_column="procedure_date",
                code_column="procedure_concept_id",
                encounter_column="visit_occurrence_id",
                dictionary="concept",
            ),
            EventStream(
                name="measurement",
                kind="measurement",
                table="measurement",
                patient_column="person_id",
                time_column="measurement_date",
                code_column="measurement_concept_id",
                encounter_column="visit_occurrence_id",
                value_column="value_as_number",
                unit_column="unit_concept_id",
                dictionary="concept",
            ),
            EventStream(
                name="observation",
                kind="observation",
                table="observation",
                patient_column="person_id",
                time_column="observation_date",
                code_column="observation_concept_id",
                encounter_column="visit_occurrence_id",
                value_column="value_as_number",
                dictionary="concept",
            ),
        ),
        dictionaries=(d,),
    )
