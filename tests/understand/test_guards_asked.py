"""Guards on what a question asks (``_guards_asked``): each misreading becomes an abstention."""

from __future__ import annotations

from clinbridge.engine.plan import QueryPlan
from clinbridge.engine.understand._guards_asked import (
    age_at_resolution,
    letter_variant,
    who_unanswered,
)


def _plan(op: str, of: str = "patients", names: tuple[str, ...] = ()) -> QueryPlan:
    measure: dict = {"of": of}
    if names:
        measure = {
            "of": "events",
            "stream": "drug",
            "concepts": {
                "concepts": [{"concept_id": i + 1, "name": n} for i, n in enumerate(names)],
                "label": "x",
            },
        }
    return QueryPlan.model_validate({"measure": measure, "aggregate": {"op": op}})


def test_a_closing_who_wants_the_patients_not_their_number():
    assert who_unanswered("people seen for gout - who", _plan("count")) is not None
    assert who_unanswered("did anybody get warfarin? who", _plan("exists")) is not None
    assert who_unanswered("people seen for gout - who", _plan("list")) is None
    # a relative 'who' inside the question is no ask
    assert who_unanswered("patients who had gout", _plan("count")) is None


def test_an_age_when_a_condition_ended_is_not_read_at_its_start():
    asked = "how old was she when the asthma resolved"
    assert age_at_resolution(asked, _plan("max", of="age")) is not None
    assert age_at_resolution("how old was she at asthma onset", _plan("max", of="age")) is None
    assert age_at_resolution(asked, _plan("count")) is None


def test_a_letter_after_a_word_keeps_variants_apart():
    mixed = _plan("count", names=("influenza B antigen", "influenza A antigen"))
    assert letter_variant("flu A antigen given", mixed) is None  # 'flu' is not 'influenza'
    assert letter_variant("influenza A antigen given", mixed) is not None
    only = _plan("count", names=("influenza A antigen",))
    assert letter_variant("influenza A antigen given", only) is None
    assert letter_variant("influenza antigen given", mixed) is None
