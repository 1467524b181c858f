"""``clinbridge demo``: build the embedded demo databases and show answers."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import click

__all__ = ["demo"]


@click.command("demo")
@click.option(
    "--dir",
    "workdir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path.home() / ".clinbridge" / "demo",
    show_default=True,
    help="Where the demo's DuckDB files are built.",
)
@click.option("--rebuild", is_flag=True, help="Delete and rebuild the demo databases.")
@click.option("--only", multiple=True, help="Run only these sections (omop, fhir, calc, ...).")
def demo(workdir: Path, rebuild: bool, only: tuple[str, ...]) -> None:
    """Build the embedded demo (DuckDB, no server, no LLM, no GPU) and show answers."""
    from clinbridge.demo import run_demo
    from clinbridge.errors import ClinbridgeError

    if rebuild and workdir.exists():
        shutil.rmtree(workdir)
    click.echo(f"clinbridge demo — databases in {workdir}")
    try:
        total = sum(
            elapsed for _, _, elapsed in run_demo(workdir, click.echo, only=set(only) or None)
        )
    except ClinbridgeError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    click.echo(f"\ndone in {total:.1f} s")
