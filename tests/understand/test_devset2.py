"""devset2: the files' schema, the gold re-checked a second way, and the bench's scorer."""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from tests.understand.devset2_eval import (
    DEVSET2_DIR,
    Run,
    load_devset2,
    paraphrase_consistency,
    score_answer,
    value_matches,
)

REQUIRED = {
    "id": str,
    "group": str,
    "db": str,
    "voice": str,
    "question": str,
    "category": str,
    "answer_type": str,
    "answerable": bool,
    "split": str,
}
TYPES = {"count", "value", "date", "yesno", "list", "table", "abstain", "ambiguous"}


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return load_devset2("all")


def _build() -> Any:
    if str(DEVSET2_DIR) not in sys.path:
        sys.path.insert(0, str(DEVSET2_DIR))
    return importlib.import_module("build")


def test_schema(rows: list[dict[str, Any]]) -> None:
    assert len(rows) >= 300
    assert len({r["id"] for r in rows}) == len(rows)
    assert {r["db"] for r in rows} == {"gibleed", "synthea27nj", "fhir"}
    assert {r["voice"] for r in rows} == {"clinician", "epidemiologist", "data_manager"}
    for r in rows:
        for name, kind in REQUIRED.items():
            assert isinstance(r[name], kind), (r["id"], name)
        assert r["answer_type"] in TYPES, r["id"]
        assert r["answerable"] is (r["answer_type"] not in ("abstain", "ambiguous")), r["id"]
        assert r["now"] is None or dt.date.fromisoformat(r["now"][:10]), r["id"]
        g, kind = r["gold"], r["answer_type"]
        if not r["answerable"]:
            assert g is None and r["missing"], r["id"]
            continue
        assert r["gold_sql"], r["id"]
        if kind == "count":
            assert isinstance(g, int) and not isinstance(g, bool), r["id"]
        elif kind == "value":
            assert isinstance(g, int | float) and not isinstance(g, bool), r["id"]
        elif kind == "date":
            assert dt.date.fromisoformat(g), r["id"]
        elif kind == "yesno":
            assert isinstance(g, bool), r["id"]
        elif kind == "list":
            assert isinstance(g, list) and g, r["id"]
        elif kind == "table":
            assert isinstance(g, dict) and g and r["rows"] == [[k, v] for k, v in g.items()], r[
                "id"
            ]


def test_groups_paraphrases_and_split(rows: list[dict[str, Any]]) -> None:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[r["group"]].append(r)
    for name, members in groups.items():
        assert len(members) >= 3, name
        assert len({m["voice"] for m in members}) == 3, name
        assert len({m["question"] for m in members}) == len(members), name
        for key in ("gold", "db", "answer_type", "split", "category", "now", "patient_id"):
            assert len({repr(m.get(key)) for m in members}) == 1, (name, key)
        sealed = int(hashlib.sha256(name.encode()).hexdigest(), 16) % 3 == 0
        assert members[0]["split"] == ("sealed" if sealed else "dev"), name
    share = sum(not r["answerable"] for r in rows) / len(rows)
    assert 0.15 <= share <= 0.3
    dev = load_devset2("dev")
    assert {r["split"] for r in dev} == {"dev"}
    assert {r["split"] for r in load_devset2("sealed")} == {"sealed"}
    assert 0.2 <= 1 - len(dev) / len(rows) <= 0.4


def _recheck(db: str, folder: Path) -> None:
    build = _build()
    groups, mod = build.load_groups(db)
    fresh = build.rows_for(
        db, groups, getattr(mod, "NOW", None), folder
    )  # SQL == pandas, or it raises
    stored = {r["id"]: r for r in load_devset2("all") if r["db"] == db}
    assert {r["id"] for r in fresh} == set(stored)
    for r in fresh:
        assert build.same(r["gold"], stored[r["id"]]["gold"], r["tol"]), r["id"]
        assert r["question"] == stored[r["id"]]["question"], r["id"]


