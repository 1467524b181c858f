"""Bench the learned reader on its held-out silver split (and time a read).

Rebuilds the split ``clinbridge train-reader`` used (same seed and data size, read from the
checkpoint's ``reader.json``), and prints intent accuracy, span precision/recall/F1 and word-piece
tag accuracy per source (generated questions, EHRSQL-2024 train questions), the checkpoint's
size and training record, and p50 latency of one read.

    python bench/bench_learned_reader.py [--checkpoint DIR] [--generated N] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checkpoint", default=None, help="default: the packaged checkpoint")
    parser.add_argument("--generated", type=int, default=None, help="default: from reader.json")
    parser.add_argument("--limit", type=int, default=None, help="score at most N held-out rows")
    args = parser.parse_args()

    from clinbridge.engine.understand._learned_data import silver
    from clinbridge.engine.understand._learned_train import evaluate
    from clinbridge.engine.understand.learned import LearnedReader, default_checkpoint

    folder = Path(args.checkpoint) if args.checkpoint else default_checkpoint()
    meta = json.loads((folder / "reader.json").read_text())
    seed = int(meta.get("seed", 0))
    n_gen = args.generated or int(meta.get("sources", {}).get("generated", 4000))
    rows = silver(n_gen, seed=seed)
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    cut = int(len(rows) * 0.1)
    held = [rows[i] for i in order[:cut]][: args.limit]
    reader = LearnedReader.load(folder)
    size = sum(f.stat().st_size for f in folder.glob("reader.*"))
    print(f"checkpoint {folder}: {size / 2**20:.2f} MiB; trained {meta.get('train_seconds')} s")
    print(f"held-out silver rows: {len(held)} (of {len(rows)}; seed {seed})")
    t = time.perf_counter()
    metrics = evaluate(reader, held)
    print(f"scored in {time.perf_counter() - t:.0f} s")
    for source, m in metrics.items():
        print(
            f"{source:14} n={m['questions']:5}  intent {m['intent_accuracy']:.3f}  "
            f"span P {m['span_precision']:.3f} R {m['span_recall']:.3f} F1 {m['span_f1']:.3f}  "
            f"tokens {m['token_accuracy']:.3f}"
        )
    times = []
    for q in [r.text for r in held[:30]]:
        t = time.perf_counter()
        reader.read(q)
        times.append(time.perf_counter() - t)
    print(f"one read: p50 {statistics.median(times) * 1000:.1f} ms (n={len(times)})")


if __name__ == "__main__":
    main()
