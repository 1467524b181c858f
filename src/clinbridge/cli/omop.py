"""CLI commands for OMOP: load CSVs and vocabularies, generate synthetic data, print a catalog,
look concepts up."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click

from clinbridge.cli._io import (
    fail,
    new_database_file,
    on_error_option,
    patients_option,
    seed_option,
)
from clinbridge.errors import ClinbridgeError

__all__ = [
    "catalog_cmd",
    "load_omop",
    "load_vocab",
    "synth_omop",
    "vocab_descendants",
    "vocab_lookup",
    "vocab_map",
]


@contextlib.contextmanager
def _progress(label: str, enabled: bool = True) -> Iterator[Callable[[int, int], None] | None]:
    """A tqdm bar (bytes) when tqdm is installed and stderr is a terminal; otherwise nothing."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    try:
        from tqdm import tqdm
    except ImportError:
        yield None
        return
    bar = tqdm(total=0, unit="B", unit_scale=True, desc=label, file=sys.stderr)

    def update(done: int, total: int) -> None:
        if total and bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    try:
        yield update
    finally:
        bar.close()


def _fail(exc: ClinbridgeError) -> None:
    raise click.ClickException(str(exc)) from exc


def _load(
    label: str, url: str, as_json: bool, load: Callable[[Callable[[int, int], None] | None], Any]
) -> None:
    """Run one loader into a new database at ``url`` (no file left behind on failure), with a
    progress bar unless printing JSON, and print its report."""
    try:
        with new_database_file(url), _progress(label, not as_json) as progress:
            report = load(progress)
    except ClinbridgeError as exc:
        _fail(exc)
    _print_report(report, as_json)


def _print_report(report: Any, as_json: bool) -> None:
    data = report.to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    width = max((len(t["table"]) for t in data["tables"]), default=5)
    click.echo(f"{'table':<{width}}  {'read':>10}  {'loaded':>10}  {'rejected':>8}  seconds")
    for t in data["tables"]:
        click.echo(
            f"{t['table']:<{width}}  {t['read']:>10,}  {t['loaded']:>10,}  {t['rejected']:>8,}  {t['seconds']:.2f}"
        )
        for note in t["notes"]:
            click.echo(f"{'':<{width}}  note: {note}")
    for note in data["notes"]:
        click.echo(f"note: {note}")
    ok = "reconciled" if report.reconciles else "DOES NOT RECONCILE"
    click.echo(
        f"read {data['read']:,} = loaded {data['loaded']:,} + rejected {data['rejected']:,} ({ok}); "
        f"CDM {data['cdm_version']} into {data['backend']}"
        + (f" schema {data['schema']}" if data["schema"] else "")
        + f" in {data['seconds']:.1f} s"
    )
    if data["rejected"]:
        click.echo("rejected rows are kept with their reason in table clinbridge_rejected")
    if data["read"] and not data["loaded"]:
        fail(f"all {data['read']:,} row(s) were rejected; nothing was loaded")


@click.command(name="omop")
@click.option(
    "--csv",
    "csv_dir",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder with one CSV (.csv, .csv.gz, Athena .tsv) per CDM table.",
)
@click.option(
    "--db",
    "url",
    required=True,
    help="Target database URL (duckdb:///f.duckdb, sqlite:///f.db, postgresql://...).",
)
@click.option("--schema", default=None, help="Target schema (DuckDB, PostgreSQL).")
@click.option(
    "--cdm-version",
    type=click.Choice(["5.3", "5.4"]),
    default=None,
    help="Detected from the files if omitted.",
)
@on_error_option
@click.option(
    "--replace", "mode", flag_value="replace", help="Replace tables that already have rows."
)
@click.option(
    "--append", "mode", flag_value="append", help="Append to tables that already have rows."
)
@click.option("--json", "as_json", is_flag=True, help="Print the load report as JSON.")
def load_omop(
    csv_dir: Path,
    url: str,
    schema: str | None,
    cdm_version: str | None,
    on_error: str,
    mode: str | None,
    as_json: bool,
) -> None:
    """Create an OMOP CDM from CSV files (official OHDSI table definitions)."""
    from clinbridge.adapters.omop import load_omop_csv

    _load(
        "loading",
        url,
        as_json,
        lambda progress: load_omop_csv(
            csv_dir,
            url,
            schema=schema,
            cdm_version=cdm_version,
            on_error=on_error,  # type: ignore[arg-type]
            if_exists=(mode or "fail"),  # type: ignore[arg-type]
            progress=progress,
        ),
    )


