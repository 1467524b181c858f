"""The same plans give the same answers on PostgreSQL (a schema created by the tests)."""

from __future__ import annotations

import pytest

from clinbridge.adapters import describe
from clinbridge.db import Database
from clinbridge.engine.run import run_plan
from clinbridge.settings import Settings

from .test_plans import PLANS, _answer_key

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def pg(eunomia_pg_url):
    with Database.open(eunomia_pg_url) as db:
        yield db, describe(db)


@pytest.fixture(scope="module")
def duck(eunomia_duckdb):
    with Database.open(f"duckdb:///{eunomia_duckdb}") as db:
        yield db, describe(db)


@pytest.mark.parametrize("name", sorted(PLANS))
def test_postgres_agrees_with_duckdb(name, pg, duck):
    settings = Settings(now="2019-07-01")
    a = run_plan(*pg, PLANS[name], settings=settings)
    b = run_plan(*duck, PLANS[name], settings=settings)
    assert a.decision == "accept", a.reason
    assert _answer_key(a) == _answer_key(b)
