"""Bad input: clear errors naming file, record and field; quarantine; reconciliation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fhir_testlib import BACKENDS, BROKEN, BUNDLES, make_url

from clinbridge.adapters.fhir import FhirLoader, load_fhir
from clinbridge.db import Database
from clinbridge.errors import LoadError

# file → [(record, resource type, field or None, words in the reason)]
EXPECTED: dict[str, list[tuple[str, str, str | None, str]]] = {
    "wrong_types.ndjson": [
        ("line 3", "Observation", "valueQuantity.value", "expected a number"),
        ("line 4", "Patient", "birthDate", "dateTime"),
        ("line 5", "Encounter", "period.start", "not a FHIR dateTime"),
    ],
    "invalid_json.ndjson": [("line 2", "(unreadable)", None, "invalid JSON")],
    "unknown_type.ndjson": [
        ("line 2", "Spaceship", "resourceType", "unknown FHIR R4 resource type"),
        ("line 3", "Patient", "id", "missing or invalid resource id"),
        ("line 4", "(no resourceType)", "resourceType", "missing"),
        ("line 5", "(unreadable)", None, "expected a JSON object"),
    ],
    "dangling.ndjson": [
        ("line 3", "Condition", "subject", "dangling reference: Patient/nobody"),
        ("line 4", "Observation", "encounter", "dangling reference: Encounter/nowhere"),
    ],
    "duplicate_ids.ndjson": [("line 2", "Patient", "id", "duplicate Patient id 'p1'")],
    "bad_base64.ndjson": [
        ("line 2", "DocumentReference", "content[0].attachment.data", "invalid base64")
    ],
    "truncated_bundle.json": [("entry 3", "(unreadable)", None, "invalid JSON at line 65")],
    "bad_entries_bundle.json": [
        ("entry 1", "(unreadable)", "resource", "no resource object (DELETE Patient/p0)"),
        ("entry 2", "(unreadable)", None, "expected a Bundle entry object"),
        ("entry 3", "Observation", "subject.reference", "expected a reference to Patient"),
    ],
    "not_json.json": [("document", "(unreadable)", None, "invalid JSON at line 1 column 1")],
    "truncated.ndjson.gz": [("line 3", "(unreadable)", None, "cannot read the rest of the file")],
}
LOADED = {
    "wrong_types.ndjson": 3,
    "invalid_json.ndjson": 2,
    "unknown_type.ndjson": 1,
    "dangling.ndjson": 3,
    "duplicate_ids.ndjson": 2,
    "bad_base64.ndjson": 1,
    "truncated_bundle.json": 3,
    "bad_entries_bundle.json": 1,
    "not_json.json": 0,
    "truncated.ndjson.gz": 2,
}


def _load(path: Path, **kw: Any) -> tuple[Any, list[tuple[Any, ...]]]:
    db = Database.open("duckdb:///:memory:", read_only=False)
    try:
        report = FhirLoader(db, **kw).load([path])
        rows = db.execute(
            "SELECT file, record, resource_type, id, field, reason, json FROM fhir_quarantine "
            "ORDER BY record",
            max_rows=None,
        ).rows
        return report, rows
    finally:
        db.close()


@pytest.mark.parametrize("stream_threshold", [1 << 30, 0], ids=["whole", "streamed"])
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_file_is_quarantined_with_file_record_field(
    name: str, stream_threshold: int
) -> None:
    report, rows = _load(BROKEN / name, stream_threshold=stream_threshold)
    assert report.reconciled and report.read == report.loaded + report.quarantined
    assert report.loaded == LOADED[name]
    assert report.quarantined == len(EXPECTED[name]) == report.error_count == len(rows)
    got = sorted((e["record"], e["resource_type"], e["field"], e["reason"]) for e in report.errors)
    for (record, rtype, fld, words), (g_record, g_type, g_field, g_reason) in zip(
        sorted(EXPECTED[name]), got, strict=True
    ):
        assert (g_record, g_type, g_field) == (record, rtype, fld)
        assert words in g_reason
    for file, *_ in rows:
        assert file == str(BROKEN / name)
    # the rejected record itself is kept (except where nothing could be read)
    for _, _, rtype, _, _, _, text in rows:
        if rtype not in ("(unreadable)",):
            assert text and json.loads(text)


def test_fail_fast_raises_load_error_naming_file_record_field() -> None:
    db = Database.open("duckdb:///:memory:", read_only=False)
    with pytest.raises(LoadError) as info:
        FhirLoader(db, fail_fast=True).load([BROKEN / "wrong_types.ndjson"])
    err = info.value
    assert err.file == str(BROKEN / "wrong_types.ndjson") and err.record == "line 3"
    assert err.field == "valueQuantity.value"
    assert (
        "wrong_types.ndjson" in str(err)
        and "line 3" in str(err)
        and "valueQuantity.value" in str(err)
    )
    db.close()


def test_missing_path_is_a_load_error(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="no such file"):
        load_fhir([tmp_path / "nope.ndjson"], f"duckdb:///{tmp_path / 'x.duckdb'}")


def test_validate_mode_rejects_what_the_r4b_model_rejects() -> None:
    report, _ = _load(BROKEN / "wrong_types.ndjson", validate=True)
    assert report.validated and report.quarantined == 3
    fields = {e["field"] for e in report.errors}
    assert "valueQuantity.value" in fields or any(
        f and f.startswith("valueQuantity") for f in fields
    )


def test_validate_catches_an_unflattened_field(tmp_path: Path) -> None:
    f = tmp_path / "org.ndjson"
    f.write_text(json.dumps({"resourceType": "Organization", "id": "o1", "active": "maybe"}) + "\n")
    fast, _ = _load(f)
    assert fast.loaded == 1  # the fast path keeps unflattened resources whole without checking them
    strict, rows = _load(f, validate=True)
    assert strict.quarantined == 1 and rows[0][4] == "active"
    assert "R4B model" in rows[0][5]


def test_reloading_a_broken_file_does_not_duplicate_quarantine(tmp_path: Path) -> None:
    gen = make_url("duckdb", tmp_path)
    url = next(gen)
    load_fhir([BROKEN / "wrong_types.ndjson"], url)
    load_fhir([BROKEN / "wrong_types.ndjson"], url)
    with Database.open(url) as db:
        assert db.execute("SELECT COUNT(*) FROM fhir_quarantine").rows[0][0] == 3
        assert db.execute("SELECT COUNT(*) FROM fhir_patient").rows[0][0] == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_broken_corpus_on_every_backend(backend: str, tmp_path: Path) -> None:
    gen = make_url(backend, tmp_path)
    url = next(gen)
    try:
        # one load of the whole corpus: p1/e1 repeat across files, so later copies are duplicates
        report = load_fhir([BROKEN], url)
        assert report.reconciled
        with Database.open(url) as db:
            quarantined = db.execute("SELECT COUNT(*) FROM fhir_quarantine").rows[0][0]
            assert quarantined == report.quarantined > 0
            stored = db.execute("SELECT COUNT(*) FROM fhir_resource").rows[0][0]
            assert stored == report.loaded
            assert db.execute("SELECT COUNT(*) FROM fhir_patient").rows[0][0] == 1
    finally:
        next(gen, None)


@pytest.mark.parametrize("backend", BACKENDS)
def test_nul_characters_load_on_every_backend(backend: str, tmp_path: Path) -> None:
    f = tmp_path / "nul.ndjson"
    f.write_text(
        json.dumps({"resourceType": "Patient", "id": "p1", "name": [{"family": "A\u0000B"}]}) + "\n"
    )
    gen = make_url(backend, tmp_path)
    url = next(gen)
    try:
        report = load_fhir([f], url)
        assert report.loaded == 1
        with Database.open(url) as db:
            name = db.execute("SELECT family_name FROM fhir_patient").rows[0][0]
            assert name in ("A\u0000B", "A\ufffdB")  # PostgreSQL text cannot hold NUL
            stored = db.execute("SELECT json FROM fhir_resource").rows[0][0]
            assert json.loads(stored)["name"][0]["family"] == "A\u0000B"
    finally:
        next(gen, None)


def _snapshot(db: Database) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for t in (
        "fhir_resource",
        "fhir_quarantine",
        "fhir_observation",
        "fhir_patient",
        "fhir_code",
        "fhir_note",
    ):
        cols = [c for c, _ in db.columns(t) if c != "load_id"]
        out[t] = sorted(
            map(repr, db.execute(f"SELECT {', '.join(cols)} FROM {t}", max_rows=None).rows)
        )
    return out


@pytest.mark.slow
def test_worker_processes_give_the_same_result(tmp_path: Path) -> None:
    from fhir_testlib import BUNDLES, NDJSON

    from clinbridge.synthetic.fhir import generate_fhir

    generate_fhir(tmp_path / "gen", patients=8, seed=2)
    paths = [BUNDLES, NDJSON, BROKEN, tmp_path / "gen"]
    snaps, reports = [], []
    for workers in (1, 2):
        db = Database.open("duckdb:///:memory:", read_only=False)
        report = FhirLoader(db, workers=workers, batch_size=3000).load(paths)
        snaps.append(_snapshot(db))
        reports.append(report)
        db.close()
    assert reports[0].resource_types == reports[1].resource_types
    assert [(e["file"], e["record"], e["field"], e["reason"]) for e in reports[0].errors] == [
        (e["file"], e["record"], e["field"], e["reason"]) for e in reports[1].errors
    ]
    assert snaps[0] == snaps[1]


def test_synthea_bundles_pass_strict_r4b_validation() -> None:
    from fhir_testlib import BUNDLES

    db = Database.open("duckdb:///:memory:", read_only=False)
    report = FhirLoader(db, validate=True).load([BUNDLES])
    db.close()
    assert report.validated and report.quarantined == 0 and report.loaded == report.read > 1000


def _bundle_bytes() -> bytes:
    import gzip

    return gzip.decompress(sorted(BUNDLES.glob("*.json.gz"))[0].read_bytes())


@pytest.mark.parametrize("stream_threshold", [1 << 30, 0], ids=["whole", "streamed"])
def test_one_bad_byte_costs_one_entry_not_the_bundle(tmp_path: Path, stream_threshold: int) -> None:
    data = _bundle_bytes()
    entries = len(json.loads(data)["entry"])
    # a Latin-1 byte inside the display text of one entry in the middle of the bundle
    i = data.index(b'"display"', len(data) // 2)
    bad = data[: i + 12] + b"\xe9" + data[i + 12 :]
    f = tmp_path / "bad_byte.json"
    f.write_bytes(bad)
    report, rows = _load(f, stream_threshold=stream_threshold)
    assert report.reconciled
    assert report.read == entries and report.quarantined == 1 and report.loaded == entries - 1
    (row,) = rows
    assert row[1].startswith("entry ") and "invalid UTF-8 byte 0xe9" in row[5]


@pytest.mark.parametrize("stream_threshold", [1 << 30, 0], ids=["whole", "streamed"])
def test_a_broken_entry_mid_bundle_costs_only_itself(tmp_path: Path, stream_threshold: int) -> None:
    data = _bundle_bytes()
    entries = len(json.loads(data)["entry"])
    # break the JSON structure of one entry (a value lost its quotes) in the middle of the bundle
    i = data.index(b'"status": "', len(data) // 2)
    bad = data[:i] + b'"status": fin ished, "x": "' + data[i + len(b'"status": "') :]
    f = tmp_path / "broken_entry.json"
    f.write_bytes(bad)
    report, rows = _load(f, stream_threshold=stream_threshold)
    assert report.reconciled
    assert report.read == entries and report.loaded + report.quarantined == entries
    broken = [r for r in rows if r[2] == "(unreadable)"]
    assert len(broken) == 1 and "reading resumed at the next entry" in broken[0][5]
    # anything else quarantined only pointed at the lost resource (a dangling reference)
    assert all("dangling reference" in r[5] for r in rows if r[2] != "(unreadable)")
    assert report.loaded >= entries - 10


def test_identical_duplicates_across_bundles_are_merged_not_quarantined(tmp_path: Path) -> None:
    # Synthea (conditional create) writes the same Organization and Practitioner into many
    # patients' bundles: the same resource, counted as merged
    shared = [
        {
            "fullUrl": "urn:uuid:org-1",
            "resource": {"resourceType": "Organization", "id": "org-1", "name": "General Hospital"},
            "request": {"method": "POST", "url": "Organization", "ifNoneExist": "identifier=x|1"},
        },
        {
            "fullUrl": "urn:uuid:pr-1",
            "resource": {"resourceType": "Practitioner", "id": "pr-1", "name": [{"family": "Ng"}]},
            "request": {"method": "POST", "url": "Practitioner", "ifNoneExist": "identifier=x|2"},
        },
    ]
    files = []
    for k in range(3):
        own = {"fullUrl": f"urn:uuid:p{k}", "resource": {"resourceType": "Patient", "id": f"p{k}"}}
        f = tmp_path / f"bundle{k}.json"
        f.write_text(
            json.dumps({"resourceType": "Bundle", "type": "transaction", "entry": [*shared, own]})
        )
        files.append(f)
    db = Database.open("duckdb:///:memory:", read_only=False)
    try:
        report = FhirLoader(db).load(files)
        assert report.reconciled and report.quarantined == 0, report.summary_lines()
        assert report.read == 9 and report.loaded == 5 and report.merged == 4
        assert report.resource_types["Organization"].merged == 2
        n = db.execute("SELECT COUNT(*) FROM fhir_resource").rows[0][0]
        assert n == report.loaded
        assert any("merged" in line for line in report.summary_lines())
    finally:
        db.close()


def test_a_duplicate_with_different_content_is_still_quarantined(tmp_path: Path) -> None:
    f = tmp_path / "dup.ndjson"
    same = {"resourceType": "Organization", "id": "o1", "name": "A"}
    f.write_text(
        "\n".join(
            json.dumps(r)
            for r in (same, same, {"resourceType": "Organization", "id": "o1", "name": "B"})
        )
        + "\n"
    )
    report, rows = _load(f)
    assert report.loaded == 1 and report.merged == 1 and report.quarantined == 1
    assert "different content" in rows[0][5] and rows[0][1] == "line 3"
