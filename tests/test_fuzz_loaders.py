"""Malformed-input fuzzing of every adapter: whatever the bytes, a load never crashes, every record
is loaded or set aside with a reason, and the counts reconcile (read = loaded + rejected).

Each case starts from a good file and applies hypothesis-chosen damage: truncation, bytes that are
not UTF-8, a byte-order mark, dropped or added columns, wrong types, duplicated ids, references to
missing patients, an empty file.
"""

from __future__ import annotations

import gzip
import json
import uuid
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clinbridge.adapters.fhir import FhirLoader
from clinbridge.adapters.omop import load_omop_csv
from clinbridge.db import Database
from clinbridge.errors import LoadError

SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

PERSON = (
    "person_id,gender_concept_id,year_of_birth,race_concept_id,ethnicity_concept_id,"
    "person_source_value\n" + "".join(f"{i},8507,19{50 + i},0,0,src{i}\n" for i in range(1, 9))
)
MEASUREMENT = (
    "measurement_id,person_id,measurement_concept_id,measurement_date,measurement_type_concept_id,"
    "value_as_number\n"
    + "".join(
        f"{i},{1 + i % 8},3000963,2020-01-{1 + i % 28:02d},44818702,{10 + i / 10}\n"
        for i in range(40)
    )
)


def _damage(data: bytes, ops: list[tuple[str, int, int]]) -> bytes:
    for op, a, b in ops:
        n = max(len(data), 1)
        i = a % n
        if op == "truncate":
            data = data[:i]
        elif op == "bad_byte":
            data = data[:i] + bytes([0x80 + b % 0x7F]) + data[i:]
        elif op == "bom":
            data = b"\xef\xbb\xbf" + data
        elif op == "nul":
            data = data[:i] + b"\x00" + data[i:]
        elif op == "quote":
            data = data[:i] + b'"' + data[i:]
        elif op == "comma":
            data = data[:i] + b"," + data[i:]
        elif op == "drop_line":
            lines = data.split(b"\n")
            if len(lines) > 1:
                del lines[1 + a % (len(lines) - 1)]
            data = b"\n".join(lines)
        elif op == "dup_line":
            lines = data.split(b"\n")
            j = a % len(lines)
            lines.insert(j, lines[j])
            data = b"\n".join(lines)
        elif op == "text_in_number":
            data = data.replace(b",19", b",nineteen", 1 + b % 3)
        elif op == "empty":
            data = b""
    return data


OPS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "truncate",
                "bad_byte",
                "bom",
                "nul",
                "quote",
                "comma",
                "drop_line",
                "dup_line",
                "text_in_number",
                "empty",
            ]
        ),
        st.integers(0, 10_000),
        st.integers(0, 255),
    ),
    min_size=1,
    max_size=4,
)


@SETTINGS
@given(person_ops=OPS, meas_ops=OPS, gz=st.booleans())
def test_omop_load_survives_damage(tmp_path: Path, person_ops, meas_ops, gz: bool) -> None:
    folder = tmp_path / uuid.uuid4().hex
    folder.mkdir()
    (folder / "person.csv").write_bytes(_damage(PERSON.encode(), person_ops))
    meas = _damage(MEASUREMENT.encode(), meas_ops)
    if gz:
        (folder / "measurement.csv.gz").write_bytes(gzip.compress(meas)[: max(10, len(meas))])
    else:
        (folder / "measurement.csv").write_bytes(meas)
    url = f"duckdb:///{folder / 'f.duckdb'}"
    try:
        report = load_omop_csv(folder, url, cdm_version="5.4")
    except LoadError:
        return  # a clear, typed refusal is an acceptable outcome (no traceback of another kind)
    assert report.reconciles
    with Database.open(url) as db:
        for t in report.tables:
            n = db.execute(f"SELECT COUNT(*) FROM {t.table}").rows[0][0]
            assert n == t.loaded, (t, person_ops, meas_ops)
        ids = db.execute("SELECT person_id, COUNT(*) FROM person GROUP BY 1 HAVING COUNT(*) > 1")
        assert ids.rows == []


def _fhir_lines() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for i in range(4):
        out.append({"resourceType": "Patient", "id": f"p{i}", "birthDate": "1970-01-01"})
        out.append(
            {
                "resourceType": "Encounter",
                "id": f"e{i}",
                "status": "finished",
                "class": {"code": "AMB"},
                "subject": {"reference": f"Patient/p{i}"},
                "period": {"start": "2020-01-01T10:00:00Z"},
            }
        )
        out.append(
            {
                "resourceType": "Observation",
                "id": f"o{i}",
                "status": "final",
                "code": {"coding": [{"system": "http://loinc.org", "code": "718-7"}]},
                "subject": {"reference": f"Patient/p{i}"},
                "encounter": {"reference": f"Encounter/e{i}"},
                "effectiveDateTime": "2020-01-01T10:00:00Z",
                "valueQuantity": {"value": 13.1, "unit": "g/dL"},
            }
        )
    return out


FHIR_OPS = st.lists(
    st.tuples(
        st.sampled_from(
            [
                "truncate",
                "bad_byte",
                "bom",
                "nul",
                "quote",
                "comma",
                "drop_line",
                "dup_line",
                "empty",
                "wrong_type",
                "missing_patient",
            ]
        ),
        st.integers(0, 10_000),
        st.integers(0, 255),
    ),
    min_size=1,
    max_size=4,
)


@SETTINGS
@given(ops=FHIR_OPS, bundle=st.booleans())
def test_fhir_load_survives_damage(tmp_path: Path, ops, bundle: bool) -> None:
    resources = _fhir_lines()
    for op, a, _ in ops:
        r = resources[a % len(resources)]
        if op == "wrong_type" and r["resourceType"] == "Observation":
            r["valueQuantity"] = {"value": "high"}
        elif op == "missing_patient":
            r["subject"] = {"reference": "Patient/nobody"}
    if bundle:
        doc = {
            "resourceType": "Bundle",
            "type": "collection",
            "entry": [{"resource": r} for r in resources],
        }
        data = json.dumps(doc, indent=1).encode()
        name = "b.json"
    else:
        data = "".join(json.dumps(r) + "\n" for r in resources).encode()
        name = "r.ndjson"
    data = _damage(data, [o for o in ops if o[0] not in ("wrong_type", "missing_patient")])
    path = tmp_path / uuid.uuid4().hex / name
    path.parent.mkdir()
    path.write_bytes(data)
    db = Database.open("duckdb:///:memory:", read_only=False)
    try:
        report = FhirLoader(db).load([path])
        assert report.reconciled
        assert report.read == report.loaded + report.merged + report.quarantined
        stored = db.execute("SELECT COUNT(*) FROM fhir_resource").rows[0][0]
        held = db.execute("SELECT COUNT(*) FROM fhir_quarantine").rows[0][0]
        assert stored == report.loaded and held == report.quarantined
    except LoadError:
        pass
    finally:
        db.close()
