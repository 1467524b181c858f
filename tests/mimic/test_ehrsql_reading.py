"""Readings of EHRSQL-shaped questions on the generated MIMIC-IV database (answer or abstain)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import clinbridge.api as cb
from clinbridge.synthetic.mimic import NOW


def _patient_with(con: sqlite3.Connection, table: str) -> int:
    return int(con.execute(f"SELECT subject_id FROM {table} LIMIT 1").fetchone()[0])


def test_total_output_is_every_output_value(ehrsql_sqlite: Path) -> None:
    """'output' names the ICU output stream, not a concept whose label holds the word."""
    con = sqlite3.connect(ehrsql_sqlite)
    pid = _patient_with(con, "outputevents")
    gold = con.execute(
        "SELECT sum(value) FROM outputevents WHERE subject_id = ? AND charttime >= '2100-01-01'",
        (pid,),
    ).fetchone()[0]
    con.close()
    with cb.connect(f"sqlite:///{ehrsql_sqlite}") as conn:
        a = conn.ask(f"What was the total volume of output for patient {pid} since 2100?", now=NOW)
    assert a.decision == "accept", a.reason
    assert abs(float(a.value) - float(gold)) < 1e-6


def test_any_record_of_one_stream(ehrsql_sqlite: Path) -> None:
    """'has patient 7 had any procedure': any record of the one stream that kind names."""
    con = sqlite3.connect(ehrsql_sqlite)
    pid = _patient_with(con, "procedures_icd")
    con.close()
    with cb.connect(f"sqlite:///{ehrsql_sqlite}") as conn:
        a = conn.ask(f"Has patient {pid} received any procedure?", now=NOW)
    assert a.decision == "accept", a.reason
    assert a.value is True


def test_dose_totals_and_total_yes_no_abstain(ehrsql_sqlite: Path) -> None:
    """Doses summed, and a 'total' read as yes/no, abstain rather than answer another question;
    an input's total amount is the amounts summed."""
    con = sqlite3.connect(ehrsql_sqlite)
    pid, drug = con.execute("SELECT subject_id, drug FROM prescriptions LIMIT 1").fetchone()
    item, ipid, itemid = con.execute(
        "SELECT d.label, i.subject_id, i.itemid FROM inputevents i JOIN d_items d ON d.itemid = i.itemid LIMIT 1"
    ).fetchone()
    total = con.execute(
        "SELECT sum(totalamount) FROM inputevents WHERE subject_id = ? AND itemid = ? AND starttime >= '2100-01-01'",
        (ipid, itemid),
    ).fetchone()[0]
    con.close()
    questions = [
        f"How many doses of {drug} have been prescribed to patient {pid}?",
        f"Was patient {pid}'s heart rate last measured greater than the value first measured?",
    ]
    with cb.connect(f"sqlite:///{ehrsql_sqlite}") as conn:
        for q in questions:
            a = conn.ask(q, now=NOW)
            assert a.decision == "abstain", (q, a.value)
        # an input's total amount is what the table records, summed (no range of a serum
        # concentration applies to an infused volume)
        a = conn.ask(f"Get me patient {ipid}'s total {item} input amount since 2100.", now=NOW)
        assert a.decision == "abstain" or abs(a.value - total) < 1e-6, (a.value, total)
