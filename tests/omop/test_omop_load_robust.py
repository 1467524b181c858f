"""One bad file, row or byte costs only itself: the rest of an OMOP load goes in, and counts reconcile."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from clinbridge.adapters.omop import load_omop_csv
from clinbridge.db import Database
from clinbridge.errors import LoadError

HEADER = "person_id,gender_concept_id,year_of_birth,race_concept_id,ethnicity_concept_id\n"
GOOD = "".join(f"{i},8507,19{50 + i},0,0\n" for i in range(1, 6))
VISIT = (
    "visit_occurrence_id,person_id,visit_concept_id,visit_start_date,visit_end_date,"
    "visit_type_concept_id\n"
)


def _folder(tmp_path: Path, files: dict[str, bytes]) -> Path:
    folder = tmp_path / "csv"
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


@pytest.fixture(params=["duckdb", "sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "duckdb":
        yield f"duckdb:///{tmp_path / 'r.duckdb'}"
    elif request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'r.db'}"
    else:
        yield request.getfixturevalue("pg_url")


def _rejected(url: str) -> list[tuple[object, ...]]:
    with Database.open(url) as db:
        return db.execute(
            "SELECT table_name, file, record, field, reason, raw FROM clinbridge_rejected "
            "ORDER BY file, record",
            max_rows=None,
        ).rows


def _count(url: str, table: str) -> int:
    with Database.open(url) as db:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").rows[0][0])


def test_every_kind_of_bad_file_costs_only_its_bad_records(tmp_path: Path, url: str) -> None:
    rows = [f"{i},1,9201,2020-01-0{i},2020-01-0{i},44818517\n" for i in range(1, 10)]
    truncated = gzip.compress((VISIT + "".join(rows)).encode())[:-30]
    folder = _folder(
        tmp_path,
        {
            # ragged row (line 3), a row with a bad byte (line 5), an unclosed quote (line 7)
            "person.csv": (
                HEADER.encode()
                + b"1,8507,1950,0,0\n"
                + b"2,8507,1951,0,0,EXTRA\n"
                + b"3,8532,1952,0,0\n"
                + b"4,8532,19\xe953,0,0\n"
                + b"5,8507,1954,0,0\n"
                + b'6,8507,1955,0,"0\n'
                + b"7,8532,1956,0,0\n"
            ),
            "visit_occurrence.csv.gz": truncated,  # a .gz cut short
            "death.csv": b"",  # 0 bytes
        },
    )
    report = load_omop_csv(folder, url, cdm_version="5.4")
    assert report.reconciles
    person = report.table("person")
    assert person.read == 7 and person.loaded == 4 and person.rejected == 3
    assert _count(url, "person") == 4
    visits = report.table("visit_occurrence")
    assert visits.loaded >= 1 and visits.read == visits.loaded + visits.rejected
    assert _count(url, "visit_occurrence") == visits.loaded
    assert any("empty file" in n for n in report.table("death").notes)
    reasons = {(r[1], r[2]): str(r[4]) for r in _rejected(url)}
    assert "expected 5 fields, saw 6" in reasons[("person.csv", 2)]
    assert "0xe9" in reasons[("person.csv", 4)] and "not UTF-8" in reasons[("person.csv", 4)]
    assert "never closes" in reasons[("person.csv", 6)]
    assert any("cannot be read" in v for (f, _), v in reasons.items() if f.startswith("visit"))
    # the raw text of a bad line is kept
    raw = {r[2]: r[5] for r in _rejected(url) if r[1] == "person.csv"}
    assert "EXTRA" in json.loads(str(raw[2]))["text"]


def test_duplicate_person_ids_are_set_aside_with_the_first_kept(tmp_path: Path, url: str) -> None:
    folder = _folder(
        tmp_path, {"person.csv": (HEADER + GOOD + "3,8532,1999,0,0\n3,8532,2001,0,0\n").encode()}
    )
    report = load_omop_csv(folder, url, cdm_version="5.4")
    person = report.table("person")
    assert report.reconciles and person.read == 7 and person.loaded == 5 and person.rejected == 2
    with Database.open(url) as db:
        assert db.execute("SELECT year_of_birth FROM person WHERE person_id = 3").rows == [(1953,)]
    dups = [r for r in _rejected(url) if "duplicate person_id 3" in str(r[4])]
    assert len(dups) == 2 and all(r[3] == "person_id" for r in dups)
    assert {json.loads(str(r[5]))["year_of_birth"] for r in dups} == {1999, 2001}


def test_shared_event_ids_are_kept_and_said(tmp_path: Path, url: str) -> None:
    # Eunomia's drug_exposure has distinct events sharing an id: nothing joins on the id
    folder = _folder(
        tmp_path,
        {
            "person.csv": (HEADER + GOOD).encode(),
            "condition_occurrence.csv": (
                b"condition_occurrence_id,person_id,condition_concept_id,condition_start_date,"
                b"condition_type_concept_id\n1,1,201826,2020-01-01,32020\n1,2,4329847,2020-02-01,32020\n"
            ),
        },
    )
    report = load_omop_csv(folder, url, cdm_version="5.4")
    cond = report.table("condition_occurrence")
    assert cond.loaded == 2 and cond.rejected == 0
    assert any("share their condition_occurrence_id" in n for n in cond.notes)


def test_nul_bytes_load_on_every_backend(tmp_path: Path, url: str) -> None:
    folder = _folder(
        tmp_path,
        {
            "person.csv": (
                HEADER.rstrip("\n") + ",person_source_value\n" + "1,8507,1950,0,0,A\x00B\n"
            ).encode()
        },
    )
    report = load_omop_csv(folder, url, cdm_version="5.4")
    assert report.reconciles and report.table("person").loaded == 1
    with Database.open(url) as db:
        value = db.execute("SELECT person_source_value FROM person").rows[0][0]
    assert value in ("A\x00B", "A\ufffdB")
    if value == "A\ufffdB":
        assert any("NUL" in n for n in report.table("person").notes)


def test_raise_mode_still_stops_at_the_first_bad_record(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path, {"person.csv": (HEADER + "1,8507,1950,0,0\n2,8507,1951,0,0,9\n").encode()}
    )
    with pytest.raises(LoadError) as info:
        load_omop_csv(folder, f"duckdb:///{tmp_path / 'x.duckdb'}", on_error="raise")
    assert info.value.record == 2 and "expected 5 fields" in str(info.value)


def test_an_unreadable_header_sets_the_file_aside(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path,
        {"person.csv": (HEADER + GOOD).encode(), "death.csv": b'person_id,"death_date\n1,2020\n'},
    )
    url = f"duckdb:///{tmp_path / 'h.duckdb'}"
    report = load_omop_csv(folder, url, cdm_version="5.4")
    assert report.table("person").loaded == 5
    assert any("file not loaded" in n for n in report.table("death").notes)
    assert any("file not loaded" in str(r[4]) for r in _rejected(url))
