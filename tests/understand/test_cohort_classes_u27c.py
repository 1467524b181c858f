"""Cohorts qualified by birth year, and classes defined by the members a question lists (issue 8).

Wording of our own, never a devset question's; golds from SQL on the same database.
"""

from __future__ import annotations

from typing import Any

NOW = "2019-07-03"


def _one(conn: Any, sql: str) -> Any:
    return conn.db.execute(sql, max_rows=None).rows[0][0]


def test_birth_years_qualify_the_cohort(gibleed: Any) -> None:
    cases = {
        "how many female patients born before 1945 have had sinusitis": (
            "year_of_birth < 1945 AND gender_concept_id = 8532"
        ),
        "number of persons born in 1960 or later with a sinusitis diagnosis": (
            "year_of_birth >= 1960"
        ),
        "count the sinusitis patients who were born between 1940 and 1949": (
            "year_of_birth BETWEEN 1940 AND 1949"
        ),
        "sinusitis patients born in the 1950s - how many?": "year_of_birth BETWEEN 1950 AND 1959",
        "how many sinusitis patients were born after 1965": "year_of_birth > 1965",
    }
    for q, cond in cases.items():
        want = _one(
            gibleed,
            "SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN person p "
            "USING (person_id) JOIN concept k ON k.concept_id = c.condition_concept_id "
            f"WHERE lower(k.concept_name) LIKE '%sinusitis%' AND {cond}",
        )
        a = gibleed.ask(q, now=NOW)
        assert a.decision == "accept", (q, a.reason)
        assert a.value == want, q


def test_birth_year_columns_are_read_as_birth_years(gibleed: Any) -> None:
    want = _one(gibleed, "SELECT count(*) FROM person WHERE year_of_birth BETWEEN 1920 AND 1929")
    a = gibleed.ask("count of person rows with year_of_birth 1920-1929", now=NOW)
    assert a.decision == "accept" and a.value == want


def test_birth_words_not_read_leave_born_unread(gibleed: Any) -> None:
    # a month, a day inside a year, a proportion of birth years: not read here
    for q in (
        "how many patients were born in March",
        "how many patients were born before 15 June 1950",
        "what proportion of patients were born before 1950",
    ):
        a = gibleed.ask(q, now=NOW)
        assert a.decision == "abstain", q


def test_a_list_after_namely_or_that_is_defines_the_class(gibleed: Any) -> None:
    base = gibleed.ask("how many persons took a statin (simvastatin or atorvastatin)", now=NOW)
    assert base.decision == "accept"
    for q in (
        "how many persons took a statin, namely simvastatin or atorvastatin",
        "number of persons exposed to a statin, that is any simvastatin or atorvastatin product",
        "how many persons received a statin — simvastatin or atorvastatin — ever?",
    ):
        a = gibleed.ask(q, now=NOW)
        assert a.decision == "accept", (q, a.reason)
        assert a.value == base.value, q
    # examples define nothing
    a = gibleed.ask("how many persons took a statin, that is e.g. simvastatin or others", now=NOW)
    assert a.decision == "abstain"


def test_count_units_and_breaths_per_minute_are_units(s27: Any) -> None:
    pairs = (
        ("how many patients ever had a respiratory rate over 22", "breaths per minute"),
        ("how many patients ever had a red blood cell count under 4.2", "x10^6/uL"),
    )
    for q, unit in pairs:
        plain = s27.ask(q, now="2022-10-10")
        said = s27.ask(f"{q} {unit}", now="2022-10-10")
        assert plain.decision == "accept" and said.decision == "accept", (q, said.reason)
        assert said.value == plain.value
    wrong = s27.ask("how many patients ever had a respiratory rate over 22 mmHg", now="2022-10-10")
    assert wrong.decision == "abstain"
