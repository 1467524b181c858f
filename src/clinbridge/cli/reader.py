"""``clinbridge train-reader``: fine-tune the learned second reader on the silver data."""

from __future__ import annotations

import json
from pathlib import Path

import click

__all__ = ["train_reader_cmd"]


@click.command("train-reader")
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Checkpoint folder to write (reader.safetensors + reader.json).",
)
@click.option(
    "--device", type=click.Choice(["cpu", "cuda"]), default="cpu", help="Where torch trains."
)
@click.option("--epochs", type=int, default=3, show_default=True, help="Passes over the data.")
@click.option(
    "--generated",
    type=int,
    default=4000,
    show_default=True,
    help="Generated questions added to the EHRSQL silver questions.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Split and init seed.")
def train_reader_cmd(out: Path, device: str, epochs: int, generated: int, seed: int) -> None:
    """Train the learned reader (MiniLM last layer + tag and intent heads) and save it.

    Use the folder with CLINBRIDGE_LEARNED_READER_PATH=DIR; the package ships one already.
    """
    from clinbridge.engine.understand._learned_train import train

    meta = train(
        out,
        epochs=epochs,
        device=device,
        n_generated=generated,
        seed=seed,
        progress=lambda line: click.echo(line, err=True),
    )
    click.echo(
        json.dumps({k: meta[k] for k in ("train_seconds", "held_out") if k in meta}, indent=2)
    )
