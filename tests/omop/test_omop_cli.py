"""The OMOP CLI commands, run through click against real databases."""

from __future__ import annotations

import json

from click.testing import CliRunner

from clinbridge.catalog import Catalog
from clinbridge.cli import main


def run(*args: str):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result


def test_catalog_json(eunomia_duckdb_url):
    r = run("catalog", "--db", eunomia_duckdb_url, "--json", "--source", "eunomia")
    assert r.exit_code == 0, r.output
    cat = Catalog.from_json(r.output)
    assert (
        cat.source == "eunomia"
        and cat.cdm_version == "5.3"
        and cat.table("person").row_count == 2694
    )


def test_catalog_text(eunomia_duckdb_url):
    r = run("catalog", "--db", eunomia_duckdb_url)
    assert (
        r.exit_code == 0
        and "stream measurement [measurement]" in r.output
        and "CDM 5.3" in r.output
    )


def test_vocab_commands(eunomia_duckdb_url):
    r = run("vocab", "lookup", "Gastrointestinal hemorrhage", "--db", eunomia_duckdb_url, "--json")
    assert r.exit_code == 0 and json.loads(r.output)[0]["concept_id"] == 192671
    r = run("vocab", "lookup", "gastro intestinal haemorrhage", "--db", eunomia_duckdb_url)
    assert r.exit_code == 0 and "192671" in r.output and "[fuzzy" in r.output
    r = run("vocab", "descendants", "1125315", "--db", eunomia_duckdb_url)
    assert r.exit_code == 0 and "descendant via 1125315" in r.output
    r = run(
        "vocab", "map", "K92.2", "--vocabulary", "ICD10CM", "--db", eunomia_duckdb_url, "--json"
    )
    assert [m["concept_id"] for m in json.loads(r.output)] == [192671]
    r = run("vocab", "map", "NOPE", "--db", eunomia_duckdb_url)
    assert r.exit_code != 0 and "no concept with code 'NOPE'" in r.output


def test_load_and_synth(tmp_path, eunomia_csv_dir):
    url = f"duckdb:///{tmp_path / 'c.duckdb'}"
    r = run("load", "omop", "--csv", str(eunomia_csv_dir), "--db", url, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["read"] == data["loaded"] + data["rejected"] and data["cdm_version"] == "5.3"
    r = run("load", "omop", "--csv", str(eunomia_csv_dir), "--db", url)
    assert r.exit_code != 0 and "already has rows" in r.output
    r = run("load", "vocab", str(eunomia_csv_dir), "--db", f"sqlite:///{tmp_path / 'v.db'}")
    assert r.exit_code == 0 and "reconciled" in r.output
    r = run(
        "synth",
        "omop",
        "--patients",
        "50",
        "--seed",
        "4",
        "--db",
        f"duckdb:///{tmp_path / 's.duckdb'}",
    )
    assert r.exit_code == 0 and "rows for 50 patients (seed 4)" in r.output


def test_load_bad_value_raise(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "person.csv").write_text(
        "person_id,gender_concept_id,year_of_birth,race_concept_id,ethnicity_concept_id\nx,1,2,3,4\n"
    )
    r = run(
        "load",
        "omop",
        "--csv",
        str(folder),
        "--db",
        f"duckdb:///{tmp_path / 'b.duckdb'}",
        "--on-error",
        "raise",
    )
    assert (
        r.exit_code != 0
        and "person.csv" in r.output
        and "record 1" in r.output
        and "field person_id" in r.output
    )
