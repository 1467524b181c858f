"""CLI commands for MIMIC: load native CSVs, generate an EHRSQL-2024-shaped database."""

from __future__ import annotations

import json
from pathlib import Path

import click

from clinbridge.cli._io import on_error_option
from clinbridge.errors import ClinbridgeError

__all__ = ["load_mimic_cmd", "synth_mimic_cmd"]


@click.command(name="mimic")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--db", "url", required=True, help="Target database URL.")
@click.option("--schema", default=None, help="Target schema (DuckDB, PostgreSQL).")
@on_error_option
@click.option("--replace", is_flag=True, help="Drop tables that already exist.")
@click.option("--json", "as_json", is_flag=True, help="Print the load report as JSON.")
def load_mimic_cmd(
    folder: Path, url: str, schema: str | None, on_error: str, replace: bool, as_json: bool
) -> None:
    """Load MIMIC-III v1.4 or MIMIC-IV v2.x CSV / CSV.gz files (version detected)."""
    from clinbridge.adapters.mimic import load_mimic

    try:
        report = load_mimic(
            folder,
            url,
            schema=schema,
            on_error=on_error,  # type: ignore[arg-type]
            replace=replace,
        )
    except ClinbridgeError as exc:
        raise click.ClickException(str(exc)) from exc
    data = report.to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    tables = data["tables"]
    assert isinstance(tables, list)
    width = max((len(t["table"]) for t in tables), default=5)
    click.echo(f"{'table':<{width}}  {'read':>10}  {'loaded':>10}  {'quarantined':>11}")
    for t in tables:
        click.echo(
            f"{t['table']:<{width}}  {t['read']:>10,}  {t['loaded']:>10,}  {t['rejected']:>11,}"
        )
        for note in t["notes"]:
            click.echo(f"{'':<{width}}  note: {note}")
    notes = data["notes"]
    assert isinstance(notes, list)
    for note in notes:
        click.echo(f"note: {note}")
    ok = "reconciled" if report.reconciles else "DOES NOT RECONCILE"
    click.echo(
        f"{report.version}: read {report.read:,} = loaded {report.loaded:,} + quarantined "
        f"{report.rejected:,} ({ok}) into {report.backend} in {report.seconds:.1f} s"
    )
    if report.rejected:
        click.echo(
            "quarantined rows are kept with file, row, column and reason in clinbridge_rejected"
        )


@click.command(name="mimic")
@click.option("--patients", type=int, default=100, show_default=True, help="Number of patients.")
@click.option("--db", "url", required=True, help="Target database URL.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed.")
@click.option("--replace", is_flag=True, help="Drop tables that already exist.")
@click.option("--notes", is_flag=True, help="Also write discharge notes (MIMIC-IV-Note layout).")
def synth_mimic_cmd(patients: int, url: str, seed: int, replace: bool, notes: bool) -> None:
    """Generate a MIMIC-IV database in exactly the EHRSQL-2024 schema (dates in the 2100s)."""
    from clinbridge.synthetic.mimic import generate_mimic

    try:
        counts = generate_mimic(url, patients=patients, seed=seed, replace=replace, notes=notes)
    except ClinbridgeError as exc:
        raise click.ClickException(str(exc)) from exc
    for table, n in counts.items():
        click.echo(f"{table:<20} {n:>10,}")
    click.echo(f"{sum(counts.values()):,} rows in {len(counts)} tables")
