"""Eunomia GiBleed CSV load time into DuckDB, SQLite and PostgreSQL (if the server is up).

Run: ``python bench/bench_load_omop.py``. Prints rows read/loaded, seconds and rows/s per backend.
"""

from __future__ import annotations

import tempfile
import time
import uuid
from pathlib import Path

from clinbridge.adapters.omop import load_omop_csv

ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "synthetic_data" / "eunomia-gibleed-5.3"
PG = "postgresql://postgres@127.0.0.1:5432/test"


def main() -> None:
    print(f"{'backend':<10} {'rows':>10} {'seconds':>8} {'rows/s':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        targets = [
            ("duckdb", f"duckdb:///{Path(tmp) / 'e.duckdb'}"),
            ("sqlite", f"sqlite:///{Path(tmp) / 'e.db'}"),
        ]
        schema = f"bench_{uuid.uuid4().hex[:8]}"
        try:
            import psycopg

            with psycopg.connect(PG, autocommit=True, connect_timeout=3) as conn:
                conn.execute(f'CREATE SCHEMA "{schema}"')
            targets.append(("postgres", f"{PG}?schema={schema}"))
        except Exception as exc:
            print(f"postgres skipped: {exc}")
        try:
            for name, url in targets:
                t0 = time.perf_counter()
                report = load_omop_csv(CSV, url, if_exists="replace")
                spent = time.perf_counter() - t0
                assert report.reconciles
                print(
                    f"{name:<10} {report.loaded:>10,} {spent:>8.2f} {report.loaded / spent:>10,.0f}"
                )
        finally:
            if any(n == "postgres" for n, _ in targets):
                import psycopg

                with psycopg.connect(PG, autocommit=True) as conn:
                    conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


if __name__ == "__main__":
    main()
