"""Synthetic OMOP generator throughput: rows/s for 1k and 10k patients (and 100k if it fits).

Run: ``python bench/bench_synth_omop.py [--max 100000] [--budget 60]``. Prints, per size, the
rows generated, the seconds spent generating (numpy) and writing (DuckDB bulk insert), and rows/s.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from clinbridge.synthetic.omop import generate_omop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max", type=int, default=100_000, help="largest size to try")
    parser.add_argument(
        "--budget", type=float, default=60.0, help="skip a size predicted to exceed this (s)"
    )
    parser.add_argument("--backend", choices=["duckdb", "sqlite"], default="duckdb")
    args = parser.parse_args()
    print(
        f"{'patients':>9} {'rows':>12} {'generate s':>11} {'write s':>8} {'total s':>8} {'rows/s':>11}"
    )
    last_rate: float | None = None
    last_rows_per_patient = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for n in (1_000, 10_000, 100_000):
            if n > args.max:
                break
            if last_rate:
                predicted = n * last_rows_per_patient / last_rate
                if predicted > args.budget:
                    print(
                        f"{n:>9} skipped: predicted {predicted:.0f} s > budget {args.budget:.0f} s"
                    )
                    break
            suffix = "duckdb" if args.backend == "duckdb" else "db"
            url = f"{args.backend}:///{Path(tmp) / f'synth_{n}.{suffix}'}"
            t0 = time.perf_counter()
            report = generate_omop(url, patients=n, seed=1)
            total = time.perf_counter() - t0
            rate = report.total_rows / total
            print(
                f"{n:>9} {report.total_rows:>12,} {report.seconds_generate:>11.2f} "
                f"{report.seconds_write:>8.2f} {total:>8.2f} {rate:>11,.0f}"
            )
            last_rate, last_rows_per_patient = rate, report.total_rows / n


if __name__ == "__main__":
    main()
