"""The one embedding service: numpy MiniLM equals sentence-transformers, vectors persist."""

from __future__ import annotations

import numpy as np
import pytest

from clinbridge.embed import EmbeddingService, load_model, model_path, service_for
from clinbridge.settings import Settings

TEXTS = [
    "heart attack",
    "Hemoglobin A1c/Hemoglobin.total in Blood",
    "How many women had a GI bleed in 2015?",
    "x",
    "a much longer text about a patient's history " * 12,
]


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_numpy_minilm_equals_sentence_transformers() -> None:
    from sentence_transformers import SentenceTransformer

    ref = SentenceTransformer(str(model_path()), device="cpu").encode(
        TEXTS, normalize_embeddings=True, show_progress_bar=False
    )
    mine = load_model().encode(TEXTS)
    cos = (mine * ref).sum(1)
    assert cos.min() > 0.9999, cos


def test_lexicon_vectors_persist_and_reload_without_the_model(tmp_path) -> None:  # type: ignore[no-untyped-def]
    texts = ["myocardial infarction", "", "type 2 diabetes mellitus"]
    first = EmbeddingService(mode="on", cache_dir=tmp_path)
    a = first.lexicon_vectors("db-1", texts)
    assert a.shape == (3, 384) and not a[1].any()
    files = list((tmp_path / "embed").glob("*.emb.npy"))
    assert len(files) == 1
    second = EmbeddingService(mode="on", cache_dir=tmp_path)  # a new process, in effect
    b = second.lexicon_vectors("db-1", texts)
    assert np.array_equal(a, b)
    # Reading the persisted vectors never needed the model (the service here has none).
    assert second._model is None
    # Other texts under the same key are a different file, not a stale hit.
    c = second.lexicon_vectors("db-1", [*texts, "sepsis"])
    assert c.shape == (4, 384)
    assert len(list((tmp_path / "embed").glob("*.emb.npy"))) == 2


def test_off_ranks_lexically_and_never_loads() -> None:
    svc = EmbeddingService(mode="off")
    assert not svc.semantic
    ranked = svc.similar("blood pressure", ["systolic blood pressure", "heart rate"], k=1)
    assert ranked[0][0] == 0
    assert svc._model is None
    with pytest.raises(RuntimeError):
        svc.model()


def test_semantic_similarity_and_one_service_per_settings(tmp_path) -> None:  # type: ignore[no-untyped-def]
    svc = service_for(Settings(cache_dir=str(tmp_path), embeddings="on"))
    assert svc is service_for(Settings(cache_dir=str(tmp_path), embeddings="on"))
    assert svc.cache_dir == tmp_path
    best = svc.similar("heart attack", ["myocardial infarction", "ankle fracture"], k=1)
    assert best[0][0] == 0
    with pytest.raises(ValueError, match="auto, on or off"):
        EmbeddingService(mode="sometimes")  # type: ignore[arg-type]


def test_mapped_weights_equal_the_safetensors_loader() -> None:
    import numpy as np
    from safetensors.numpy import load_file

    from clinbridge.embed import mapped_weights, model_path

    file = model_path() / "model.safetensors"
    loaded, mapped = load_file(str(file)), mapped_weights(file)
    assert loaded.keys() == mapped.keys()
    for name, value in loaded.items():
        assert mapped[name].dtype == value.dtype and np.array_equal(mapped[name], value), name
