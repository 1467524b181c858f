"""The HTTP API over real DuckDB sources: ask, plan, feedback, calculators, plots, audit, limits."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from clinbridge.settings import Settings

from .conftest import QUESTION, make_config


def test_sources_and_catalog(client) -> None:  # type: ignore[no-untyped-def]
    names = [s["name"] for s in client.get("/api/sources").json()]
    assert names == ["eunomia", "synth"]
    cat = client.get("/api/sources/eunomia/catalog").json()
    assert cat["adapter"] == "omop" and cat["patients"]["table"] == "person"
    assert client.get("/api/sources/nope/catalog").status_code == 404


def test_patients_prefix(client) -> None:  # type: ignore[no-untyped-def]
    rows = client.get("/api/sources/synth/patients", params={"q": "7", "limit": 5}).json()
    assert rows and all(r["id"].startswith("7") for r in rows)
    assert {r["sex"] for r in rows} <= {"male", "female", "other", "unknown", None}


def test_ask_accepts_with_everything_to_audit(client) -> None:  # type: ignore[no-untyped-def]
    r = client.post("/api/ask", json={"question": QUESTION, "source": "eunomia"})
    assert r.status_code == 200
    p = r.json()
    a = p["answer"]
    assert a["decision"] == "accept" and a["value"] == 479  # Eunomia: 479 persons with GI bleed
    assert a["sql"].upper().startswith(("WITH", "SELECT"))
    assert any(c["passed"] for c in a["checks"])
    assert p["plan_sentence"] and any(
        "gastrointestinal hemorrhage" in s.lower() for s in p["predicates"]
    )
    assert a["provenance"]["source"] == "omop"
    assert p["alternatives"] == [] or all("plan" in x for x in p["alternatives"])


def test_ask_abstains_with_reason(client) -> None:  # type: ignore[no-untyped-def]
    a = client.post("/api/ask", json={"question": "blorp the flux", "source": "eunomia"}).json()
    assert a["answer"]["decision"] == "abstain" and a["answer"]["reason"]
    assert a["answer"]["value"] is None and a["plot_svg"] is None


def test_grouped_answer_has_a_bar_chart(client) -> None:  # type: ignore[no-untyped-def]
    p = client.post(
        "/api/ask",
        json={"question": "Mean current age of patients with GI bleed by sex", "source": "eunomia"},
    ).json()
    assert p["answer"]["decision"] == "accept"
    assert p["plot_svg"].startswith("<svg") and p["plot_svg"].count("class='bar'") == 2


def test_plan_path_runs_a_given_plan(client) -> None:  # type: ignore[no-untyped-def]
    plan = client.post("/api/ask", json={"question": QUESTION, "source": "eunomia"}).json()[
        "answer"
    ]["plan"]
    r = client.post("/api/ask/plan", json={"plan": plan, "source": "eunomia"})
    assert r.status_code == 200 and r.json()["answer"]["value"] == 479
    bad = client.post("/api/ask/plan", json={"plan": {"filters": "x"}, "source": "eunomia"})
    assert bad.status_code == 422


def test_feedback_approve_and_edit_enter_the_bank(client, app) -> None:  # type: ignore[no-untyped-def]
    bank = app.state.cb.bank
    plan = client.post("/api/ask", json={"question": QUESTION, "source": "eunomia"}).json()[
        "answer"
    ]["plan"]
    r = client.post(
        "/api/feedback/approve", json={"question": QUESTION, "source": "eunomia", "plan": plan}
    )
    assert r.status_code == 200 and r.json()["stored"]["origin"] == "approved"
    sql = (
        "SELECT COUNT(DISTINCT person_id) AS value FROM condition_occurrence "
        "WHERE condition_concept_id = 192671"
    )
    r = client.post(
        "/api/feedback/edit", json={"question": QUESTION, "source": "eunomia", "sql": sql}
    )
    assert r.status_code == 200, r.json()
    stored = r.json()["stored"]
    assert stored["origin"] == "edited" and stored["sql"] == sql
    assert r.json()["answer"]["value"] == 479
    assert bank.find(QUESTION).id == stored["id"]
    # the bank file is the one configured, and the next ask retrieves the pair
    assert Path(bank.path).read_text().count("\n") >= 2
    ex = client.post("/api/ask", json={"question": QUESTION, "source": "eunomia"}).json()[
        "examples"
    ]
    assert ex and ex[0]["question"] == QUESTION


def test_edit_refused_by_guard_is_not_stored(client, app) -> None:  # type: ignore[no-untyped-def]
    n = len(app.state.cb.bank)
    r = client.post(
        "/api/feedback/edit",
        json={"question": "drop it", "source": "eunomia", "sql": "DROP TABLE person"},
    )
    assert r.status_code == 422 and r.json()["stored"] is None
    assert "write_operation" in r.json()["answer"]["reason"]
    assert len(app.state.cb.bank) == n
    r = client.post(
        "/api/feedback/edit",
        json={"question": "no table", "source": "eunomia", "sql": "SELECT * FROM secrets"},
    )
    assert r.status_code == 422 and r.json()["stored"] is None


def test_calculators(client) -> None:  # type: ignore[no-untyped-def]
    specs = client.get("/api/calc").json()
    assert len(specs) == 55
    spec = client.get("/api/calc/bmi").json()
    assert {i["name"] for i in spec["inputs"]} >= {"weight", "height"}
    r = client.post(
        "/api/calc/bmi/compute",
        json={
            "params": {"weight": [70, "kg"], "height": [175, "cm"]},
            "sources": {"weight": "scale"},
        },
    )
    assert r.status_code == 200 and r.json()["value"] == pytest.approx(22.857)
    assert {i["name"]: i["source"] for i in r.json()["inputs"]}["weight"] == "scale"
    bad = client.post("/api/calc/bmi/compute", json={"params": {"weight": "abc"}})
    assert bad.status_code == 422 and "weight" in bad.json()["detail"]
    assert client.get("/api/calc/not-a-calculator-xyz").status_code == 404


def test_calculator_from_patient_says_where_each_value_came_from(client) -> None:  # type: ignore[no-untyped-def]
    r = client.post("/api/calc/bmi/from_patient", json={"source": "synth", "patient_id": "72"})
    assert r.status_code == 200
    data = r.json()
    assert set(data["prefill"]) | set(data["missing"]) >= {"weight", "height"}
    for name, item in data["prefill"].items():
        assert item["source"], name
    assert "weight" in data["prefill"] and "Body weight" in data["prefill"]["weight"]["source"]


def test_plots_are_svg(client) -> None:  # type: ignore[no-untyped-def]
    series = client.get("/api/sources/synth/patients/72/series").json()
    weight = next(s for s in series if s["label"] == "Body weight")
    r = client.get(
        "/api/plot/trajectory",
        params={
            "source": "synth",
            "patient_id": "72",
            "stream": "measurement",
            "code": weight["code"],
        },
    )
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.count("class='point'") == weight["count"]
    assert "class='band'" in r.text  # encounters shaded
    r = client.get(
        "/api/plot/groups",
        params={"source": "synth", "stream": "measurement", "code": weight["code"]},
    )
    assert r.status_code == 200 and r.text.count("class='box'") == 2
    r = client.get("/api/plot/counts", params={"source": "synth", "stream": "condition_occurrence"})
    assert r.status_code == 200 and r.text.count("class='bar'") >= 5
    r = client.get("/api/plot/counts", params={"source": "synth", "stream": "nope"})
    assert r.status_code == 422


def test_audit_log_records_requests_and_is_append_only(client, app) -> None:  # type: ignore[no-untyped-def]
    client.post(
        "/api/ask",
        json={"question": QUESTION, "source": "eunomia"},
        headers={"X-Clinbridge-User": "dr-audit"},
    )
    entries = client.get("/api/audit", params={"limit": 50, "action": "ask"}).json()["entries"]
    mine = next(e for e in entries if e["user"] == "dr-audit")
    assert mine["question"] == QUESTION and mine["decision"] == "accept"
    assert mine["sql"] and mine["plan"]["filters"] and mine["duration_ms"] > 0
    assert mine["timings"]["total_ms"] > 0 and mine["status"] == 200
    db = sqlite3.connect(app.state.cb.audit.path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM audit")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE audit SET user = 'x'")
    db.close()


def test_application_logs_carry_no_patient_data(client, caplog) -> None:  # type: ignore[no-untyped-def]
    caplog.set_level("INFO", logger="clinbridge.server._app")
    client.get("/api/sources/synth/patients/72/series")
    client.post("/api/ask", json={"question": QUESTION, "source": "eunomia", "patient_id": "4242"})
    text = "\n".join(r.getMessage() for r in caplog.records if r.name == "clinbridge.server._app")
    assert "{patient_id}" in text and "/72/" not in text
    assert "4242" not in text and "hemorrhage" not in text


def test_request_size_limit(client) -> None:  # type: ignore[no-untyped-def]
    big = "x" * 1_100_000
    r = client.post("/api/ask", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_token_required_when_configured(eunomia_duckdb, synth_duckdb, server_dirs) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from clinbridge.server import create_app

    app = create_app(make_config(eunomia_duckdb, synth_duckdb, server_dirs / "tok", token="s3cret"))
    try:
        with TestClient(app) as c:
            assert c.get("/api/sources").status_code == 401
            assert (
                c.get("/api/sources", headers={"Authorization": "Bearer nope"}).status_code == 401
            )
            ok = c.get("/api/sources", headers={"Authorization": "Bearer s3cret"})
            assert ok.status_code == 200
            assert c.get("/").status_code == 200  # the page itself carries no data
            doc = c.get("/openapi.json").json()
            assert "HTTPBearer" in doc["components"]["securitySchemes"]
    finally:
        app.state.cb.close()


def test_connections_are_read_only(app) -> None:  # type: ignore[no-untyped-def]
    pool = app.state.cb.pools["eunomia"]
    with pool.connection() as conn:
        assert conn.db.read_only
        with pytest.raises(Exception, match=r"(?i)read.only"):
            conn.db.conn.execute("CREATE TABLE t (x INT)")


def test_openapi_document_lists_the_endpoints(client) -> None:  # type: ignore[no-untyped-def]
    assert client.get("/docs").status_code == 404  # Swagger UI would load a CDN script
    doc = client.get("/openapi.json").json()
    paths = set(doc["paths"])
    assert {
        "/api/ask",
        "/api/ask/plan",
        "/api/sources/{source}/catalog",
        "/api/calc",
        "/api/calc/{key}/compute",
        "/api/calc/{key}/from_patient",
        "/api/feedback/approve",
        "/api/feedback/edit",
        "/api/audit",
        "/api/plot/trajectory",
    } <= paths


def test_serve_refuses_public_bind_without_token(eunomia_duckdb) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from clinbridge.cli import main

    r = CliRunner().invoke(
        main,
        ["serve", "--db", f"duckdb:///{eunomia_duckdb}", "--host", "0.0.0.0"],
        env={"CLINBRIDGE_API_TOKEN": ""},
    )
    assert r.exit_code != 0 and "without an API token" in r.output


def test_patient_value_question_plots_the_series(client) -> None:  # type: ignore[no-untyped-def]
    p = client.post(
        "/api/ask",
        json={
            "question": "What was the patient's last body weight?",
            "source": "synth",
            "patient_id": "72",
        },
    ).json()
    assert p["answer"]["decision"] == "accept" and p["answer"]["value"] == pytest.approx(102.8)
    svg = p["plot_svg"]
    assert "Body weight — patient 72" in svg and svg.count("class='point'") > 10
    assert "class='band'" in svg


def test_time_limit_and_busy_pool(eunomia_duckdb, synth_duckdb, server_dirs) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from clinbridge.server import create_app

    cfg = make_config(
        eunomia_duckdb, synth_duckdb, server_dirs / "limits", request_timeout_s=0.3, pool_size=1
    )
    app = create_app(cfg)
    try:
        with TestClient(app) as c:
            pool = app.state.cb.pools["synth"]
            with pool.connection():  # the only connection is taken: the request waits, then 503/504
                r = c.get("/api/sources/synth/patients")
            assert r.status_code in (503, 504), r.text
            assert c.get("/api/sources/synth/patients").status_code == 200  # free again
            entries = app.state.cb.audit.entries()
            statuses = {e["status"] for e in entries if e["path"].endswith("/patients")}
            assert statuses >= {200} and statuses & {503, 504}
    finally:
        app.state.cb.close()


@pytest.mark.postgres
def test_postgres_source(eunomia_pg_url, server_dirs) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from clinbridge.server import ServerConfig, create_app

    base = server_dirs / "pg"
    cfg = ServerConfig(
        sources=[f"gi={eunomia_pg_url}"],
        audit_path=base / "audit.sqlite",
        bank_path=base / "examples.jsonl",
        settings=Settings(embeddings="off"),
        cache_dir=base / "cache",
    )
    app = create_app(cfg)
    try:
        with TestClient(app) as c:
            p = c.post("/api/ask", json={"question": QUESTION, "source": "gi"}).json()
            assert p["answer"]["decision"] == "accept" and p["answer"]["value"] == 479
            assert p["answer"]["dialect"] == "postgres"
            r = c.get("/api/plot/counts", params={"source": "gi", "stream": "condition_occurrence"})
            assert r.status_code == 200 and "class='bar'" in r.text
            rows = c.get("/api/sources/gi/patients", params={"q": "1", "limit": 3}).json()
            assert rows and all(x["id"].startswith("1") for x in rows)
    finally:
        app.state.cb.close()


def test_static_assets_ship_in_the_package() -> None:
    from importlib import resources

    static = resources.files("clinbridge.server") / "static"
    for name in ("index.html", "app.js", "style.css"):
        text = (static / name).read_text(encoding="utf-8")
        assert "http://" not in text and "https://" not in text, name  # no CDN


def test_server_json_shows_the_readings(client) -> None:  # type: ignore[no-untyped-def]
    p = client.post(
        "/api/ask", json={"question": "How many patients are on aspirin?", "source": "eunomia"}
    ).json()
    described = [a["description"] for a in p["alternatives"]]
    assert any(d.startswith("currently") for d in described), p.get("reason")
    assert all(a["plan"] for a in p["alternatives"])
