"""'Who' asking for patients (issue 8, stop 27): the opening 'who <verb>' and a closing 'who' /
'which ones' after a phrase about anyone or about patients read as 'which patients'."""

from __future__ import annotations

from typing import Any

from clinbridge.engine.understand._shorthand import expand_words
from clinbridge.engine.understand._text import normalize
from clinbridge.engine.understand._who_list import who_lists

NOW = "2022-10-10"


def _read(q: str) -> str:
    return expand_words(normalize(q))


def test_an_opening_who_before_a_verb_is_which_patients() -> None:
    assert who_lists("who has a pacemaker") == "which patients has a pacemaker"
    assert _read("Who's had a hip replacement?") == "which patients have had a hip replacement"
    assert _read("who's a smoker") == "which patients are a smoker"
    assert _read("who was vaccinated against measles") == (
        "which patients was vaccinated against measles"
    )
    # not a subject 'who': read as written
    for q in ("whose visit was longest", "who else", "patients who had a stroke"):
        assert who_lists(q) == q


def test_a_closing_who_after_a_phrase_about_anyone_or_patients() -> None:
    assert _read("anyone on lithium? who") == "which patients on lithium"
    assert _read("any pts w gout - which ones") == "which patients with gout"
    assert _read("pts with a stent, which pts?") == "which patients with a stent"
    assert _read("is there any patient with sickle cell? who is it") == (
        "which patients with sickle cell"
    )
    # the phrase names no one, or asks something else already: read as written
    for q in ("lithium - who", "how many patients with gout - who", "what about gout who"):
        assert who_lists(q) == q


def test_who_lists_the_patients_end_to_end(s27: Any) -> None:
    want = sorted(
        r[0]
        for r in s27.db.execute(
            "SELECT DISTINCT person_id FROM condition_occurrence c JOIN concept k "
            "ON k.concept_id = c.condition_concept_id WHERE k.concept_name = 'Osteoarthritis of knee'",
            max_rows=None,
        ).rows
    )
    assert want
    for q in ("who has osteoarthritis of the knee", "anyone with osteoarthritis of knee? who"):
        a = s27.ask(q, now=NOW)
        assert a.decision == "accept", (q, a.reason)
        assert sorted(a.value) == want


def test_letters_joined_by_an_ampersand_are_one_word(fhir2: Any) -> None:
    # 'J&J' is a maker's name: never dropped as two stray letters, widening the vaccine asked
    a = fhir2.ask("how many patients got the J&J covid vaccine", now=NOW)
    assert a.decision == "abstain" and "janssen" in (a.reason or "")


def test_distinct_patient_ids_are_listed() -> None:
    from clinbridge.engine.understand._who_list import ids_listed

    assert ids_listed("distinct patient ids with an asthma condition") == (
        "list distinct patient ids with an asthma condition"
    )
    assert ids_listed("Unique person_ids from procedure_occurrence") == (
        "list Unique person_ids from procedure_occurrence"
    )
    for q in ("count of distinct patient ids with asthma", "distinct patients with asthma"):
        assert ids_listed(q) == q


def test_distinct_patient_ids_end_to_end(s27: Any) -> None:
    want = sorted(
        r[0]
        for r in s27.db.execute(
            "SELECT DISTINCT person_id FROM condition_occurrence c JOIN concept k "
            "ON k.concept_id = c.condition_concept_id WHERE k.concept_name = 'Osteoarthritis of knee'",
            max_rows=None,
        ).rows
    )
    a = s27.ask("distinct person ids with an Osteoarthritis of knee condition_occurrence", now=NOW)
    assert a.decision == "accept", a.reason
    assert sorted(a.value) == want