@click.command(name="vocab")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--db", "url", required=True, help="Target database URL.")
@click.option("--schema", default=None, help="Target schema (DuckDB, PostgreSQL).")
@on_error_option
@click.option(
    "--replace", "mode", flag_value="replace", help="Replace vocabulary tables that have rows."
)
@click.option("--append", "mode", flag_value="append", help="Append to vocabulary tables.")
@click.option("--json", "as_json", is_flag=True, help="Print the load report as JSON.")
def load_vocab(
    folder: Path, url: str, schema: str | None, on_error: str, mode: str | None, as_json: bool
) -> None:
    """Load OHDSI Athena vocabulary files (tab-separated) or comma CSVs into a database."""
    from clinbridge.vocab import load_vocabulary

    _load(
        "vocabulary",
        url,
        as_json,
        lambda progress: load_vocabulary(
            folder,
            url,
            schema=schema,
            on_error=on_error,  # type: ignore[arg-type]
            if_exists=(mode or "fail"),  # type: ignore[arg-type]
            progress=progress,
        ),
    )


@click.command(name="omop")
@patients_option
@click.option("--db", "url", required=True, help="Target database URL (tables are replaced).")
@seed_option
@click.option("--schema", default=None, help="Target schema (DuckDB, PostgreSQL).")
@click.option("--json", "as_json", is_flag=True, help="Print the generation report as JSON.")
def synth_omop(patients: int, url: str, seed: int, schema: str | None, as_json: bool) -> None:
    """Generate a synthetic OMOP CDM 5.4 (with its own small vocabulary)."""
    from clinbridge.synthetic.omop import generate_omop

    try:
        with new_database_file(url):
            report = generate_omop(url, patients=patients, seed=seed, schema=schema)
    except ClinbridgeError as exc:
        _fail(exc)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "patients": patients,
                    "seed": seed,
                    "rows": report.rows,
                    "seconds_generate": round(report.seconds_generate, 3),
                    "seconds_write": round(report.seconds_write, 3),
                    "rows_per_second": round(report.rows_per_second),
                },
                indent=2,
            )
        )
        return
    for table, n in report.rows.items():
        click.echo(f"{table:<22} {n:>12,}")
    click.echo(
        f"{report.total_rows:,} rows for {patients:,} patients (seed {seed}) in "
        f"{report.seconds_generate + report.seconds_write:.1f} s "
        f"({report.rows_per_second:,.0f} rows/s)"
    )


@click.command(name="catalog")
@click.option("--db", "url", required=True, help="Database URL (opened read-only).")
@click.option("--source", default=None, help="Name to give the source in the catalog.")
@click.option("--adapter", default=None, help="Adapter to use (default: detect).")
@click.option("--schema", default=None, help="Schema holding the source (PostgreSQL, DuckDB).")
@click.option("--json", "as_json", is_flag=True, help="Print the full catalog as JSON.")
def catalog_cmd(
    url: str, source: str | None, adapter: str | None, schema: str | None, as_json: bool
) -> None:
    """Print a source's catalog (the common metadata layer)."""
    from clinbridge.adapters import describe
    from clinbridge.db import Database

    try:
        with Database.open(url, schema=schema) as db:
            catalog = describe(db, adapter=adapter, source=source)
    except ClinbridgeError as exc:
        _fail(exc)
    if as_json:
        click.echo(catalog.to_json())
        return
    click.echo(catalog.summary())
    meta = [
        f"{k} {v}"
        for k, v in (
            ("CDM", catalog.cdm_version),
            ("vocabulary", catalog.vocabulary_version),
            ("data", f"{catalog.data_start} .. {catalog.data_end}"),
        )
        if v
    ]
    if meta:
        click.echo("; ".join(meta))


