"""FHIR ingest benchmark: ingest time vs orjson.loads on the same files, resources/s, peak memory.

Prints, for the Synthea sample in tests/data/fhir and for generated patients (default 1,000):

* orjson: reading + decompressing + ``orjson.loads`` of every bundle / NDJSON line (the floor);
* ingest: ``clinbridge load fhir`` into a fresh database (DuckDB by default), same files;
* ratio ingest / orjson (goal <= 3x), wall-clock and CPU time (CPU is steadier on a busy box);
* resources per second; peak RSS of the ingest process and its peak Python heap (tracemalloc,
  a separate run) — the heap stays flat as the input grows: reading streams, rows are batched.

Each measurement runs in a fresh subprocess. Usage::

    python bench/bench_fhir.py [--patients 1000] [--backends duckdb,sqlite,postgres] [--skip-sample]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = [ROOT / "tests" / "data" / "fhir" / "bundles", ROOT / "tests" / "data" / "fhir" / "ndjson"]
PG = "postgresql://postgres@127.0.0.1:5432/test"


def _files(paths: list[Path]) -> list[Path]:
    sys.path.insert(0, str(ROOT / "src"))
    from clinbridge.adapters.fhir.reader import discover, file_kind

    return [f for f in discover(paths) if file_kind(f) != "log"]


# -- workers (run in a subprocess) ----------------------------------------------------------------


def _worker_orjson(paths: list[Path]) -> dict[str, float]:
    import orjson

    w0, c0 = time.perf_counter(), time.process_time()
    n = 0
    for f in _files(paths):
        data = gzip.decompress(f.read_bytes()) if f.suffix == ".gz" else f.read_bytes()
        if ".ndjson" in f.name:
            for line in data.splitlines():
                if line.strip():
                    orjson.loads(line)
                    n += 1
        else:
            doc = orjson.loads(data)
            n += len(doc.get("entry", [])) if isinstance(doc, dict) else 1
    return {"wall": time.perf_counter() - w0, "cpu": time.process_time() - c0, "resources": n}


def _worker_ingest(paths: list[Path], url: str, trace: bool, workers: int) -> dict[str, float]:
    sys.path.insert(0, str(ROOT / "src"))
    import tracemalloc

    from clinbridge.adapters.fhir import load_fhir

    if trace:
        tracemalloc.start()
    w0, c0 = time.perf_counter(), time.process_time()
    report = load_fhir(paths, url, workers=workers)
    out = {
        "wall": time.perf_counter() - w0,
        "cpu": time.process_time() - c0,
        "resources": report.read,
        "quarantined": report.quarantined,
    }
    if trace:
        out["heap_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    out["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _run(args: list[str]) -> dict[str, float]:
    res = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, check=False
    )
    if res.returncode != 0:
        raise SystemExit(f"worker failed: {res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


# -- driver ---------------------------------------------------------------------------------------


def _one_bundle(ndjson_dir: Path, target: Path) -> Path:
    """All resources of an NDJSON folder as one collection bundle, written without holding it."""
    with open(target, "wb") as out:
        out.write(b'{"resourceType": "Bundle", "type": "collection", "entry": [\n')
        first = True
        for f in sorted(ndjson_dir.glob("*.ndjson")):
            with open(f, "rb") as fh:
                for line in fh:
                    if line.strip():
                        out.write(
                            (b"" if first else b",\n") + b'{"resource": ' + line.rstrip() + b"}"
                        )
                        first = False
        out.write(b"\n]}\n")
    return target


def _url(backend: str, tmp: Path) -> tuple[str, str | None]:
    if backend == "duckdb":
        return f"duckdb:///{tmp / f'b{uuid.uuid4().hex[:6]}.duckdb'}", None
    if backend == "sqlite":
        return f"sqlite:///{tmp / f'b{uuid.uuid4().hex[:6]}.db'}", None
    schema = f"bench_fhir_{uuid.uuid4().hex[:8]}"
    import psycopg

    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    return f"{PG}?schema={schema}", schema


def _drop(schema: str | None) -> None:
    if schema:
        import psycopg

        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def bench(
    label: str,
    paths: list[Path],
    backends: list[str],
    tmp: Path,
    rows: list[list[str]],
    workers: int = 1,
) -> None:
    size = sum(f.stat().st_size for f in _files(paths)) / 2**20
    base = _run(["--worker", "orjson", *map(str, paths)])
    for backend in backends:
        url, schema = _url(backend, tmp)
        try:
            ing = _run(
                ["--worker", "ingest", "--workers", str(workers), "--url", url, *map(str, paths)]
            )
        finally:
            _drop(schema)
        heap = ""
        if backend == "duckdb":
            url2, _ = _url(backend, tmp)
            heap = f"{_run(['--worker', 'ingest', '--trace', '--url', url2, *map(str, paths)])['heap_peak_mb']:.0f}"
        rows.append(
            [
                label,
                backend,
                f"{size:.1f}",
                f"{ing['resources']:.0f}",
                f"{base['wall']:.2f}",
                f"{ing['wall']:.2f}",
                f"{ing['wall'] / base['wall']:.1f}x",
                f"{ing['cpu'] / base['cpu']:.1f}x",
                f"{ing['resources'] / ing['wall']:,.0f}",
                f"{ing['maxrss_mb']:.0f}",
                heap,
            ]
        )
        print("  ".join(rows[-1]), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--patients", type=int, default=1000)
    ap.add_argument("--backends", default="duckdb")
    ap.add_argument("--skip-sample", action="store_true")
    ap.add_argument(
        "--big-bundle",
        action="store_true",
        help="also load everything as ONE collection bundle (the streamed, entry-by-entry path)",
    )
    ap.add_argument("--worker", choices=["orjson", "ingest"])
    ap.add_argument("--url")
    ap.add_argument("--trace", action="store_true")
    ap.add_argument(
        "--workers", type=int, default=1, help="parse/flatten processes (load_fhir workers=)"
    )
    ap.add_argument("paths", nargs="*")
    a = ap.parse_args()
    if a.worker == "orjson":
        print(json.dumps(_worker_orjson([Path(p) for p in a.paths])))
        return
    if a.worker == "ingest":
        print(json.dumps(_worker_ingest([Path(p) for p in a.paths], a.url, a.trace, a.workers)))
        return
    sys.path.insert(0, str(ROOT / "src"))
    from clinbridge.synthetic.fhir import generate_fhir

    backends = a.backends.split(",")
    tmp = Path(tempfile.mkdtemp(prefix="bench_fhir_"))
    header = [
        "data",
        "backend",
        "MiB",
        "resources",
        "orjson_s",
        "ingest_s",
        "ratio_wall",
        "ratio_cpu",
        "res/s",
        "peak_rss_MiB",
        "py_heap_MiB",
    ]
    print(
        f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f} python={sys.version.split()[0]} "
        f"workers={a.workers}"
    )
    print("  ".join(header))
    rows: list[list[str]] = []
    try:
        if not a.skip_sample:
            bench("synthea-sample", SAMPLE, backends, tmp, rows, a.workers)
        small = max(1, a.patients // 4)
        for n in (small, a.patients):
            out = tmp / f"gen{n}"
            t0 = time.perf_counter()
            counts = generate_fhir(out, patients=n, seed=1)
            gen_s = time.perf_counter() - t0
            print(
                f"# generated {n} patients: {sum(counts.values())} resources in {gen_s:.1f} s "
                f"({sum(counts.values()) / gen_s:,.0f} resources/s)",
                flush=True,
            )
            bench(f"generated-{n}", [out], backends, tmp, rows, a.workers)
            if a.big_bundle:
                big = _one_bundle(out, tmp / f"bundle{n}.json")
                bench(f"one-bundle-{n}", [big], ["duckdb"], tmp, rows, 1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        "goal: ratio <= 3x; Blaze uploads 1.8k-7.7k resources/s; py_heap should not grow with input size"
    )


if __name__ == "__main__":
    main()
