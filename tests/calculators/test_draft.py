"""The LLM drafting loop, driven by a recorded sequence of drafts (no model is called)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from clinbridge.calculators.draft import (
    LLMClient,
    SpecCache,
    SpecExample,
    draft_spec,
)
from clinbridge.errors import LLMError

DRAFTS = Path(__file__).parent / "drafts"
RULE = "Bazett: QTc = QT / sqrt(RR), where RR = 60 / heart rate is in seconds and QT, QTc in msec."
EXAMPLES = [
    SpecExample(
        name="one-shot",
        params={"heart_rate": [113, "beats per minute"], "qt": [330, "msec"]},
        expect=452.874,
        tolerance=0.01,
    ),
    SpecExample(name="HR 60", params={"heart_rate": 60, "qt": 400}, expect=400.0),
]
# Never shown to the LLM: QTc = QT / sqrt(60 / HR), worked by hand.
HELD_OUT = [
    SpecExample(name="HR 75", params={"heart_rate": 75, "qt": 380}, expect=424.853, tolerance=0.01),
    SpecExample(
        name="HR 100", params={"heart_rate": 100, "qt": 350}, expect=451.848, tolerance=0.01
    ),
    SpecExample(name="HR 50", params={"heart_rate": 50, "qt": 420}, expect=383.406, tolerance=0.01),
]


class Replay:
    """Replays recorded LLM replies in order and keeps the messages it was sent."""

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.calls: list[list[dict[str, str]]] = []

    def complete(self, messages: Sequence[Mapping[str, str]]) -> str:
        self.calls.append([dict(m) for m in messages])
        if not self.replies:
            raise RuntimeError("no more recorded replies")
        return self.replies.pop(0)


def _recorded() -> list[str]:
    return [(DRAFTS / f"qtc_bazett_round{i}.txt").read_text() for i in range(3)]


def test_replay_is_an_llm_client() -> None:
    assert isinstance(Replay([]), LLMClient)


def test_repairs_until_the_examples_pass_then_caches(tmp_path: Path) -> None:
    llm = Replay(_recorded())
    cache = SpecCache(tmp_path)
    result = draft_spec(
        RULE, EXAMPLES, llm, calculator_id=11, name="QTc Bazett", cache=cache, held_out=HELD_OUT
    )
    assert result.passed and result.spec is not None and result.spec.id == 11
    assert [len(a.failures) for a in result.attempts][-1] == 0
    assert len(result.attempts) == 3
    # round 0: invalid YAML structure (an unquoted comma in a flow mapping)
    assert {f.code for f in result.attempts[0].failures} == {"calculator_spec"}
    # round 1: valid spec, wrong answers (RR converted to ms)
    assert {f.code for f in result.attempts[1].failures} == {"wrong_answer"}
    # the repair prompts carried the structured failures back
    assert "[calculator_spec]" in llm.calls[1][-1]["content"]
    assert (
        "[wrong_answer]" in llm.calls[2][-1]["content"]
        and "expected 452.874" in llm.calls[2][-1]["content"]
    )
    assert result.cache_path and Path(result.cache_path).exists()

    # A second request is served from the cache (revalidated) without calling the LLM.
    again = draft_spec(
        RULE,
        EXAMPLES,
        Replay([]),
        calculator_id=11,
        name="QTc Bazett",
        cache=cache,
        held_out=HELD_OUT,
    )
    assert again.passed and again.cached and again.attempts == ()


def test_gives_up_after_four_repairs_and_caches_nothing(tmp_path: Path) -> None:
    bad = _recorded()[1]  # always the wrong-answer draft
    llm = Replay([bad] * 10)
    cache = SpecCache(tmp_path)
    result = draft_spec(
        RULE, EXAMPLES, llm, calculator_id=11, name="QTc Bazett", cache=cache, held_out=HELD_OUT
    )
    assert not result.passed and result.spec is None
    assert len(result.attempts) == 5 and len(llm.calls) == 5
    assert not list(tmp_path.iterdir())


def test_code_in_a_draft_is_rejected_not_run(tmp_path: Path) -> None:
    evil = _recorded()[2].replace(
        "result: qt / sqrt(rr)", "result: __import__('os').system('touch pwned')"
    )
    result = draft_spec(
        RULE, EXAMPLES, Replay([evil]), calculator_id=11, name="x", max_repairs=0, held_out=HELD_OUT
    )
    assert not result.passed
    assert result.attempts[0].failures[0].code == "calculator_spec"
    assert "only plain function calls" in result.attempts[0].failures[0].message
    assert not Path("pwned").exists()


def test_wrong_id_and_no_yaml_are_failures() -> None:
    wrong_id = _recorded()[2].replace("id: 11", "id: 12")
    result = draft_spec(
        RULE,
        EXAMPLES,
        Replay([wrong_id, "I cannot help with that."]),
        calculator_id=11,
        name="x",
        max_repairs=1,
        held_out=HELD_OUT,
    )
    assert not result.passed
    assert "id must be 11" in result.attempts[0].failures[0].message
    assert result.attempts[1].failures[0].code in {"no_yaml", "calculator_spec"}


def test_client_errors_are_llm_errors() -> None:
    with pytest.raises(LLMError):
        draft_spec(RULE, EXAMPLES, Replay([]), calculator_id=11, name="x", held_out=HELD_OUT)


def test_a_spec_needs_three_unseen_examples_and_none_of_them_is_shown() -> None:
    llm = Replay(_recorded())
    with pytest.raises(ValueError, match="at least 3 held-out"):
        draft_spec(RULE, EXAMPLES, llm, calculator_id=11, name="x", held_out=HELD_OUT[:2])
    with pytest.raises(ValueError, match="also among the shown"):
        draft_spec(
            RULE, EXAMPLES, llm, calculator_id=11, name="x", held_out=[*HELD_OUT, EXAMPLES[1]]
        )
    llm = Replay(_recorded())
    result = draft_spec(RULE, EXAMPLES, llm, calculator_id=11, name="x", held_out=HELD_OUT)
    shown = "\n".join(m["content"] for call in llm.calls for m in call)
    assert len(llm.calls) == 3
    assert result.passed and "424.853" not in shown and "HR 75" not in shown


def test_a_draft_failing_unseen_examples_is_not_accepted() -> None:
    wrong = [SpecExample(name=e.name, params=e.params, expect=e.expect + 10) for e in HELD_OUT]
    good = _recorded()[2]
    llm = Replay([good, good])
    result = draft_spec(
        RULE, EXAMPLES, llm, calculator_id=11, name="x", held_out=wrong, max_repairs=1
    )
    assert not result.passed
    f = result.attempts[0].failures
    assert [x.code for x in f] == ["held_out"] and "3 of 3" in f[0].message
    assert "434.853" not in llm.calls[1][-1]["content"]  # the unseen answers are not leaked


SPECS = Path(__file__).parents[2] / "src" / "clinbridge" / "calculators" / "specs"


def test_real_specs_depend_on_every_input_and_an_ignored_input_fails() -> None:
    from clinbridge.calculators.compile import compile_spec
    from clinbridge.calculators.draft import check_dependence
    from clinbridge.calculators.spec import parse_spec

    bmi_text = (SPECS / "6_bmi.yaml").read_text(encoding="utf-8")
    ex = [
        SpecExample(params={"weight": [70, "kg"], "height": [175, "cm"]}, expect=22.857),
        SpecExample(params={"weight": [90, "kg"], "height": [180, "cm"]}, expect=27.778),
    ]
    assert check_dependence(compile_spec(parse_spec(bmi_text)), ex) == []
    ignoring = bmi_text.replace("result: weight / height_m ** 2", "result: weight / 1.75 ** 2")
    assert ignoring != bmi_text
    failures = check_dependence(compile_spec(parse_spec(ignoring)), ex)
    assert [f.code for f in failures] == ["ignores_input"] and "height" in failures[0].message
    chads = compile_spec(parse_spec((SPECS / "4_cha2ds2_vasc.yaml").read_text(encoding="utf-8")))
    params = {"age": 70, "sex": "Female", "chf": True}
    assert check_dependence(chads, [SpecExample(params=params, expect=3)]) == []
