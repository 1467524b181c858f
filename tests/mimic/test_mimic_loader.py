"""Loading native MIMIC CSVs: real MIMIC-III demo files, MIMIC-IV layout, and broken inputs."""

from __future__ import annotations

import csv
import gzip
import shutil
from pathlib import Path

import pytest

import clinbridge.api as cb
from clinbridge.adapters import describe, detect_adapter
from clinbridge.adapters.mimic import PROVENANCE_TABLE, load_mimic
from clinbridge.db import Database
from clinbridge.errors import LoadError

EXPECTED = {
    "patients": 6,
    "admissions": 24,
    "icustays": 24,
    "transfers": 85,
    "diagnoses_icd": 374,
    "procedures_icd": 80,
    "prescriptions": 400,
    "microbiologyevents": 443,
    "outputevents": 300,
    "inputevents_mv": 300,
    "noteevents": 0,
    "d_icd_diagnoses": 130,
    "d_icd_procedures": 36,
    "d_items": 43,
    "d_labitems": 50,
}


def _rows(path: Path) -> list[dict[str, str]]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="") as f:  # type: ignore[operator]
        return list(csv.DictReader(f))


def _write(path: Path, rows: list[dict[str, str]], header: list[str] | None = None) -> None:
    header = header or list(rows[0])
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow([r.get(h.lower(), r.get(h, "")) for h in header])


def test_mimic3_demo_counts_and_version(mimic3_duckdb: str) -> None:
    with Database.open(mimic3_duckdb) as db:
        counts = {t: int(db.execute(f"SELECT count(*) FROM {t}").rows[0][0]) for t in EXPECTED}
        assert counts == EXPECTED
        prov = dict(db.execute(f"SELECT key, value FROM {PROVENANCE_TABLE}").rows)
        assert prov["mimic_version"] == "MIMIC-III v1.4"
        assert detect_adapter(db).name == "mimic"
        catalog = describe(db)
    assert catalog.adapter == "mimic" and catalog.cdm_version == "MIMIC-III v1.4"
    names = {s.name: s for s in catalog.streams}
    assert {"prescriptions", "diagnoses_icd", "procedures_icd", "microbiologyevents"} <= set(names)
    assert {"icustays", "transfers", "outputevents", "inputevents_mv", "noteevents"} <= set(names)
    assert names["icustays"].kind == "visit_detail" and names["noteevents"].kind == "note"
    assert names["prescriptions"].route_column == "route"
    assert names["prescriptions"].value_text_column == "dose_val_rx"
    assert names["diagnoses_icd"].dictionary == "d_icd_diagnoses"
    assert catalog.patients and catalog.patients.birth_date_column == "dob"
    assert catalog.encounters and set(catalog.encounters.type_map.values()) == {
        "emergency",
        "inpatient",
    }


def test_mimic3_demo_answers(mimic3_duckdb: str) -> None:
    with cb.connect(mimic3_duckdb) as conn:
        assert conn.ask("How many patients are there?").value == 6
        assert conn.ask("How many female patients are there?").value == 3
        a = conn.ask("How many patients had an emergency admission?")
        assert a.decision == "accept" and a.value == 6
        assert a.to_dict()["provenance"]["cdm_version"] == "MIMIC-III v1.4"


def test_upper_case_headers_plain_csv(tmp_path: Path, mimic3_dir: Path) -> None:
    folder = tmp_path / "upper"
    folder.mkdir()
    for name in ("PATIENTS", "ADMISSIONS"):
        rows = _rows(mimic3_dir / f"{name}.csv.gz")
        _write(folder / f"{name}.csv", rows, [h.upper() for h in rows[0]])
    report = load_mimic(folder, f"sqlite:///{tmp_path / 'u.sqlite'}")
    assert report.version == "MIMIC-III v1.4"
    assert (report.read, report.loaded, report.rejected) == (30, 30, 0)


