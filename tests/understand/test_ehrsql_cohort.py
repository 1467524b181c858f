"""Two-event cohort questions on a generated EHRSQL-shaped (MIMIC-IV) SQLite database, checked
against SQL written here: 'the top N Ys within 2 months / in the same hospital visit / in the
same month after X' (each Y counted once per X it followed) and 'how many patients had Y ...
after X'. Questions that say something the reader does not express ('before X', 'first') are
left to the general reader."""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest

import clinbridge.api as cb
from clinbridge.engine.plan import (
    CalendarWindow,
    EventAnchor,
    QueryPlan,
    RelativeWindow,
)
from clinbridge.engine.understand._follow_read import read_follow
from clinbridge.synthetic.mimic import NOW

_PAIRS = {  # how T2 (the later event) is tied to T1 (the anchor event)
    "2 months": "datetime(t2.t) <= datetime(t1.t, '+2 months')",
    "hadm": "t1.hadm = t2.hadm",
    "month": "strftime('%Y-%m', t1.t) = strftime('%Y-%m', t2.t)",
}


@pytest.fixture(scope="module")
def db(ehrsql_sqlite: Path) -> Path:
    return ehrsql_sqlite  # the session's generated EHRSQL database (tests/conftest.py)


@pytest.fixture(scope="module")
def conn(db: Path) -> cb.Connection:
    c = cb.connect(f"sqlite:///{db}")
    yield c
    c.close()


def _rows(path: Path, sql: str, *args: object) -> list[tuple[object, ...]]:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


_DIAG = (
    "SELECT a.subject_id AS pid, a.hadm_id AS hadm, x.charttime AS t, d.long_title AS name "
    "FROM diagnoses_icd x JOIN d_icd_diagnoses d ON d.icd_code = x.icd_code "
    "JOIN admissions a ON a.hadm_id = x.hadm_id"
)
_PROC = (
    "SELECT a.subject_id AS pid, a.hadm_id AS hadm, x.charttime AS t, d.long_title AS name, "
    "x.icd_code AS code FROM procedures_icd x JOIN d_icd_procedures d ON d.icd_code = x.icd_code "
    "JOIN admissions a ON a.hadm_id = x.hadm_id"
)
_DRUG = (
    "SELECT a.subject_id AS pid, a.hadm_id AS hadm, x.starttime AS t, x.drug AS name "
    "FROM prescriptions x JOIN admissions a ON a.hadm_id = x.hadm_id"
)


def _plain(path: Path, table: str, sql: str) -> str:
    """A name of that table written without commas or 'and' (read as one phrase anywhere),
    with the most events."""
    return str(
        _rows(
            path,
            f"SELECT name FROM ({sql}) WHERE name NOT LIKE '%,%' AND name NOT LIKE '% and %' "
            "AND name NOT LIKE '%(%' GROUP BY name ORDER BY count(*) DESC, name LIMIT 1",
        )[0][0]
    )


def _top(path: Path, anchor_sql: str, x: str, later_sql: str, tie: str, n: int) -> set[str]:
    """The names ranked in the first n places by (anchor, later event) pairs."""
    rows = _rows(
        path,
        f"SELECT name FROM (SELECT t2.name, DENSE_RANK() OVER (ORDER BY count(*) DESC) AS rk "
        f"FROM ({anchor_sql}) t1 JOIN ({later_sql}) t2 ON t1.pid = t2.pid "
        f"WHERE t1.name = ? AND t1.t < t2.t AND {_PAIRS[tie]} GROUP BY t2.name) WHERE rk <= ?",
        x,
        n,
    )
    return {str(r[0]) for r in rows}


def test_top_diagnoses_within_two_months_after_a_procedure(db: Path, conn: cb.Connection) -> None:
    x = _plain(db, "procedures_icd", _PROC)
    want = _top(db, _PROC, x, _DIAG, "2 months", 3)
    a = conn.ask(
        f"What are the top three most frequent diagnoses that patients were diagnosed with "
        f"within 2 months after receiving {x}?",
        now=NOW,
    )
    assert want
    assert a.decision == "accept", a.reason
    w = a.plan["window"]
    assert w["unit"] == "month" and w["end_days"] == 2 and w["per_anchor"]
    assert set(a.value or []) == want


def test_top_drugs_in_the_same_hospital_visit_after_a_diagnosis(
    db: Path, conn: cb.Connection
) -> None:
    x = _plain(db, "diagnoses_icd", _DIAG)
    want = _top(db, _DIAG, x, _DRUG, "hadm", 4)
    a = conn.ask(
        f"What are the four most commonly prescribed medications for patients who were "
        f"previously diagnosed with {x} during the same hospital visit?",
        now=NOW,
    )
    assert want
    assert a.decision == "accept", a.reason
    assert a.plan["window"]["anchor"]["same"] == "encounter"
    assert set(a.value or []) == want


