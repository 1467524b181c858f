"""Flattening rules: value[x] of every kind, dateTimes, references, codes, notes."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clinbridge.adapters.fhir.flatten import (
    Context,
    FieldError,
    clean_display,
    flatten,
    parse_datetime,
)
from clinbridge.adapters.fhir.schema import TABLES

OBS_COLS = TABLES["fhir_observation"].column_names


def _obs(**value: Any) -> dict[str, Any]:
    return {
        "resourceType": "Observation",
        "id": "o1",
        "status": "final",
        "code": {"coding": [{"system": "http://loinc.org", "code": "1-1", "display": "X"}]},
        "subject": {"reference": "Patient/p1"},
        "effectiveDateTime": "2020-02-03T04:05:06+05:30",
        **value,
    }


def _row(res: dict[str, Any], ctx: Context | None = None) -> dict[str, Any]:
    rows = flatten(res, ctx or Context())
    return dict(zip(OBS_COLS, rows[0][1], strict=True))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            {
                "valueQuantity": {
                    "value": 7.5,
                    "unit": "mmol/L",
                    "system": "http://unitsofmeasure.org",
                    "code": "mmol/L",
                    "comparator": "<",
                }
            },
            {
                "value_type": "Quantity",
                "value_num": 7.5,
                "unit_code": "mmol/L",
                "value_comparator": "<",
            },
        ),
        (
            {
                "valueCodeableConcept": {
                    "coding": [
                        {
                            "system": "http://snomed.info/sct",
                            "code": "8517006",
                            "display": "Ex-smoker",
                        }
                    ]
                }
            },
            {
                "value_type": "CodeableConcept",
                "value_code": "8517006",
                "value_text": "Ex-smoker",
                "value_num": None,
            },
        ),
        ({"valueString": "positive"}, {"value_type": "string", "value_text": "positive"}),
        ({"valueBoolean": False}, {"value_type": "boolean", "value_text": "false"}),
        ({"valueInteger": 3}, {"value_type": "integer", "value_num": 3.0, "value_text": "3"}),
        (
            {"valueRange": {"low": {"value": 1, "unit": "mg"}, "high": {"value": 2, "unit": "mg"}}},
            {"value_type": "Range", "value_num": 1.0, "value_high": 2.0, "unit": "mg"},
        ),
        (
            {"valueRatio": {"numerator": {"value": 1}, "denominator": {"value": 4}}},
            {"value_type": "Ratio", "value_num": 0.25, "value_text": "1/4"},
        ),
        (
            {
                "valueSampledData": {
                    "origin": {"value": 0},
                    "period": 1,
                    "dimensions": 1,
                    "data": "1 2 3",
                }
            },
            {"value_type": "SampledData", "value_text": "1 2 3"},
        ),
        ({"valueTime": "10:30:00"}, {"value_type": "time", "value_text": "10:30:00"}),
        ({"valueDateTime": "2019-05"}, {"value_type": "dateTime", "value_text": "2019-05"}),
        (
            {"valuePeriod": {"start": "2019-01-01", "end": "2019-01-02"}},
            {"value_type": "Period", "value_text": "2019-01-01/2019-01-02"},
        ),
        ({}, {"value_type": None, "value_num": None, "row_kind": "value"}),
    ],
)
def test_every_value_kind(value: dict[str, Any], expected: dict[str, Any]) -> None:
    row = _row(_obs(**value))
    for k, v in expected.items():
        assert row[k] == v, k
    assert row["effective_time"] == "2020-02-03 04:05:06"
    assert row["effective_time_text"] == "2020-02-03T04:05:06+05:30"


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ({"valueQuantity": {"value": "7"}}, "valueQuantity.value"),
        ({"valueQuantity": {"value": True}}, "valueQuantity.value"),
        ({"valueInteger": 2.5}, "valueInteger"),
        ({"valueBoolean": "yes"}, "valueBoolean"),
        ({"valueString": 5}, "valueString"),
        ({"valueDateTime": "May 2019"}, "valueDateTime"),
        ({"effectiveDateTime": "2020-02-30"}, "effectiveDateTime"),
        ({"subject": {"reference": 5}}, "subject.reference"),
        ({"subject": None}, "subject"),
        ({"encounter": {"reference": "Patient/p1"}}, "encounter.reference"),
        (
            {"component": [{"code": {"text": "x"}, "valueQuantity": {"value": []}}]},
            "component[0].valueQuantity.value",
        ),
    ],
)
def test_wrong_types_name_the_field(value: dict[str, Any], field: str) -> None:
    with pytest.raises(FieldError) as info:
        flatten(_obs(**value), Context())
    assert info.value.field == field


def test_references_urn_uuid_type_id_absolute_and_history() -> None:
    ctx = Context(refmap={"urn:uuid:abc": "Patient/p-77"})
    assert _row(_obs(subject={"reference": "urn:uuid:abc"}), ctx)["patient_id"] == "p-77"
    assert _row(_obs(subject={"reference": "urn:uuid:fwd"}))["patient_id"] == "fwd"
    assert _row(_obs(subject={"reference": "http://x.org/fhir/Patient/p9"}))["patient_id"] == "p9"
    assert _row(_obs(subject={"reference": "Patient/p9/_history/3"}))["patient_id"] == "p9"
    with pytest.raises(FieldError, match="conditional reference"):
        flatten(_obs(subject={"reference": "Patient?identifier=x|1"}), Context())


def test_components_become_rows_under_the_panel() -> None:
    res = _obs(
        code={"coding": [{"system": "http://loinc.org", "code": "85354-9"}]},
        component=[
            {
                "code": {"coding": [{"system": "http://loinc.org", "code": "8480-6"}]},
                "valueQuantity": {"value": 120, "code": "mm[Hg]"},
            },
            {
                "code": {"coding": [{"system": "http://loinc.org", "code": "8462-4"}]},
                "valueQuantity": {"value": 80, "code": "mm[Hg]"},
            },
        ],
    )
    rows = [dict(zip(OBS_COLS, r, strict=True)) for _, r in flatten(res, Context())]
    assert [
        (r["component"], r["row_kind"], r["code"], r["value_num"], r["panel_code"]) for r in rows
    ] == [
        (0, "panel", "85354-9", None, None),
        (1, "component", "8480-6", 120.0, "85354-9"),
        (2, "component", "8462-4", 80.0, "85354-9"),
    ]


def test_codes_registered_with_clean_display() -> None:
    ctx = Context()
    flatten(
        _obs(
            code={
                "coding": [
                    {
                        "system": "http://loinc.org",
                        "code": "33914-3",
                        "display": "Glomerular filtration rate/\u200b1.73 sq M.predicted",
                    }
                ]
            }
        ),
        ctx,
    )
    assert (
        ctx.codes[("http://loinc.org", "33914-3")]
        == "Glomerular filtration rate/1.73 sq M.predicted"
    )
    assert clean_display(" a\u200b  b\ufeff\n") == "a b"


def test_note_decoding_and_charset() -> None:
    text = "Héllo\nwörld"
    doc = {
        "resourceType": "DocumentReference",
        "id": "d",
        "subject": {"reference": "Patient/p"},
        "date": "2020-01-01T00:00:00-05:00",
        "content": [
            {
                "attachment": {
                    "contentType": "text/plain; charset=latin-1",
                    "data": base64.b64encode(text.encode("latin-1")).decode(),
                }
            },
            {
                "attachment": {
                    "contentType": "application/pdf",
                    "data": base64.b64encode(b"%PDF").decode(),
                }
            },
        ],
    }
    rows = flatten(doc, Context())
    cols = TABLES["fhir_note"].column_names
    first, second = (dict(zip(cols, r, strict=True)) for _, r in rows)
    assert first["text"] == text and first["note_time_text"] == "2020-01-01T00:00:00-05:00"
    assert second["text"] is None and second["content_type"] == "application/pdf"


@pytest.mark.parametrize(
    ("text", "local"),
    [
        ("2020", "2020-01-01 00:00:00"),
        ("2020-07", "2020-07-01 00:00:00"),
        ("2020-07-08", "2020-07-08 00:00:00"),
        ("2020-07-08T09:10:11Z", "2020-07-08 09:10:11"),
        ("2020-07-08T09:10:11.123-04:00", "2020-07-08 09:10:11"),
        ("2024-02-29T23:59:59+14:00", "2024-02-29 23:59:59"),
    ],
)
def test_parse_datetime_keeps_local_time_and_text(text: str, local: str) -> None:
    assert parse_datetime(text, "f") == (local, text)


@given(
    st.datetimes(min_value=__import__("datetime").datetime(1800, 1, 1)),
    st.sampled_from(["Z", "+00:00", "-04:00", "+05:30", ""]),
)
def test_parse_datetime_roundtrips_any_datetime(value: Any, tz: str) -> None:
    text = value.strftime("%Y-%m-%dT%H:%M:%S") + tz
    local, kept = parse_datetime(text, "f")
    assert kept == text and local == value.strftime("%Y-%m-%d %H:%M:%S")
