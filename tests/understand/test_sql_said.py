"""A data manager's SQL words said plainly (issue 8, the data-manager voice): a leading 'exists'
is a yes/no question, and 'under <name> (<concept id>)' names the concept whose descendants
count even when the name is typed in lower case. No database: a small lexicon."""

from __future__ import annotations

from clinbridge.engine.understand._hierarchy_words import hierarchy_words
from clinbridge.engine.understand._lexicon import ConceptEntry, Lexicon
from clinbridge.engine.understand._sql_said import exists_asked
from clinbridge.engine.understand._text import content_tokens


def test_a_leading_exists_is_a_yes_no_question() -> None:
    assert exists_asked("exists drug_exposure for person_id 445 under celecoxib?") == (
        "is there any drug_exposure for person_id 445 under celecoxib?"
    )
    assert exists_asked("exists a Peptic ulcer condition_occurrence? yes/no") == (
        "is there any Peptic ulcer condition_occurrence? yes/no"
    )
    assert exists_asked("Does there exist a person with X") == "is there any person with X"
    # only at the start, and never inside a word or a field name
    for q in (
        "how many patients exist with X",
        "count rows where exists_flag = 1",
        "existing users of statins",
    ):
        assert exists_asked(q) == q


def _lexicon(*names: str) -> Lexicon:
    lex = Lexicon(source="x")
    codes = {"Alteplase": 1347450, "Celecoxib": 1118084}
    lex.entries = [ConceptEntry(codes[n], n, "drug", 5, 0, True) for n in names]
    lex.labels = [
        (n.lower(), frozenset(content_tokens(n)), (i,), "name") for i, n in enumerate(names)
    ]
    lex._index()
    return lex


def test_under_a_lower_case_name_with_its_id_is_the_concept_and_its_descendants() -> None:
    lex = _lexicon("Alteplase", "Celecoxib")
    said, reason = hierarchy_words("count drug_exposure rows under alteplase (1347450)", lex)
    assert reason is None and said == "count drug_exposure rows alteplase"
    # without an id beside it a lower-case 'under' is a comparison or a word, left as written
    said, _ = hierarchy_words("how many patients under 65 on celecoxib", lex)
    assert "under 65" in said
    said, _ = hierarchy_words("pts under celecoxib treatment", lex)
    assert "under celecoxib" in said


def test_date_diff_is_the_days_from_one_date_to_another() -> None:
    from clinbridge.engine.understand._sql_said import date_diff_said

    assert date_diff_said("max date_diff('day', onset_time, abatement_time) over X") == (
        "max days from onset_time to abatement_time over X"
    )
    assert date_diff_said("median(date_diff day, first A start_date, first B date) over P") == (
        "median(days from first A start_date to first B date) over P"
    )
    assert date_diff_said("date_diff('day') between A and B") == "days between A and B"
    assert date_diff_said("date_diff in weeks from A to B") == "weeks from A to B"
    # a nested call is not read: it stays as typed (and abstains on the unread field)
    q = "date_diff('day', min(a, b), c)"
    assert date_diff_said(q) == q


def test_words_that_only_stress_are_said_plainly() -> None:
    from clinbridge.engine.understand._stress_words import stress_words

    assert stress_words("which patient has the single highest RDW result") == (
        "which patient has the highest RDW result"
    )
    assert stress_words("the largest supply on any single spray exposure") == (
        "the largest supply on any spray exposure"
    )
    assert stress_words("when was X most recently diagnosed") == "when was X last diagnosed"
    # 'single' that restricts stays: exactly one dose, a marital status, a product kind
    for q in (
        "patients who got a single dose",
        "how many adults are single (never married)",
        "any single-ingredient tablet",
        "the single patient with X",
    ):
        assert stress_words(q) == q
