"""Loading the Synthea sample (bundles + bulk NDJSON) on DuckDB, SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fhir_testlib import BACKENDS, BUNDLES, NDJSON, make_url

from clinbridge.adapters import get_adapter
from clinbridge.adapters.fhir import FhirAdapter, LoadReport, load_fhir
from clinbridge.catalog import Catalog
from clinbridge.db import Database


def _source_resources() -> list[dict[str, Any]]:
    """Every resource of the sample, read independently with the standard library."""
    out: list[dict[str, Any]] = []
    for f in sorted(BUNDLES.glob("*.json.gz")):
        out.extend(e["resource"] for e in json.loads(gzip.decompress(f.read_bytes()))["entry"])
    for f in sorted(NDJSON.glob("*.ndjson.gz")):
        if f.name.startswith("log."):
            continue
        out.extend(
            json.loads(line)
            for line in gzip.decompress(f.read_bytes()).splitlines()
            if line.strip()
        )
    return out


SOURCE = _source_resources()
BY_ID = {(r["resourceType"], r["id"]): r for r in SOURCE}


@pytest.fixture(scope="module", params=BACKENDS)
def loaded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The sample loaded twice (the second load must change nothing); counts after the first."""
    gen = make_url(request.param, tmp_path_factory.mktemp(request.param))
    url = next(gen)
    report = load_fhir([BUNDLES, NDJSON], url)
    with Database.open(url) as db:
        tables = [t for t in db.table_names() if t.startswith("fhir_") and t != "fhir_load"]
        before = {t: q(db, f'SELECT COUNT(*) FROM "{t}"')[0][0] for t in tables}
    again = load_fhir([BUNDLES, NDJSON], url)
    db = Database.open(url)
    yield url, db, report, again, before
    db.close()
    next(gen, None)


def q(db: Database, sql: str) -> list[tuple[Any, ...]]:
    return db.execute(sql, max_rows=None).rows


def test_counts_per_resource_type_reconcile(loaded: Any) -> None:
    _, db, report, *_ = loaded
    expected = Counter(r["resourceType"] for r in SOURCE)
    assert {t: c.read for t, c in report.resource_types.items()} == dict(expected)
    assert {t: c.loaded for t, c in report.resource_types.items()} == dict(expected)
    assert report.quarantined == 0 and report.reconciled
    assert [s["file"].endswith("log.ndjson.gz") for s in report.skipped_files] == [True]
    stored = dict(q(db, "SELECT resource_type, COUNT(*) FROM fhir_resource GROUP BY resource_type"))
    assert stored == dict(expected)
    assert q(db, "SELECT COUNT(*) FROM fhir_patient")[0][0] == expected["Patient"] == 18
    assert q(db, "SELECT COUNT(*) FROM fhir_encounter")[0][0] == expected["Encounter"]
    assert (
        q(db, "SELECT COUNT(*) FROM fhir_observation WHERE component = 0")[0][0]
        == expected["Observation"]
    )
    assert q(db, "SELECT COUNT(DISTINCT id) FROM fhir_note")[0][0] == expected["DocumentReference"]


def test_blood_pressure_components(loaded: Any) -> None:
    _, db, *_ = loaded
    panels = [r for r in SOURCE if r["resourceType"] == "Observation" and r.get("component")]
    assert panels
    rows = q(
        db,
        "SELECT id, component, code_system, code, value_num, unit_code, panel_code FROM fhir_observation "
        "WHERE row_kind = 'component'",
    )
    got = {(r[0], r[1]): r for r in rows}
    for p in panels:
        for i, comp in enumerate(p["component"], start=1):
            row = got[(p["id"], i)]
            coding = comp["code"]["coding"][0]
            assert (row[2], row[3]) == (coding["system"], coding["code"])
            assert row[4] == pytest.approx(comp["valueQuantity"]["value"])
            assert row[5] == comp["valueQuantity"]["code"] == "mm[Hg]"
            assert row[6] == p["code"]["coding"][0]["code"]
    systolic = q(db, "SELECT COUNT(*) FROM fhir_measurement WHERE code = '8480-6'")[0][0]
    assert systolic == len(panels)
    assert q(db, "SELECT COUNT(*) FROM fhir_measurement WHERE row_kind = 'panel'")[0][0] == 0


def test_notes_are_decoded_with_their_timestamp(loaded: Any) -> None:
    _, db, *_ = loaded
    docs = [r for r in SOURCE if r["resourceType"] == "DocumentReference"][:25]
    rows = {
        r[0]: r for r in q(db, "SELECT id, text, note_time_text, encounter_id, code FROM fhir_note")
    }
    for d in docs:
        text = base64.b64decode(d["content"][0]["attachment"]["data"]).decode("utf-8")
        row = rows[d["id"]]
        assert row[1] == text and "# Chief Complaint" in text
        assert row[2] == d["date"]
        assert row[3] == d["context"]["encounter"][0]["reference"].split("/")[1]
        assert row[4] == d["type"]["coding"][0]["code"]


