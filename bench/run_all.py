"""Run every bench in bench/ and write one report, BENCHMARKS.md, with every figure they print.

    python bench/run_all.py [--quick] [--only NAME,...] [--skip NAME,...] [--timeout S]
        [--out BENCHMARKS.md] [--update]

Benches are discovered, not listed: every ``bench/bench_*.py`` and ``bench/*_bench.py``. Each runs
as its own subprocess (``nice -n 10``, ``PYTHONPATH=src:.``, ``HF_HUB_OFFLINE=1``) with a
timeout; a bench that times out or fails is reported with its exit status and whatever it
printed before, never dropped. A bench whose source mentions ``--json`` is given
``--json FILE`` and its figures (``{"figures": [{"name", "value", "unit"}...]}``) become a table;
its stdout is kept as well. ``--quick`` passes the smaller arguments in QUICK (or ``--quick`` to a
bench that accepts it) and a shorter timeout. The report records the command of every figure.
Every result is also kept in BENCHMARKS.json; ``--update`` re-runs only the benches named (``--only``)
and keeps the others' earlier sections, each saying when it ran and under what load.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
# Smaller arguments for --quick, for the benches that take them (others run as they are, or get
# --quick when their source accepts it).
QUICK: dict[str, list[str]] = {
    "bench_scale": ["--sizes", "1000", "--repeats", "1"],
    "bench_synth_omop": ["--max", "10000", "--budget", "30"],
    "bench_fhir": ["--patients", "100"],
    "bench_plans": ["--repeats", "1"],
    "bench_validator": ["--repeats", "2"],  # its p50 needs two or more
    "bench_llm_devset": ["--n", "2"],
    "bench_spark": ["--plans", "8"],
}
TAIL_LINES = 400  # every figure a bench prints; only very chatty benches are cut


def discover() -> list[Path]:
    found = {*BENCH.glob("bench_*.py"), *BENCH.glob("*_bench.py")}
    return sorted(p for p in found if p.name != Path(__file__).name)


def command_for(path: Path, quick: bool, json_file: Path | None) -> list[str]:
    source = path.read_text(errors="replace")
    cmd = [sys.executable, str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)]
    if quick:
        if path.stem in QUICK:
            cmd += QUICK[path.stem]
        elif "--quick" in source:
            cmd.append("--quick")
    if json_file is not None:
        cmd += ["--json", str(json_file)]
    return cmd


def run_one(path: Path, quick: bool, timeout: float, tmp: Path) -> dict[str, Any]:
    wants_json = '"--json"' in path.read_text(errors="replace")
    json_file = tmp / f"{path.stem}.json" if wants_json else None
    cmd = command_for(path, quick, json_file)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT), env.get("PYTHONPATH", "")])
    env.setdefault("HF_HUB_OFFLINE", "1")
    env["PYTHONUNBUFFERED"] = "1"  # a bench stopped at its timeout keeps what it printed
    shown = " ".join(c if c != sys.executable else "python" for c in cmd)
    if json_file is not None:
        shown = shown.replace(str(json_file), f"{path.stem}.json")
    print(f"== {shown}", flush=True)
    t0 = time.perf_counter()
    status = "ok"
    # its own process group, so that a timeout also stops the processes the bench started
    proc = subprocess.Popen(
        ["nice", "-n", "10", *cmd],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        rc: int | None = proc.returncode
        if rc != 0:
            status = f"failed (exit {rc})"
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        rc = None
        status = f"timed out after {timeout:.0f} s (partial output below)"
    seconds = time.perf_counter() - t0
    figures: list[dict[str, Any]] = []
    if json_file is not None and json_file.exists():
        try:
            figures = list(json.loads(json_file.read_text()).get("figures", []))
        except (ValueError, AttributeError) as exc:
            status += f"; unreadable --json file: {exc}"
    print(f"   {status}, {seconds:.0f} s, {len(figures)} JSON figures", flush=True)
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "name": path.stem,
        "ran": f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
        "quick": quick,
        "load": round(load[0], 1),
        "command": shown,
        "status": status,
        "rc": rc,
        "seconds": seconds,
        "stdout": out,
        "stderr": err,
        "figures": figures,
    }


def _tail(text: str, n: int = TAIL_LINES) -> str:
    lines = text.rstrip().splitlines()
    if len(lines) <= n:
        return "\n".join(lines)
    return "\n".join([f"... ({len(lines) - n} earlier lines not shown)", *lines[-n:]])


def _docline(path: Path) -> str:
    text = path.read_text(errors="replace").lstrip()
    if text.startswith(('"""', "'''")):
        return text[3:].split("\n", 1)[0].strip().rstrip('"')
    return ""


