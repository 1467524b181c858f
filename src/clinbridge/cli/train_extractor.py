"""``clinbridge train-extractor``: fine-tune the note extractor's MiniLM judge.

clinbridge train-extractor --out DIR [--device auto|cpu|cuda] [--epochs N]
    [--train-csv FILE] [--one-shot-csv FILE] [--max-pairs N]

Writes ``DIR/judge.safetensors`` (the fine-tuned last layer + head) and ``DIR/judge.json``
(data counts, split, configuration, losses, held-out pair accuracy, seconds). Use it with
``clinbridge calc ... --extractor module:attr`` or ``CLINBRIDGE_EXTRACTOR_CHECKPOINT=DIR``.
"""

from __future__ import annotations

from pathlib import Path

import click
import orjson

_DEFAULT_TRAIN = Path("tests/data/medcalc/train_subset_v1.0.csv")
_DEFAULT_ONE_SHOT = Path("tests/data/medcalc/one_shot_data_verified.csv")


@click.command(name="train-extractor")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False))
@click.option(
    "--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True
)
@click.option("--epochs", type=int, default=1, show_default=True)
@click.option(
    "--train-csv",
    type=click.Path(dir_okay=False),
    default=str(_DEFAULT_TRAIN),
    show_default=True,
    help="MedCalc-Bench train rows (its held-out notes are never trained on).",
)
@click.option(
    "--one-shot-csv",
    type=click.Path(dir_okay=False),
    default=str(_DEFAULT_ONE_SHOT),
    show_default=True,
)
@click.option("--max-pairs", type=int, default=1200, show_default=True, help="0: all pairs.")
@click.option("--synthetic-per-calc", type=int, default=4, show_default=True)
def train_extractor_cmd(
    out_dir: str,
    device: str,
    epochs: int,
    train_csv: str,
    one_shot_csv: str,
    max_pairs: int,
    synthetic_per_calc: int,
) -> None:
    """Fine-tune the MiniLM judge on MedCalc-Bench notes + synthetic notes; write a checkpoint."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch

    from clinbridge.calculators.extract.train import TrainConfig, train_judge
    from clinbridge.calculators.registry import default_registry

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise click.ClickException("--device cuda: no CUDA device is available")
    for f, opt in ((train_csv, "--train-csv"), (one_shot_csv, "--one-shot-csv")):
        if f and not Path(f).exists():
            raise click.ClickException(f"{opt}: {f} does not exist")
    cfg = TrainConfig(
        epochs=epochs,
        device=device,
        max_pairs=max_pairs or None,
        synthetic_per_calc=synthetic_per_calc,
    )
    meta = train_judge(train_csv or None, one_shot_csv or None, default_registry(), out_dir, cfg)
    click.echo(orjson.dumps(meta, option=orjson.OPT_INDENT_2, default=str).decode())
