"""``clinbridge synth trial`` and ``clinbridge load trial``."""

from __future__ import annotations

from pathlib import Path

import click

from clinbridge.errors import ClinbridgeError

__all__ = ["load_trial_cmd", "synth_trial"]


@click.command("trial")
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Output workbook (.xlsx) or CSV (.csv: the dictionary goes beside it as *_dictionary.csv).",
)
@click.option(
    "--seed",
    type=int,
    default=42,
    show_default=True,
    help="Random seed (same seed, same workbook).",
)
@click.option(
    "--subjects",
    type=click.IntRange(10),
    default=532,
    show_default=True,
    help="Infants across both trials.",
)
@click.option(
    "--variables",
    type=click.IntRange(200),
    default=1300,
    show_default=True,
    help="Columns of the wide table (padding included).",
)
def synth_trial(out: Path, seed: int, subjects: int, variables: int) -> None:
    """Generate a synthetic harmonised HIE cooling-trial workbook (two trials, 21 sites)."""
    from clinbridge.synthetic.trial import generate_trial

    wb = generate_trial(seed, subjects=subjects, variables=variables)
    if out.suffix.lower() == ".csv":
        dictionary = out.with_name(out.stem + "_dictionary.csv")
        wb.write_csv(out, dictionary=dictionary)
        click.echo(
            f"wrote {wb.shape[0]} infants x {wb.shape[1]} variables to {out} and {dictionary}"
        )
        return
    wb.write_xlsx(out)
    click.echo(
        f"wrote {wb.shape[0]} infants x {wb.shape[1]} variables to {out} "
        "(sheets README, Data, Data dictionary)"
    )


@click.command("trial")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--db", "url", required=True, help="Target database URL (duckdb:///f.duckdb, ...).")
@click.option(
    "--dictionary",
    default=None,
    help="Data dictionary: a file (.xlsx/.csv) or the name of a sheet in the workbook "
    "(default: found in the workbook, else inferred from the data).",
)
@click.option(
    "--sheet", default=None, help="Data sheet (default: the widest non-dictionary sheet)."
)
@click.option("--encoding", default=None, help="Text encoding of CSV files (default UTF-8).")
@click.option(
    "--lenient",
    is_flag=True,
    help="Store bad cells as NULL and list them in the report instead of failing.",
)
@click.option(
    "--report-json",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the load report as JSON to this file.",
)
def load_trial_cmd(
    path: Path,
    url: str,
    dictionary: str | None,
    sheet: str | None,
    encoding: str | None,
    lenient: bool,
    report_json: Path | None,
) -> None:
    """Load a trial spreadsheet (.xlsx or .csv) with its data dictionary."""
    from clinbridge.adapters.trial.loader import load_trial

    try:
        report = load_trial(
            path, url, dictionary=dictionary, sheet=sheet, encoding=encoding, strict=not lenient
        )
    except ClinbridgeError as exc:
        raise click.ClickException(str(exc)) from exc
    for line in report.summary_lines():
        click.echo(line)
    for p in report.problems[:10]:
        click.echo(
            f"  sheet {p['sheet']!r} row {p['row']} column {p['column']} ({p['variable']}): {p['reason']}"
        )
    click.echo(f"time: {report.seconds:.2f} s")
    if report_json is not None:
        report_json.write_text(report.to_json())
    if not report.reconciled:  # pragma: no cover - an internal error
        raise click.ClickException("counts do not reconcile")