def _mimic4(folder: Path) -> None:
    hosp = folder / "hosp"
    hosp.mkdir(parents=True)
    _write(
        hosp / "patients.csv",
        [
            {
                "subject_id": "10000032",
                "gender": "F",
                "anchor_age": "52",
                "anchor_year": "2180",
                "anchor_year_group": "2014 - 2016",
                "dod": "2180-09-09",
            },
            {
                "subject_id": "10000084",
                "gender": "M",
                "anchor_age": "72",
                "anchor_year": "2160",
                "anchor_year_group": "2017 - 2019",
                "dod": "",
            },
        ],
    )
    _write(
        hosp / "admissions.csv",
        [
            {
                "subject_id": "10000032",
                "hadm_id": "22595853",
                "admittime": "2180-05-06 22:23:00",
                "dischtime": "2180-05-07 17:15:00",
                "admission_type": "URGENT",
                "race": "WHITE",
            },
            {
                "subject_id": "10000084",
                "hadm_id": "23052089",
                "admittime": "2160-11-21 01:56:00",
                "dischtime": "2160-11-25 14:52:00",
                "admission_type": "EW EMER.",
                "race": "WHITE",
            },
        ],
    )
    _write(
        hosp / "diagnoses_icd.csv",
        [
            {
                "subject_id": "10000032",
                "hadm_id": "22595853",
                "seq_num": "1",
                "icd_code": "5723",
                "icd_version": "9",
            },
            {
                "subject_id": "10000084",
                "hadm_id": "23052089",
                "seq_num": "1",
                "icd_code": "G3183",
                "icd_version": "10",
            },
        ],
    )
    _write(
        hosp / "d_icd_diagnoses.csv",
        [
            {"icd_code": "5723", "icd_version": "9", "long_title": "Portal hypertension"},
            {"icd_code": "G3183", "icd_version": "10", "long_title": "Dementia with Lewy bodies"},
        ],
    )
    with gzip.open(hosp / "prescriptions.csv.gz", "wt", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "subject_id",
                "hadm_id",
                "starttime",
                "stoptime",
                "drug",
                "dose_val_rx",
                "dose_unit_rx",
                "route",
            ]
        )
        w.writerow(
            [
                "10000032",
                "22595853",
                "2180-05-07 00:00:00",
                "2180-05-07 22:00:00",
                "Furosemide",
                "40",
                "mg",
                "PO",
            ]
        )


def test_mimic4_native_layout(tmp_path: Path) -> None:
    _mimic4(tmp_path / "mimic-iv")
    url = f"duckdb:///{tmp_path / 'm4.duckdb'}"
    report = load_mimic(tmp_path / "mimic-iv", url, on_error="raise")
    assert report.version == "MIMIC-IV v2.x" and report.reconciles and report.read == 9
    assert any("birth_year" in n for n in report.notes)
    with Database.open(url) as db:
        assert sorted(db.execute("SELECT birth_year FROM patients").rows) == [(2088,), (2128,)]
        times = db.execute("SELECT charttime FROM diagnoses_icd ORDER BY hadm_id").rows
        assert [str(t[0]) for t in times] == ["2180-05-06 22:23:00", "2160-11-21 01:56:00"]
        catalog = describe(db)
    assert catalog.cdm_version == "MIMIC-IV v2.x"
    assert catalog.patients and catalog.patients.birth_year_column == "birth_year"
    with cb.connect(url) as conn:
        assert conn.ask("How many patients are there?").value == 2


# -- broken inputs ----------------------------------------------------------------------------
def _broken(tmp_path: Path, mimic3_dir: Path, edit: str) -> Path:
    folder = tmp_path / edit
    folder.mkdir()
    shutil.copy(mimic3_dir / "PATIENTS.csv.gz", folder)
    rows = _rows(mimic3_dir / "ADMISSIONS.csv.gz")
    header = list(rows[0])
    if edit == "missing":
        header.remove("admittime")
    elif edit == "text":
        rows[3]["hadm_id"] = "one hundred"
    elif edit == "timestamp":
        rows[5]["dischtime"] = "2150-13-45 99:00:00"
    _write(folder / "ADMISSIONS.csv", rows, header)
    if edit == "unreadable":  # a record with too many fields and one that is not UTF-8
        lines = (folder / "ADMISSIONS.csv").read_bytes().splitlines(keepends=True)
        lines.insert(3, b"1,2,3," * len(header) + b"\n")
        lines.insert(8, b"9,\xff\xfe," + b"," * (len(header) - 3) + b"\n")
        (folder / "ADMISSIONS.csv").write_bytes(b"".join(lines))
    return folder


