"""Facets of an event table (organism, test, route) read on the generated EHRSQL-shaped SQLite DB.

Each answer is checked against SQL written here over the same file; what a facet cannot be
read for abstains.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

import clinbridge.api as cb
from clinbridge.synthetic.mimic import NOW


@pytest.fixture(scope="module")
def db(ehrsql_sqlite: Path) -> Path:
    return ehrsql_sqlite  # the session's generated EHRSQL database (tests/conftest.py)


@pytest.fixture(scope="module")
def conn(db: Path) -> Iterator[cb.Connection]:
    with cb.connect(f"sqlite:///{db}") as c:
        yield c


def _values(value: object) -> set[str]:
    items = value if isinstance(value, list) else [value]
    return {str(v).lower() for v in items}


def test_organism_at_first_specimen_test(db: Path, conn: cb.Connection) -> None:
    con = sqlite3.connect(db)
    pid, spec = con.execute(
        "SELECT subject_id, spec_type_desc FROM microbiologyevents WHERE org_name IS NOT NULL "
        "LIMIT 1"
    ).fetchone()
    first = con.execute(
        "SELECT min(charttime) FROM microbiologyevents WHERE subject_id = ? AND "
        "spec_type_desc = ? AND org_name IS NOT NULL",
        (pid, spec),
    ).fetchone()[0]
    gold = {
        r[0].lower()
        for r in con.execute(
            "SELECT DISTINCT org_name FROM microbiologyevents WHERE subject_id = ? AND "
            "spec_type_desc = ? AND org_name IS NOT NULL AND charttime = ?",
            (pid, spec, first),
        )
    }
    con.close()
    a = conn.ask(f"What was the organism found in the first {spec} test of patient {pid}?", now=NOW)
    assert a.decision == "accept", a.reason
    assert a.plan is not None and a.plan["measure"]["column"] == "org_name"
    assert _values(a.value) == gold
    yes = conn.ask(
        f"Has there been any organism found in the {spec} test of patient {pid}?", now=NOW
    )
    assert yes.decision == "accept", yes.reason
    assert yes.value is True


def test_test_name_not_specimen(db: Path, conn: cb.Connection) -> None:
    """'what microbiology test': the test's name column, not the specimen the table codes by;
    'what specimen test': the specimen."""
    con = sqlite3.connect(db)
    pid = con.execute("SELECT subject_id FROM microbiologyevents LIMIT 1").fetchone()[0]
    first = con.execute(
        "SELECT min(charttime) FROM microbiologyevents WHERE subject_id = ?", (pid,)
    ).fetchone()[0]

    def at_first(col: str) -> set[str]:
        return {
            r[0].lower()
            for r in con.execute(
                f"SELECT DISTINCT {col} FROM microbiologyevents WHERE subject_id = ? "
                f"AND charttime = ? AND {col} IS NOT NULL",
                (pid, first),
            )
        }

    tests, specs = at_first("test_name"), at_first("spec_type_desc")
    con.close()
    a = conn.ask(f"What microbiology test did patient {pid} take for the first time?", now=NOW)
    assert a.decision == "accept", a.reason
    assert _values(a.value) == tests
    b = conn.ask(f"What specimen test did patient {pid} have for the first time?", now=NOW)
    if b.decision == "accept":
        assert _values(b.value) == specs


def test_route_value_is_a_condition(db: Path, conn: cb.Connection) -> None:
    con = sqlite3.connect(db)
    pid, route = con.execute(
        "SELECT subject_id, route FROM prescriptions WHERE route IS NOT NULL LIMIT 1"
    ).fetchone()
    first = con.execute(
        "SELECT min(starttime) FROM prescriptions WHERE subject_id = ? AND route = ?",
        (pid, route),
    ).fetchone()[0]
    gold = {
        r[0].lower()
        for r in con.execute(
            "SELECT DISTINCT drug FROM prescriptions WHERE subject_id = ? AND route = ? "
            "AND starttime = ?",
            (pid, route, first),
        )
    }
    con.close()
    a = conn.ask(
        f"What was the drug that was first prescribed to patient {pid} via the {route} route?",
        now=NOW,
    )
    assert a.decision == "accept", a.reason
    assert a.plan is not None and a.plan["measure"]["matches"] == [["route", [route]]]
    assert _values(a.value) == gold


def test_facets_that_do_not_fit_abstain(db: Path, conn: cb.Connection) -> None:
    con = sqlite3.connect(db)
    pid = con.execute("SELECT subject_id FROM labevents LIMIT 1").fetchone()[0]
    con.close()
    for q in (
        # the organism of a lab test: another table than the organism's
        f"What was the organism found in the first hemoglobin test of patient {pid}?",
        # a route no record stores
        f"What was the drug that was first prescribed to patient {pid} via the xyzzy route?",
    ):
        a = conn.ask(q, now=NOW)
        assert a.decision != "accept", (q, a.value)


def test_patient_sex_and_encounter_facts(db: Path, conn: cb.Connection) -> None:
    """A patient's stored sex; the last hospital discharge; the name of the insurance."""
    con = sqlite3.connect(db)
    pid, sex = con.execute("SELECT subject_id, gender FROM patients LIMIT 1").fetchone()
    row = con.execute(
        "SELECT subject_id, max(dischtime) FROM admissions WHERE dischtime IS NOT NULL "
        "GROUP BY subject_id LIMIT 1"
    ).fetchone()
    con.close()
    for q in (
        f"What is the sex of patient {pid}?",
        f"Could you tell me the gender of patient {pid}?",
    ):
        a = conn.ask(q, now=NOW)
        assert a.decision == "accept", (q, a.reason)
        assert str(a.value).lower() == str(sex).lower()
    # anything else in the question leaves it to the general reader
    other = conn.ask(f"What is the sex of patient {pid} and their insurance?", now=NOW)
    assert other.decision != "accept" or str(other.value).lower() != str(sex).lower()
    d = conn.ask(f"When was patient {row[0]}'s last hospital discharge?", now=NOW)
    assert d.decision == "accept", d.reason
    assert str(d.value)[:16] == str(row[1])[:16]