def test_count_of_patients_in_the_same_month_after(db: Path, conn: cb.Connection) -> None:
    """Some (X diagnosis, Y procedure) pair in the same month: the patients counted by SQL."""
    rows = _rows(
        db,
        f"SELECT t1.name, t2.name, count(DISTINCT t1.pid) FROM ({_DIAG}) t1 JOIN ({_PROC}) t2 "
        f"ON t1.pid = t2.pid WHERE t1.t < t2.t AND {_PAIRS['month']} "
        "AND t1.name NOT LIKE '%,%' AND t2.name NOT LIKE '%,%' "
        "AND t1.name NOT LIKE '% and %' AND t2.name NOT LIKE '% and %' "
        "GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 1",
    )
    x, y, n = rows[0]
    a = conn.ask(
        f"How many patients underwent {y} within the same month after the diagnosis of {x}?",
        now=NOW,
    )
    assert a.decision == "accept", a.reason
    assert a.value == n


def test_reverse_order_and_first_are_left_to_the_general_reader(conn: cb.Connection) -> None:
    conn.ask("how many patients?", now=NOW)  # builds the lexicon
    u = conn._understander
    assert u is not None
    lex, cat = u.lexicon, u.catalog
    name = next(e.name for e in lex.entries if e.stream == "condition" and "," not in e.name)
    for q in (
        f"What are the top three drugs prescribed within 2 months before being diagnosed with {name}?",
        f"How many patients were diagnosed with {name} within 2 months after first being "
        f"diagnosed with {name}?",
        f"What are the top three diagnoses of male patients within 2 months after {name}?",
    ):
        assert read_follow(q, lex, cat, NOW) is None, q


def test_plan_fields_round_trip() -> None:
    anchor = EventAnchor(
        stream="condition",
        which="each",
        same="month",
        dates=CalendarWindow(start=dt.date(2100, 1, 1)),
    )
    w = RelativeWindow(anchor=anchor, start_days=0, end_days=2, unit="month", per_anchor=True)
    plan = QueryPlan(window=w)
    assert QueryPlan.from_json(plan.to_json()) == plan


def _named_with_cost(path: Path) -> tuple[str, str]:
    """A procedure title with commas (one concept all the same) and charges recorded."""
    return _rows(
        path,
        "SELECT d.long_title, d.icd_code FROM procedures_icd p "
        "JOIN d_icd_procedures d ON d.icd_code = p.icd_code "
        "JOIN cost c ON c.event_type = 'procedures_icd' AND c.event_id = p.row_id "
        "WHERE d.long_title LIKE '%,%' GROUP BY 1, 2 ORDER BY count(*) DESC, 1 LIMIT 1",
    )[0]  # type: ignore[return-value]


def test_cost_of_a_procedure_named_exactly(db: Path, conn: cb.Connection) -> None:
    title, code = _named_with_cost(db)
    want = {
        float(v)  # type: ignore[arg-type]
        for (v,) in _rows(
            db,
            "SELECT DISTINCT c.cost FROM cost c JOIN procedures_icd p ON c.event_id = p.row_id "
            "WHERE c.event_type = 'procedures_icd' AND p.icd_code = ?",
            code,
        )
    }
    a = conn.ask(f"How much does a procedure called {title} cost?", now=NOW)
    assert a.decision == "accept", a.reason
    assert a.plan["measure"]["of"] == "cost"
    got = a.value if isinstance(a.value, list) else [a.value]
    assert {float(v) for v in got} == want


def test_maximum_total_stay_cost_in_a_year(db: Path, conn: cb.Connection) -> None:
    title, code = _named_with_cost(db)
    (want,) = _rows(
        db,
        "SELECT max(s) FROM (SELECT sum(c.cost) AS s FROM cost c WHERE c.hadm_id IN "
        "(SELECT hadm_id FROM procedures_icd WHERE icd_code = ?) "
        "AND strftime('%Y', c.chargetime) = '2100' GROUP BY c.hadm_id)",
        code,
    )[0]
    a = conn.ask(f"What is the maximum total hospital cost that involves {title} in 2100?", now=NOW)
    assert a.decision == "accept", a.reason
    assert a.plan["measure"]["of"] == "encounter_cost"
    assert a.value == pytest.approx(want)


def test_a_statistic_without_a_stay_is_not_read_as_a_cost(conn: cb.Connection) -> None:
    from clinbridge.engine.understand._cost_read import read_cost

    conn.ask("how many patients?", now=NOW)  # builds the lexicon
    u = conn._understander
    assert u is not None
    name = next(e.name for e in u.lexicon.entries if e.stream == "procedure")
    assert read_cost(f"What is the average expense for {name}?", u.lexicon, NOW) is None
    assert read_cost(f"What is the cost of {name} and of {name}?", u.lexicon, NOW) is None