def report(results: list[dict[str, Any]], quick: bool, started: dt.datetime, kept: int = 0) -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    lines = [
        "# clinbridge benchmarks",
        "",
        f"Generated by `python bench/run_all.py{' --quick' if quick else ''}` on "
        f"{started:%Y-%m-%d %H:%M} UTC: {len(results)} benches, "
        f"{sum(r['status'] == 'ok' for r in results)} ok. Machine: {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, load average at the end "
        f"{load[0]:.1f} (shared machine: absolute times are noisy; ratios are steadier).",
        "",
        *(
            [
                f"{kept} sections were kept from earlier runs (`--update`); each section "
                "says when it ran, in which mode, and the load average then.",
                "",
            ]
            if kept
            else []
        ),
        "Each section gives the command that printed its figures. "
        + (
            "Quick mode: smaller sizes and repeats (see QUICK in bench/run_all.py). "
            if quick
            else ""
        )
        + "Regenerate with the same command.",
        "",
        "| bench | status | seconds |",
        "|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| [{r['name']}](#{r['name'].replace('_', '-')}) | {r['status']} | {r['seconds']:.0f} |"
        )
    for r in results:
        lines += ["", f"## {r['name']}", "", _docline(BENCH / f"{r['name']}.py"), ""]
        when = (
            f" Ran {r['ran']}{' (quick)' if r.get('quick') else ''}, load average {r['load']}."
            if r.get("ran")
            else ""
        )
        lines += [f"Command: `{r['command']}` — {r['status']}, {r['seconds']:.0f} s.{when}", ""]
        if r["figures"]:
            lines += ["| figure | value | unit |", "|---|---|---|"]
            for f in r["figures"]:
                lines.append(
                    f"| {f.get('name', '')} | {f.get('value', '')} | {f.get('unit', '')} |"
                )
            lines.append("")
        out = _tail(r["stdout"])
        if out:
            lines += ["```text", out, "```"]
        if r["status"] != "ok" and r["stderr"].strip():
            lines += ["", "stderr (tail):", "", "```text", _tail(r["stderr"], 20), "```"]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="smaller sizes, shorter timeouts")
    ap.add_argument("--only", default="", help="comma-separated bench names (default: all)")
    ap.add_argument("--skip", default="", help="comma-separated bench names to leave out")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per bench")
    ap.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"))
    ap.add_argument(
        "--update",
        action="store_true",
        help="keep the earlier results (OUT with .json) of the benches not run this time",
    )
    args = ap.parse_args()
    timeout = args.timeout or (300.0 if args.quick else 3600.0)
    only = {s for s in args.only.split(",") if s}
    skip = {s for s in args.skip.split(",") if s}
    benches = [p for p in discover() if (not only or p.stem in only) and p.stem not in skip]
    started = dt.datetime.now(dt.UTC)
    store = Path(args.out).with_suffix(".json")  # every result, so --update can keep them
    earlier: dict[str, dict[str, Any]] = {}
    if args.update and store.exists():
        earlier = {r["name"]: r for r in json.loads(store.read_text())["results"]}
    results: list[dict[str, Any]] = []

    def write() -> list[dict[str, Any]]:
        fresh = {r["name"] for r in results}
        known = {p.stem for p in discover()}
        merged = results + [r for n, r in earlier.items() if n not in fresh and n in known]
        merged.sort(key=lambda r: r["name"])
        kept = len(merged) - len(results)
        Path(args.out).write_text(report(merged, args.quick, started, kept))  # progress on disk
        store.write_text(json.dumps({"results": merged}, indent=1) + "\n")
        return merged

    with tempfile.TemporaryDirectory() as tmp:
        for path in benches:
            results.append(run_one(path, args.quick, timeout, Path(tmp)))
            write()
    merged = write()
    print(f"wrote {args.out}: {len(results)} benches run, {len(merged)} in the report")
    return 0 if all(r["status"] == "ok" for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
