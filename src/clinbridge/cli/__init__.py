"""The ``clinbridge`` command line.

Subcommands live in their own modules and are imported only when used (fast start-up);
``COMMANDS`` maps each name to ``module:attribute``.
"""

from __future__ import annotations

import importlib
import logging
import sys
from typing import Any

import click

__all__ = ["COMMANDS", "main"]

COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("clinbridge.cli.demo:demo", "Build the embedded demo database and show answers."),
    "catalog": ("clinbridge.cli.omop:catalog_cmd", "Print a source's catalog (common metadata)."),
    "sql": ("clinbridge.cli.sql:sql_cmd", "Run guarded, read-only SQL."),
    "ask": ("clinbridge.cli.ask:ask_cmd", "Answer a question or execute a plan."),
    "load": (
        "clinbridge.cli.load:load_group",
        "Load OMOP CSVs, vocabularies or FHIR into a database.",
    ),
    "synth": ("clinbridge.cli.synth:synth_group", "Generate synthetic OMOP or FHIR data."),
    "export": (
        "clinbridge.cli.export:export_group",
        "Export a source to another model (FHIR → OMOP).",
    ),
    "vocab": ("clinbridge.cli.vocab:vocab_group", "Look up concepts in a loaded vocabulary."),
    "calc": ("clinbridge.cli.calc:calc_cmd", "Compute medical scores (MedCalc-Bench calculators)."),
    "train-extractor": (
        "clinbridge.cli.train_extractor:train_extractor_cmd",
        "Fine-tune the note extractor's MiniLM judge (writes a checkpoint).",
    ),
    "feedback": (
        "clinbridge.cli.feedback:feedback_group",
        "Approve or edit answers for the example bank.",
    ),
    "serve": ("clinbridge.cli.serve:serve_cmd", "Serve the HTTP API and web page."),
    "train-reader": (
        "clinbridge.cli.reader:train_reader_cmd",
        "Fine-tune the learned second reader (span tagger + intent) on silver data.",
    ),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, _, attr = target[0].partition(":")
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name == module:
                return _missing(cmd_name)
            raise
        cmd: click.Command = getattr(mod, attr)
        return cmd

    def format_commands(self, ctx: click.Context, formatter: Any) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:  # type: ignore[override]
        """Run a command; every failure is one ``error: ...`` line (exit 1; usage errors 2)."""
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        try:
            rv = super().main(*args, standalone_mode=False, **kwargs)  # type: ignore[call-overload]
        except click.UsageError as exc:
            if exc.ctx is not None:
                click.echo(exc.ctx.get_usage(), err=True)
                click.echo(
                    f"Try '{exc.ctx.command_path} {exc.ctx.help_option_names[0]}' for help.",
                    err=True,
                )
            click.echo(f"error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("error: aborted", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


def _missing(name: str) -> click.Command:
    @click.command(name=name)
    def _cmd() -> None:
        raise click.ClickException(f"'clinbridge {name}' is not available in this build")

    return _cmd


@click.group(cls=LazyGroup)
@click.option("-v", "--verbose", count=True, help="More logging (-v info, -vv debug).")
@click.version_option(package_name="clinbridge")
def main(verbose: int) -> None:
    """clinbridge: exact, auditable answers from clinical data."""
    if verbose:
        logging.basicConfig(level=logging.DEBUG if verbose > 1 else logging.INFO, stream=sys.stderr)