def test_counts_over_one_procedure_named_exactly(db: Path, conn: cb.Connection) -> None:
    title, code = _named_with_cost(db)  # a title with commas: one concept all the same
    (patients, events) = _rows(
        db,
        "SELECT count(DISTINCT subject_id), count(*) FROM procedures_icd "
        "WHERE icd_code = ? AND strftime('%Y', charttime) >= '2100'",
        code,
    )[0]
    a = conn.ask(f"How many patients underwent {title} since 2100?", now=NOW)
    assert a.decision == "accept", a.reason
    assert a.value == patients
    b = conn.ask(f"How many times was {title} carried out since 2100?", now=NOW)
    assert b.decision == "accept", b.reason
    assert b.plan["measure"]["of"] == "events"
    assert b.value == events


def test_a_count_with_more_than_the_frame_is_left_to_the_general_reader(
    conn: cb.Connection,
) -> None:
    from clinbridge.engine.understand._count_read import read_count

    conn.ask("how many patients?", now=NOW)  # builds the lexicon
    u = conn._understander
    assert u is not None
    name = next(e.name for e in u.lexicon.entries if e.stream == "procedure")
    for q in (
        f"How many female patients underwent {name}?",
        f"How many patients underwent {name} for the first time in 2100?",
        f"How many times did patient 10001 undergo {name}?",
        f"How many patients did not undergo {name}?",
    ):
        assert read_count(q, u.lexicon, NOW) is None, q


def test_plain_ranking_of_lab_tests_in_a_year(db: Path, conn: cb.Connection) -> None:
    want = {
        str(r[0])
        for r in _rows(
            db,
            "SELECT d.label FROM d_labitems d WHERE d.itemid IN (SELECT itemid FROM "
            "(SELECT itemid, DENSE_RANK() OVER (ORDER BY count(*) DESC) AS rk FROM labevents "
            "WHERE strftime('%Y', charttime) = '2100' GROUP BY itemid) WHERE rk <= 3)",
        )
    }
    a = conn.ask("Retrieve the top three most frequent lab tests throughout this year.", now=NOW)
    assert a.decision == "accept", a.reason
    assert set(a.value or []) == want


def test_a_ranking_of_two_kinds_is_not_read(conn: cb.Connection) -> None:
    from clinbridge.engine.understand._count_read import read_rank

    conn.ask("how many patients?", now=NOW)  # builds the lexicon
    u = conn._understander
    assert u is not None
    for q in (
        "What are the top three drugs and procedures in 2100?",
        "What are the top three diagnoses of female patients?",
        "What are the top three most frequent microbiology tests?",
    ):
        assert read_rank(q, u.lexicon, NOW) is None, q


def test_count_of_patients_who_stayed_in_a_care_unit(db: Path, conn: cb.Connection) -> None:
    unit, n = _rows(
        db,
        "SELECT careunit, count(DISTINCT subject_id) FROM transfers "
        "WHERE careunit IS NOT NULL AND careunit NOT LIKE '%,%' "
        "AND strftime('%Y', intime) = '2100' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1",
    )[0]
    a = conn.ask(f"How many patients stayed in careunit {unit} in 2100?", now=NOW)
    assert a.decision == "accept", a.reason
    assert a.value == n


def test_a_reader_that_finds_another_shape_answers_none() -> None:
    from clinbridge.engine.understand._follow_read import NotRead, or_none
    from clinbridge.errors import UnderstandingError

    @or_none
    def reader() -> None:
        raise NotRead

    assert reader() is None
    assert issubclass(NotRead, UnderstandingError)


# -- age groups: the age recorded at each admission (admissions.age), not the age from dob --------


def _ranked_at_age(path: Path, table: str, dictionary: str, age_sql: str, n: int) -> set[str]:
    rows = _rows(
        path,
        f"SELECT d.long_title FROM {dictionary} d WHERE d.icd_code IN (SELECT code FROM "
        f"(SELECT x.icd_code AS code, DENSE_RANK() OVER (ORDER BY count(*) DESC) AS rk "
        f"FROM {table} x WHERE x.hadm_id IN (SELECT hadm_id FROM admissions WHERE {age_sql}) "
        f"GROUP BY x.icd_code) WHERE rk <= ?)",
        n,
    )
    return {str(r[0]) for r in rows}


def test_the_recorded_admission_age_differs_from_the_age_by_birth_date(db: Path) -> None:
    # the reason the age group is read from the admission: both ages are not the same here
    differ = _rows(
        db,
        "SELECT count(*) FROM admissions a JOIN patients p ON p.subject_id = a.subject_id "
        "WHERE a.age != CAST(strftime('%Y', a.admittime) AS INT) - CAST(strftime('%Y', p.dob) AS INT)",
    )[0][0]
    assert differ > 0


