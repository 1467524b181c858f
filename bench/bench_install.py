"""What the README's install line would bring in: ``pip install --dry-run --report``.

Run: ``python bench/bench_install.py [--cpu-index] [--ignore-installed]``. Resolves the README's
first Quickstart line (``torch==2.13.0 -e .``, plus ``.[dev]`` with ``--dev``) without installing
anything and prints every package pip would install, with its version and where it comes from,
then the count and the heavy ones: CUDA runtime packages (``nvidia-*``, ``cuda-*``, ``triton``,
``tensorrt*``) and any wheel whose known size is over 100 MB. It exits 1 when a heavy package
appears, so a new dependency that drags in several GB of GPU runtime is noticed.

``--cpu-index`` resolves torch from PyTorch's CPU wheel index
(``https://download.pytorch.org/whl/cpu``), as docs/install.md documents; ``--ignore-installed``
resolves from scratch (as on a fresh machine; minutes) instead of against this environment.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
HEAVY_NAME = re.compile(r"^(nvidia-|cuda-|triton$|tensorrt)", re.I)
HEAVY_BYTES = 100 * 1024 * 1024


def heavy_packages(report: dict[str, Any]) -> list[str]:
    """Names (``name==version``) of the heavy packages in a pip ``--report`` document."""
    out = []
    for item in report.get("install", []):
        meta = item.get("metadata", {})
        name = str(meta.get("name", "?"))
        size = (item.get("download_info") or {}).get("archive_info", {}).get("size") or 0
        if HEAVY_NAME.match(name) or size > HEAVY_BYTES:
            out.append(f"{name}=={meta.get('version', '?')}")
    return sorted(out)


def dry_run(*, dev: bool, cpu_index: bool, ignore_installed: bool) -> dict[str, Any]:
    """The pip report for the README's install line (nothing is installed)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet"]
        cmd += ["--report", str(report), "torch==2.13.0", "-e", ".[dev]" if dev else "."]
        if cpu_index:
            cmd += ["--extra-index-url", CPU_INDEX]
        if ignore_installed:
            cmd.append("--ignore-installed")
        subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        return json.loads(report.read_text())  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dev", action="store_true", help="resolve .[dev] (the test line)")
    parser.add_argument("--cpu-index", action="store_true", help="add PyTorch's CPU wheel index")
    parser.add_argument(
        "--ignore-installed", action="store_true", help="resolve as on a fresh machine"
    )
    args = parser.parse_args()
    start = time.perf_counter()
    report = dry_run(dev=args.dev, cpu_index=args.cpu_index, ignore_installed=args.ignore_installed)
    seconds = time.perf_counter() - start
    for item in sorted(report.get("install", []), key=lambda i: i["metadata"]["name"].lower()):
        meta = item["metadata"]
        url = (item.get("download_info") or {}).get("url", "")
        print(f"{meta['name']:<32} {meta['version']:<16} {url}")
    heavy = heavy_packages(report)
    print(f"packages to install: {len(report.get('install', []))}; resolved in {seconds:.1f} s")
    print(f"heavy packages: {len(heavy)}" + (f" ({', '.join(heavy)})" if heavy else ""))
    sys.exit(1 if heavy else 0)


if __name__ == "__main__":
    main()
