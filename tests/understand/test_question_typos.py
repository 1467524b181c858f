"""Typing slips mended before the question is read (issue 8, the typo-heavy clinician voice):
structure words and shorthand terms, one slip away and only when exactly one word is meant;
the vocabulary's own spelling correction abstains on a tie. No database: a small lexicon."""

from __future__ import annotations

from clinbridge.engine.understand._lexicon import Lexicon
from clinbridge.engine.understand._spelling import one_slip
from clinbridge.engine.understand._text import content_tokens
from clinbridge.engine.understand._typos import fix_question_typos


def _lexicon(*labels: str, names: tuple[str, ...] = ()) -> Lexicon:
    lex = Lexicon(source="x")
    lex.labels = [(t, frozenset(content_tokens(t)), (i,), "name") for i, t in enumerate(labels)]
    lex.patient_names = dict.fromkeys(names, ("1",))
    lex._index()
    return lex


def test_one_slip_is_a_drop_a_double_or_a_swap_and_a_changed_letter_only_in_a_long_word() -> None:
    assert one_slip("mnay", "many") and one_slip("evr", "ever") and one_slip("dieed", "died")
    assert one_slip("lastest", "latest") and one_slip("posotive", "positive")
    assert not one_slip("valum", "value")  # a changed letter in a short word: 'valium' too
    assert not one_slip("splint", "split")  # an added letter in a short word: another word
    assert not one_slip("many", "many") and not one_slip("mny", "money")


def test_structure_words_and_shorthand_terms_are_mended_before_any_reader() -> None:
    lex = _lexicon("Closed fracture of hip", "Homeless")
    assert fix_question_typos("whch pt is homless", lex) == "which pt is homless"
    assert fix_question_typos("fractrue pts lsat year how many", lex) == (
        "fractrue pts last year how many"
    )
    assert fix_question_typos("days sicne pt 20 last vist?", lex) == "days since pt 20 last visit?"
    # a drug class and a ward brand name of the shorthand lexicon
    assert fix_question_typos("opiod pts how mnay", lex) == "opioid pts how many"
    assert fix_question_typos("how many pts evr got antibiotcs", lex) == (
        "how many pts ever got antibiotics"
    )
    assert fix_question_typos("Whch pts had it", lex) == "Which pts had it"  # first word


def test_words_that_may_be_meant_are_left_as_typed() -> None:
    lex = _lexicon("Splint of wrist", "Fracture of wrist")
    for q in (
        "pts with a splint",  # a word of the vocabulary
        "how many pts had a table",  # common English
        "count persons with observation 'Homles'",  # a quoted name as the data stores it
        "pts named Mnay",  # a capitalised word inside the question
        "patient a4a401d1-lsat-8a38",  # part of an id
        "count drug_exposure rows with lsat_date",  # part of a field name
        "fractrue of wrist",  # a vocabulary word only: the grounder's to mend, in context
    ):
        assert fix_question_typos(q, lex) == q, q
    assert fix_question_typos("tims with nek pain", lex) == "times with nek pain"
    assert fix_question_typos("valum pts", lex) == "valium pts"  # a shorthand term wins
    named = _lexicon("Asthma", names=("mnay smith",))
    assert fix_question_typos("does mnay have asthma", named) == "does mnay have asthma"


def test_a_slip_near_a_structure_word_and_a_different_vocabulary_word_is_ambiguous() -> None:
    # 'sicne': 'since' (a structure word) or 'sicnes' of this vocabulary — never picked
    assert fix_question_typos("days sicne the visit", _lexicon("Asthma")) == "days since the visit"
    tie = _lexicon("Sicnes disease")
    assert fix_question_typos("days sicne the visit", tie) == "days sicne the visit"


def test_the_vocabulary_correction_abstains_when_two_words_are_nearly_as_close() -> None:
    lex = _lexicon("Breast cancer", "Best practice advice")
    assert lex.nearest_token("brest") is None  # 'breast' or 'best'
    assert _lexicon("Breast cancer").nearest_token("brest") == "breast"
    assert _lexicon("Gunshot wound").nearest_token("woudn") == "wound"  # five letters, a swap
    assert _lexicon("Fracture of hip").nearest_token("fractrue") == "fracture"


def test_shots_of_a_named_drug_are_the_drug_and_other_shots_stay() -> None:
    from clinbridge.engine.understand._lexicon import ConceptEntry
    from clinbridge.engine.understand._plain_words import plain_words

    lex = _lexicon("Vitamin B12", "Allergy to grass pollen")
    lex.entries = [
        ConceptEntry(1, "Vitamin B12", "drug", 5, 0, True),
        ConceptEntry(2, "Allergy to grass pollen", "condition", 5, 0, True),
    ]
    assert plain_words("anemic patients who got vitamin b12 shots, how many", lex) == (
        "anemic patients who got vitamin b12, how many"
    )
    assert plain_words("anemic patients who got b12 shots", lex) == "anemic patients who got b12"
    for q in ("total allergy shots given", "patients with flu shots", "who got shots (any)"):
        assert plain_words(q, lex) == q, q