def test_references_resolve_in_both_forms(loaded: Any) -> None:
    _, db, *_ = loaded
    for table in (
        "fhir_encounter",
        "fhir_observation",
        "fhir_condition",
        "fhir_medication_request",
        "fhir_procedure",
        "fhir_immunization",
        "fhir_note",
        "fhir_diagnostic_report",
        "fhir_care_plan",
    ):
        assert (
            q(
                db,
                f"SELECT COUNT(*) FROM {table} t WHERE NOT EXISTS "
                "(SELECT 1 FROM fhir_patient p WHERE p.id = t.patient_id)",
            )[0][0]
            == 0
        ), table
        if table != "fhir_encounter":
            assert (
                q(
                    db,
                    f"SELECT COUNT(*) FROM {table} t WHERE t.encounter_id IS NOT NULL AND NOT EXISTS "
                    "(SELECT 1 FROM fhir_encounter e WHERE e.id = t.encounter_id)",
                )[0][0]
                == 0
            ), table
    # urn:uuid: form (bundles) and Type/id form (NDJSON)
    bundle_obs = next(r for r in SOURCE if r["resourceType"] == "Observation")
    assert bundle_obs["encounter"]["reference"].startswith("urn:uuid:")
    ndjson_cond = next(
        r
        for r in SOURCE
        if r["resourceType"] == "Condition" and r["subject"]["reference"].startswith("Patient/")
    )
    got = dict(q(db, "SELECT id, encounter_id FROM fhir_observation WHERE component = 0"))
    assert got[bundle_obs["id"]] == bundle_obs["encounter"]["reference"][9:]
    got = dict(q(db, "SELECT id, patient_id FROM fhir_condition"))
    assert got[ndjson_cond["id"]] == ndjson_cond["subject"]["reference"][8:]
    assert (
        q(
            db,
            "SELECT COUNT(*) FROM fhir_diagnostic_report_result r WHERE NOT EXISTS "
            "(SELECT 1 FROM fhir_observation o WHERE o.id = r.observation_id)",
        )[0][0]
        == 0
    )


def test_time_zone_offsets_are_kept(loaded: Any) -> None:
    _, db, *_ = loaded
    rows = {
        r[0]: r
        for r in q(db, "SELECT id, start_time, start_time_text, end_time_text FROM fhir_encounter")
    }
    offsets = set()
    for r in SOURCE:
        if r["resourceType"] != "Encounter":
            continue
        row = rows[r["id"]]
        assert row[2] == r["period"]["start"] and row[3] == r["period"].get("end")
        assert str(row[1])[:19] == r["period"]["start"][:19].replace("T", " ")
        offsets.add(row[2][19:])
    assert {"-04:00", "-05:00", "+00:00"} <= offsets
    death = dict(
        q(
            db,
            "SELECT id, deceased_time_text FROM fhir_patient WHERE deceased_time_text IS NOT NULL",
        )
    )
    assert death["129c6ac7-8d06-89de-ad63-0204a93e76c3"] == "1989-05-09T20:35:22-04:00"


def test_codes_keep_their_system_and_clean_displays(loaded: Any) -> None:
    _, db, *_ = loaded
    rows = q(db, "SELECT system, code, display FROM fhir_code")
    assert not [r for r in rows if r[2] and "\u200b" in r[2]]
    codes = {(r[0], r[1]): r[2] for r in rows}
    assert (
        codes[("http://loinc.org", "33914-3")] == "Glomerular filtration rate/1.73 sq M.predicted"
    )
    assert ("http://snomed.info/sct", "44054006") in codes or (
        "http://snomed.info/sct",
        "59621000",
    ) in codes
    assert len(rows) == len(codes)  # one row per (system, code)
    systems = {r[0] for r in q(db, "SELECT DISTINCT code_system FROM fhir_condition")}
    assert systems == {"http://snomed.info/sct"}


def test_unflattened_resources_are_kept_whole(loaded: Any) -> None:
    _, db, *_ = loaded
    rows = q(
        db,
        "SELECT resource_type, id, flattened, json FROM fhir_resource WHERE resource_type IN "
        "('Claim', 'ExplanationOfBenefit', 'Device', 'Goal')",
    )
    assert {r[0] for r in rows} == {"Claim", "ExplanationOfBenefit", "Device", "Goal"}
    for rtype, rid, flattened, text in rows:
        assert not flattened
        assert json.loads(text) == BY_ID[(rtype, rid)]


