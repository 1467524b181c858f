"""Rankings (stop 24): the top N concepts counted in records or in patients, the patients with
the most encounters or events, a ranking said in schema names, and a ranking that does not say
what it counts. Our own wordings on devset2's databases, gold by hand SQL (DENSE_RANK: tied
places are kept).
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.understand._devset2db import devset2_gold

from clinbridge.engine.plan import Aggregate, Measure, QueryPlan
from clinbridge.engine.understand._shorthand import expand_words

S27_NOW = "2022-10-10"


def _ranked(table: str, key: str, count: str, n: int, name: bool = True) -> list[Any]:
    inner = (
        f"SELECT {key} AS k, DENSE_RANK() OVER (ORDER BY {count} DESC) AS rk FROM {table} "
        f"WHERE {key} IS NOT NULL GROUP BY {key}"
    )
    pick = "c.concept_name" if name else "r.k"
    join = "JOIN concept c ON c.concept_id = r.k" if name else ""
    return devset2_gold(
        "synthea27nj",
        f"SELECT list(DISTINCT {pick} ORDER BY {pick}) FROM ({inner}) r {join} WHERE rk <= {n}",
    )


def test_concepts_ranked_by_patients_and_by_records(s27: Any) -> None:
    by_patients = _ranked("drug_exposure", "drug_concept_id", "count(DISTINCT person_id)", 4)
    by_records = _ranked("drug_exposure", "drug_concept_id", "count(*)", 4)
    assert by_patients != by_records  # the unit matters on this source
    for q in (
        "top 4 meds by number of pts",
        "Which four drugs were given to the largest number of distinct patients?",
    ):
        a = s27.ask(q, now=S27_NOW)
        assert a.decision == "accept", (q, a.reason)
        assert a.plan["aggregate"]["rank_by"] == "patients"
        assert sorted(a.value) == by_patients, q
    for q in (
        "top 4 drugs by # of times prescribed",
        "the four drugs prescribed most often, counting every record (not patients)",
    ):
        a = s27.ask(q, now=S27_NOW)
        assert a.decision == "accept", (q, a.reason)
        assert "rank_by" not in a.plan["aggregate"]
        assert sorted(a.value) == by_records, q


def test_patients_ranked_by_encounters_and_events(s27: Any) -> None:
    visits = _ranked("visit_occurrence", "person_id", "count(*)", 2, name=False)
    a = s27.ask("the 2 patients with the most visits", now=S27_NOW)
    assert a.decision == "accept", a.reason
    assert a.plan["measure"]["of"] == "patients" and a.plan["aggregate"]["rank_by"] == "encounters"
    assert sorted(a.value) == visits
    dx = _ranked("condition_occurrence", "person_id", "count(*)", 4, name=False)
    b = s27.ask("which 4 patients have the most diagnoses?", now=S27_NOW)
    assert b.decision == "accept", b.reason
    assert b.plan["aggregate"]["rank_by"] == "events"
    assert sorted(b.value) == dx


def test_a_ranking_whose_unit_is_unclear_abstains(s27: Any) -> None:
    for q in (
        "top 3 conditions by number of patients, counting every record",
        "the 3 patients with the most patients",
        "top 3 conditions by the highest mortality rate",
    ):
        a = s27.ask(q, now=S27_NOW)
        assert a.decision == "abstain", q


def test_top_as_a_verb_is_still_a_threshold() -> None:
    assert expand_words("glucose values that top 200") == "glucose values that above 200"
    assert expand_words("top 3 drugs").startswith("top 3")
    assert expand_words("list the top 5 conditions").startswith("list the top 5")


def test_a_ranking_in_schema_names(s27: Any) -> None:
    from clinbridge.engine.understand._schema_rank import schema_ranking

    by_patients = _ranked("drug_exposure", "drug_concept_id", "count(DISTINCT person_id)", 4)
    a = s27.ask(
        "top 4 drug_concept_id by count(DISTINCT person_id) in drug_exposure, as concept names",
        now=S27_NOW,
    )
    assert a.decision == "accept", a.reason
    assert sorted(a.value) == by_patients
    visits = _ranked("visit_occurrence", "person_id", "count(*)", 2, name=False)
    b = s27.ask("top 2 person_id by count(*) in visit_occurrence", now=S27_NOW)
    assert b.decision == "accept", b.reason
    assert sorted(b.value) == visits
    cat = s27.catalog
    for q in (  # a vocabulary named, names not asked, another table: left as said
        "top 3 CVX drug_concept_id by count(*) in drug_exposure, as concept names",
        "top 3 drug_concept_id by count(*) in drug_exposure",
        "top 3 drug_concept_id by count(*) in condition_occurrence, as concept names",
    ):
        assert schema_ranking(q, cat) == q, q


def test_a_counting_aside_is_the_rankings_unit(s27: Any) -> None:
    by_records = _ranked("condition_occurrence", "condition_concept_id", "count(*)", 4)
    a = s27.ask(
        "What are the four conditions with the most records (counting every record, so repeat "
        "diagnoses of one patient count each time)?",
        now=S27_NOW,
    )
    assert a.decision == "accept", a.reason
    assert sorted(a.value) == by_records


def test_a_ranking_that_does_not_say_what_it_counts_asks_when_the_units_differ(s27: Any) -> None:
    by_patients = _ranked(
        "condition_occurrence", "condition_concept_id", "count(DISTINCT person_id)", 3
    )
    by_records = _ranked("condition_occurrence", "condition_concept_id", "count(*)", 3)
    assert by_patients != by_records
    a = s27.ask("top 3 dx", now=S27_NOW)
    assert a.decision == "abstain" and a.reason_code == "ambiguous"
    assert sorted(sorted(x.value) for x in a.alternatives) == sorted([by_patients, by_records])
    # the units agree in one year: the ranking is the answer either way
    inner = "(SELECT * FROM condition_occurrence WHERE year(condition_start_date) = 2020) y"
    both = {
        tuple(_ranked(inner, "condition_concept_id", c, 3))
        for c in ("count(*)", "count(DISTINCT person_id)")
    }
    b = s27.ask("top 3 dx in 2020", now=S27_NOW)
    if len(both) == 1:
        assert b.decision == "accept", b.reason
        assert tuple(sorted(b.value)) in both
    else:
        assert b.decision == "abstain"


def test_plan_rules_for_rankings() -> None:
    with pytest.raises(ValueError, match="rank_by"):
        Aggregate(op="list", rank_by="patients")
    with pytest.raises(ValueError, match="rank_by"):
        QueryPlan(measure=Measure(of="patients"), aggregate=Aggregate(op="list", top=3))
    with pytest.raises(ValueError, match="stream"):
        QueryPlan(
            measure=Measure(of="patients"), aggregate=Aggregate(op="list", top=3, rank_by="events")
        )
    with pytest.raises(ValueError, match="events or their patients"):
        QueryPlan(
            measure=Measure(of="concept", stream="drug"),
            aggregate=Aggregate(op="list", top=3, rank_by="encounters"),
        )
    ok = QueryPlan(
        measure=Measure(of="patients"), aggregate=Aggregate(op="list", top=3, rank_by="encounters")
    )
    assert QueryPlan.from_json(ok.to_json()) == ok


def test_one_patient_ranked_names_no_number(s27: Any) -> None:
    # 'which patient has the most X': one place (ties share it); '(id)' after a patient word
    # says only how patients are named
    visits = _ranked("visit_occurrence", "person_id", "count(*)", 1, name=False)
    for q in (
        "which patient has had the most visits?",
        "the person (id) with the largest number of visits",
    ):
        a = s27.ask(q, now=S27_NOW)
        assert a.decision == "accept", (q, a.reason)
        assert a.plan["aggregate"]["rank_by"] == "encounters", q
        assert sorted(a.value) == visits, q
    dx = _ranked("condition_occurrence", "person_id", "count(*)", 1, name=False)
    b = s27.ask("who had the most diagnoses", now=S27_NOW)
    assert b.decision == "accept", b.reason
    assert sorted(b.value) == dx
    # anywhere but the head of the question the ranked patient is only part of what is asked
    c = s27.ask("how old is the patient with the most visits", now=S27_NOW)
    assert c.decision == "abstain", c.value


def test_id_asides_after_a_patient_word_are_dropped() -> None:
    from clinbridge.engine.understand._patient_ranks import drop_id_asides

    assert drop_id_asides("which patient (id) has x") == "which patient has x"
    assert drop_id_asides("the persons (person_id) with y") == "the persons with y"
    assert drop_id_asides("the visit (id) of z") == "the visit (id) of z"