@pytest.mark.parametrize("db", ["synthea27nj", "fhir"])
def test_gold_second_method_small(db: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    _recheck(db, tmp_path_factory.mktemp(f"devset2-{db}"))


@pytest.mark.slow
def test_gold_second_method_gibleed(tmp_path_factory: pytest.TempPathFactory) -> None:
    _recheck("gibleed", tmp_path_factory.mktemp("devset2-gibleed"))


# ----------------------------------------------------------------------------- the scorer
def _row(kind: str, gold: Any, **kw: Any) -> dict[str, Any]:
    base = {
        "id": f"x-{kind}.1",
        "group": f"x-{kind}",
        "db": "fhir",
        "voice": "clinician",
        "category": "c",
        "answer_type": kind,
        "answerable": kind not in ("abstain", "ambiguous"),
        "gold": gold,
        "split": "dev",
        "tol": None,
        "unit": None,
        "missing": "troponin (no such observation)",
    }
    base.update(kw)
    return base


def _acc(value: Any, **kw: Any) -> dict[str, Any]:
    return {"decision": "accept", "value": value, **kw}


ABSTAIN = {"decision": "abstain", "reason": "could not ground 'troponin' in this source"}


class _AnswerLike:
    """An object with the Answer's attributes plus a field the scorer does not know."""

    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(kw)


@pytest.mark.parametrize(
    ("row", "answer", "outcome"),
    [
        (_row("count", 479), _acc(479), "correct"),
        (_row("count", 479), _acc(479.0), "correct"),
        (_row("count", 479), _acc(478), "wrong"),
        (_row("count", 479), _acc([{"count": 479}]), "correct"),
        (_row("count", 479), ABSTAIN, "abstained"),
        (_row("count", 479), None, "abstained"),
        (_row("value", 1.2584, tol=0.01), _acc(1.26), "correct"),
        (_row("value", 1.2584, tol=0.01), _acc(1.3), "wrong"),
        (_row("value", 38.41, tol=0.6), _acc(38.9), "correct"),
        (_row("value", 0.5043, tol=0.001, unit="fraction"), _acc(50.43), "correct"),
        (_row("value", 0.5043, tol=0.001, unit="fraction"), _acc(0.5043), "correct"),
        (_row("value", 6.0103), _acc(6.0103), "correct"),
        (_row("value", 6.0103), _acc("6.0103"), "correct"),
        (_row("date", "2011-09-10"), _acc("2011-09-10"), "correct"),
        (_row("date", "2011-09-10"), _acc(dt.date(2011, 9, 10)), "correct"),
        (_row("date", "2011-09-10"), _acc("2011-09-10T08:00:00"), "correct"),
        (_row("date", "2011-09-10"), _acc("2011-09-11"), "wrong"),
        (_row("yesno", True), _acc(True), "correct"),
        (_row("yesno", True), _acc("yes"), "correct"),
        (_row("yesno", False), _acc(True), "wrong"),
        (_row("yesno", False), _acc(0), "wrong"),
        (_row("list", ["COVID-19", "Cough"]), _acc(["cough", "covid-19"]), "correct"),
        (_row("list", ["COVID-19", "Cough"]), _acc(["Cough"]), "wrong"),
        (_row("list", [7, 11, 23]), _acc([11.0, 23, 7]), "correct"),
        (
            _row("list", [7, 11, 23]),
            _acc(None, rows=[[7], [11], [23]], columns=["person_id"]),
            "correct",
        ),
        (_row("list", ["celecoxib"]), _acc("celecoxib"), "correct"),
        (
            _row("table", {"female": 401, "male": 401}),
            _acc([{"sex": "FEMALE", "n": 401}, {"sex": "Male", "n": 401}]),
            "correct",
        ),
        (_row("table", {"female": 4, "male": 2}), _acc({"F": 4, "M": 2}), "correct"),
        (
            _row("table", {"2016": 4, "2017": 3}),
            _acc([{"year": 2016.0, "count": 4}, {"year": 2017, "count": 3}]),
            "correct",
        ),
        (_row("table", {"2016": 4, "2017": 3}), _acc([{"year": 2016, "count": 4}]), "wrong"),
        (
            _row("table", {"female": 4, "male": 2}),
            _acc([{"sex": "female", "n": 4}, {"sex": "male", "n": 2}, {"sex": None, "n": 0}]),
            "correct",
        ),
        (_row("abstain", None), ABSTAIN, "abstained_ok"),
        (_row("abstain", None), _acc(0), "wrong"),
        (
            _row("ambiguous", None),
            {"decision": "abstain", "reason_code": "ambiguous", "alternatives": [{}, {}]},
            "abstained_ok",
        ),
        (
            _row("ambiguous", None),
            {"decision": "abstain", "reason": "could not ground 'bp'"},
            "abstained_ok",
        ),
        (_row("ambiguous", None), _acc(127.2), "wrong"),
        (_row("count", 5), {"decision": "ask", "alternatives": [1, 2]}, "abstained"),
        (
            _row("count", 5),
            _AnswerLike(decision="accept", value=5, alternatives=[], novel=1),
            "correct",
        ),
    ],
)
def test_score_answer(row: dict[str, Any], answer: Any, outcome: str) -> None:
    assert score_answer(row, answer).outcome == outcome


def test_abstention_names_missing() -> None:
    o = score_answer(_row("abstain", None), ABSTAIN)
    assert o.names_missing is True
    o = score_answer(_row("abstain", None), {"decision": "abstain", "reason": "no"})
    assert o.names_missing is False


def test_report_figures() -> None:
    rows = [_row("count", 5, group="g1", id="g1.1"), _row("count", 5, group="g1", id="g1.2")]
    rows += [
        _row("abstain", None, group="g2", id="g2.1"),
        _row("abstain", None, group="g2", id="g2.2"),
    ]
    outs = [
        score_answer(rows[0], _acc(5), 0.01),
        score_answer(rows[1], ABSTAIN, 0.5),
        score_answer(rows[2], ABSTAIN, 0.2),
        score_answer(rows[3], _acc(3), 0.02),
    ]
    rep = Run(outs).report()
    o = rep["overall"]
    assert (o["n"], o["correct_answers"], o["correct_abstentions"], o["wrong_accepted"]) == (
        4,
        1,
        1,
        1,
    )
    assert o["accuracy"] == 0.5 and o["coverage"] == 0.5 and o["unanswerable_accepted"] == 1
    assert o["answerable_accuracy"] == 0.5 and o["unanswerable_abstained"] == 0.5
    assert set(rep["by_db_category"]) == {"fhir/c", "ALL"}
    assert paraphrase_consistency(outs)["consistent"] == 0
    assert rep["latency"]["abstained"]["n"] == 2 and rep["latency"]["answered"][
        "p50_ms"
    ] == pytest.approx(10)
    assert value_matches(rows[0], _acc(5))


@pytest.mark.slow
def test_bench_path_on_real_connection(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A few open questions through the public API, scored without error (any outcome)."""
    from tests.understand.devset2_eval import ask_all

    import clinbridge.api as cb
    from clinbridge.settings import Settings

    build = _build()
    folder = tmp_path_factory.mktemp("devset2-bench")
    url = f"duckdb:///{build.database_path('synthea27nj', folder)}"
    rows = [r for r in load_devset2("dev") if r["db"] == "synthea27nj"][:6]
    with cb.connect(url, settings=Settings(embeddings="off"), cache_dir=folder / "cache") as conn:
        outs = ask_all(conn, rows)
    assert len(outs) == 6 and all(
        o.outcome in ("correct", "abstained_ok", "wrong", "abstained") for o in outs
    )
