"""The hostile corpus (tests/data/hostile/corpus.jsonl, >= 500 cases) against real DuckDB, SQLite
and PostgreSQL databases holding a canary table (``secret``) that no catalog lists.

For every case and backend: the guard refuses it with one of the expected reasons and a clear
one-line message, or (cases marked ``ok``: a payload inside a string or a comment) it runs and
returns no canary row. Afterwards every database is unchanged: file hashes for DuckDB/SQLite,
row contents and pg_stat write counters for PostgreSQL, and no file appeared where payloads try
to write. The same statements are also sent straight to the database sandbox WITHOUT the guard,
as a least-privilege reader: the database's own protections must hold on their own.
"""

from __future__ import annotations

import collections
import glob
import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from guard_dbs import ALLOWED, COLUMNS, PG_URL, fingerprint, schema_of  # type: ignore[import-not-found]

from clinbridge.cli import main
from clinbridge.db import Database
from clinbridge.engine.execute import execute
from clinbridge.engine.guard import guard
from clinbridge.errors import ClinbridgeError, SQLSafetyError
from clinbridge.settings import Settings

pytest_plugins = ["guard_dbs"]

CORPUS_PATH = Path(__file__).resolve().parents[1] / "data" / "hostile" / "corpus.jsonl"
CORPUS = [json.loads(line) for line in CORPUS_PATH.read_text(encoding="utf-8").splitlines()]
SETTINGS = Settings(max_rows=100, sql_timeout_ms=2_000)
PWN_GLOB = "/tmp/cb_pwn*"
CANARY = "top secret"


def _cases(backend: str) -> list[dict[str, Any]]:
    return [c for c in CORPUS if backend in c["dialects"]]


def _pg_writes(schema: str) -> Any:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        return conn.execute(
            "SELECT relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables "
            "WHERE schemaname = %s ORDER BY relname",
            (schema,),
        ).fetchall()


def _state(url: str) -> Any:
    state: dict[str, Any] = {"data": fingerprint(url), "pwn": sorted(glob.glob(PWN_GLOB))}
    if url.startswith("postgresql"):
        state["pg_stat"] = _pg_writes(schema_of(url))
    return state


def _flat(rows: list[tuple[Any, ...]]) -> str:
    return repr(rows)


def test_corpus_is_big_well_formed_and_covers_every_attack():
    assert len(CORPUS) >= 500
    ids = [c["id"] for c in CORPUS]
    assert len(ids) == len(set(ids))
    classes = collections.Counter(c["class"] for c in CORPUS)
    assert set(classes) >= {
        "stacked", "write", "function", "catalog", "canary", "file", "unicode", "bomb",
        "injection",
    }  # fmt: skip
    for case in CORPUS:
        assert set(case) >= {"id", "class", "dialects", "sql", "expect"}
        assert set(case["dialects"]) <= {"duckdb", "sqlite", "postgres"}


def test_corpus_file_is_generated_from_its_script(tmp_path):
    import runpy

    script = CORPUS_PATH.with_name("make_corpus.py")
    module = runpy.run_path(str(script))
    module["OUT"] = tmp_path / "c.jsonl"
    lines = [json.dumps(c, ensure_ascii=True) for c in module["cases"]]
    assert lines == CORPUS_PATH.read_text(encoding="utf-8").splitlines(), (
        "corpus.jsonl is stale: run python tests/data/hostile/make_corpus.py"
    )


