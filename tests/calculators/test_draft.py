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
    result = draft_spec(RULE, EXAMPLES, llm, calculator_id=11, name="QTc Bazett", cache=cache)
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
    again = draft_spec(RULE, EXAMPLES, Replay([]), calculator_id=11, name="QTc Bazett", cache=cache)
    assert again.passed and again.cached and again.attempts == ()


def test_gives_up_after_four_repairs_and_caches_nothing(tmp_path: Path) -> None:
    bad = _recorded()[1]  # always the wrong-answer draft
    llm = Replay([bad] * 10)
    cache = SpecCache(tmp_path)
    result = draft_spec(RULE, EXAMPLES, llm, calculator_id=11, name="QTc Bazett", cache=cache)
    assert not result.passed and result.spec is None
    assert len(result.attempts) == 5 and len(llm.calls) == 5
    assert not list(tmp_path.iterdir())


def test_code_in_a_draft_is_rejected_not_run(tmp_path: Path) -> None:
    evil = _recorded()[2].replace(
        "result: qt / sqrt(rr)", "result: __import__('os').system('touch pwned')"
    )
    result = draft_spec(RULE, EXAMPLES, Replay([evil]), calculator_id=11, name="x", max_repairs=0)
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
    )
    assert not result.passed
    assert "id must be 11" in result.attempts[0].failures[0].message
    assert result.attempts[1].failures[0].code in {"no_yaml", "calculator_spec"}


def test_client_errors_are_llm_errors() -> None:
    with pytest.raises(LLMError):
        draft_spec(RULE, EXAMPLES, Replay([]), calculator_id=11, name="x")
