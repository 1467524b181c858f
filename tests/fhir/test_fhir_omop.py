"""FHIR → OMOP CDM 5.4 export, vocabulary links, and the same answers on both sides."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fhir_testlib import BACKENDS, BUNDLES, NDJSON, make_url

from clinbridge.adapters import get_adapter
from clinbridge.adapters.fhir import load_fhir
from clinbridge.adapters.fhir.omop_export import OMOP_TABLES, export_omop
from clinbridge.adapters.omop.loader import load_omop_csv
from clinbridge.catalog import Catalog
from clinbridge.db import Database

VOCAB_CSV = Path(__file__).resolve().parents[1] / "data" / "eunomia-synthea27nj-5.4"


@pytest.fixture(scope="module")
def fhir_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The Synthea sample loaded into a DuckDB that also holds an OMOP vocabulary (concept)."""
    url = f"duckdb:///{tmp_path_factory.mktemp('fhir') / 'fhir.duckdb'}"
    load_omop_csv(VOCAB_CSV, url, only=["concept"])
    report = load_fhir([BUNDLES, NDJSON], url)
    assert report.concepts_linked > 0
    return url


@pytest.fixture(scope="module", params=BACKENDS)
def exported(
    request: pytest.FixtureRequest, fhir_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Any:
    gen = make_url(request.param, tmp_path_factory.mktemp(f"omop-{request.param}"))
    url = next(gen)
    result = export_omop(fhir_url, url)
    yield url, result
    next(gen, None)


def rows(db: Database, sql: str) -> list[tuple[Any, ...]]:
    return db.execute(sql, max_rows=None).rows


def test_vocabulary_links_fhir_codes_to_omop_concepts(fhir_url: str) -> None:
    with Database.open(fhir_url) as db:
        linked = {
            (s, c): (cid, std)
            for s, c, cid, std in rows(
                db,
                "SELECT system, code, concept_id, standard_concept_id FROM fhir_code WHERE concept_id IS NOT NULL",
            )
        }
        concept = {
            (v, c): (cid, s)
            for cid, v, c, s in rows(
                db, "SELECT concept_id, vocabulary_id, concept_code, standard_concept FROM concept"
            )
        }
        assert {s for s, _ in linked} >= {"http://loinc.org", "http://snomed.info/sct"}
        for (system, code), (cid, std) in linked.items():
            vocab = {
                "http://loinc.org": "LOINC",
                "http://snomed.info/sct": "SNOMED",
                "http://www.nlm.nih.gov/research/umls/rxnorm": "RxNorm",
                "http://hl7.org/fhir/sid/cvx": "CVX",
                "http://unitsofmeasure.org": "UCUM",
            }[system]
            assert concept[(vocab, code)][0] == cid
            assert std == (cid if concept[(vocab, code)][1] == "S" else None)
        cat = get_adapter("fhir").catalog(db)
        assert "OMOP concepts" in cat.description


def test_export_writes_every_cdm_table_and_keeps_source_values(
    exported: Any, fhir_url: str
) -> None:
    url, result = exported
    assert (
        set(result.tables) == set(OMOP_TABLES)
        and result.vocabulary is not None
        and result.codes_mapped > 0
    )
    with Database.open(url) as db, Database.open(fhir_url) as src:
        for table, n in result.tables.items():
            assert rows(db, f"SELECT COUNT(*) FROM {table}")[0][0] == n
        assert result.tables["person"] == 18 and result.tables["death"] == 4
        assert (
            result.tables["visit_occurrence"]
            == rows(src, "SELECT COUNT(*) FROM fhir_encounter")[0][0]
        )
        assert result.tables["note"] == rows(src, "SELECT COUNT(*) FROM fhir_note")[0][0]
        persons = {r[0] for r in rows(db, "SELECT person_source_value FROM person")}
        assert persons == {r[0] for r in rows(src, "SELECT id FROM fhir_patient")}
        # source values always, concept ids when the vocabulary knows the code (else 0)
        assert (
            rows(db, "SELECT COUNT(*) FROM measurement WHERE measurement_source_value IS NULL")[0][
                0
            ]
            == 0
        )
        std = dict(
            rows(
                src,
                "SELECT code, standard_concept_id FROM fhir_code WHERE system = 'http://loinc.org'",
            )
        )
        for code, cid in rows(
            db, "SELECT DISTINCT measurement_source_value, measurement_concept_id FROM measurement"
        ):
            assert cid == (std.get(code) or 0), code
        assert (
            rows(db, "SELECT COUNT(*) FROM measurement WHERE measurement_concept_id <> 0")[0][0] > 0
        )
        # a second export replaces, never duplicates
        again = export_omop(fhir_url, url) if db.backend != "duckdb" else None
        if again is not None:
            assert again.tables == result.tables
            assert rows(db, "SELECT COUNT(*) FROM person")[0][0] == 18


def _per_code(db: Database, cat: Catalog, kinds: tuple[str, ...]) -> Counter[str]:
    out: Counter[str] = Counter()
    for s in cat.streams:
        if s.kind in kinds and s.name != "observation":
            col = s.source_value_column or s.code_column
            for code, n in rows(db, f"SELECT {col}, COUNT(*) FROM {s.table} GROUP BY {col}"):
                out[str(code)] += n
    return out


def test_same_answers_on_fhir_tables_and_omop_export(exported: Any, fhir_url: str) -> None:
    """Plain SQL written from each catalog (no FHIR or OMOP table names in the questions)."""
    url, _ = exported
    with Database.open(fhir_url) as f, Database.open(url) as o:
        fc, oc = get_adapter("fhir").catalog(f), get_adapter("omop").catalog(o)
        assert fc.patients and oc.patients and fc.encounters and oc.encounters
        # patients
        count = "SELECT COUNT(*) FROM {}"
        assert rows(f, count.format(fc.patients.table)) == rows(o, count.format(oc.patients.table))

        # encounters by canonical type
        def by_type(db: Database, cat: Catalog) -> Counter[str]:
            e = cat.encounters
            assert e is not None and e.type_column
            got: Counter[str] = Counter()
            for t, n in rows(
                db, f"SELECT {e.type_column}, COUNT(*) FROM {e.table} GROUP BY {e.type_column}"
            ):
                got[e.type_map.get(str(t), "other")] += n
            return got

        assert by_type(f, fc) == by_type(o, oc)
        assert by_type(f, fc)["emergency"] > 0 and by_type(f, fc)["inpatient"] > 0
        # condition counts per code
        assert _per_code(f, fc, ("condition",)) == _per_code(o, oc, ("condition",))
        # procedures per code
        assert _per_code(f, fc, ("procedure",)) == _per_code(o, oc, ("procedure",))

        # the latest systolic blood pressure of every patient
        def latest(db: Database, cat: Catalog, person_key: dict[Any, str]) -> dict[str, float]:
            s = cat.stream("measurement")
            code = s.source_value_column or s.code_column
            sql = (
                f"SELECT {s.patient_column}, {s.time_column}, {s.value_column} FROM {s.table} "
                f"WHERE {code} = '8480-6' ORDER BY {s.patient_column}, {s.time_column}"
            )
            return {person_key.get(p, p): v for p, _, v in rows(db, sql)}

        key = dict(rows(o, "SELECT person_id, person_source_value FROM person"))
        lf, lo = latest(f, fc, {}), latest(o, oc, key)
        assert lf and lf.keys() == lo.keys()
        for k in lf:
            assert lf[k] == pytest.approx(lo[k])
        # notes per patient
        nf = dict(rows(f, "SELECT patient_id, COUNT(*) FROM fhir_note GROUP BY patient_id"))
        no = {
            key[p]: n for p, n in rows(o, "SELECT person_id, COUNT(*) FROM note GROUP BY person_id")
        }
        assert nf == no


def test_same_plans_give_same_answers(exported: Any, fhir_url: str) -> None:
    """The engine's plans, unchanged, on the FHIR catalog and on the OMOP export's catalog."""
    from clinbridge.engine.plan import (
        Aggregate,
        ConceptRef,
        ConceptSet,
        EncounterFilter,
        EventFilter,
        Measure,
        QueryPlan,
        SexFilter,
    )
    from clinbridge.engine.run import run_plan

    url, _ = exported
    sbp = ConceptSet(concepts=(ConceptRef(code="8480-6"),))
    plans = {
        "patients": QueryPlan(),
        "women": QueryPlan(filters=(SexFilter(sex="female"),)),
        "inpatients": QueryPlan(filters=(EncounterFilter(type="inpatient"),)),
        "emergency visits": QueryPlan(measure=Measure(of="encounters", encounter_type="emergency")),
        "hypertension": QueryPlan(
            filters=(
                EventFilter(
                    stream="condition", concepts=ConceptSet(concepts=(ConceptRef(code="59621000"),))
                ),
            )
        ),
        "mean systolic": QueryPlan(
            measure=Measure(of="value", stream="measurement", concepts=sbp),
            aggregate=Aggregate(op="mean", round_to=3),
        ),
        "max systolic": QueryPlan(
            measure=Measure(of="value", stream="measurement", concepts=sbp),
            aggregate=Aggregate(op="max"),
        ),
    }
    with Database.open(fhir_url) as f, Database.open(url) as o:
        fc, oc = get_adapter("fhir").catalog(f), get_adapter("omop").catalog(o)
        for name, plan in plans.items():
            a, b = run_plan(f, fc, plan), run_plan(o, oc, plan)
            assert a.value is not None, (name, a)
            assert a.value == pytest.approx(b.value), name
        # a patient-level question: the FHIR side is addressed by Patient.id, OMOP by person_id
        pid = "fbeb6608-4810-453b-a3a6-b34f321410b1"
        person = rows(o, f"SELECT person_id FROM person WHERE person_source_value = '{pid}'")[0][0]
        last = QueryPlan(
            patient_id=pid,
            measure=Measure(of="value", stream="measurement", concepts=sbp),
            aggregate=Aggregate(op="last"),
        )
        a = run_plan(f, fc, last)
        b = run_plan(o, oc, last.model_copy(update={"patient_id": str(person)}))
        assert a.value is not None and a.value == pytest.approx(b.value)


def test_export_into_the_same_duckdb_and_with_a_separate_vocabulary(tmp_path: Path) -> None:
    url = f"duckdb:///{tmp_path / 'one.duckdb'}"
    vocab = f"duckdb:///{tmp_path / 'vocab.duckdb'}"
    load_omop_csv(VOCAB_CSV, vocab, only=["concept"])
    load_fhir([BUNDLES], url)
    first = export_omop(url, url, vocab_url=vocab)
    again = export_omop(url, url, vocab_url=vocab)  # a full refresh: same rows, no duplicates
    assert first.tables == again.tables and first.codes_mapped == again.codes_mapped > 0
    with Database.open(url) as db:
        assert (
            rows(db, "SELECT COUNT(*) FROM person")[0][0]
            == 5
            == rows(db, "SELECT COUNT(*) FROM fhir_patient")[0][0]
        )
        fc, oc = get_adapter("fhir").catalog(db), get_adapter("omop").catalog(db)
        assert fc.adapter == "fhir" and oc.adapter == "omop"
        # the vocabulary subset the export uses was copied next to the CDM tables
        used = rows(
            db,
            "SELECT COUNT(DISTINCT measurement_concept_id) FROM measurement WHERE measurement_concept_id <> 0",
        )
        have = rows(
            db,
            "SELECT COUNT(*) FROM concept c WHERE c.concept_id IN (SELECT measurement_concept_id FROM "
            "measurement)",
        )
        assert used[0][0] == have[0][0] > 0
