"""Load on `clinbridge serve`: N concurrent clients on loopback for a bounded time.

    python bench/bench_server.py [--clients 50] [--seconds 20] [--pool 2]

Builds Eunomia GiBleed (synthetic_data/) and a 300-patient synthetic OMOP CDM into temporary
DuckDB files (as tests/conftest.py does), starts `clinbridge serve` in its own process on a free
loopback port (audit log and example bank in the temporary dir, embeddings off), then runs
``--clients`` concurrent clients, each sending a request as soon as its last one came back,
cycling through a mix: questions (/api/ask), a plan (/api/ask/plan), the patient list, a
trajectory plot, a calculator computed from a patient's record and from given inputs, the audit
log. Prints requests, errors (any non-2xx or transport error), throughput and p50/p95/max per
endpoint and overall.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
EUNOMIA = ROOT / "synthetic_data" / "eunomia-gibleed-5.3"

QUESTIONS = [
    "How many patients had a gastrointestinal hemorrhage?",
    "Mean age of patients with GI bleed by sex",
    "How many GI bleeds were there?",
    "How many female patients are there?",
]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def build(tmp: Path) -> tuple[Path, Path]:
    from clinbridge.adapters.omop import load_omop_csv
    from clinbridge.synthetic.omop import generate_omop

    eunomia, synth = tmp / "eunomia.duckdb", tmp / "synth.duckdb"
    report = load_omop_csv(EUNOMIA, f"duckdb:///{eunomia}", if_exists="replace")
    assert report.reconciles, report.to_dict()
    generate_omop(f"duckdb:///{synth}", patients=300, seed=1)
    return eunomia, synth


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def requests_mix(plan: dict[str, Any]) -> list[tuple[str, str, str, Any]]:
    """(label, method, path, json or params)."""
    mix: list[tuple[str, str, str, Any]] = [
        ("ask", "POST", "/api/ask", {"question": q, "source": "eunomia"}) for q in QUESTIONS
    ]
    mix += [
        ("ask_plan", "POST", "/api/ask/plan", {"plan": plan, "source": "eunomia"}),
        ("patients", "GET", "/api/sources/synth/patients", {"q": "1", "limit": 50}),
        (
            "plot_trajectory",
            "GET",
            "/api/plot/trajectory",
            {"source": "synth", "patient_id": "72", "stream": "measurement", "code": "3025315"},
        ),
        (
            "calc_from_patient",
            "POST",
            "/api/calc/6/from_patient",
            {"source": "synth", "patient_id": "72"},
        ),
        (
            "calc_compute",
            "POST",
            "/api/calc/bmi/compute",
            {"params": {"weight": [70, "kg"], "height": [175, "cm"]}},
        ),
        ("audit", "GET", "/api/audit", {"limit": 20}),
    ]
    return mix


async def client(
    http: httpx.AsyncClient,
    mix: list[tuple[str, str, str, Any]],
    offset: int,
    deadline: float,
    out: list[tuple[str, float, int]],
) -> None:
    i = offset
    while time.perf_counter() < deadline:
        label, method, path, data = mix[i % len(mix)]
        i += 1
        start = time.perf_counter()
        try:
            if method == "GET":
                r = await http.get(path, params=data)
            else:
                r = await http.post(path, json=data)
            status = r.status_code
        except httpx.HTTPError:
            status = -1
        out.append((label, (time.perf_counter() - start) * 1000, status))


async def load(
    url: str, clients: int, seconds: float, plan: dict[str, Any]
) -> list[tuple[str, float, int]]:
    mix = requests_mix(plan)
    out: list[tuple[str, float, int]] = []
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as http:
        deadline = time.perf_counter() + seconds
        await asyncio.gather(*(client(http, mix, k, deadline, out) for k in range(clients)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--pool", type=int, default=2, help="connections per source")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cb_bench_server_") as td:
        tmp = Path(td)
        t0 = time.perf_counter()
        eunomia, synth = build(tmp)
        print(f"built Eunomia + synthetic OMOP (300 patients) in {time.perf_counter() - t0:.1f} s")
        port = free_port()
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT / "src"),
            "CLINBRIDGE_EMBEDDINGS": "off",
            "HF_HUB_OFFLINE": "1",
        }
        cmd = [
            sys.executable, "-m", "clinbridge", "serve",
            "--db", f"eunomia=duckdb:///{eunomia}", "--db", f"synth=duckdb:///{synth}",
            "--port", str(port), "--pool", str(args.pool),
            "--audit", str(tmp / "audit.sqlite"), "--bank", str(tmp / "examples.jsonl"),
        ]  # fmt: skip
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        url = f"http://127.0.0.1:{port}"
        try:
            t0 = time.perf_counter()
            while True:
                try:
                    if httpx.get(url + "/api/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if proc.poll() is not None or time.perf_counter() - t0 > 120:
                    raise SystemExit("server did not start: " + proc.stderr.read().decode()[-2000:])  # type: ignore[union-attr]
                time.sleep(0.2)
            print(f"server up in {time.perf_counter() - t0:.1f} s (pool {args.pool} per source)")
            first = httpx.post(
                url + "/api/ask", json={"question": QUESTIONS[0], "source": "eunomia"}, timeout=120
            )
            plan = first.json()["answer"]["plan"]
            for _label, method, path, data in requests_mix(plan):  # warm every path once
                httpx.request(
                    method,
                    url + path,
                    **({"params": data} if method == "GET" else {"json": data}),
                    timeout=120,
                )
            results = asyncio.run(load(url, args.clients, args.seconds, plan))
            audit_rows = httpx.get(url + "/api/audit", params={"limit": 1}, timeout=30).json()[
                "total"
            ]
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    errors = [r for r in results if not 200 <= r[2] < 300]
    lat = [r[1] for r in results]
    print(
        f"{args.clients} clients x {args.seconds:g} s: {len(results)} requests, {len(errors)} errors, "
        f"{len(results) / args.seconds:.1f} req/s; audit log rows {audit_rows}"
    )
    print(f"{'endpoint':<20}{'n':>6}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}")
    for label in dict.fromkeys(r[0] for r in results):
        xs = [r[1] for r in results if r[0] == label]
        print(
            f"{label:<20}{len(xs):>6}{statistics.median(xs):>10.1f}{pct(xs, 0.95):>10.1f}{max(xs):>10.1f}"
        )
    print(
        f"{'all':<20}{len(lat):>6}{statistics.median(lat):>10.1f}{pct(lat, 0.95):>10.1f}{max(lat):>10.1f}"
    )
    if errors:
        statuses = sorted({e[2] for e in errors})
        print(f"error statuses: {statuses}")


if __name__ == "__main__":
    main()
