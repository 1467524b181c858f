"""Reading classes from the opened devset9 GiBleed failures (stop 25), in our own wordings.

Two events on one calendar day; modifiers sharing a head ('ankle or wrist sprain'); a calendar
window said after an or-list; a definite singular whose names split into variants ('the
hepatitis vaccine'); a shot or injection that is a vaccine or a procedure; 'up to today'
closing an open window; an ordinal never grounded alone; 'its removal'; bare patient numbers;
an ingredient id beside a name; two event tables in one data-manager question; 'age today';
'before their Nth birthday'; 'strictly before'. Gold by hand SQL on devset2's databases.
"""

from __future__ import annotations

from typing import Any

from tests.understand._devset2db import devset2_gold

NOW = "2019-07-03"
CVA, ALTEPLASE = 381316, 1347450
ANKLE_SPRAIN, WRIST_SPRAIN = 81151, 78272


def _desc(ancestor: int) -> str:
    return (
        f"SELECT descendant_concept_id FROM concept_ancestor WHERE ancestor_concept_id = {ancestor}"
    )


def test_an_event_on_the_same_day_as_another(gibleed: Any) -> None:
    gold = devset2_gold(
        "gibleed",
        "SELECT count(DISTINCT co.person_id) FROM condition_occurrence co JOIN drug_exposure de "
        "ON de.person_id = co.person_id AND de.drug_exposure_start_date = co.condition_start_date "
        f"WHERE co.condition_concept_id IN ({_desc(CVA)}) AND de.drug_concept_id IN ({_desc(ALTEPLASE)})",
    )
    for q in (
        "How many patients got alteplase on the same calendar day as a cerebrovascular accident?",
        "number of stroke patients given tPA the same day as their stroke diagnosis",
    ):
        a = gibleed.ask(q, now=NOW)
        assert a.decision == "accept" and a.value == gold, q
    # 'the same day' with no event to be the same as stays unread
    b = gibleed.ask("How many patients received alteplase on the same day?", now=NOW)
    assert b.decision == "abstain"


def test_modifiers_share_the_head_and_the_window_covers_the_list(gibleed: Any) -> None:
    gold = devset2_gold(
        "gibleed",
        f"SELECT count(*) FROM condition_occurrence WHERE condition_concept_id IN ({ANKLE_SPRAIN}, "
        f"{WRIST_SPRAIN}) AND year(condition_start_date) = 2018",
    )
    for q in (
        "How many wrist or ankle sprain diagnoses were made in 2018?",
        "How many ankle sprain or wrist sprain records are there in 2018?",
    ):
        a = gibleed.ask(q, now=NOW)
        assert a.decision == "accept" and a.value == gold, q
    people = devset2_gold(
        "gibleed",
        "SELECT count(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id "
        f"IN ({ANKLE_SPRAIN}, {WRIST_SPRAIN})",
    )
    b = gibleed.ask("How many patients had an ankle or wrist sprain?", now=NOW)
    assert b.decision == "accept" and b.value == people


def test_the_definite_singular_of_split_names_asks_which(gibleed: Any) -> None:
    a = gibleed.ask("how many people received the hepatitis vaccine", now=NOW)
    assert a.decision == "abstain" and a.reason_code == "ambiguous"
    assert len(a.alternatives) == 2
    # 'a hepatitis vaccine' is any of them
    b = gibleed.ask("how many people received a hepatitis vaccine", now=NOW)
    assert b.decision == "accept"


def test_an_injection_that_is_also_a_vaccine_asks_which(gibleed: Any) -> None:
    a = gibleed.ask("number of patients with a tetanus injection", now=NOW)
    assert a.decision == "abstain" and "vaccine" in (a.reason or "")


def test_up_to_today_closes_an_open_window(gibleed: Any) -> None:
    a = gibleed.ask("Was any lung transplant done since 1 March 2018 (up to today)?", now=NOW)
    assert a.decision == "accept" and a.value is False
    b = gibleed.ask(
        "how many patients started naproxen in the past 30 days, from 2019-06-03 up to today?",
        now=NOW,
    )
    c = gibleed.ask("how many patients started naproxen in the past 30 days?", now=NOW)
    assert b.decision == c.decision == "accept" and b.value == c.value


def test_an_ordinal_is_never_a_concept(gibleed: Any) -> None:
    a = gibleed.ask("how many patients got a second dose of hepatitis B vaccine", now=NOW)
    assert a.decision == "abstain" and "second" in (a.reason or "")
    b = gibleed.ask("how many patients had a second degree burn", now=NOW)
    assert b.decision == "accept"


