"""``clinbridge load fhir``, ``clinbridge synth fhir`` and ``clinbridge export omop``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from clinbridge.cli._io import patients_option, seed_option
from clinbridge.errors import ClinbridgeError

__all__ = ["export_omop", "load_fhir", "synth_fhir"]


@click.command("fhir")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--db",
    "url",
    required=True,
    help="Target database URL (duckdb:///f.duckdb, sqlite:///f.db, "
    "postgresql://user@host/db?schema=s).",
)
@click.option(
    "--validate",
    is_flag=True,
    help="Strict mode: check every resource with the fhir.resources R4B models.",
)
@click.option(
    "--fail-fast", is_flag=True, help="Stop at the first bad record instead of quarantining it."
)
@click.option(
    "--report-json",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the reconciliation report as JSON to this file ('-' for stdout).",
)
@click.option(
    "--batch-size",
    type=int,
    default=50_000,
    show_default=True,
    help="Rows buffered between writes.",
)
@click.option(
    "--workers",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="Processes that parse and flatten in parallel.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def load_fhir(
    paths: tuple[Path, ...],
    url: str,
    validate: bool,
    fail_fast: bool,
    report_json: Path | None,
    batch_size: int,
    workers: int,
    quiet: bool,
) -> None:
    """Load FHIR R4 bundles (.json, .json.gz) and bulk NDJSON files or directories."""
    from clinbridge.adapters.fhir import load_fhir as _load

    bar: Any = None
    state = {"last": 0}

    def progress(done: int, total: int, n: int) -> None:
        nonlocal bar
        if bar is None:
            bar = click.progressbar(
                length=total, label="loading FHIR", file=sys.stderr, show_pos=False
            )
            bar.__enter__()
        bar.update(max(0, done - state["last"]))
        state["last"] = done

    try:
        report = _load(
            list(paths),
            url,
            validate=validate,
            fail_fast=fail_fast,
            batch_size=batch_size,
            workers=workers,
            progress=None if quiet else progress,
        )
    except ClinbridgeError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    to_stdout = report_json is not None and str(report_json) == "-"
    echo = (lambda s: click.echo(s, err=True)) if to_stdout else click.echo
    for line in report.summary_lines():
        echo(line)
    if report.error_count:
        echo(f"{report.error_count} record(s) quarantined in fhir_quarantine; first ones:")
        for e in report.errors[:10]:
            where = f"{e['file']} {e['record']}" + (f" field {e['field']}" if e["field"] else "")
            echo(f"  {where}: {e['reason']}")
    if report_json is not None:
        if to_stdout:
            click.echo(report.to_json())
        else:
            report_json.write_text(report.to_json())
            echo(f"report written to {report_json}")
    if not report.reconciled:  # pragma: no cover - an internal error
        raise click.ClickException(
            "counts do not reconcile (read != loaded + merged + quarantined)"
        )
    if report.read and not report.loaded:
        raise click.ClickException(
            f"all {report.read} record(s) were quarantined; nothing was loaded"
        )


@click.command("fhir")
@patients_option
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Output directory.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["ndjson", "bundle"]),
    default="ndjson",
    show_default=True,
    help="Bulk NDJSON (one file per resource type) or one transaction bundle per patient.",
)
@seed_option
@click.option("--gzip", "gzip_output", is_flag=True, help="Write .gz files.")
def synth_fhir(patients: int, out: Path, fmt: str, seed: int, gzip_output: bool) -> None:
    """Generate deterministic synthetic FHIR R4 data (bulk NDJSON or per-patient bundles)."""
    from clinbridge.synthetic.fhir import generate_fhir

    counts = generate_fhir(out, patients=patients, seed=seed, fmt=fmt, gzip_output=gzip_output)  # type: ignore[arg-type]
    total = sum(counts.values())
    click.echo(f"wrote {total} resources for {patients} patients to {out} ({fmt})")
    for t, n in sorted(counts.items()):
        click.echo(f"  {t:<26} {n:>9}")


@click.command("omop")
@click.option(
    "--from",
    "source",
    required=True,
    help="Database holding the FHIR tables (clinbridge load fhir).",
)
@click.option("--db", "url", required=True, help="Target database for the OMOP CDM 5.4 tables.")
@click.option(
    "--vocab",
    "vocab_url",
    default=None,
    help="Database holding an OMOP vocabulary (concept, concept_relationship); default: the target, "
    "else the source.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the row counts as JSON.")
def export_omop(source: str, url: str, vocab_url: str | None, as_json: bool) -> None:
    """Export FHIR tables to OMOP CDM 5.4 (person, visit_occurrence, measurement, ...)."""
    import orjson

    from clinbridge.adapters.fhir.omop_export import export_omop as _export

    try:
        result = _export(source, url, vocab_url=vocab_url)
    except ClinbridgeError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(
            orjson.dumps(result.model_dump(mode="json"), option=orjson.OPT_INDENT_2).decode()
        )
        return
    for line in result.summary_lines():
        click.echo(line)
