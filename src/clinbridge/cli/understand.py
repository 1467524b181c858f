"""``clinbridge feedback approve|edit``: grow the example bank with checked question → plan pairs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from clinbridge.cli._io import bank_option

__all__ = ["feedback_approve", "feedback_edit"]


def _options(fn: Any) -> Any:
    opts = [
        click.option("--question", "-q", required=True, help="The question in plain language."),
        click.option(
            "--plan",
            "plan_file",
            type=click.Path(exists=True, dir_okay=False, path_type=Path),
            help="The QueryPlan JSON that answers it.",
        ),
        click.option("--sql", default=None, help="SQL that answers it (text, or @file)."),
        click.option(
            "--db",
            "url",
            default=None,
            help="Check the pair on this database first (it must run and pass the validator).",
        ),
        click.option(
            "--adapter",
            default=None,
            help="Adapter to describe the database with (default: detect).",
        ),
        click.option(
            "--schema", default=None, help="Database schema holding the source (PostgreSQL)."
        ),
        click.option("--source", default=None, help="Source name to record with the pair."),
        bank_option,
        click.option(
            "--augment",
            type=int,
            default=0,
            show_default=True,
            help="Also add up to N one-change variants that run and return a result (needs --db).",
        ),
        click.option(
            "--force", is_flag=True, help="Store the pair even if it fails its checks on --db."
        ),
        click.option(
            "--json", "as_json", is_flag=True, help="Print the stored examples as JSON lines."
        ),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def _read_sql(sql: str | None) -> str | None:
    if sql and sql.startswith("@"):
        return Path(sql[1:]).read_text(encoding="utf-8").strip()
    return sql


def _run(
    kind: str,
    *,
    question: str,
    plan_file: Path | None,
    sql: str | None,
    url: str | None,
    adapter: str | None,
    schema: str | None,
    source: str | None,
    bank_path: Path | None,
    augment: int,
    force: bool,
    as_json: bool,
    replaces: str | None = None,
) -> None:
    from clinbridge.engine.examples import ExampleBank
    from clinbridge.engine.examples import augment as augment_variants
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.errors import ClinbridgeError
    from clinbridge.settings import Settings

    if plan_file is None and not sql:
        raise click.UsageError("give --plan FILE or --sql SQL")
    if augment and not url:
        raise click.UsageError("--augment needs --db to run the variants")
    try:
        plan = QueryPlan.from_json(plan_file.read_bytes()) if plan_file else None
    except ValueError as exc:
        click.echo(f"error: invalid plan {plan_file}: {exc}", err=True)
        sys.exit(1)
    sql = _read_sql(sql)
    settings = Settings.from_env()
    from clinbridge.engine.examples import default_bank_path

    bank = ExampleBank(bank_path or default_bank_path(settings), embeddings=settings.embeddings)
    stored = []
    try:
        if url is None:
            stored.append(_store(bank, kind, question, plan, sql, source, replaces))
        else:
            from clinbridge.adapters import describe
            from clinbridge.db import Database
            from clinbridge.engine.validate import SqlProposal, validate_once

            with Database.open(url, schema=schema) as db:
                catalog = describe(db, adapter=adapter, source=source)
                proposal: Any = plan if plan is not None else SqlProposal(sql=sql or "")
                out = validate_once(
                    question, proposal, catalog=catalog, db=db, settings=settings, how="feedback"
                )
                if out.decision == "accept":
                    click.echo(
                        f"checked on {catalog.source}: {out.to_answer().summary()}", err=True
                    )
                elif force:
                    click.echo(
                        f"warning: stored although it fails on {catalog.source}: {out.reason}: "
                        f"{out.detail}",
                        err=True,
                    )
                else:
                    click.echo(
                        f"error: not stored — on {catalog.source} it abstains ({out.reason}): {out.detail}"
                        " (use --force to store it anyway)",
                        err=True,
                    )
                    sys.exit(1)
                ex = _store(
                    bank,
                    kind,
                    question,
                    plan,
                    sql or (out.sql if plan is None else None),
                    source or catalog.source,
                    replaces,
                )
                stored.append(ex)
                if augment:
                    back = _back_translator(settings, catalog, db)
                    stored += augment_variants(
                        ex,
                        catalog=catalog,
                        db=db,
                        bank=bank,
                        settings=settings,
                        back_translate=back,
                        limit=augment,
                    )
    except (ClinbridgeError, KeyError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    for ex in stored:
        if as_json:
            click.echo(ex.to_json())
        else:
            extra = f" [{ex.origin}: {ex.change}]" if ex.change else f" [{ex.origin}]"
            click.echo(f"{ex.id}{extra} {ex.question}")
    click.echo(f"{len(stored)} example(s) stored in {bank.path} ({len(bank)} in all)", err=True)


def _store(
    bank: Any,
    kind: str,
    question: str,
    plan: Any,
    sql: str | None,
    source: str | None,
    replaces: str | None,
) -> Any:
    if kind == "edit":
        return bank.edit(question, plan, sql, source=source, replaces=replaces)
    return bank.approve(question, plan, sql, source=source)


def _back_translator(settings: Any, catalog: Any, db: Any) -> Any:
    """The configured LLM's back-translation, or None for the templates."""
    from clinbridge.engine.llm import LLMUnderstanding, get_backend, llm_enabled

    if not llm_enabled(settings):
        return None
    return LLMUnderstanding(
        get_backend(settings), catalog=catalog, db=db, settings=settings
    ).back_translate


@click.command("approve")
@_options
def feedback_approve(**opts: Any) -> None:
    """Add an approved question → plan (or SQL) pair to the example bank."""
    _run("approve", **opts)


@click.command("edit")
@_options
@click.option(
    "--id",
    "example_id",
    default=None,
    help="Id of the example to correct (default: same question).",
)
def feedback_edit(example_id: str | None, **opts: Any) -> None:
    """Correct a stored pair (by --id, or the pair with the same question); the old one is superseded."""
    _run("edit", replaces=example_id, **opts)
