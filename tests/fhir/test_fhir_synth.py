"""The synthetic FHIR generator and the CLI commands around it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fhir_testlib import BROKEN, BUNDLES, make_url

from clinbridge.adapters.fhir import ENCOUNTER_CLASS_MAP, FhirLoader, load_fhir
from clinbridge.cli import main
from clinbridge.db import Database
from clinbridge.synthetic.fhir import generate_fhir, patient_resources


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_generator_is_deterministic(tmp_path: Path) -> None:
    a = generate_fhir(tmp_path / "a", patients=15, seed=7)
    b = generate_fhir(tmp_path / "b", patients=15, seed=7)
    generate_fhir(tmp_path / "c", patients=15, seed=8)
    assert a == b and _digest(tmp_path / "a") == _digest(tmp_path / "b")
    assert _digest(tmp_path / "a") != _digest(tmp_path / "c")
    # a patient does not depend on how many are generated
    assert patient_resources(7, 3) == patient_resources(7, 3)


def test_generated_data_loads_cleanly_in_strict_mode(tmp_path: Path) -> None:
    counts = generate_fhir(tmp_path / "nd", patients=40, seed=3)
    db = Database.open("duckdb:///:memory:", read_only=False)
    report = FhirLoader(db, validate=True).load([tmp_path / "nd"])
    assert report.quarantined == 0 and report.reconciled
    assert {t: c.loaded for t, c in report.resource_types.items()} == counts
    q = lambda sql: db.execute(sql, max_rows=None).rows  # noqa: E731
    classes = {r[0] for r in q("SELECT DISTINCT class_code FROM fhir_encounter")}
    assert classes == {"AMB", "EMER", "IMP", "ACUTE", "VR", "HH", "OBSENC"}
    assert {ENCOUNTER_CLASS_MAP[c] for c in classes} == {
        "outpatient",
        "emergency",
        "inpatient",
        "other",
    }
    # BP components, UCUM units, LOINC, SNOMED, RxNorm, CVX, notes, time zones
    assert (
        q("SELECT COUNT(*) FROM fhir_measurement WHERE code = '8480-6' AND unit_code = 'mm[Hg]'")[
            0
        ][0]
        > 0
    )
    systems = {r[0] for r in q("SELECT DISTINCT system FROM fhir_code")}
    assert {
        "http://loinc.org",
        "http://snomed.info/sct",
        "http://www.nlm.nih.gov/research/umls/rxnorm",
        "http://hl7.org/fhir/sid/cvx",
    } <= systems
    assert (
        q("SELECT COUNT(*) FROM fhir_note WHERE text LIKE '%Chief Complaint%'")[0][0]
        == counts["DocumentReference"]
    )
    assert q("SELECT COUNT(*) FROM fhir_observation_value WHERE code = '72166-2'")[0][0] > 0
    offsets = {r[0][19:] for r in q("SELECT start_time_text FROM fhir_encounter")}
    assert len(offsets) > 2
    assert (
        q("SELECT COUNT(*) FROM fhir_drug WHERE source_type = 'MedicationAdministration'")[0][0] > 0
    )
    db.close()


def test_bundle_and_ndjson_formats_hold_the_same_data(tmp_path: Path) -> None:
    generate_fhir(tmp_path / "nd", patients=6, seed=5)
    generate_fhir(tmp_path / "bu", patients=6, seed=5, fmt="bundle", gzip_output=True)
    first = json.loads(next((tmp_path / "nd").glob("Observation*")).read_text().splitlines()[0])
    assert first["subject"]["reference"].startswith("Patient/")
    dumps = {}
    for name in ("nd", "bu"):
        db = Database.open("duckdb:///:memory:", read_only=False)
        rep = FhirLoader(db, stream_threshold=0 if name == "bu" else 1 << 30).load(
            [tmp_path / name]
        )
        assert rep.quarantined == 0
        dumps[name] = db.execute(
            "SELECT id, patient_id, encounter_id, code, value_num, effective_time_text FROM "
            "fhir_observation ORDER BY id, component",
            max_rows=None,
        ).rows
        db.close()
    assert dumps["nd"] == dumps["bu"]


def test_cli_synth_load_export(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "syn"
    r = runner.invoke(main, ["synth", "fhir", "--patients", "5", "--out", str(out), "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert "resources for 5 patients" in r.output
    url = f"duckdb:///{tmp_path / 'c.duckdb'}"
    rj = tmp_path / "report.json"
    r = runner.invoke(
        main, ["load", "fhir", str(out), str(BUNDLES), "--db", url, "--report-json", str(rj), "-q"]
    )
    assert r.exit_code == 0, r.output
    assert "reconciled: read = loaded + merged + quarantined" in r.output
    report = json.loads(rj.read_text())
    assert report["read"] == report["loaded"] and report["quarantined"] == 0
    r = runner.invoke(main, ["load", "fhir", str(BROKEN / "wrong_types.ndjson"), "--db", url, "-q"])
    assert r.exit_code == 0 and "line 3 field valueQuantity.value" in r.output
    r = runner.invoke(
        main, ["load", "fhir", str(BROKEN / "wrong_types.ndjson"), "--db", url, "--fail-fast"]
    )
    assert (
        r.exit_code != 0 and "wrong_types.ndjson" in r.output and "valueQuantity.value" in r.output
    )
    target = f"sqlite:///{tmp_path / 'omop.db'}"
    r = runner.invoke(main, ["export", "omop", "--from", url, "--db", target, "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["tables"]["person"] == 5 + 5 + 1  # generated + Synthea bundles + p1


@pytest.mark.slow
def test_many_patients_stream_gzip_into_sqlite(tmp_path: Path) -> None:
    generate_fhir(tmp_path / "k", patients=150, seed=11, gzip_output=True)
    gen = make_url("sqlite", tmp_path)
    report = load_fhir([tmp_path / "k"], next(gen), batch_size=5000)
    assert (
        report.reconciled
        and report.quarantined == 0
        and report.resource_types["Patient"].loaded == 150
    )
