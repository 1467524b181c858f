"""The adapter registry: built-ins register like a third party would, lookups suggest names."""

from __future__ import annotations

import sqlite3

import pytest

from clinbridge.adapters import (
    SourceAdapter,
    adapter_names,
    base,
    describe,
    detect_adapter,
    get_adapter,
)
from clinbridge.catalog import Catalog, PatientTable, TableInfo
from clinbridge.db import Database
from clinbridge.errors import UnknownAdapterError


def test_builtin_adapters_are_registered():
    assert {"omop", "fhir", "mimic"} <= set(adapter_names())
    assert get_adapter("omop, cdm_version=5.4").name == "omop"


def test_unknown_adapter_suggests_the_closest_name():
    with pytest.raises(UnknownAdapterError) as err:
        get_adapter("omopp")
    assert "did you mean 'omop'" in str(err.value)
    assert "clinbridge.adapters" in str(err.value)  # says how third parties register


def test_a_third_party_adapter_plugs_in_through_the_same_registry(tmp_path):
    path = tmp_path / "trial.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE subjects (subject_id TEXT, arm TEXT)")

    class TrialSheet(SourceAdapter):
        name = "test_trial_sheet"
        PRIORITY = 1

        @classmethod
        def detect(cls, db: Database) -> bool:
            return "subjects" in db.table_names()

        def catalog(self, db: Database, *, source: str | None = None) -> Catalog:
            return Catalog(
                source=source or "trial",
                adapter=self.name,
                dialect=db.dialect,
                patients=PatientTable(table="subjects", id_column="subject_id"),
                tables=(TableInfo(name="subjects"),),
            )

    try:
        with Database.open(f"sqlite:///{path}") as db:
            assert detect_adapter(db).name == "test_trial_sheet"
            assert describe(db).patients.table == "subjects"
    finally:
        base._REGISTRY.pop("test_trial_sheet", None)


def test_no_adapter_recognises_an_unrelated_database(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER)")
    with Database.open(f"sqlite:///{path}") as db, pytest.raises(UnknownAdapterError):
        detect_adapter(db)
