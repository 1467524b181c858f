"""Protocol-level tests of the OpenAI-compatible backend against a scripted HTTP fake
(httpx.MockTransport), and the LLM proposer through the real validator on a real DuckDB."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from clinbridge.engine.examples import ExampleBank
from clinbridge.engine.llm import (
    LLMUnderstanding,
    OpenAIBackend,
    get_backend,
    llm_enabled,
    parse_reply,
)
from clinbridge.engine.llm.propose import ReplyError, extract_json
from clinbridge.engine.plan import QueryPlan
from clinbridge.engine.validate import SqlProposal
from clinbridge.errors import ConfigError, LLMError
from clinbridge.settings import Settings


def plan_json(concept: str, stream: str = "condition") -> dict:
    return {
        "plan": {
            "filters": [
                {"kind": "event", "stream": stream, "concepts": {"concepts": [{"name": concept}]}}
            ],
            "aggregate": {"op": "count"},
        }
    }


class Server:
    """A scripted OpenAI-compatible server: each request gets the next scripted reply."""

    def __init__(self, *replies: str | Callable[[dict], httpx.Response]) -> None:
        self.replies = list(replies)
        self.requests: list[dict] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/chat/completions"
        body = json.loads(request.content)
        self.requests.append(body)
        reply = self.replies.pop(0)
        if callable(reply):
            return reply(body)
        return httpx.Response(
            200, json={"choices": [{"message": {"role": "assistant", "content": reply}}]}
        )

    def backend(self, **kw) -> OpenAIBackend:
        return OpenAIBackend(
            "http://llm.test/v1", "tiny-model", transport=httpx.MockTransport(self.handler), **kw
        )


def test_request_carries_model_messages_and_json_schema():
    server = Server(json.dumps(plan_json("Type 2 diabetes mellitus")))
    backend = server.backend()
    schema = {"type": "object"}
    text = backend.complete([{"role": "user", "content": "hi"}], schema=schema, max_tokens=50)
    assert json.loads(text)["plan"]["aggregate"]["op"] == "count"
    body = server.requests[0]
    assert body["model"] == "tiny-model" and body["temperature"] == 0.0 and body["max_tokens"] == 50
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": schema, "strict": False},
    }


def test_falls_back_to_json_object_then_plain_and_remembers():
    def reject(body: dict) -> httpx.Response:
        return httpx.Response(
            400,
            json={
                "error": {
                    "message": f"response_format {body['response_format']['type']} is not supported"
                }
            },
        )

    server = Server(reject, reject, reject, "{}", "{}")
    backend = server.backend()
    assert backend.complete([{"role": "user", "content": "q"}], schema={"type": "object"}) == "{}"
    formats = [r.get("response_format") for r in server.requests]
    assert [f and f["type"] for f in formats] == ["json_schema", "json_object", "json_object", None]
    assert formats[1]["schema"] == {"type": "object"} and formats[2]["value"] == {"type": "object"}
    assert backend.json_mode == "none"
    backend.complete([{"role": "user", "content": "q"}], schema={"type": "object"})
    assert "response_format" not in server.requests[-1]  # remembered: no more rejected tries


def test_server_errors_become_llm_errors():
    server = Server(
        lambda body: httpx.Response(503, text="overloaded"),
        lambda body: httpx.Response(200, text="?"),
    )
    backend = server.backend()
    with pytest.raises(LLMError, match="HTTP 503"):
        backend.complete([{"role": "user", "content": "q"}])
    with pytest.raises(LLMError, match="unexpected reply"):
        backend.complete([{"role": "user", "content": "q"}])

    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    dead = OpenAIBackend("http://llm.test/v1", transport=httpx.MockTransport(down))
    with pytest.raises(LLMError, match="cannot reach") as err:
        dead.complete([{"role": "user", "content": "q"}])
    assert err.value.code == "llm"


def test_parse_reply_forms():
    assert isinstance(parse_reply(json.dumps(plan_json("x"))), QueryPlan)
    fenced = "Sure!\n```json\n" + json.dumps(plan_json("x")["plan"]) + "\n```\nDone."
    assert isinstance(parse_reply(fenced), QueryPlan)  # a bare plan in a code fence
    sql = parse_reply('{"sql": "SELECT 1", "shape": "number"}')
    assert sql == SqlProposal(sql="SELECT 1", shape="number")
    with pytest.raises(ReplyError, match="not allowed"):
        parse_reply('{"sql": "SELECT 1"}', allow_sql=False)
    with pytest.raises(ReplyError, match=r"aggregate.op"):
        parse_reply('{"plan": {"aggregate": {"op": "average"}}}')
    with pytest.raises(ReplyError, match="no JSON"):
        parse_reply("I cannot help")
    with pytest.raises(ReplyError, match="not closed"):
        extract_json('{"plan": {"filters": [')
    assert extract_json('{"a": "}{\\"", "b": 1} trailing') == {"a": '}{"', "b": 1}


def test_settings_pick_the_backend():
    assert not llm_enabled(Settings())
    assert llm_enabled(Settings(llm="openai"))
    backend = get_backend(Settings(llm="openai", llm_url="http://x:1/v1", llm_model="m"))
    assert isinstance(backend, OpenAIBackend) and backend.url == "http://x:1/v1"
    with pytest.raises(ConfigError):
        get_backend(Settings(llm="none"))
    with pytest.raises(ConfigError, match="does not exist"):
        get_backend(Settings(llm="transformers", llm_model="/nonexistent/model"))


# -- the proposer through the validator, on the tiny OMOP database ---------------------------------


def llm(server: Server, tiny, **kw) -> LLMUnderstanding:
    return LLMUnderstanding(
        server.backend(),
        catalog=tiny.catalog,
        db=tiny.db,
        settings=Settings(embeddings="off"),
        **kw,
    )


def test_accepts_a_good_plan_and_the_prompt_is_grounded(tiny, tmp_path):
    bank = ExampleBank(tmp_path / "bank.jsonl", embeddings="off")
    bank.approve(
        "How many patients took celecoxib?",
        QueryPlan.model_validate(plan_json("celecoxib", "drug")["plan"]),
    )
    server = Server(json.dumps(plan_json("Type 2 diabetes mellitus")))
    out = llm(server, tiny, bank=bank).answer("How many patients have type 2 diabetes mellitus?")
    assert out.decision == "accept" and out.value == 3
    assert out.to_answer().provenance.understanding == "openai"
    messages = server.requests[0]["messages"]
    system = messages[0]["content"]
    assert "source tiny" in system  # the catalog summary
    assert "Most relevant tables" in system and "condition_occurrence" in system
    assert "Sample rows of" in system
    assert "Type 2 diabetes mellitus" in system  # a candidate concept from the dictionary
    assert messages[1] == {
        "role": "user",
        "content": "How many patients took celecoxib?",
    }  # the few-shot
    assert json.loads(messages[2]["content"])["plan"]["filters"][0]["stream"] == "drug"
    schema = server.requests[0]["response_format"]["json_schema"]["schema"]
    assert "plan" in schema["properties"] and "$defs" in schema


def test_invalid_plan_is_re_asked_once_with_the_error(tiny):
    server = Server(
        '{"plan": {"aggregate": {"op": "average"}}}',
        json.dumps(plan_json("Type 2 diabetes mellitus")),
    )
    out = llm(server, tiny).answer("How many patients have type 2 diabetes mellitus?")
    assert out.decision == "accept" and out.value == 3
    reask = server.requests[1]["messages"][-1]["content"]
    assert "rejected" in reask and "aggregate.op" in reask


def test_twice_invalid_abstains_with_llm(tiny):
    server = Server("no idea", "still no idea")
    out = llm(server, tiny).answer("How many patients have type 2 diabetes mellitus?")
    assert out.decision == "abstain" and out.reason == "llm" and out.value is None


def test_failed_check_is_sent_back_as_the_repair(tiny):
    # First a plan whose concept is not in the data; the repair names the right one.
    server = Server(
        json.dumps(plan_json("Myocardial infarction")),
        json.dumps(plan_json("Type 2 diabetes mellitus")),
    )
    out = llm(server, tiny).answer("How many patients have diabetes?")
    assert out.decision == "accept" and out.repaired and out.value == 3
    repair = server.requests[1]["messages"]
    assert repair[-2]["role"] == "assistant" and "Myocardial infarction" in repair[-2]["content"]
    assert "concept_not_in_data" in repair[-1]["content"]


def test_repair_that_fails_again_abstains(tiny):
    server = Server(
        json.dumps(plan_json("Myocardial infarction")), json.dumps(plan_json("Unobtainium"))
    )
    out = llm(server, tiny).answer("How many patients had a heart attack?")
    assert out.decision == "abstain" and out.value is None and out.reason == "concept_not_found"
    assert len(server.requests) == 2  # one repair only


def test_patient_and_now_come_from_the_caller(tiny):
    import datetime as dt

    reply = {
        "plan": {
            "patient_id": "999",
            "measure": {
                "of": "value",
                "stream": "measurement",
                "concepts": {"concepts": [{"name": "Hemoglobin [Mass/volume] in Blood"}]},
            },
            "aggregate": {"op": "last"},
        }
    }
    server = Server(json.dumps(reply))
    out = llm(server, tiny).answer(
        "What was the last hemoglobin?", patient_id="2", now=dt.datetime(2020, 1, 1)
    )
    assert out.decision == "accept" and out.value == 13.4
    assert (
        out.plan is not None
        and out.plan.patient_id == "2"
        and out.plan.now == dt.datetime(2020, 1, 1)
    )
    assert "patient 2" in server.requests[0]["messages"][-1]["content"]


def test_free_sql_behind_the_guard_and_validator(tiny):
    good = '{"sql": "SELECT COUNT(DISTINCT person_id) FROM condition_occurrence WHERE condition_concept_id = 201826", "shape": "number"}'
    out = llm(Server(good), tiny).answer("How many patients have type 2 diabetes mellitus?")
    assert out.decision == "accept" and out.value == 3 and out.sql and "LIMIT" in out.sql.upper()
    hostile = '{"sql": "DELETE FROM person", "shape": "number"}'
    out = llm(Server(hostile, hostile), tiny).answer("How many patients are there?")
    assert out.decision == "abstain" and out.reason == "sql_unsafe"
    wrong_shape = '{"sql": "SELECT person_id FROM person", "shape": "list"}'
    out = llm(Server(wrong_shape, wrong_shape), tiny).answer("How many patients are there?")
    assert out.decision == "abstain" and out.reason == "shape_mismatch"


def test_back_translation(tiny):
    plan = QueryPlan.model_validate(plan_json("celecoxib", "drug")["plan"])
    server = Server("How many patients were ever given celecoxib?\n", "?")
    u = llm(server, tiny)
    assert u.back_translate(plan) == "How many patients were ever given celecoxib?"
    assert "celecoxib" in server.requests[0]["messages"][1]["content"]
    assert (
        u.back_translate(plan) == "How many patients had celecoxib (drug exposure)?"
    )  # too short → template


def test_a_plan_that_drops_part_of_the_question_is_not_accepted(tiny):
    # What SmolLM2-135M really answered on this question: a count of all patients.
    everyone = '{"plan": {"aggregate": {"op": "count"}}}'
    out = llm(Server(everyone, everyone), tiny).answer(
        "How many patients have type 2 diabetes mellitus?"
    )
    assert out.decision == "abstain" and out.reason == "question_not_covered"
    assert "type 2 diabetes mellitus" in out.detail
    out = llm(Server(everyone, json.dumps(plan_json("Type 2 diabetes mellitus"))), tiny).answer(
        "How many patients have type 2 diabetes mellitus?"
    )
    assert out.decision == "accept" and out.repaired and out.value == 3
    hba1c = {
        "plan": {
            "filters": [
                {
                    "kind": "event",
                    "stream": "measurement",
                    "concepts": {
                        "concepts": [{"name": "Hemoglobin A1c/Hemoglobin.total in Blood"}]
                    },
                    "value": {"op": ">", "value": 7},
                }
            ],
            "aggregate": {"op": "count"},
        }
    }
    out = llm(Server(json.dumps(hba1c), json.dumps(hba1c)), tiny).answer(
        "How many patients had an HbA1c above 8 %?"
    )
    assert (
        out.decision == "abstain" and out.reason == "question_not_covered" and "8 %" in out.detail
    )
    out = llm(Server(json.dumps(hba1c)), tiny).answer("How many patients had an HbA1c above 7 %?")
    assert out.decision == "accept" and out.value == 2


def test_coverage_is_for_llm_proposals_only(tiny):
    from clinbridge.engine.validate import answer_with_validation

    everyone = QueryPlan.model_validate({"aggregate": {"op": "count"}})
    out = answer_with_validation(
        "How many patients have type 2 diabetes mellitus?",
        [everyone],
        catalog=tiny.catalog,
        db=tiny.db,
    )  # the parser's own reading
    assert out.decision == "accept"
    out = answer_with_validation(
        "How many patients have type 2 diabetes mellitus?",
        [everyone],
        catalog=tiny.catalog,
        db=tiny.db,
        coverage=True,
    )
    assert out.decision == "abstain" and out.reason == "question_not_covered"


def test_the_parser_is_the_second_reader_of_the_question(tiny):
    # "women" and "celecoxib" are grounded by the built-in parser; an LLM plan must honour both.
    celecoxib = {
        "kind": "event",
        "stream": "drug",
        "concepts": {"concepts": [{"name": "celecoxib"}]},
    }
    no_sex = json.dumps({"plan": {"filters": [celecoxib], "aggregate": {"op": "count"}}})
    out = llm(Server(no_sex, no_sex), tiny).answer("How many women took celecoxib?")
    assert out.decision == "abstain" and out.reason == "question_not_covered"
    assert "women" in out.detail
    good = json.dumps(
        {
            "plan": {
                "filters": [{"kind": "sex", "sex": "female"}, celecoxib],
                "aggregate": {"op": "count"},
            }
        }
    )
    out = llm(Server(good), tiny).answer("How many women took celecoxib?")
    assert out.decision == "accept" and out.value == 1
    assert any(c.name == "slots_covered" and c.passed for c in out.checks)


def test_a_patient_named_in_the_question_is_kept(tiny):
    reply = {
        "plan": {
            "patient_id": "2",
            "measure": {
                "of": "value",
                "stream": "measurement",
                "concepts": {"concepts": [{"name": "Hemoglobin [Mass/volume] in Blood"}]},
            },
            "aggregate": {"op": "last"},
        }
    }
    out = llm(Server(json.dumps(reply)), tiny).answer("What was the last hemoglobin of patient 2?")
    assert out.decision == "accept" and out.value == 13.4 and out.plan.patient_id == "2"
    wrong = {**reply, "plan": {**reply["plan"], "patient_id": "1"}}
    out = llm(Server(json.dumps(wrong), json.dumps(wrong)), tiny).answer(
        "What was the last hemoglobin of patient 2?"
    )
    assert out.decision == "abstain" and out.reason == "question_not_covered"  # '2' was dropped


def test_answer_with_llm_uses_the_configured_server(tiny, tmp_path, monkeypatch):
    import clinbridge.engine.llm as llm_pkg

    server = Server(json.dumps(plan_json("Type 2 diabetes mellitus")))
    settings = Settings(
        llm="openai",
        llm_url="http://llm.test/v1",
        embeddings="off",
        examples=str(tmp_path / "none.jsonl"),
    )
    monkeypatch.setattr(
        llm_pkg, "_BACKENDS", {("openai", "http://llm.test/v1", ""): server.backend()}
    )
    out = llm_pkg.answer_with_llm(
        "How many patients have type 2 diabetes mellitus?",
        catalog=tiny.catalog,
        db=tiny.db,
        settings=settings,
    )
    assert out.decision == "accept" and out.value == 3
    assert out.to_answer().provenance.understanding == "openai"


def test_the_prompt_synopsis_example_is_a_valid_plan():
    from clinbridge.engine.llm.prompt import PLAN_SYNOPSIS

    plan = parse_reply(PLAN_SYNOPSIS.split("→ ", 1)[1])
    assert isinstance(plan, QueryPlan) and plan.filters[1].window is not None