def test_unreadable_records_set_aside_and_the_rest_loads(tmp_path: Path, mimic3_dir: Path) -> None:
    """Like load omop: bad records are quarantined with their record number, the others load."""
    folder = _broken(tmp_path, mimic3_dir, "unreadable")
    url = f"duckdb:///{tmp_path / 'u.duckdb'}"
    report = load_mimic(folder, url)
    adm = report.table("admissions")
    assert (adm.read, adm.loaded, adm.rejected) == (26, 24, 2) and report.reconciles
    with Database.open(url) as db:
        rows = db.execute("SELECT record, reason FROM clinbridge_rejected ORDER BY record").rows
        assert db.execute("SELECT COUNT(*) FROM admissions").rows == [(24,)]
    assert [r for r, _ in rows] == [3, 8]
    with pytest.raises(LoadError, match="record 3"):
        load_mimic(folder, f"duckdb:///{tmp_path / 'v.duckdb'}", on_error="raise")


def test_missing_column_names_file_and_column(tmp_path: Path, mimic3_dir: Path) -> None:
    folder = _broken(tmp_path, mimic3_dir, "missing")
    with pytest.raises(LoadError) as err:
        load_mimic(folder, f"sqlite:///{tmp_path / 'x.sqlite'}")
    text = str(err.value)
    assert "ADMISSIONS.csv" in text and "admittime" in text and "field admittime" in text


def test_text_in_numeric_column_quarantined(tmp_path: Path, mimic3_dir: Path) -> None:
    folder = _broken(tmp_path, mimic3_dir, "text")
    url = f"sqlite:///{tmp_path / 'q.sqlite'}"
    report = load_mimic(folder, url)
    adm = report.table("admissions")
    assert (adm.read, adm.loaded, adm.rejected) == (24, 23, 1) and report.reconciles
    with Database.open(url) as db:
        rows = db.execute("SELECT file, record, field, reason, raw FROM clinbridge_rejected").rows
    assert len(rows) == 1
    file, record, field, reason, raw = rows[0]
    assert (file, record, field, reason) == ("ADMISSIONS.csv", 4, "hadm_id", "not an integer")
    assert "one hundred" in raw


def test_text_in_numeric_column_raises(tmp_path: Path, mimic3_dir: Path) -> None:
    folder = _broken(tmp_path, mimic3_dir, "text")
    with pytest.raises(LoadError) as err:
        load_mimic(folder, f"sqlite:///{tmp_path / 'r.sqlite'}", on_error="raise")
    text = str(err.value)
    assert "ADMISSIONS.csv" in text and "record 4" in text and "field hadm_id" in text
    assert "one hundred" in text


def test_bad_timestamp_quarantined(tmp_path: Path, mimic3_dir: Path) -> None:
    folder = _broken(tmp_path, mimic3_dir, "timestamp")
    url = f"duckdb:///{tmp_path / 't.duckdb'}"
    report = load_mimic(folder, url)
    assert report.table("admissions").rejected == 1 and report.reconciles
    with Database.open(url) as db:
        rows = db.execute("SELECT record, field, reason FROM clinbridge_rejected").rows
    assert rows == [(6, "dischtime", "not a date-time")]


def test_not_a_mimic_folder(tmp_path: Path) -> None:
    (tmp_path / "person.csv").write_text("person_id\n1\n")
    with pytest.raises(LoadError, match="PATIENTS"):
        load_mimic(tmp_path, f"sqlite:///{tmp_path / 'n.sqlite'}")


def test_cli_load_mimic(tmp_path: Path, mimic3_dir: Path) -> None:
    from click.testing import CliRunner

    from clinbridge.cli import main

    r = CliRunner().invoke(
        main, ["load", "mimic", str(mimic3_dir), "--db", f"sqlite:///{tmp_path / 'c.sqlite'}"]
    )
    assert r.exit_code == 0, r.output
    assert "MIMIC-III v1.4: read 2,295 = loaded 2,295 + quarantined 0 (reconciled)" in r.output


@pytest.mark.postgres
def test_mimic3_postgres(pg_url: str, mimic3_dir: Path) -> None:
    report = load_mimic(mimic3_dir, pg_url, on_error="raise")
    assert report.reconciles and report.loaded == sum(EXPECTED.values())
    with cb.connect(pg_url) as conn:
        assert conn.catalog.cdm_version == "MIMIC-III v1.4"
        assert conn.ask("How many patients are there?").value == 6
