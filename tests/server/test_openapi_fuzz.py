"""The OpenAPI document, checked by schemathesis (bounded: a few examples per operation).

Every operation is called with generated valid and invalid inputs; the app must never answer
5xx, and each response must match a documented status, content type and schema.
"""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis import checks  # noqa: E402

from .conftest import make_config  # noqa: E402


@pytest.fixture(scope="module")
def fuzz_app(eunomia_duckdb, synth_duckdb, server_dirs):  # type: ignore[no-untyped-def]
    from clinbridge.server import create_app

    application = create_app(make_config(eunomia_duckdb, synth_duckdb, server_dirs / "fuzz"))
    yield application
    application.state.cb.close()


@pytest.fixture(scope="module")
def api_schema(fuzz_app):  # type: ignore[no-untyped-def]
    return schemathesis.openapi.from_asgi("/openapi.json", fuzz_app)


schema = schemathesis.pytest.from_fixture("api_schema")

CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.negative_data_rejection,
]


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_openapi_document(case) -> None:  # type: ignore[no-untyped-def]
    case.call_and_validate(checks=CHECKS)
