"""``clinbridge calc``: compute medical scores.

clinbridge calc --list
clinbridge calc "CHA2DS2-VASc" --params '{"age": 72, "sex": "Female", ...}' [--json]
clinbridge calc --medcalc FILE.csv --mode gold --out OUT.jsonl
clinbridge calc --medcalc FILE.csv --mode note [--extractor builtin|rules|none|module:attr]
clinbridge calc NAME --note FILE.txt [--question TEXT] [--json]
clinbridge calc NAME --db URL --patient ID [--at DATE] [--json]
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import click
import orjson

from clinbridge.cli._io import atomic_output
from clinbridge.errors import ClinbridgeError


def _dump(obj: Any) -> str:
    return orjson.dumps(obj, option=orjson.OPT_INDENT_2, default=str).decode()


@click.command(name="calc")
@click.argument("name", required=False)
@click.option("--params", "params_json", help="Inputs as a JSON object (name or alias -> value).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--list", "list_all", is_flag=True, help="List the calculators.")
@click.option(
    "--missing",
    type=click.Choice(["spec", "absent"]),
    default="spec",
    show_default=True,
    help="'absent': findings you do not give are absent (otherwise only where the score says so).",
)
@click.option(
    "--medcalc",
    "medcalc_file",
    type=click.Path(exists=True, dir_okay=False),
    help="A MedCalc-Bench CSV to compute row by row.",
)
@click.option(
    "--mode",
    type=click.Choice(["gold", "note"]),
    default="gold",
    show_default=True,
    help="Batch mode: gold parameters (Relevant Entities) or the patient note.",
)
@click.option(
    "--extractor",
    default="builtin",
    show_default=True,
    help="Note extractor: builtin (rules + shipped MiniLM judge), rules, none, an entry point "
    "name or module:attr.",
)
@click.option(
    "--note",
    "note_file",
    type=click.Path(exists=True, dir_okay=False),
    help="A patient note (text file): extract the inputs from it and compute NAME.",
)
@click.option("--question", default="", help="With --note: the question asked (optional).")
@click.option("--out", "out_file", type=click.Path(dir_okay=False), help="Batch output (JSONL).")
@click.option("--db", "db_url", help="Database URL of a catalogued source (with --patient).")
@click.option("--patient", help="Patient id in that source.")
@click.option("--at", "at_date", help="Reference date (YYYY-MM-DD); default: the latest data.")
@click.option(
    "--max-age-days",
    type=int,
    default=365,
    show_default=True,
    help="With --db: labs and vitals older than this before --at are not used.",
)
def calc_cmd(
    name: str | None,
    params_json: str | None,
    as_json: bool,
    list_all: bool,
    missing: str,
    medcalc_file: str | None,
    mode: str,
    out_file: str | None,
    extractor: str,
    note_file: str | None,
    question: str,
    db_url: str | None,
    patient: str | None,
    at_date: str | None,
    max_age_days: int,
) -> None:
    """Compute a medical score (MedCalc-Bench calculators) with a step-by-step explanation."""
    from clinbridge import calculators

    try:
        if list_all:
            _list(calculators.list_calculators(), as_json)
            return
        if medcalc_file:
            _batch(medcalc_file, mode, out_file, extractor)
            return
        if not name:
            raise click.UsageError("give a calculator NAME, --list or --medcalc FILE")
        calc = calculators.get(name)
        if note_file:
            _from_note(calc, note_file, question, extractor, as_json)
            return
        if db_url:
            if not patient:
                raise click.UsageError("--db needs --patient")
            _from_records(calc, db_url, patient, at_date, as_json, missing, max_age_days)
            return
        if params_json is None:
            raise click.UsageError("give --params '{...}' (or --db URL --patient ID)")
        try:
            params = orjson.loads(params_json)
        except orjson.JSONDecodeError as exc:
            raise click.BadParameter(f"not JSON: {exc}", param_hint="--params") from exc
        if not isinstance(params, dict):
            raise click.BadParameter("must be a JSON object", param_hint="--params")
        result = calc.compute(params, missing=missing)  # type: ignore[arg-type]
    except ClinbridgeError as exc:
        if as_json:
            click.echo(_dump({"decision": "abstain", "error": exc.to_dict()}))
            sys.exit(2)
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(_dump(_result_json(result)))
    else:
        click.echo(result.explanation())


def _result_json(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = result.model_dump(mode="json")
    data["answer"] = result.answer
    data["explanation"] = result.explanation()
    data["decision"] = "accept"
    return data


def _list(calcs: list[Any], as_json: bool) -> None:
    if as_json:
        rows = [
            {
                "id": c.id,
                "name": c.name,
                "slug": c.spec.slug,
                "aliases": list(c.spec.aliases),
                "inputs": c.json_schema(),
            }
            for c in calcs
        ]
        click.echo(_dump(rows))
        return
    for c in calcs:
        inputs = ", ".join(i.name for i in c.spec.inputs)
        click.echo(f"{c.id:>3}  {c.name}  [{c.spec.slug}]\n       inputs: {inputs}")


def _batch(path: str, mode: str, out_file: str | None, extractor_name: str) -> None:
    from clinbridge.calculators.extract import get_extractor
    from clinbridge.calculators.medcalc import read_medcalc_csv, run_rows

    extractor = get_extractor(extractor_name) if mode == "note" else None

    start = time.perf_counter()
    counts: Counter[str] = Counter()
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(atomic_output(out_file, "wb")) if out_file else sys.stdout.buffer
        rows = read_medcalc_csv(path, mode=mode)  # type: ignore[arg-type]
        for outcome in run_rows(rows, mode=mode, extractor=extractor):  # type: ignore[arg-type]
            counts[outcome.decision] += 1
            if outcome.match is not None:
                counts["match" if outcome.match else "mismatch"] += 1
            out.write(orjson.dumps(outcome.to_json_dict()) + b"\n")
    n = counts["accept"] + counts["abstain"]
    secs = time.perf_counter() - start
    click.echo(
        f"{n} rows: {counts['accept']} accepted, {counts['abstain']} abstained; "
        f"{counts['match']} agree with the label, {counts['mismatch']} disagree "
        f"({n / secs if secs else 0:.0f} rows/s)" + (f"; wrote {out_file}" if out_file else ""),
        err=True,
    )


def _from_note(calc: Any, path: str, question: str, extractor_name: str, as_json: bool) -> None:
    from clinbridge.calculators.extract import get_extractor
    from clinbridge.calculators.medcalc import MedCalcRow, run_row

    try:
        note = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise click.ClickException(f"{path}: not UTF-8 text: {exc}") from exc
    row = MedCalcRow(row=Path(path).name, calculator_id=calc.id, note=note, question=question)
    out = run_row(row, mode="note", extractor=get_extractor(extractor_name))
    if as_json:
        click.echo(_dump(out.to_json_dict()))
    else:
        if out.decision == "accept":
            click.echo(out.explanation)
        else:
            click.echo(f"abstain: {out.reason}")
        click.echo("Evidence:")
        for e in out.evidence:
            where = f"[{e['span'][0]}:{e['span'][1]}]" if e["span"] else "[-]"
            score = f" p={e['score']:.2f}" if e.get("score") is not None else ""
            click.echo(
                f"  - {e['input']} = {e['value']!r} {where} {e['method']}"
                f"{' (' + e['assertion'] + ')' if e['assertion'] else ''}{score}: "
                f"{e['text'][:120]!r}"
            )
    if out.decision == "abstain":
        sys.exit(2)


def _from_records(
    calc: Any,
    db_url: str,
    patient: str,
    at_date: str | None,
    as_json: bool,
    missing: str,
    max_age_days: int,
) -> None:
    from clinbridge.calculators.records import compute_from_records

    outcome = compute_from_records(
        calc,
        db_url,
        patient,
        at=at_date,
        missing=missing,  # type: ignore[arg-type]
        max_value_age_days=max_age_days,
    )
    if as_json:
        click.echo(_dump(outcome.to_json_dict()))
        return
    click.echo(outcome.report())
    if outcome.decision == "abstain":
        if missing == "spec" and any(not e.found for e in outcome.evidence):
            click.echo(
                "hint: findings the record does not mention are not assumed absent; if the record "
                "is complete, add --missing absent to count them as absent",
                err=True,
            )
        sys.exit(2)