def test_values_tied_at_the_last_time_are_not_picked(db: Path, tmp_path: Path) -> None:
    """Two values charted at the same last minute: not one of them picked by a tie-break."""
    import shutil

    copy = tmp_path / "tied.sqlite"
    shutil.copy(db, copy)
    con = sqlite3.connect(copy)
    pid, item, label = con.execute(
        "SELECT l.subject_id, l.itemid, d.label FROM labevents l JOIN d_labitems d "
        "ON d.itemid = l.itemid WHERE l.valuenum IS NOT NULL AND d.label = 'anion gap' "
        "GROUP BY d.label HAVING count(DISTINCT l.itemid) = 1 LIMIT 1"
    ).fetchone()
    row = con.execute(
        "SELECT hadm_id, charttime, valuenum, valueuom FROM labevents WHERE subject_id = ? "
        "AND itemid = ? AND valuenum IS NOT NULL ORDER BY charttime DESC LIMIT 1",
        (pid, item),
    ).fetchone()
    con.close()
    q = f"What was the last {label} of patient {pid}?"
    with cb.connect(f"sqlite:///{copy}") as c:
        before = c.ask(q, now=NOW)
    con = sqlite3.connect(copy)
    con.execute(
        "INSERT INTO labevents (row_id, subject_id, hadm_id, itemid, charttime, valuenum, "
        "valueuom) VALUES ((SELECT max(row_id) + 1 FROM labevents), ?, ?, ?, ?, ?, ?)",
        (pid, row[0], item, row[1], float(row[2]) + 1.0, row[3]),
    )
    con.commit()
    con.close()
    with cb.connect(f"sqlite:///{copy}") as c:
        after = c.ask(q, now=NOW)
    assert before.decision == "accept", before.reason
    assert float(before.value) == float(row[2])
    assert after.decision != "accept" or isinstance(after.value, list), after.value


def test_kind_narrowed_to_the_table_named(db: Path, conn: cb.Connection) -> None:
    """'a prescription': the prescriptions table, not every drug table (ICU inputs too)."""
    con = sqlite3.connect(db)
    pid, last = con.execute(
        "SELECT subject_id, max(starttime) FROM prescriptions GROUP BY subject_id LIMIT 1"
    ).fetchone()
    con.close()
    a = conn.ask(f"When did patient {pid} receive a prescription for the last time?", now=NOW)
    assert a.decision == "accept", a.reason
    assert a.plan is not None and a.plan["measure"]["stream"] == "prescriptions"
    assert str(a.value)[:16] == str(last)[:16]