def _index(url: str, schema: str | None) -> Any:
    from clinbridge.db import Database
    from clinbridge.vocab import ConceptIndex

    db = Database.open(url, schema=schema)
    return db, ConceptIndex.for_database(db)


def _print_matches(matches: list[Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps([m.as_row() for m in matches], indent=2))
        return
    if not matches:
        click.echo("no matching concept")
        return
    for m in matches:
        flag = "S" if m.standard else " "
        extra = f" via {m.via}" if m.via is not None else ""
        score = f" {m.score:.2f}" if m.how in {"fuzzy", "embedding"} else ""
        click.echo(
            f"{m.concept_id!s:>10}  {flag} {m.vocabulary or '':<10} {m.code or '':<12} "
            f"{m.domain or '':<12} {m.name}  [{m.how}{score}{extra}]"
        )


_DB = click.option("--db", "url", required=True, help="Database holding the vocabulary.")
_SCHEMA = click.option("--schema", default=None)
_JSON = click.option("--json", "as_json", is_flag=True)


@click.command(name="lookup")
@click.argument("text")
@_DB
@_SCHEMA
@click.option(
    "--domain", default=None, help="Only concepts of this domain (Condition, Drug, Measurement...)."
)
@click.option("--limit", type=int, default=10, show_default=True, help="Fuzzy matches to show.")
@click.option(
    "--fuzzy/--exact",
    default=True,
    help="Fall back to fuzzy matching when nothing matches exactly.",
)
@_JSON
def vocab_lookup(
    text: str,
    url: str,
    schema: str | None,
    domain: str | None,
    limit: int,
    fuzzy: bool,
    as_json: bool,
) -> None:
    """Find concepts by id, name or synonym (then fuzzily); says how each matched."""
    try:
        db, index = _index(url, schema)
        with db:
            if text.strip().isdigit():
                matches = index.by_ids([int(text)])
            else:
                matches = index.by_name(text, domain=domain)
                if not matches and fuzzy:
                    matches = index.fuzzy(text, limit, domain=domain)
    except ClinbridgeError as exc:
        _fail(exc)
    _print_matches(matches, as_json)


@click.command(name="descendants")
@click.argument("concept_id")
@_DB
@_SCHEMA
@_JSON
def vocab_descendants(concept_id: str, url: str, schema: str | None, as_json: bool) -> None:
    """A concept and everything below it in CONCEPT_ANCESTOR."""
    try:
        db, index = _index(url, schema)
        with db:
            matches = index.descendants([concept_id])
    except ClinbridgeError as exc:
        _fail(exc)
    if not matches:
        raise click.ClickException(f"no concept with id {concept_id}")
    _print_matches(matches, as_json)


@click.command(name="map")
@click.argument("code")
@_DB
@_SCHEMA
@click.option("--vocabulary", default=None, help="Vocabulary of the code (ICD10CM, SNOMED, ...).")
@_JSON
def vocab_map(
    code: str, url: str, schema: str | None, vocabulary: str | None, as_json: bool
) -> None:
    """Map a source code to standard concepts through 'Maps to'."""
    try:
        db, index = _index(url, schema)
        with db:
            matches = index.map_codes([code], vocabulary)
    except ClinbridgeError as exc:
        _fail(exc)
    if not matches:
        raise click.ClickException(
            f"no concept with code {code!r}" + (f" in {vocabulary}" if vocabulary else "")
        )
    _print_matches(matches, as_json)
