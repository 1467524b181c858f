"""``clinbridge ask``: execute a QueryPlan (``--plan``) or answer a question in plain language."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from clinbridge.engine.answer import Answer

__all__ = ["ask_cmd", "print_answer"]


def print_answer(answer: Answer, *, as_json: bool) -> None:
    if as_json:
        click.echo(answer.to_json())
        return
    click.echo(f"answer: {answer.summary()}")
    if answer.decision == "accept" and answer.details:
        click.echo("details: " + ", ".join(f"{k}={v}" for k, v in answer.details.items()))
    for cs in answer.concept_sets:
        names = ", ".join(f"{c['name']} [{c['how']}]" for c in cs["concepts"][:5])
        more = f" (+{cs['count'] - 5} more)" if cs["count"] > 5 else ""
        click.echo(f"concepts '{cs['label']}': {names}{more}")
    failed = [c for c in answer.checks if not c.passed]
    click.echo(
        f"checks: {len(answer.checks) - len(failed)}/{len(answer.checks)} passed"
        + (f"; failed: {', '.join(c.name for c in failed)}" if failed else "")
    )
    if answer.sql:
        click.echo(f"sql ({answer.dialect}): {answer.sql}")
    click.echo(f"time: {answer.timings.total_ms:.1f} ms")


@click.command("ask")
@click.argument("question", required=False)
@click.option(
    "--db", "url", required=True, help="Database URL (duckdb:///…, sqlite:///…, postgresql://…)."
)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Execute this QueryPlan JSON file instead of a question.",
)
@click.option("--source", default=None, help="Source name to record in the catalog.")
@click.option(
    "--adapter", default=None, help="Adapter to describe the database with (default: detect)."
)
@click.option("--schema", default=None, help="Database schema holding the source (PostgreSQL).")
@click.option(
    "--patient", "patient_id", default=None, help="Patient id for a patient-level question."
)
@click.option("--now", default=None, help="What 'today' means (ISO timestamp).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole Answer as JSON.")
def ask_cmd(
    question: str | None,
    url: str,
    plan_file: Path | None,
    source: str | None,
    adapter: str | None,
    schema: str | None,
    patient_id: str | None,
    now: str | None,
    as_json: bool,
) -> None:
    """Answer QUESTION, or execute --plan, against --db; print the answer with its provenance."""
    from clinbridge.adapters import describe
    from clinbridge.db import Database
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.engine.run import run_plan
    from clinbridge.errors import ClinbridgeError
    from clinbridge.settings import Settings

    if plan_file is None and not question:
        raise click.UsageError("give a QUESTION or --plan FILE")
    settings = Settings.from_env(now=now)
    try:
        with Database.open(url, schema=schema) as db:
            catalog = describe(db, adapter=adapter, source=source)
            if plan_file is not None:
                plan = QueryPlan.from_json(plan_file.read_bytes())
                if patient_id is not None:
                    plan = plan.model_copy(update={"patient_id": patient_id})
                answer = run_plan(db, catalog, plan, settings=settings)
            else:
                try:
                    from clinbridge.api import Connection
                except ImportError as exc:
                    raise click.ClickException(
                        "questions in plain language need clinbridge.api"
                    ) from exc
                conn = Connection(db, catalog, settings=settings)
                answer = conn.ask(question or "", patient_id=patient_id)
    except ClinbridgeError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except ValueError as exc:  # an invalid plan file
        click.echo(f"error: invalid plan: {exc}", err=True)
        sys.exit(1)
    print_answer(answer, as_json=as_json)
    if answer.decision == "abstain":
        sys.exit(0)  # abstaining is a normal result, not a failure
