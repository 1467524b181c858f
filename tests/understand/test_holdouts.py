"""The holdouts (devset3 to devset7): their shape, their gold re-checked a second way, the bench.

These tests never print a question and never run the parser on the holdout; assertion messages
carry row ids only.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
VOICES = {"clinician", "epidemiologist", "data_manager"}

# set: (id prefix, at least this many questions, at least this many groups)
SETS = {
    "devset3": ("d3.", 160, 50),
    "devset4": ("d4.", 180, 60),
    "devset5": ("d5.", 240, 80),
    "devset6": ("d6.", 300, 100),
    "devset7": ("d7.", 500, 160),
}


def _load(name: str, path: Path) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module", params=sorted(SETS))
def holdout(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def build(holdout: str) -> ModuleType:
    return _load(f"{holdout}_build", ROOT / "tests" / "data" / holdout / "build.py")


@pytest.fixture(scope="module")
def rows(build: ModuleType) -> list[dict[str, Any]]:
    return list(build.read_stored())


def test_size_voices_and_abstentions(holdout: str, rows: list[dict[str, Any]]) -> None:
    assert len(rows) >= SETS[holdout][1]
    assert len({r["id"] for r in rows}) == len(rows)
    assert {r["db"] for r in rows} == {"gibleed", "synthea27nj", "fhir"}
    assert {r["split"] for r in rows} == {"holdout"}
    unanswerable = [r for r in rows if not r["answerable"]]
    assert len(unanswerable) / len(rows) >= 0.20
    for r in rows:
        assert r["answerable"] is (r["answer_type"] not in ("abstain", "ambiguous")), r["id"]
        assert r["patient_id"] is None, r["id"]
        if r["answerable"]:
            has_gold = r["gold"] is not None and bool(r["gold_sql"])
            assert has_gold, r["id"]
        else:
            assert r["missing"], r["id"]
        if r["answer_type"] == "ambiguous":
            assert len(r.get("alternatives") or []) >= 2, r["id"]


def test_groups_are_paraphrases(holdout: str, rows: list[dict[str, Any]]) -> None:
    prefix, _, least_groups = SETS[holdout]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r["group"]].append(r)
    assert len(groups) >= least_groups
    for g, members in groups.items():
        assert len(members) >= 3, g
        assert {m["voice"] for m in members} == VOICES, g
        assert all(m["id"].startswith(prefix) for m in members), g
        key = {repr((m["db"], m["answer_type"], m["gold"])) for m in members}
        one_meaning = len(key) == 1  # a bool, so that a failure shows no gold
        assert one_meaning, g


@pytest.mark.parametrize("db", ["synthea27nj", "fhir"])
def test_gold_second_method_small(
    db: str, build: ModuleType, rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    """SQL gold and pandas gold agree (the build stops otherwise) and match the stored file."""
    stored = {r["id"]: r for r in rows}
    fresh = build.build_all([db], folder=tmp_path)
    assert len(fresh) == sum(r["db"] == db for r in rows)
    _agree(build, fresh, stored)


@pytest.mark.slow
def test_gold_second_method_gibleed(build: ModuleType, tmp_path: Path) -> None:
    fresh = build.build_all(["gibleed"], folder=tmp_path)
    _agree(build, fresh, {r["id"]: r for r in build.read_stored()})


def _agree(build: ModuleType, fresh: list[dict[str, Any]], stored: dict[str, Any]) -> None:
    for r in fresh:
        ok = r["id"] in stored and build.devset2_build.same(
            r["gold"], stored[r["id"]]["gold"], r["tol"]
        )
        assert ok, r["id"]  # ids only: a failure must not print sealed gold


def test_bench_selection(holdout: str, rows: list[dict[str, Any]]) -> None:
    bench = _load("bench_understand_holdout", ROOT / "bench" / "bench_understand_holdout.py")
    loaded = bench.load_questions(bench.HOLDOUTS[holdout])
    assert [r["id"] for r in loaded] == [r["id"] for r in rows]
    few = bench.select(rows, None, 2)
    assert [r["db"] for r in few] == ["gibleed"] * 2 + ["synthea27nj"] * 2 + ["fhir"] * 2
    assert all(r["db"] == "fhir" for r in bench.select(rows, ["fhir"], None))


def test_bench_rejects_bad_json(tmp_path: Path) -> None:
    bench = _load("bench_understand_holdout", ROOT / "bench" / "bench_understand_holdout.py")
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"db": "fhir"}\nnot json\n', encoding="utf-8")
    with pytest.raises(SystemExit, match="line 2"):
        bench.load_questions(bad)
