"""64-bit ids (the MIMIC-IV demo in OMOP): exact through loading, plans and answers, per backend."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import pytest

import clinbridge.api as cb
from clinbridge.adapters.omop import load_omop_csv
from clinbridge.db import Database

DEMO = Path(__file__).resolve().parent.parent / "data" / "omop-mimic-iv-demo-subset"


def _column(name: str, column: str) -> list[int]:
    path = DEMO / f"{name}.csv"
    opener = gzip.open if not path.exists() else open
    path = path if path.exists() else DEMO / f"{name}.csv.gz"
    with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
        return sorted(int(r[column]) for r in csv.DictReader(f))


def _check(url: str) -> None:
    report = load_omop_csv(DEMO, url, if_exists="replace", on_error="raise")
    assert report.reconciles and report.rejected == 0
    with Database.open(url) as db:
        for table, column in (
            ("care_site", "care_site_id"),
            ("person", "person_id"),
            ("visit_occurrence", "visit_occurrence_id"),
            ("condition_occurrence", "condition_occurrence_id"),
        ):
            stored = sorted(int(r[0]) for r in db.execute(f"SELECT {column} FROM {table}").rows)
            assert stored == _column(table, column), (table, column)
        assert 7482024270134467590 in {
            r[0] for r in db.execute("SELECT care_site_id FROM care_site").rows
        }
    # answers: a patient given by a 19-digit id, and ids listed back exactly
    persons = _column("person", "person_id")
    visits = {}
    with open(DEMO / "visit_occurrence.csv", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            visits[int(r["person_id"])] = visits.get(int(r["person_id"]), 0) + 1
    pid = max(visits, key=lambda p: (visits[p], p))
    with cb.connect(url, cache_dir=None) as conn:
        a = conn.ask("How many visits did the patient have?", patient_id=str(pid))
        assert a.decision != "abstain", a.reason
        assert a.value == visits[pid]
        assert str(pid) in (a.sql or "")
        rows = conn.db.execute("SELECT person_id FROM person").rows
        assert sorted(r[0] for r in rows) == persons


def test_bigint_ids_duckdb(tmp_path: Path) -> None:
    _check(f"duckdb:///{tmp_path / 'm.duckdb'}")


def test_bigint_ids_sqlite(tmp_path: Path) -> None:
    _check(f"sqlite:///{tmp_path / 'm.sqlite'}")


@pytest.mark.postgres
def test_bigint_ids_postgres(pg_url: str) -> None:
    _check(pg_url)


def test_integer_text_never_goes_through_float() -> None:
    import pandas as pd

    from clinbridge.adapters.omop._bulk import convert_chunk

    chunk = pd.DataFrame(
        {
            "id": [
                "7482024270134467590",
                "-9223372036854775808",
                "10204.0",
                "1.5",
                "9223372036854775808",
            ]
        },
        dtype=str,
    )
    typed, problems = convert_chunk(chunk, {"id": "integer"})
    assert list(typed["id"][:3]) == [7482024270134467590, -(2**63), 10204]
    assert sorted(i for i, _, _ in problems.rows) == [3, 4]
