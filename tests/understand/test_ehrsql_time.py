"""One patient's time questions on a generated MIMIC-IV database, each checked against SQL
written here: the time since a first / last event in the open admission, one ICU stay's
length, and the change between two measurements; the shapes next to them abstain."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import clinbridge.api as cb
from clinbridge.engine.plan import Aggregate, Measure, QueryPlan
from clinbridge.synthetic.mimic import NOW


@pytest.fixture(scope="module")
def db(ehrsql_sqlite: Path) -> Path:
    return ehrsql_sqlite  # the session's generated EHRSQL database (tests/conftest.py)


@pytest.fixture(scope="module")
def conn(db: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    from clinbridge.settings import Settings

    cache = tmp_path_factory.mktemp("ehrsql_time_cache")
    settings = Settings(embeddings="off", examples=str(cache / "none.jsonl"))
    with cb.connect(f"sqlite:///{db}", settings=settings, cache_dir=cache) as c:
        yield c


def _one(db: Path, sql: str) -> tuple[Any, ...]:
    con = sqlite3.connect(db)
    try:
        row = con.execute(sql.replace("NOW", f"'{NOW}'")).fetchone()
    finally:
        con.close()
    assert row is not None, sql
    return tuple(row)


def test_hours_and_days_since_last_lab_in_open_admission(db: Path, conn: Any) -> None:
    pid, label, hours = _one(
        db,
        """SELECT a.subject_id, d.label, 24 * (julianday(NOW) - julianday(max(l.charttime)))
        FROM labevents l JOIN admissions a ON a.hadm_id = l.hadm_id
        JOIN d_labitems d ON d.itemid = l.itemid
        WHERE a.dischtime IS NULL AND d.label NOT LIKE '%,%'
        AND (SELECT count(*) FROM d_labitems d2 WHERE d2.label = d.label) = 1
        GROUP BY a.subject_id, d.label ORDER BY a.subject_id, d.label LIMIT 1""",
    )
    q = f"How many hours have passed since patient {pid}'s last {label} lab test on the current hospital visit?"
    a = conn.ask(q, now=NOW)
    assert a.decision == "accept", a.reason
    assert a.plan["measure"]["elapsed"] == "hours"
    assert abs(float(a.value) - hours) < 1e-6
    q = f"How many days have elapsed since the last time patient {pid} received a {label} lab test in their current hospital encounter?"
    a = conn.ask(q, now=NOW)
    assert a.decision == "accept", a.reason
    assert abs(float(a.value) - hours / 24) < 1e-6


def test_first_icu_stay_length(db: Path, conn: Any) -> None:
    pid, days = _one(
        db,
        """SELECT subject_id, julianday(outtime) - julianday(intime) FROM icustays i
        WHERE outtime IS NOT NULL AND intime = (SELECT min(intime) FROM icustays j
        WHERE j.subject_id = i.subject_id AND j.outtime IS NOT NULL)
        ORDER BY subject_id LIMIT 1""",
    )
    a = conn.ask(f"Calculate the length of patient {pid}'s first stay in the ICU in days.", now=NOW)
    assert a.decision == "accept", a.reason
    assert abs(float(a.value) - days) < 1e-6


def test_change_between_last_and_first_value_of_first_admission(db: Path, conn: Any) -> None:
    pid, label, change = _one(
        db,
        """WITH adm AS (SELECT subject_id, hadm_id FROM admissions a WHERE dischtime IS NOT NULL
        AND admittime = (SELECT min(admittime) FROM admissions b WHERE b.subject_id = a.subject_id
        AND b.dischtime IS NOT NULL)),
        v AS (SELECT adm.subject_id AS pid, d.label, l.charttime AS t, l.valuenum AS x
        FROM labevents l JOIN adm ON adm.hadm_id = l.hadm_id JOIN d_labitems d ON d.itemid = l.itemid
        WHERE l.valuenum IS NOT NULL AND d.label NOT LIKE '%,%'
        AND (SELECT count(*) FROM d_labitems d2 WHERE d2.label = d.label) = 1),
        ends AS (SELECT pid, label, min(t) AS t0, max(t) AS t1 FROM v GROUP BY pid, label
        HAVING count(DISTINCT t) > 1)
        SELECT e.pid, e.label,
        (SELECT max(x) FROM v WHERE v.pid = e.pid AND v.label = e.label AND v.t = e.t1)
        - (SELECT min(x) FROM v WHERE v.pid = e.pid AND v.label = e.label AND v.t = e.t0)
        FROM ends e WHERE (SELECT count(*) FROM v WHERE v.pid = e.pid AND v.label = e.label
        AND v.t IN (e.t0, e.t1)) = 2 ORDER BY e.pid, e.label LIMIT 1""",
    )
    q = (
        f"What is patient {pid}'s difference in {label} from the last value measured on the first "
        "hospital visit compared to the first value measured on the first hospital visit?"
    )
    a = conn.ask(q, now=NOW)
    assert a.decision == "accept", a.reason
    assert a.plan["minus"]["aggregate"]["op"] == "first"
    assert abs(float(a.value) - change) < 1e-6


@pytest.mark.parametrize(
    "question",
    [
        # a position the reader does not say
        "What is patient {pid}'s difference in {label} from the third value measured on the first "
        "hospital visit compared to the first value measured on the first hospital visit?",
        # a name the source does not hold
        "How many hours have passed since patient {pid}'s last zyxwvutase lab test on the current "
        "hospital visit?",
        # first and last both named: which one is not said
        "How many hours have passed since patient {pid}'s first and last {label} lab test on the "
        "current hospital visit?",
    ],
)
def test_shapes_next_to_them_abstain(db: Path, conn: Any, question: str) -> None:
    pid, label = _one(
        db, "SELECT l.subject_id, d.label FROM labevents l JOIN d_labitems d USING (itemid) LIMIT 1"
    )
    a = conn.ask(question.format(pid=pid, label=label), now=NOW)
    assert a.decision == "abstain", a.value


def test_plan_fields_round_trip_and_validate() -> None:
    one = QueryPlan(
        patient_id="1",
        measure=Measure(of="date", stream="labevents", elapsed="hours"),
        aggregate=Aggregate(op="last"),
    )
    plan = one.model_copy(update={"minus": one})
    assert QueryPlan.from_json(plan.to_json()) == plan
    with pytest.raises(ValueError, match="elapsed"):
        QueryPlan(
            measure=Measure(of="date", stream="x", elapsed="days"), aggregate=Aggregate(op="count")
        )
    with pytest.raises(ValueError, match="minus"):
        QueryPlan(patient_id="1", aggregate=Aggregate(op="count"), minus=one)


def test_totals_of_input_and_output(db: Path, conn: Any) -> None:
    pid, day, total = _one(
        db,
        """SELECT subject_id, date(charttime), sum(value) FROM outputevents
        GROUP BY subject_id, date(charttime) ORDER BY count(*) DESC, subject_id LIMIT 1""",
    )
    y, m, d = str(day).split("-")
    (since,) = _one(
        db,
        f"SELECT sum(value) FROM outputevents WHERE subject_id = {pid} AND date(charttime) >= '{day}'",
    )
    a = conn.ask(f"Show me patient {pid}'s total volume of output since {m}/{d}/{y}.", now=NOW)
    assert a.decision == "accept", a.reason
    assert abs(float(a.value) - since) < 1e-6
    a = conn.ask(f"What was the total amount of output of patient {pid} on {m}/{d}/{y}?", now=NOW)
    assert a.decision == "accept", a.reason
    assert abs(float(a.value) - total) < 1e-6
    (inputs,) = _one(
        db,
        f"SELECT sum(totalamount) FROM inputevents WHERE subject_id = {pid} AND date(starttime) >= '{day}'",
    )
    a = conn.ask(
        f"Calculate the difference between the total input and output of patient {pid} since {m}/{d}/{y}.",
        now=NOW,
    )
    if inputs is None:
        assert a.decision == "abstain"
    else:
        assert a.decision == "accept", a.reason
        assert abs(float(a.value) - (inputs - since)) < 1e-6


def test_total_with_a_word_not_read_abstains(db: Path, conn: Any) -> None:
    (pid,) = _one(db, "SELECT subject_id FROM outputevents LIMIT 1")
    a = conn.ask(f"What was the total zyxwv output of patient {pid} since 01/01/2100?", now=NOW)
    assert a.decision == "abstain", a.value


def test_max_of_a_lab_in_the_first_admission_and_monthly_averages(db: Path, conn: Any) -> None:
    pid, label, top = _one(
        db,
        """WITH adm AS (SELECT subject_id, hadm_id FROM admissions a WHERE dischtime IS NOT NULL
        AND admittime = (SELECT min(admittime) FROM admissions b WHERE b.subject_id = a.subject_id
        AND b.dischtime IS NOT NULL))
        SELECT adm.subject_id, d.label, max(l.valuenum) FROM labevents l
        JOIN adm ON adm.hadm_id = l.hadm_id JOIN d_labitems d ON d.itemid = l.itemid
        WHERE l.valuenum IS NOT NULL AND d.label NOT LIKE '%,%'
        AND (SELECT count(*) FROM d_labitems d2 WHERE d2.label = d.label) = 1
        GROUP BY adm.subject_id, d.label ORDER BY adm.subject_id, d.label LIMIT 1""",
    )
    a = conn.ask(
        f"What was the maximum value of {label} of patient {pid} on the first hospital visit?",
        now=NOW,
    )
    assert a.decision == "accept", a.reason
    assert abs(float(a.value) - top) < 1e-6
    con = sqlite3.connect(db)
    months = {
        round(v, 6)
        for (v,) in con.execute(
            """SELECT avg(l.valuenum) FROM labevents l JOIN d_labitems d USING (itemid)
            WHERE l.subject_id = ? AND d.label = ? AND l.valuenum IS NOT NULL
            GROUP BY strftime('%Y-%m', l.charttime)""",
            (pid, label),
        )
    }
    con.close()
    a = conn.ask(f"Can you give me the monthly average {label} value of patient {pid}?", now=NOW)
    assert a.decision == "accept", a.reason
    assert a.plan["group_by"][0]["key"] == "month"
    assert {round(float(r[-1]), 6) for r in a.rows} == months


def test_polite_request_is_not_a_yes_no_question() -> None:
    from clinbridge.engine._shapes import question_shape

    assert question_shape("Can you give me patient 1's daily maximum heart rate?") is None
    assert question_shape("Can you tell me if patient 1 had a heart rate?") == "boolean"
    assert question_shape("Show me the total amount of patient 1's output.") is None
    assert question_shape("Show me the drugs of patient 1.") == "list"


def test_second_to_last_and_a_name_said_loosely(db: Path, conn: Any) -> None:
    pid, change = _one(
        db,
        """WITH adm AS (SELECT subject_id, hadm_id FROM admissions a WHERE dischtime IS NOT NULL
        AND admittime = (SELECT min(admittime) FROM admissions b WHERE b.subject_id = a.subject_id
        AND b.dischtime IS NOT NULL)),
        v AS (SELECT adm.subject_id AS pid, c.charttime AS t, c.valuenum AS x FROM chartevents c
        JOIN icustays i ON i.stay_id = c.stay_id JOIN adm ON adm.hadm_id = i.hadm_id
        JOIN d_items d ON d.itemid = c.itemid WHERE d.label = 'daily weight'),
        times AS (SELECT pid, t, count(*) AS n, row_number() OVER (PARTITION BY pid ORDER BY t DESC) AS k
        FROM v GROUP BY pid, t)
        SELECT a.pid, (SELECT x FROM v WHERE v.pid = a.pid AND v.t = a.t)
        - (SELECT x FROM v WHERE v.pid = b.pid AND v.t = b.t)
        FROM times a JOIN times b ON a.pid = b.pid AND a.k = 1 AND b.k = 2
        WHERE a.n = 1 AND b.n = 1 ORDER BY a.pid LIMIT 1""",
    )
    q = (
        f"How much does the weight of patient {pid} change last measured on the first hospital visit "
        "compared to the second to last value measured on the first hospital visit?"
    )
    a = conn.ask(q, now=NOW)
    assert a.decision == "accept", a.reason
    assert a.plan["minus"]["aggregate"]["nth"] == 2
    assert abs(float(a.value) - change) < 1e-6


def test_change_between_values_at_two_times(db: Path, conn: Any) -> None:
    pid, t1, t0, change = _one(
        db,
        """WITH v AS (SELECT c.subject_id AS pid, c.charttime AS t, c.valuenum AS x,
        count(*) OVER (PARTITION BY c.subject_id, c.charttime) AS n FROM chartevents c
        JOIN d_items d ON d.itemid = c.itemid WHERE d.label = 'heart rate')
        SELECT a.pid, a.t, b.t, a.x - b.x FROM v a JOIN v b ON a.pid = b.pid AND b.t < a.t
        WHERE a.n = 1 AND b.n = 1 ORDER BY a.pid, a.t, b.t LIMIT 1""",
    )
    q = (
        f"What is the difference in the heart rate of patient {pid} measured at {t1} compared to "
        f"the value measured at {t0}?"
    )
    a = conn.ask(q, now=NOW)
    assert a.decision == "accept", a.reason
    assert abs(float(a.value) - change) < 1e-6
