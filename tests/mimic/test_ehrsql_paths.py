"""New answer paths on the generated MIMIC-IV database, each checked against SQL written here.

Top-N lists with dense-rank ties, the current (open) admission, the last admission that has
ended, ICU stays as nested encounters, per-event costs, stored times in date answers; and the
shapes next to them that must abstain.
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


def test_top_n_keeps_ties(ehrsql_sqlite: Path) -> None:
    """'the three most common diagnoses': every diagnosis whose count is among the top 3 counts."""
    counts = _rows(
        ehrsql_sqlite,
        "SELECT icd_code, count(*) FROM diagnoses_icd GROUP BY icd_code ORDER BY 2 DESC",
    )
    top_counts = sorted({n for _, n in counts}, reverse=True)[:3]
    codes = {c for c, n in counts if n in top_counts}
    names = {
        str(t)
        for (t,) in _rows(
            ehrsql_sqlite,
            f"SELECT long_title FROM d_icd_diagnoses WHERE icd_code IN ({','.join('?' * len(codes))})",
            *codes,
        )
    }
    a = _ask(ehrsql_sqlite, "What were the three most common diagnoses?")
    assert a.decision == "accept", a.reason
    assert a.plan["aggregate"]["top"] == 3
    assert set(a.value) == names


def test_ranking_by_something_else_abstains(ehrsql_sqlite: Path) -> None:
    for q in (
        "What are the top three diagnoses with the highest 3-month mortality rate?",
        "What are the three most common microbiology tests?",
        "What are the top four drugs prescribed to patient 10000032?",
    ):
        a = _ask(ehrsql_sqlite, q)
        assert a.decision == "abstain", (q, a.value)


def test_current_admission_and_last_ended_one(ehrsql_sqlite: Path) -> None:
    """'this hospital visit' is the open admission; 'the last hospital visit' the last ended."""
    rows = _rows(
        ehrsql_sqlite,
        "SELECT subject_id, hadm_id FROM admissions WHERE dischtime IS NULL "
        "AND subject_id IN (SELECT subject_id FROM labevents) LIMIT 1",
    )
    assert rows, "the generator places open admissions"
    pid, hadm = rows[0]
    n_open = _rows(
        ehrsql_sqlite, "SELECT count(DISTINCT itemid) FROM labevents WHERE hadm_id = ?", hadm
    )[0][0]
    a = _ask(
        ehrsql_sqlite,
        f"How many different lab tests did patient {pid} have during this hospital visit?",
    )
    assert a.decision == "accept", a.reason
    assert a.plan["scope"]["which"] == "current"
    assert a.value == n_open
    last = _rows(
        ehrsql_sqlite,
        "SELECT admittime FROM admissions WHERE subject_id = ? AND dischtime IS NOT NULL "
        "ORDER BY admittime DESC LIMIT 1",
        pid,
    )
    a = _ask(ehrsql_sqlite, f"When was patient {pid} last admitted to the hospital?")
    if last:
        assert a.decision == "accept", a.reason
        assert str(a.value) == str(last[0][0])[:19]  # the stored time, not only the day


def test_icu_stay_scope_matches_by_stay(ehrsql_sqlite: Path) -> None:
    rows = _rows(
        ehrsql_sqlite,
        "SELECT i.subject_id, i.stay_id FROM icustays i WHERE i.outtime IS NOT NULL "
        "AND EXISTS (SELECT 1 FROM chartevents c JOIN d_items d ON d.itemid = c.itemid "
        "WHERE c.stay_id = i.stay_id AND d.label = 'heart rate') ORDER BY i.intime LIMIT 1",
    )
    pid = rows[0][0]
    first_stay = _rows(
        ehrsql_sqlite,
        "SELECT stay_id FROM icustays WHERE subject_id = ? AND outtime IS NOT NULL "
        "ORDER BY intime LIMIT 1",
        pid,
    )[0][0]
    gold = _rows(
        ehrsql_sqlite,
        "SELECT max(c.valuenum) FROM chartevents c JOIN d_items d ON d.itemid = c.itemid "
        "WHERE c.stay_id = ? AND d.label = 'heart rate'",
        first_stay,
    )[0][0]
    a = _ask(
        ehrsql_sqlite,
        f"What was the maximum heart rate of patient {pid} during the first ICU stay?",
    )
    if gold is None:
        assert a.decision == "abstain"
        return
    assert a.decision == "accept", a.reason
    assert a.plan["scope"] == {"which": "first", "type": "icu"}
    assert abs(float(a.value) - float(gold)) < 1e-9
    # the length of one ICU stay is its exact time in days (with the fraction), not whole days
    a = _ask(ehrsql_sqlite, f"What was the length of stay of patient {pid}'s first ICU stay?")
    assert a.decision == "accept", a.reason
    (days,) = _rows(
        ehrsql_sqlite,
        "SELECT julianday(outtime) - julianday(intime) FROM icustays WHERE stay_id = ?",
        first_stay,
    )[0]
    assert abs(float(a.value) - days) < 1e-9


def test_cost_of_a_drug_is_its_distinct_charges(ehrsql_sqlite: Path) -> None:
    drug = _rows(
        ehrsql_sqlite,
        "SELECT p.drug FROM prescriptions p JOIN cost c ON c.event_type = 'prescriptions' "
        "AND c.event_id = p.row_id GROUP BY p.drug ORDER BY count(*) DESC LIMIT 1",
    )[0][0]
    gold = {
        round(float(v), 6)
        for (v,) in _rows(
            ehrsql_sqlite,
            "SELECT DISTINCT c.cost FROM cost c JOIN prescriptions p ON c.event_type = "
            "'prescriptions' AND c.event_id = p.row_id WHERE p.drug = ?",
            drug,
        )
    }
    a = _ask(ehrsql_sqlite, f"What is the cost of {drug}?")
    assert a.decision == "accept", a.reason
    assert a.plan["measure"]["of"] == "cost"
    assert {round(float(v), 6) for v in a.value} == gold
    for q in (
        f"What is the total cost of {drug} for the patients who got it?",
        f"What is the maximum cost of {drug} since 2100?",
    ):
        assert _ask(ehrsql_sqlite, q).decision == "abstain", q


def test_admission_facts_and_discharges(ehrsql_sqlite: Path) -> None:
    pid = _rows(
        ehrsql_sqlite,
        "SELECT subject_id FROM admissions WHERE dischtime IS NOT NULL GROUP BY subject_id "
        "HAVING count(*) > 1 LIMIT 1",
    )[0][0]
    (first_ins,) = _rows(
        ehrsql_sqlite,
        "SELECT insurance FROM admissions WHERE subject_id = ? AND dischtime IS NOT NULL "
        "ORDER BY admittime LIMIT 1",
        pid,
    )[0]
    (last_out,) = _rows(
        ehrsql_sqlite,
        "SELECT max(dischtime) FROM admissions WHERE subject_id = ?",
        pid,
    )[0]
    a = _ask(
        ehrsql_sqlite, f"What was the insurance of patient {pid} on their first hospital visit?"
    )
    assert a.decision == "accept", a.reason
    assert a.value == first_ins
    a = _ask(ehrsql_sqlite, f"When was patient {pid} last discharged from the hospital?")
    assert a.decision == "accept", a.reason
    assert str(a.value) == str(last_out)[:19]
    for q in (
        f"What was the insurance of patient {pid}?",  # which admission?
        f"How many times was patient {pid} discharged?",
        "What was the insurance on the last hospital visit?",
    ):
        assert _ask(ehrsql_sqlite, q).decision == "abstain", q


def test_or_list_split_by_the_walk_is_one_list(ehrsql_sqlite: Path) -> None:
    pid, _hadm = _rows(
        ehrsql_sqlite,
        "SELECT subject_id, hadm_id FROM admissions WHERE dischtime IS NOT NULL "
        "AND hadm_id IN (SELECT hadm_id FROM prescriptions) ORDER BY admittime LIMIT 1",
    )[0]
    given = _rows(
        ehrsql_sqlite, "SELECT DISTINCT drug FROM prescriptions WHERE subject_id = ? LIMIT 2", pid
    )
    never = _rows(
        ehrsql_sqlite,
        "SELECT DISTINCT drug FROM prescriptions WHERE drug NOT IN "
        "(SELECT drug FROM prescriptions WHERE subject_id = ?) LIMIT 2",
        pid,
    )
    assert given and len(never) == 2, "the generator prescribes many drugs"
    q = f"Was patient {pid} prescribed {never[0][0]}, {never[1][0]}, or {given[0][0]}?"
    a = _ask(ehrsql_sqlite, q)
    assert a.decision == "accept", a.reason
    assert a.value is True
    assert not a.plan["filters"]


def test_census_of_now_abstains(ehrsql_sqlite: Path) -> None:
    assert _ask(ehrsql_sqlite, "How many operating rooms are there now?").decision == "abstain"


def test_statistic_of_stay_totals(ehrsql_sqlite: Path) -> None:
    """'the maximum total hospital cost that involves X': the largest total charge of a stay
    that held an event of X."""
    drug = _rows(
        ehrsql_sqlite,
        "SELECT drug FROM prescriptions GROUP BY drug ORDER BY count(DISTINCT hadm_id) DESC LIMIT 1",
    )[0][0]
    gold = _rows(
        ehrsql_sqlite,
        "SELECT max(t) FROM (SELECT sum(cost) AS t FROM cost WHERE hadm_id IN "
        "(SELECT hadm_id FROM prescriptions WHERE drug = ?) GROUP BY hadm_id)",
        drug,
    )[0][0]
    a = _ask(ehrsql_sqlite, f"What is the maximum total hospital cost that involves {drug}?")
    assert a.decision == "accept", a.reason
    assert a.plan["measure"]["of"] == "encounter_cost"
    assert abs(float(a.value) - float(gold)) < 1e-6
    a = _ask(ehrsql_sqlite, f"What is the total hospital cost that involves {drug}?")
    assert a.decision == "abstain"  # which statistic of the totals?
