"""bench/run_all.py: one report with every bench's figures; ``--update`` keeps earlier sections."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def run_all(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("run_all_under_test", ROOT / "bench/run_all.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "bench_alpha.py").write_text('"""Alpha: prints a figure."""\nprint("alpha 1.5 ms")\n')
    (bench / "bench_beta.py").write_text(
        '"""Beta: writes figures as JSON."""\n'
        "import json, sys\n"
        'path = sys.argv[sys.argv.index("--json") + 1]\n'
        'json.dump({"figures": [{"name": "beta", "value": 2, "unit": "s"}]}, open(path, "w"))\n'
    )
    monkeypatch.setattr(module, "BENCH", bench)
    return module


def _main(module, monkeypatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["run_all.py", *args])
    return int(module.main())


def test_report_has_every_bench_and_update_keeps_the_others(run_all, tmp_path, monkeypatch):
    out = tmp_path / "BENCHMARKS.md"
    assert _main(run_all, monkeypatch, "--out", str(out)) == 0
    first = out.read_text()
    assert "## bench_alpha" in first and "alpha 1.5 ms" in first
    assert "| beta | 2 | s |" in first
    stored = json.loads(out.with_suffix(".json").read_text())["results"]
    assert [r["name"] for r in stored] == ["bench_alpha", "bench_beta"]

    assert _main(run_all, monkeypatch, "--only", "bench_alpha", "--update", "--out", str(out)) == 0
    second = out.read_text()
    assert "## bench_beta" in second and "| beta | 2 | s |" in second  # kept from the first run
    assert "1 sections were kept from earlier runs" in second

    assert _main(run_all, monkeypatch, "--only", "bench_alpha", "--out", str(out)) == 0
    assert "## bench_beta" not in out.read_text()  # without --update the report is this run's


def test_a_failing_bench_is_reported_not_dropped(run_all, tmp_path, monkeypatch):
    (run_all.BENCH / "bench_gamma.py").write_text('"""Gamma: fails."""\nraise SystemExit(3)\n')
    out = tmp_path / "B.md"
    assert _main(run_all, monkeypatch, "--out", str(out)) == 1
    assert "| [bench_gamma](#bench-gamma) | failed (exit 3) |" in out.read_text()