@pytest.mark.parametrize(
    ("question", "table", "dictionary", "age_sql", "n"),
    [
        (
            "Among patients aged 40s, what are the top three most common diagnoses?",
            "diagnoses_icd",
            "d_icd_diagnoses",
            "age BETWEEN 40 AND 49",
            3,
        ),
        (
            "Can you tell me the top four most common treatments for patients in their 30s?",
            "procedures_icd",
            "d_icd_procedures",
            "age BETWEEN 30 AND 39",
            4,
        ),
        (
            "What are the top five most frequent diagnoses of patients who are 60 or above?",
            "diagnoses_icd",
            "d_icd_diagnoses",
            "age >= 60",
            5,
        ),
    ],
)
def test_top_n_among_an_age_group_uses_the_age_at_each_admission(
    db: Path, conn: cb.Connection, question: str, table: str, dictionary: str, age_sql: str, n: int
) -> None:
    want = _ranked_at_age(db, table, dictionary, age_sql, n)
    a = conn.ask(question, now=NOW)
    assert want
    assert a.decision == "accept", a.reason
    assert a.plan["scope"]["age"]["kind"] == "age" and not a.plan["filters"]
    assert set(a.value or []) == want


def test_top_n_among_an_age_group_in_a_year(db: Path, conn: cb.Connection) -> None:
    year = _rows(db, "SELECT max(strftime('%Y', charttime)) FROM diagnoses_icd")[0][0]
    rows = _rows(
        db,
        "SELECT d.long_title FROM d_icd_diagnoses d WHERE d.icd_code IN (SELECT code FROM "
        "(SELECT x.icd_code AS code, DENSE_RANK() OVER (ORDER BY count(*) DESC) AS rk "
        "FROM diagnoses_icd x WHERE x.hadm_id IN (SELECT hadm_id FROM admissions WHERE age "
        "BETWEEN 50 AND 59) AND strftime('%Y', x.charttime) = ? GROUP BY x.icd_code) "
        "WHERE rk <= 3)",
        year,
    )
    a = conn.ask(
        f"Show me the top three most common diagnoses of patients with age 50s in {year}.", now=NOW
    )
    if not rows:
        assert a.decision != "accept" or not a.value
        return
    assert a.decision == "accept", a.reason
    assert set(a.value or []) == {str(r[0]) for r in rows}


@pytest.mark.parametrize(
    ("question", "age_sql"),
    [
        ("How many current patients are there in the 50s age group?", "age BETWEEN 50 AND 59"),
        (
            "Count the number of current patients whose ages fall within the 40s.",
            "age BETWEEN 40 AND 49",
        ),
        ("How many individuals are current patients in their 60 or above?", "age >= 60"),
    ],
)
def test_current_patients_of_an_age_group(
    db: Path, conn: cb.Connection, question: str, age_sql: str
) -> None:
    want = _rows(
        db,
        f"SELECT count(DISTINCT subject_id) FROM admissions WHERE dischtime IS NULL AND {age_sql}",
    )[0][0]
    a = conn.ask(question, now=NOW)
    assert a.decision == "accept", a.reason
    assert a.plan["scope"]["which"] == "current"
    assert a.value == want


@pytest.mark.parametrize(
    "question",
    [
        "What are the top three most common diagnoses of patients in their 40s and 50s?",
        "How many current patients are there in the 30s age group and in the 50s age group?",
        "What are the top three diagnoses of male patients in their 40s?",
    ],
)
def test_age_group_questions_saying_more_are_not_read_as_one_group(
    conn: cb.Connection, question: str
) -> None:
    a = conn.ask(question, now=NOW)
    scope = a.plan.get("scope") if a.plan else None
    assert not (a.decision == "accept" and scope and scope.get("age") and not a.plan["filters"])


def test_top_drugs_after_a_diagnosis_among_an_age_group(db: Path, conn: cb.Connection) -> None:
    # the age group is said of the later events (the prescriptions), at their own admission
    x = _plain(db, "diagnoses_icd", _DIAG)
    aged = (
        "SELECT a.subject_id AS pid, a.hadm_id AS hadm, x.starttime AS t, x.drug AS name "
        "FROM prescriptions x JOIN admissions a ON a.hadm_id = x.hadm_id WHERE a.age >= 60"
    )
    want = _top(db, _DIAG, x, aged, "hadm", 4)
    a = conn.ask(
        f"What are the four most frequently prescribed drugs during the same hospital encounter "
        f"to the patients aged 60 or above after they were diagnosed with {x}?",
        now=NOW,
    )
    assert a.decision == "accept", a.reason
    assert a.plan["scope"]["age"] == {"kind": "age", "op": ">=", "value": 60}
    assert set(a.value or []) == want
