"""``clinbridge demo``: build the embedded demo databases and show answers."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import click

from clinbridge.demo import demo_sections

__all__ = ["demo"]

_SECTIONS = {s.name: s.title for s in demo_sections()}
_ONLY_HELP = "Run only these sections (repeatable): " + "; ".join(
    f"{name} ({title.split(' — ')[0]})" for name, title in _SECTIONS.items()
)


def _check_only(
    ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    unknown = [v for v in value if v not in _SECTIONS]
    if unknown:
        raise click.BadParameter(
            f"unknown section(s) {', '.join(map(repr, unknown))}; the sections are: "
            + ", ".join(_SECTIONS)
        )
    return value


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
@click.option("--only", multiple=True, callback=_check_only, help=_ONLY_HELP)
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
