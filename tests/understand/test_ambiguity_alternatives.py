"""Every ``ambiguous`` abstention lists its readings as Alternatives, each with its value.

The acceptance rules (engine/_acceptance_data.py, _result_sanity.check_ambiguous) abstain when the
question leaves a choice open that the data makes real; the Answer then carries the readings
(description, plan, value) so a user or a page can pick one. Each test asks a real database
(Eunomia GiBleed, Synthea27Nj, the FHIR sample) and checks each reading's value against hand SQL;
the CLI's JSON and plain output and the server's JSON show the same readings.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from clinbridge.engine.plan import QueryPlan


def _rows(conn: Any, sql: str) -> list[Any]:
    return [list(r) for r in conn.db.execute(sql).rows]


def _ambiguous(conn: Any, question: str) -> dict[str, Any]:
    a = conn.ask(question)
    assert a.decision == "abstain" and a.reason_code == "ambiguous", (question, a.reason)
    assert len(a.alternatives) >= 2
    for alt in a.alternatives:  # each reading's plan runs as it stands
        QueryPlan.model_validate(alt.plan)
    return {alt.description: alt for alt in a.alternatives}


def test_several_dates_list_the_first_the_last_and_all(s27_conn: Any) -> None:
    dates = [
        str(r[0])[:10]
        for r in _rows(
            s27_conn,
            "SELECT visit_start_date FROM visit_occurrence WHERE person_id = 16 "
            "AND visit_concept_id = 9201 ORDER BY visit_start_date",
        )
    ]
    assert len(set(dates)) > 1
    alts = _ambiguous(s27_conn, "when was pt 16 in hospital")
    assert str(alts["the first date"].value)[:10] == dates[0]
    assert str(alts["the most recent date"].value)[:10] == dates[-1]
    (every,) = [a for d, a in alts.items() if d.startswith("every date")]
    assert sorted(str(v)[:10] for v in every.value) == dates
    assert every.plan["aggregate"]["op"] == "list"


def test_each_quantity_of_one_name_has_its_own_value(s27_conn: Any) -> None:
    latest = _rows(
        s27_conn,
        "SELECT lower(split_part(c.concept_name, ' [', 1)), m.value_as_number, "
        "row_number() OVER (PARTITION BY split_part(c.concept_name, ' [', 1) "
        "ORDER BY m.measurement_date DESC, m.measurement_datetime DESC) AS k "
        "FROM measurement m JOIN concept c ON c.concept_id = m.measurement_concept_id "
        "WHERE m.person_id = 26 AND lower(c.concept_name) LIKE '%cholesterol%' "
        "AND c.concept_name LIKE '%[%' QUALIFY k = 1",
    )
    gold = {kind: value for kind, value, _ in latest}
    assert {"cholesterol in hdl", "cholesterol in ldl"} <= set(gold)
    alts = _ambiguous(s27_conn, "pt 26 last cholesterol?")
    assert set(alts) == set(gold)
    for kind, value in gold.items():
        assert float(alts[kind].value) == pytest.approx(float(value)), kind


def test_on_a_drug_lists_currently_and_ever(eunomia_conn: Any) -> None:
    ever = _rows(
        eunomia_conn,
        "SELECT count(DISTINCT person_id) FROM drug_exposure WHERE drug_concept_id IN "
        "(SELECT descendant_concept_id FROM concept_ancestor WHERE ancestor_concept_id IN "
        "(SELECT concept_id FROM concept WHERE concept_name = 'Aspirin'))",
    )[0][0]
    alts = _ambiguous(eunomia_conn, "How many patients are on aspirin?")
    (now,) = [a for d, a in alts.items() if d.startswith("currently")]
    (was,) = [a for d, a in alts.items() if d.startswith("ever")]
    assert was.value == ever
    assert now.decision == "accept" and 0 <= now.value <= ever
    assert now.plan["filters"][0]["status"] == "active"


def test_age_today_or_at_the_event(eunomia_conn: Any) -> None:
    (birth, first, last) = _rows(
        eunomia_conn,
        "SELECT p.birth_datetime, min(po.procedure_date), "
        "(SELECT max(observation_period_end_date) FROM observation_period) "
        "FROM person p JOIN procedure_occurrence po ON po.person_id = p.person_id "
        "WHERE p.person_id = 96 AND po.procedure_concept_id IN (SELECT descendant_concept_id "
        "FROM concept_ancestor WHERE ancestor_concept_id IN (SELECT concept_id FROM concept "
        "WHERE lower(concept_name) = 'coronary artery bypass graft')) GROUP BY p.birth_datetime",
    )[0]

    def years(born: dt.date, on: dt.date) -> int:
        return on.year - born.year - ((on.month, on.day) < (born.month, born.day))

    born = birth.date() if isinstance(birth, dt.datetime) else birth
    # ('pt 96 age @ CABG' is the age at the CABG: '@' is 'at', devset4's gold)
    alts = _ambiguous(eunomia_conn, "pt 96 age CABG")
    (at,) = [a for d, a in alts.items() if d.startswith("the age at the first")]
    assert int(at.value) == years(born, first)
    assert int(alts["the age today"].value) >= int(at.value)
    assert int(alts["the age today"].value) <= years(born, last) + 1


def test_a_name_exactly_or_with_its_kinds(fhir_conn: Any) -> None:
    exact, wide = _rows(
        fhir_conn,
        "SELECT count(DISTINCT patient_id) FILTER (WHERE code = '38341003'), "
        "count(DISTINCT patient_id) FROM fhir_condition WHERE code IN ('38341003', '59621000')",
    )[0]
    alts = _ambiguous(fhir_conn, "how many patients have hypertension")
    values = sorted(a.value for a in alts.values())
    assert values == sorted([exact, wide])


def test_cli_shows_the_readings(eunomia_duckdb_url: str, tmp_path: Any) -> None:
    from click.testing import CliRunner

    from clinbridge.cli import main

    q = "How many patients are on aspirin?"
    env = {"CLINBRIDGE_CACHE_DIR": str(tmp_path)}
    r = CliRunner().invoke(main, ["ask", "--db", eunomia_duckdb_url, q, "--json"], env=env)
    assert r.exit_code == 2, r.output  # an abstention exits 2
    data = json.loads(r.output[r.output.index("{") :])
    assert data["reason_code"] == "ambiguous"
    described = [a["description"] for a in data["alternatives"]]
    assert any(d.startswith("currently") for d in described)
    assert any(d.startswith("ever") for d in described)
    assert all("plan" in a and "value" in a for a in data["alternatives"])
    r = CliRunner().invoke(main, ["ask", "--db", eunomia_duckdb_url, q], env=env)
    assert "reading 1: currently on" in r.output and "reading 2: ever exposed" in r.output
