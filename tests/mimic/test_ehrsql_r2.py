"""Readings fixed on EHRSQL-2024 train wrong answers, checked against SQL written here.

'within N days after X' with no first/last said is relative to each X, strictly after it at
the stored time; a shorthand word inside an exact source name stays part of it; 'count the
number of times' counts events.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import clinbridge.api as cb
from clinbridge.synthetic.mimic import NOW


def _rows(path: Path, sql: str, *args: object) -> list[tuple[object, ...]]:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def _ask(path: Path, question: str) -> cb.Answer:
    with cb.connect(f"sqlite:///{path}") as conn:
        return conn.ask(question, now=NOW)


def test_within_days_after_each_procedure(ehrsql_sqlite: Path) -> None:
    """Drugs started after any of the patient's procedures X, within 48 hours of it."""
    pid, title = _rows(
        ehrsql_sqlite,
        "SELECT p.subject_id, d.long_title FROM procedures_icd p "
        "JOIN d_icd_procedures d ON d.icd_code = p.icd_code "
        "WHERE d.long_title NOT LIKE '%,%' AND d.long_title NOT LIKE '% and %' "
        "GROUP BY p.subject_id, d.long_title HAVING count(*) > 1 ORDER BY count(*) DESC LIMIT 1",
    )[0]
    want = {
        str(d)
        for (d,) in _rows(
            ehrsql_sqlite,
            "SELECT DISTINCT r.drug FROM procedures_icd p "
            "JOIN d_icd_procedures d ON d.icd_code = p.icd_code "
            "JOIN prescriptions r ON r.subject_id = p.subject_id "
            "WHERE p.subject_id = ? AND d.long_title = ? AND p.charttime < r.starttime "
            "AND datetime(r.starttime) <= datetime(p.charttime, '+2 days')",
            pid,
            title,
        )
    }
    a = _ask(
        ehrsql_sqlite,
        f"What was the name of the drug prescribed for patient {pid} within 2 days after "
        f"having received a {title} procedure?",
    )
    assert a.decision == "accept", a.reason
    assert a.plan["window"]["anchor"]["which"] == "each"
    assert set(a.value or []) == want


def test_within_days_after_the_first_stays_first(ehrsql_sqlite: Path) -> None:
    a = _ask(
        ehrsql_sqlite,
        "How many patients were diagnosed with hypertension within 30 days after "
        "their first prescription of aspirin?",
    )
    if a.decision == "accept":
        assert "each" not in str(a.plan)


def test_shorthand_inside_a_drug_name_stays(ehrsql_sqlite: Path) -> None:
    drugs = [str(d) for (d,) in _rows(ehrsql_sqlite, "SELECT DISTINCT drug FROM prescriptions")]
    name = next((d for d in drugs if d.endswith(" cr") and d[:-3] in drugs), None)
    if name is None:
        return
    (n,) = _rows(ehrsql_sqlite, "SELECT count(*) FROM prescriptions WHERE drug = ?", name)[0]
    a = _ask(ehrsql_sqlite, f"How many prescriptions for {name} were made?")
    assert a.decision == "accept", a.reason
    assert a.value == n


def test_count_the_number_of_times_counts_events(ehrsql_sqlite: Path) -> None:
    (title, n) = _rows(
        ehrsql_sqlite,
        "SELECT d.long_title, count(*) FROM procedures_icd p "
        "JOIN d_icd_procedures d ON d.icd_code = p.icd_code "
        "WHERE d.long_title NOT LIKE '%,%' AND d.long_title NOT LIKE '% and %' "
        "GROUP BY d.long_title HAVING count(*) > count(DISTINCT p.subject_id) "
        "ORDER BY count(*) DESC LIMIT 1",
    )[0]
    a = _ask(ehrsql_sqlite, f"Count the number of times that {title} was performed.")
    assert a.decision == "accept", a.reason
    assert a.plan["measure"]["of"] == "events"
    assert a.value == n


def test_a_care_unit_named_exactly_is_that_unit(ehrsql_sqlite: Path) -> None:
    """'in the emergency department observation': patients with a transfer to that unit."""
    units = [str(u) for (u,) in _rows(ehrsql_sqlite, "SELECT DISTINCT careunit FROM transfers")]
    unit = next((u for u in units if u.startswith("emergency department ")), None)
    if unit is None:
        return
    (n,) = _rows(
        ehrsql_sqlite,
        "SELECT count(DISTINCT subject_id) FROM transfers WHERE careunit = ?",
        unit,
    )[0]
    a = _ask(ehrsql_sqlite, f"How many patients were present in the {unit}?")
    assert a.decision == "accept", a.reason
    assert a.value == n