def test_its_removal_takes_the_object_of_the_insertion(gibleed: Any) -> None:
    gold = devset2_gold(
        "gibleed",
        "SELECT max(CASE WHEN procedure_concept_id = 4199276 THEN procedure_date END) - "
        "min(CASE WHEN procedure_concept_id = 4059978 THEN procedure_date END) "
        "FROM procedure_occurrence WHERE person_id = 700",
    )
    a = gibleed.ask(
        "patient 700: how many days elapsed between the insertion of her subcutaneous "
        "contraceptive and its removal",
        now=NOW,
    )
    assert a.decision == "accept" and a.value == gold


def test_bare_patient_numbers_first_or_last(gibleed: Any) -> None:
    last = devset2_gold(
        "gibleed", "SELECT max(drug_exposure_start_date) FROM drug_exposure WHERE person_id = 1655"
    )
    a = gibleed.ask("1655 most recent drug given when?", now=NOW)
    assert a.decision == "accept" and str(a.value)[:10] == str(last)[:10]
    courses = devset2_gold(
        "gibleed",
        f"SELECT count(*) FROM drug_exposure WHERE person_id = 1655 AND drug_concept_id IN "
        f"({_desc(1729720)})",
    )
    b = gibleed.ask("number of penicillin V courses for 1655", now=NOW)
    assert b.decision == "accept" and b.value == courses


def test_an_ingredient_id_beside_a_name_and_two_event_tables(gibleed: Any) -> None:
    gold = devset2_gold(
        "gibleed",
        "SELECT count(DISTINCT c.person_id) FROM condition_occurrence c JOIN drug_exposure d "
        "USING (person_id) WHERE c.condition_concept_id IN "
        f"({_desc(80809)}) AND d.drug_concept_id IN ({_desc(1305058)})",
    )
    a = gibleed.ask(
        "count persons with a condition_occurrence of Rheumatoid arthritis (80809) and a "
        "drug_exposure of a methotrexate product (ingredient 1305058)",
        now=NOW,
    )
    assert a.decision == "accept" and a.value == gold


def test_ages_today_birthdays_and_strictly_before(gibleed: Any) -> None:
    oldest = gibleed.ask("what is the age of the oldest patient", now=NOW)
    a = gibleed.ask("the oldest patient - age today?", now=NOW)
    assert a.decision == oldest.decision == "accept" and a.value == oldest.value
    under = gibleed.ask("How many men had a vasectomy before the age of 40?", now=NOW)
    b = gibleed.ask("How many men had a vasectomy before their 40th birthday?", now=NOW)
    assert b.decision == under.decision == "accept" and b.value == under.value
    plain = gibleed.ask(
        "How many patients had their first peptic ulcer before their first "
        "gastrointestinal hemorrhage?",
        now=NOW,
    )
    c = gibleed.ask(
        "How many patients had their first peptic ulcer strictly before their first "
        "gastrointestinal hemorrhage?",
        now=NOW,
    )
    assert c.decision == plain.decision == "accept" and c.value == plain.value


def test_days_from_the_first_to_the_second_dose_of_one_vaccine(gibleed: Any) -> None:
    gold = devset2_gold(
        "gibleed",
        "SELECT median(d2 - d1) FROM (SELECT person_id, "
        "min(CASE WHEN rn = 1 THEN t END) AS d1, min(CASE WHEN rn = 2 THEN t END) AS d2 FROM "
        "(SELECT person_id, drug_exposure_start_date AS t, row_number() OVER (PARTITION BY "
        "person_id ORDER BY drug_exposure_start_date) AS rn FROM drug_exposure WHERE "
        "drug_concept_id = 40213306) GROUP BY person_id) WHERE d2 > d1",
    )
    for q in (
        "Among patients with two or more doses of hepatitis B vaccine, what is the median "
        "number of days from the first dose to the second dose?",
        "median number of days between hepatitis B vaccine dose 1 and dose 2",
    ):
        a = gibleed.ask(q, now=NOW)
        assert a.decision == "accept" and a.value == gold, q


def test_patients_counted_per_year_by_their_admissions(gibleed: Any) -> None:
    rows = devset2_gold(
        "gibleed",
        "SELECT string_agg(y || ':' || n, ',' ORDER BY y) FROM (SELECT year(visit_start_date) AS y, "
        "count(DISTINCT person_id) AS n FROM visit_occurrence WHERE visit_concept_id = 9201 AND "
        "year(visit_start_date) BETWEEN 2014 AND 2016 GROUP BY 1)",
    )
    a = gibleed.ask(
        "how many different patients were admitted each year from 2014 to 2016", now=NOW
    )
    assert a.decision == "accept"
    got = ",".join(f"{r['year']}:{r['value']}" for r in a.value)
    assert got == rows