def test_guarded_corpus_on_every_backend(guard_db_url):
    backend = guard_db_url.split(":", 1)[0].replace("postgresql", "postgres")
    before = _state(guard_db_url)
    wrong: list[str] = []
    outcome: collections.Counter[str] = collections.Counter()
    with Database.open(guard_db_url) as db:
        schemas = {db.schema} if db.schema else {"public" if backend == "postgres" else "main"}
        for case in _cases(backend):
            expect = case["expect"]
            try:
                guarded = guard(
                    case["sql"],
                    dialect=db.dialect,
                    allowed_tables=ALLOWED,
                    max_rows=SETTINGS.max_rows,
                    allowed_columns=COLUMNS,
                    allowed_schemas=schemas,
                    timeout_ms=SETTINGS.sql_timeout_ms,
                )
            except SQLSafetyError as exc:
                reason = exc.details["reason"]
                message = str(exc)
                outcome[f"refused:{reason}"] += 1
                if "*" not in expect and reason not in expect:
                    wrong.append(f"{case['id']}: refused as {reason}, expected {expect}")
                if not message.startswith(f"refused ({reason}): ") or "\n" in message:
                    wrong.append(f"{case['id']}: unclear refusal {message[:120]!r}")
                continue
            if "ok" not in expect:
                wrong.append(f"{case['id']}: ADMITTED {guarded.sql[:160]!r}")
                continue
            try:
                result = execute(db, guarded, settings=SETTINGS)
            except ClinbridgeError as exc:  # the database refused it: harmless
                outcome[f"db_error:{exc.code}"] += 1
                continue
            outcome["ran"] += 1
            if CANARY in _flat(result.rows):
                wrong.append(f"{case['id']}: READ THE CANARY {result.rows[:3]}")
            if "rows" in case and [list(r) for r in result.rows] != case["rows"]:
                wrong.append(f"{case['id']}: rows {result.rows[:3]} != {case['rows']}")
    after = _state(guard_db_url)
    print(f"\n{backend}: {len(_cases(backend))} cases, {dict(sorted(outcome.items()))}")
    assert not wrong, "\n".join(wrong[:40])
    assert after == before, "the database or the file system changed"


def _raw_cases(backend: str) -> list[dict[str, Any]]:
    return [c for c in _cases(backend) if c["class"] != "bomb"]


def test_database_sandbox_holds_without_the_guard(guard_db_url):
    """Every hostile statement sent straight to the sandbox (no guard) as the least-privilege
    connection: nothing changes, no file appears, and on PostgreSQL (a reader role granted the
    catalogued tables only) neither the canary nor server files can be read."""
    backend = guard_db_url.split(":", 1)[0].replace("postgresql", "postgres")
    before = _state(guard_db_url)
    leaks: list[str] = []
    counts: collections.Counter[str] = collections.Counter()
    with Database.open(guard_db_url) as db:
        for case in _raw_cases(backend):
            try:
                result = db.execute(case["sql"], timeout_ms=1_000, max_rows=50, sandbox=True)
            except ClinbridgeError as exc:
                counts[exc.code] += 1
                continue
            counts["ran"] += 1
            text = _flat(result.rows)
            if backend == "postgres" and (CANARY in text or "root:" in text):
                leaks.append(f"{case['id']}: {case['sql'][:80]!r} -> {text[:120]}")
    after = _state(guard_db_url)
    print(f"\n{backend} without the guard: {dict(sorted(counts.items()))}")
    assert not leaks, "\n".join(leaks[:20])
    assert after == before, "the sandbox let the database or the file system change"


def test_cli_on_a_sample_exits_0_1_or_2_and_never_prints_a_traceback(guard_db_url):
    backend = guard_db_url.split(":", 1)[0].replace("postgresql", "postgres")
    cases = _cases(backend)
    sample = cases[:: max(1, len(cases) // 60)]
    runner = CliRunner()
    for case in sample:
        r = runner.invoke(
            main, ["sql", "-", "--db", guard_db_url, "--timeout-ms", "2000", "--json"],
            input=case["sql"],
        )  # fmt: skip
        assert r.exit_code in (0, 1, 2), (case["id"], r.exit_code, r.output[-300:])
        assert r.exception is None or isinstance(r.exception, SystemExit), (case["id"], r)
        assert "Traceback" not in r.output and "Traceback" not in r.stderr, case["id"]
        # without an adapter the CLI allows the database's own tables (the canary too), so
        # only refusals that do not depend on the table list are asserted
        if "ok" not in case["expect"] and case["class"] not in {"canary", "catalog", "unicode"}:
            assert r.exit_code == 2, (case["id"], r.stderr)
            assert r.stderr.startswith("error: refused ("), (case["id"], r.stderr)


@pytest.mark.skipif(os.environ.get("CB_HOSTILE_SUBPROCESS") == "0", reason="disabled")
def test_cli_in_a_real_process_for_a_few_crashers(guard_duckdb_url):
    import subprocess
    import sys

    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": src}
    for sql in (
        "SHOW ALL",
        "SELECT " + "(" * 5000 + "1" + ")" * 5000,
        "\x00",
        "SELECT 1；DROP TABLE person",
    ):
        p = subprocess.run(
            [sys.executable, "-m", "clinbridge", "sql", "-", "--db", guard_duckdb_url],
            input=sql, capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
        assert p.returncode in (1, 2), (sql[:20], p.returncode, p.stdout[-300:])
        assert "Traceback" not in p.stderr and p.stderr.count("\n") == 1, p.stderr[-300:]
