"""A questionnaire item ('Are you a refugee') is not the finding it asks about ('Refugee'):
a plain phrase reads the finding only (issue 8, stop 27)."""

from __future__ import annotations

from typing import Any

from clinbridge.engine.understand._survey_items import asks_the_patient, survey_demoted

NOW = "2022-10-10"


def test_question_labels_are_told_from_findings() -> None:
    assert asks_the_patient("Are you a refugee")
    assert asks_the_patient("Do you feel physically and emotionally safe where you currently live")
    assert asks_the_patient(
        "In the past year, have you spent more than 2 nights in a row in a jail?"
    )
    for label in ("Refugee", "Has a criminal record", "Housing unsatisfactory", "Is a smoker"):
        assert not asks_the_patient(label)
    assert survey_demoted("Are you a refugee", "refugee")
    assert not survey_demoted("Are you a refugee", "are you a refugee")


def test_a_plain_word_counts_the_finding_not_the_question_asked(s27: Any) -> None:
    want = s27.db.execute(
        "SELECT count(DISTINCT o.person_id) FROM observation o JOIN concept c "
        "ON c.concept_id = o.observation_concept_id WHERE c.concept_name = 'Refugee'",
        max_rows=None,
    ).rows[0][0]
    asked = s27.db.execute(
        "SELECT count(DISTINCT o.person_id) FROM observation o JOIN concept c "
        "ON c.concept_id = o.observation_concept_id WHERE c.concept_name = 'Are you a refugee'",
        max_rows=None,
    ).rows[0][0]
    assert asked > want > 0  # the question was put to more patients than are refugees
    a = s27.ask("number of patients who are refugees", now=NOW)
    assert a.decision == "accept" and a.value == want
    assert "Refugee" in str(a.plan) and "Are you a refugee" not in str(a.plan)
