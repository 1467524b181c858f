"""``clinbridge ask``: execute a QueryPlan (``--plan``) or answer a question in plain language."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from clinbridge.cli._io import atomic_output, plain_validation_message
from clinbridge.engine.answer import Answer

__all__ = ["ask_cmd", "print_answer"]


def print_answer(answer: Answer, *, as_json: bool) -> None:
    """Print an answer as text or as JSON."""
    if as_json:
        click.echo(answer.to_json())
        return
    click.echo(f"answer: {answer.summary()}")
    for k, alt in enumerate(answer.alternatives, start=1):
        shown = alt.value if alt.decision == "accept" else f"cannot answer ({alt.reason})"
        click.echo(f"  reading {k}: {alt.description} → {shown}")
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
@click.option(
    "--batch",
    "batch_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Answer every line of this JSONL file ({id, question, patient_id, now}).",
)
@click.option(
    "--out",
    "out_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where --batch writes one JSON answer per line (default: stdout).",
)
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
    batch_file: Path | None = None,
    out_file: Path | None = None,
) -> None:
    """Answer QUESTION (or every question of --batch), or execute --plan, against --db."""
    if batch_file is not None:
        if question or plan_file:
            raise click.UsageError(
                "--batch answers the questions of a file; do not also give QUESTION or --plan"
            )
        _batch(url, batch_file, out_file, source=source, adapter=adapter, schema=schema, now=now)
        return
    from clinbridge.adapters import describe
    from clinbridge.db import Database
    from clinbridge.engine.plan import QueryPlan
    from clinbridge.engine.run import run_plan
    from clinbridge.errors import ClinbridgeError
    from clinbridge.settings import Settings

    if plan_file is None and not question:
        raise click.UsageError("give a QUESTION or --plan FILE")
    try:
        settings = Settings.from_env(now=now)
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
        click.echo(f"error: invalid plan {plan_file}: {plain_validation_message(exc)}", err=True)
        sys.exit(1)
    print_answer(answer, as_json=as_json)
    if answer.decision == "abstain":
        sys.exit(2)  # cannot answer: exit 2, like a refused statement or an abstaining calc


def _batch_records(path: Path) -> list[dict[str, object]]:
    """Read and check the batch file; a bad line is an error naming the file, line and field."""
    import orjson

    from clinbridge.errors import LoadError

    records: list[dict[str, object]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise LoadError(
                f"{path}: line {number} is not JSON ({exc})", file=str(path), record=number
            ) from exc
        if not isinstance(rec, dict):
            raise LoadError(
                f"{path}: line {number} is not a JSON object", file=str(path), record=number
            )
        q = rec.get("question")
        if not isinstance(q, str) or not q.strip():
            raise LoadError(
                f"{path}: line {number} has no 'question' text",
                file=str(path),
                record=number,
                field="question",
            )
        pid = rec.get("patient_id")
        if pid is not None and not isinstance(pid, str | int):
            raise LoadError(
                f"{path}: line {number}: 'patient_id' must be a string, a number or null",
                file=str(path),
                record=number,
                field="patient_id",
            )
        rec.setdefault("id", number)
        records.append(rec)
    return records


def batch_line(rec: dict[str, object], answer: Answer) -> dict[str, object]:
    """One output line of ``ask --batch``."""
    data = answer.to_dict()
    return {
        "id": rec.get("id"),
        "decision": answer.decision,
        "value": data.get("value"),
        "rows": data.get("rows"),
        "sql": answer.sql,
        "plan": data.get("plan"),
        "reason": answer.reason,
        "reason_code": answer.reason_code,
        "alternatives": data.get("alternatives") or [],
        "checks": [{"name": c.name, "passed": c.passed, "detail": c.detail} for c in answer.checks],
        "ms": answer.timings.total_ms,
    }


def _batch(
    url: str,
    batch_file: Path,
    out_file: Path | None,
    *,
    source: str | None,
    adapter: str | None,
    schema: str | None,
    now: str | None,
) -> None:
    import orjson

    from clinbridge.api import connect
    from clinbridge.errors import ClinbridgeError
    from clinbridge.settings import Settings

    try:
        records = _batch_records(batch_file)
        conn = connect(
            url, schema=schema, adapter=adapter, source=source, settings=Settings.from_env(now=now)
        )
    except ClinbridgeError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    accepted = 0
    with contextlib.ExitStack() as stack:
        sink = stack.enter_context(atomic_output(out_file)) if out_file else None
        with conn:
            for rec in records:
                pid = rec.get("patient_id")
                when = rec.get("now")
                answer = conn.ask(
                    str(rec["question"]),
                    patient_id=None if pid is None else str(pid),
                    now=when if isinstance(when, str) else None,
                )
                accepted += answer.decision == "accept"
                line = orjson.dumps(batch_line(rec, answer)).decode()
                if sink:
                    sink.write(line + "\n")
                else:
                    click.echo(line)
    if out_file:
        click.echo(
            f"{len(records)} question(s): {accepted} answered, {len(records) - accepted} abstained → {out_file}",
            err=True,
        )