def test_catalog_describes_the_tables(loaded: Any) -> None:
    _url, db, *_ = loaded
    assert FhirAdapter.detect(db)
    cat = get_adapter("fhir").catalog(db)
    assert Catalog.from_json(cat.to_json()) == cat
    assert cat.patients and cat.patients.external_id_column == "id"
    assert cat.encounters and cat.encounters.type_map["EMER"] == "emergency"
    assert (
        cat.encounters.type_map["AMB"] == "outpatient"
        and cat.encounters.type_map["IMP"] == "inpatient"
    )
    names = {t.lower() for t in db.table_names()}
    for s in cat.streams:
        assert s.table in names
        cols = {c for c, _ in db.columns(s.table)}
        for col in (
            s.patient_column,
            s.time_column,
            s.code_column,
            s.system_column,
            s.value_column,
            s.unit_column,
            s.text_column,
            s.encounter_column,
        ):
            assert col is None or col in cols, (s.name, col)
    assert {s.kind for s in cat.streams} >= {
        "measurement",
        "observation",
        "condition",
        "drug",
        "procedure",
        "note",
    }
    assert cat.dictionary("fhir_code").system_column == "system"
    assert cat.data_start and cat.data_end and cat.data_start < cat.data_end


def test_reload_is_idempotent(loaded: Any) -> None:
    _, db, _, again, before = loaded
    assert isinstance(again, LoadReport) and again.loaded == len(SOURCE) and again.quarantined == 0
    after = {t: q(db, f'SELECT COUNT(*) FROM "{t}"')[0][0] for t in before}
    assert after == before
    assert q(db, "SELECT COUNT(*) FROM fhir_load")[0][0] == 2
    dup = q(
        db,
        "SELECT COUNT(*) FROM (SELECT resource_type, id FROM fhir_resource GROUP BY resource_type, id "
        "HAVING COUNT(*) > 1) x",
    )[0][0]
    assert dup == 0


def test_report_json_round_trip(loaded: Any, tmp_path: Path) -> None:
    _, _, report, *_ = loaded
    data = json.loads(report.to_json())
    assert data["read"] == data["loaded"] + data["quarantined"]
    assert (
        data["resource_types"]["Observation"]["read"]
        == Counter(r["resourceType"] for r in SOURCE)["Observation"]
    )


def test_engine_plans_on_every_backend(loaded: Any) -> None:
    """The engine's plans on the FHIR catalog, against answers computed from the source files."""
    from clinbridge.engine.plan import (
        AgeFilter,
        Aggregate,
        ConceptRef,
        ConceptSet,
        EncounterFilter,
        Measure,
        PatientAnchor,
        QueryPlan,
        SexFilter,
    )
    from clinbridge.engine.run import run_plan

    _, db, *_ = loaded
    cat = get_adapter("fhir").catalog(db)
    patients = [r for r in SOURCE if r["resourceType"] == "Patient"]
    encounters = [r for r in SOURCE if r["resourceType"] == "Encounter"]
    emergency = [e for e in encounters if e["class"]["code"] == "EMER"]
    sbp = ConceptSet(concepts=(ConceptRef(code="8480-6", system="http://loinc.org"),))
    pid = "fbeb6608-4810-453b-a3a6-b34f321410b1"
    readings = sorted(
        (o["effectiveDateTime"], c["valueQuantity"]["value"])
        for o in SOURCE
        if o["resourceType"] == "Observation" and o["subject"]["reference"].endswith(pid)
        for c in o.get("component", [])
        if c["code"]["coding"][0]["code"] == "8480-6"
    )
    expected = {
        "patients": (QueryPlan(), len(patients)),
        "women": (
            QueryPlan(filters=(SexFilter(sex="female"),)),
            sum(p["gender"] == "female" for p in patients),
        ),
        "emergency visits": (
            QueryPlan(measure=Measure(of="encounters", encounter_type="emergency")),
            len(emergency),
        ),
        "patients with an ER visit": (
            QueryPlan(filters=(EncounterFilter(type="emergency"),)),
            len({e["subject"]["reference"][-36:] for e in emergency}),
        ),
        "last systolic of one patient": (
            QueryPlan(
                patient_id=pid,
                measure=Measure(of="value", stream="measurement", concepts=sbp),
                aggregate=Aggregate(op="last"),
            ),
            readings[-1][1],
        ),
        "deceased patients": (
            QueryPlan(filters=(AgeFilter(op=">=", value=0, at=PatientAnchor(point="death")),)),
            sum("deceasedDateTime" in p for p in patients),
        ),
    }
    for name, (plan, want) in expected.items():
        got = run_plan(db, cat, plan)
        assert got.value == pytest.approx(want), (name, got)
