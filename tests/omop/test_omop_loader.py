"""Loading OMOP CSVs into DuckDB, SQLite and PostgreSQL: counts, quirks, bad input."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from clinbridge.adapters.omop import load_omop_csv
from clinbridge.adapters.omop.loader import detect_csv_version
from clinbridge.db import Database
from clinbridge.errors import LoadError


def _counts(url: str, tables: list[str]) -> dict[str, int]:
    with Database.open(url) as db:
        return {t: int(db.execute(f'SELECT count(*) FROM "{t}"').rows[0][0]) for t in tables}


def test_eunomia_duckdb_row_counts(eunomia_duckdb_url, eunomia_counts):
    assert _counts(eunomia_duckdb_url, list(eunomia_counts)) == eunomia_counts


def test_eunomia_sqlite_row_counts(eunomia_sqlite_url, eunomia_counts):
    assert _counts(eunomia_sqlite_url, list(eunomia_counts)) == eunomia_counts


@pytest.mark.postgres
def test_eunomia_postgres_row_counts(eunomia_pg_url, eunomia_counts):
    assert _counts(eunomia_pg_url, list(eunomia_counts)) == eunomia_counts


def test_float_ids_and_dates_are_typed(eunomia_duckdb_url):
    with Database.open(eunomia_duckdb_url) as db:
        # MEASUREMENT_ID is written "10204.0" in the CSV
        row = db.execute(
            "SELECT measurement_id, measurement_date FROM measurement WHERE measurement_id = 10204"
        ).rows
        assert row and row[0][0] == 10204 and str(row[0][1]) == "1998-10-03"
        types = dict(db.columns("measurement"))
        assert types["measurement_id"].upper() == "BIGINT"
        assert types["value_as_number"].upper() == "DOUBLE"


def test_sqlite_dates_are_iso_text(eunomia_sqlite_url):
    with Database.open(eunomia_sqlite_url) as db:
        lo, hi = db.execute(
            "SELECT min(condition_start_date), max(condition_start_date) FROM condition_occurrence"
        ).rows[0]
        assert len(lo) == 10 and lo < hi and lo[4] == "-"


def test_report_reconciles_and_mentions_quirks(tmp_path, eunomia_csv_dir):
    report = load_omop_csv(
        eunomia_csv_dir, f"duckdb:///{tmp_path / 'e.duckdb'}", only=["person", "observation_period"]
    )
    assert report.reconciles and report.read == 2694 + 5343 == report.loaded
    assert any("observation_period but not in person" in n for n in report.notes)


def test_version_detection_from_files(eunomia_csv_dir, synthea27nj_csv_dir):
    assert detect_csv_version(eunomia_csv_dir) == "5.3"
    assert detect_csv_version(synthea27nj_csv_dir) == "5.4"


def test_refuses_to_load_twice_without_replace(tmp_path, eunomia_csv_dir):
    url = f"duckdb:///{tmp_path / 'twice.duckdb'}"
    load_omop_csv(eunomia_csv_dir, url, only=["person"])
    with pytest.raises(LoadError, match="already has rows"):
        load_omop_csv(eunomia_csv_dir, url, only=["person"])
    report = load_omop_csv(eunomia_csv_dir, url, only=["person"], if_exists="replace")
    assert report.table("person").loaded == 2694
    assert _counts(url, ["person"]) == {"person": 2694}


def _bad_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "PERSON.csv").write_text(
        "PERSON_ID,GENDER_CONCEPT_ID,YEAR_OF_BIRTH,RACE_CONCEPT_ID,ETHNICITY_CONCEPT_ID\n"
        "1,8507,1950,0,0\n"
        "2,8532,nineteen-sixty,0,0\n"  # record 2: year_of_birth not an integer
        "3.0,8532,1961,0,0\n"
        ",8507,1970,0,0\n"  # record 4: person_id missing
        "5,8507,1980.5,0,0\n"  # record 5: fraction
    )
    with gzip.open(folder / "measurement.csv.gz", "wt") as fh:
        fh.write(
            "measurement_id,person_id,measurement_concept_id,measurement_date,measurement_type_concept_id,value_as_number\n"
            "1,1,3000963,2020-01-01,44818702,13.5\n"
            "2,1,3000963,2020-02-30,44818702,12.0\n"  # impossible date
            "3,1,3000963,20200301,44818702,high\n"  # Athena-style date fine, value bad
            "4,3,3000963,20200401,44818702,\n"
        )
    return folder


def test_bad_values_raise_with_file_record_field(tmp_path):
    folder = _bad_folder(tmp_path)
    with pytest.raises(LoadError) as info:
        load_omop_csv(
            folder, f"duckdb:///{tmp_path / 'x.duckdb'}", on_error="raise", cdm_version="5.4"
        )
    err = info.value
    assert err.file.endswith("PERSON.csv") and err.record == 2 and err.field == "year_of_birth"
    assert "not an integer: 'nineteen-sixty'" in str(err) and "PERSON.csv" in str(err)


@pytest.mark.parametrize("backend", ["duckdb", "sqlite"])
def test_bad_values_quarantined_and_reconciled(tmp_path, backend):
    folder = _bad_folder(tmp_path)
    url = f"{backend}:///{tmp_path / ('q.' + backend)}"
    report = load_omop_csv(folder, url, cdm_version="5.4")
    person, meas = report.table("person"), report.table("measurement")
    assert (person.read, person.loaded, person.rejected) == (5, 2, 3)
    assert (meas.read, meas.loaded, meas.rejected) == (4, 2, 2)
    assert report.reconciles
    with Database.open(url) as db:
        rows = db.execute(
            "SELECT table_name, record, field, reason FROM clinbridge_rejected ORDER BY table_name, record"
        ).rows
        assert rows == [
            ("measurement", 2, "measurement_date", "not a date"),
            ("measurement", 3, "value_as_number", "not a number"),
            ("person", 2, "year_of_birth", "not an integer"),
            ("person", 4, "person_id", "required value is empty"),
            ("person", 5, "year_of_birth", "not an integer"),
        ]
        assert db.execute("SELECT person_id FROM person ORDER BY 1").rows == [(1,), (3,)]


@pytest.mark.postgres
def test_bad_values_quarantined_postgres(tmp_path, pg_url):
    report = load_omop_csv(_bad_folder(tmp_path), pg_url, cdm_version="5.4")
    assert report.reconciles and report.rejected == 5
    with Database.open(pg_url) as db:
        assert db.execute("SELECT count(*) FROM clinbridge_rejected").rows == [(5,)]
        assert db.execute("SELECT count(*) FROM measurement").rows == [(2,)]


def test_athena_style_tsv(tmp_path):
    folder = tmp_path / "tsv"
    folder.mkdir()
    (folder / "CONCEPT.csv").write_text(
        "concept_id\tconcept_name\tdomain_id\tvocabulary_id\tconcept_class_id\tstandard_concept\tconcept_code\tvalid_start_date\tvalid_end_date\tinvalid_reason\n"
        '1\tA "quoted" name\tCondition\tSNOMED\tClinical Finding\tS\t123\t19700101\t20991231\t\n'
    )
    url = f"duckdb:///{tmp_path / 't.duckdb'}"
    report = load_omop_csv(folder, url, cdm_version="5.4")
    assert report.loaded == 1
    with Database.open(url) as db:
        name, start = db.execute("SELECT concept_name, valid_start_date FROM concept").rows[0]
        assert name == 'A "quoted" name' and str(start) == "1970-01-01"


def test_not_a_folder(tmp_path):
    with pytest.raises(LoadError, match="not a folder"):
        load_omop_csv(tmp_path / "missing", f"duckdb:///{tmp_path / 'x.duckdb'}")


def test_cdm54_loads(tmp_path, synthea27nj_csv_dir):
    url = f"duckdb:///{tmp_path / 'nj.duckdb'}"
    report = load_omop_csv(synthea27nj_csv_dir, url)
    assert report.cdm_version == "5.4" and report.reconciles, report.to_dict()
    assert report.table("measurement").loaded == 10040
    assert report.table("person").loaded == 28


def test_duckdb_schema(tmp_path, eunomia_csv_dir):
    from clinbridge.adapters import describe
    from clinbridge.vocab import ConceptIndex

    url = f"duckdb:///{tmp_path / 's.duckdb'}?schema=cdm"
    tables = ["person", "observation_period", "visit_occurrence", "concept", "concept_ancestor"]
    load_omop_csv(eunomia_csv_dir, url, only=tables)
    with Database.open(url) as db:
        assert db.execute("SELECT count(*) FROM cdm.person").rows == [(2694,)]
        catalog = describe(db)
        assert catalog.schema_name == "cdm" and catalog.table("person").row_count == 2694
        index = ConceptIndex(db, catalog)
        assert [m.concept_id for m in index.by_name("Gastrointestinal hemorrhage")] == [192671]
    with Database.open(f"duckdb:///{tmp_path / 's.duckdb'}") as db:
        assert "person" not in db.table_names()  # nothing written to main


def test_copy_of_eunomia_is_untouched(tmp_path, eunomia_csv_dir):
    # The loader never writes into the input folder.
    before = sorted(p.name for p in eunomia_csv_dir.iterdir())
    copy = tmp_path / "copy"
    shutil.copytree(eunomia_csv_dir, copy)
    load_omop_csv(copy, f"duckdb:///{tmp_path / 'c.duckdb'}", only=["death", "note"])
    assert sorted(p.name for p in copy.iterdir()) == before
