"""The transformers backend on a tiny random Llama built in-process (no hub, no download).

It proves the load → prompt → generate → parse path; a random model writes garbage, so the
reply fails to parse, is re-asked once, and the pipeline abstains with ``llm`` — never an answer.
"""

from __future__ import annotations

import string

import pytest

pytestmark = pytest.mark.slow  # imports torch + transformers (~10 s on a busy 2-core machine)

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from clinbridge.engine.llm import LLMUnderstanding, TransformersBackend, get_backend  # noqa: E402
from clinbridge.settings import Settings  # noqa: E402


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    from tokenizers import Tokenizer, decoders, models
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "<pad>": 3}
    for ch in string.printable:
        vocab.setdefault(ch, len(vocab))
    tok = Tokenizer(
        models.BPE(vocab=vocab, merges=[], unk_token="<unk>")
    )  # one token per character
    tok.decoder = decoders.Fuse()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="<unk>",
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
    )
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=16384,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=3,
    )
    model = LlamaForCausalLM(config)
    path = tmp_path_factory.mktemp("tiny-llama")
    model.save_pretrained(path)
    fast.save_pretrained(path)
    return path


def test_loads_from_a_local_path_and_generates(tiny_model_dir, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    backend = get_backend(Settings(llm="transformers", llm_model=str(tiny_model_dir)))
    assert isinstance(backend, TransformersBackend)
    assert backend.device == ("cuda" if torch.cuda.is_available() else "cpu")
    text = backend.complete([{"role": "user", "content": "How many patients?"}], max_tokens=12)
    assert isinstance(text, str) and len(text) <= 12
    constrained = backend.complete(
        [{"role": "user", "content": "q"}], schema={"type": "object"}, max_tokens=8
    )
    assert constrained.startswith("{")  # the JSON object is opened for the model


def test_garbage_from_a_random_model_abstains(tiny_model_dir, tiny):
    backend = TransformersBackend.from_path(str(tiny_model_dir))
    calls = []
    original = backend.complete

    def counting(messages, **kw):
        calls.append(messages[-1]["content"])
        return original(messages, **{**kw, "max_tokens": 24})

    backend.complete = counting  # type: ignore[method-assign]
    u = LLMUnderstanding(
        backend, catalog=tiny.catalog, db=tiny.db, settings=Settings(embeddings="off")
    )
    out = u.answer("How many patients have type 2 diabetes mellitus?")
    assert out.decision == "abstain" and out.reason == "llm"
    assert out.value is None and out.answer is None
    assert len(calls) == 2 and "rejected" in calls[1]  # parsed, failed, re-asked once
    assert out.to_answer().reason_code == "llm"
