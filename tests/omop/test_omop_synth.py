"""The synthetic OMOP generator: determinism, self-contained vocabulary, realistic values."""

from __future__ import annotations

import numpy as np
import pytest

from clinbridge.adapters import describe
from clinbridge.db import Database
from clinbridge.errors import ConfigError
from clinbridge.synthetic.omop import build_omop_frames, generate_omop


@pytest.fixture(scope="module")
def synth(synth_duckdb_url):
    db = Database.open(synth_duckdb_url)
    yield db
    db.close()


def q(db, sql):
    return db.execute(sql, max_rows=None).rows


def test_deterministic_by_seed():
    a, b, c = (
        build_omop_frames(150, seed=5),
        build_omop_frames(150, seed=5),
        build_omop_frames(150, seed=6),
    )
    assert a.keys() == b.keys()
    assert all(a[k].equals(b[k]) for k in a)
    assert not a["measurement"].equals(c["measurement"])


def test_rejects_bad_size():
    with pytest.raises(ConfigError):
        build_omop_frames(0)


def test_is_a_cdm_54_with_catalog(synth):
    c = describe(synth)
    assert c.cdm_version == "5.4" and c.vocabulary_version == "cb-synthetic v1"
    assert c.table("person").row_count == 300
    assert set(c.encounters.type_map.values()) >= {"inpatient", "emergency", "icu", "outpatient"}


def test_every_used_concept_is_in_the_vocabulary(synth):
    used = [
        ("person", "gender_concept_id"),
        ("person", "race_concept_id"),
        ("visit_occurrence", "visit_concept_id"),
        ("condition_occurrence", "condition_concept_id"),
        ("condition_occurrence", "condition_source_concept_id"),
        ("drug_exposure", "drug_concept_id"),
        ("measurement", "measurement_concept_id"),
        ("measurement", "unit_concept_id"),
        ("note", "note_class_concept_id"),
        ("drug_era", "drug_concept_id"),
        ("measurement", "measurement_type_concept_id"),
    ]
    for table, col in used:
        missing = q(
            synth,
            f"SELECT DISTINCT {col} FROM {table} WHERE {col} NOT IN (SELECT concept_id FROM concept)",
        )
        assert missing == [], (table, col, missing)
    # ancestors hold a self-row for every standard concept
    assert q(
        synth,
        "SELECT count(*) FROM concept c WHERE standard_concept = 'S' AND NOT EXISTS "
        "(SELECT 1 FROM concept_ancestor a WHERE a.ancestor_concept_id = c.concept_id "
        "AND a.descendant_concept_id = c.concept_id)",
    ) == [(0,)]


def test_measurements_are_plausible(synth):
    rows = {
        r[0]: r[1:]
        for r in q(
            synth,
            """
        SELECT measurement_concept_id, avg(value_as_number), min(value_as_number), max(value_as_number),
               min(unit_source_value), max(unit_source_value), count(*)
        FROM measurement GROUP BY 1""",
        )
    }
    expect = {  # concept: (mean range, unit)
        3000963: ((11.5, 15), "g/dL"),
        3016723: ((0.7, 1.6), "mg/dL"),
        3004501: ((85, 140), "mg/dL"),
        3004249: ((110, 140), "mmHg"),
        3012888: ((65, 90), "mmHg"),
        3027018: ((65, 95), "/min"),
        3038553: ((23, 33), "kg/m2"),
        3023103: ((3.8, 4.7), "mmol/L"),
        3019550: ((136, 142), "mmol/L"),
        3004410: ((5.5, 9.5), "%"),
    }
    for concept, ((lo, hi), unit) in expect.items():
        mean, vmin, _vmax, u1, u2, n = rows[concept]
        assert lo <= mean <= hi, (concept, mean)
        assert u1 == u2 == unit and n > 10 and vmin > 0


def test_events_sit_inside_their_visits(synth):
    outside = q(
        synth,
        """
        SELECT count(*) FROM measurement m JOIN visit_occurrence v USING (visit_occurrence_id)
        WHERE m.measurement_datetime < v.visit_start_datetime OR m.measurement_datetime > v.visit_end_datetime""",
    )
    assert outside == [(0,)]
    assert q(
        synth,
        "SELECT count(*) FROM condition_occurrence c JOIN visit_occurrence v USING (visit_occurrence_id) "
        "WHERE c.condition_start_date < v.visit_start_date OR c.condition_start_date > v.visit_end_date",
    ) == [(0,)]
    # inpatient stays last days, outpatient visits one day; ICU stays have frequent vitals
    los = dict(
        q(
            synth,
            "SELECT visit_concept_id, avg(visit_end_date - visit_start_date) FROM visit_occurrence GROUP BY 1",
        )
    )
    assert los[9202] == 0 and los[9201] > 1.5 and los[32037] > los[9201]
    events = dict(
        q(
            synth,
            """
        SELECT v.visit_concept_id, count(*) * 1.0 / count(DISTINCT v.visit_occurrence_id)
        FROM measurement m JOIN visit_occurrence v USING (visit_occurrence_id) GROUP BY 1""",
        )
    )
    assert events[32037] > events[9201] > events[9202]


def test_observation_and_deaths_consistent(synth):
    assert q(
        synth,
        "SELECT count(*) FROM visit_occurrence v JOIN observation_period o USING (person_id) "
        "WHERE v.visit_start_date < o.observation_period_start_date "
        "OR v.visit_end_date > o.observation_period_end_date",
    ) == [(0,)]
    assert q(
        synth,
        "SELECT count(*) FROM death d JOIN observation_period o USING (person_id) "
        "WHERE d.death_date <> o.observation_period_end_date",
    ) == [(0,)]
    ages = q(
        synth,
        "SELECT min(extract(year FROM o.observation_period_start_date) - p.year_of_birth) "
        "FROM person p JOIN observation_period o USING (person_id)",
    )[0][0]
    assert ages >= 17


def test_drugs_and_eras(synth):
    bad = q(
        synth,
        "SELECT count(*) FROM drug_exposure WHERE days_supply < 1 OR quantity <= 0 "
        "OR drug_exposure_end_date < drug_exposure_start_date "
        "OR drug_exposure_end_date - drug_exposure_start_date <> days_supply - 1",
    )
    assert bad == [(0,)]
    # every era is by ingredient and covers its exposures
    assert q(
        synth,
        "SELECT count(*) FROM drug_era e JOIN concept c ON c.concept_id = e.drug_concept_id "
        "WHERE c.concept_class_id <> 'Ingredient'",
    ) == [(0,)]
    n_exp = q(synth, "SELECT count(*) FROM drug_exposure")[0][0]
    assert q(synth, "SELECT sum(drug_exposure_count) FROM drug_era")[0][0] == n_exp
    # diabetics get metformin
    share = q(
        synth,
        """
        SELECT avg(CASE WHEN EXISTS (SELECT 1 FROM drug_exposure d JOIN concept_ancestor a
                      ON a.descendant_concept_id = d.drug_concept_id AND a.ancestor_concept_id = 1503297
                      WHERE d.person_id = c.person_id) THEN 1.0 ELSE 0 END)
        FROM (SELECT DISTINCT person_id FROM condition_occurrence WHERE condition_concept_id = 201826) c""",
    )[0][0]
    assert share > 0.6


def test_notes_quote_values(synth):
    [(text,)] = q(synth, "SELECT note_text FROM note ORDER BY note_id LIMIT 1")
    assert text.startswith("Discharge summary.") and "g/dL" in text


@pytest.mark.parametrize("backend", ["sqlite"])
def test_generates_into_sqlite(tmp_path, backend):
    url = f"{backend}:///{tmp_path / 's.db'}"
    report = generate_omop(url, patients=120, seed=2)
    with Database.open(url) as db:
        for table, n in report.rows.items():
            assert db.execute(f"SELECT count(*) FROM {table}").rows[0][0] == n
        assert describe(db).cdm_version == "5.4"


@pytest.mark.postgres
def test_generates_into_postgres(pg_url):
    report = generate_omop(pg_url, patients=100, seed=3)
    frames = build_omop_frames(100, seed=3)
    with Database.open(pg_url) as db:
        got = db.execute("SELECT round(avg(value_as_number)::numeric, 6) FROM measurement").rows[0][
            0
        ]
        assert float(got) == pytest.approx(
            float(np.round(frames["measurement"]["value_as_number"].mean(), 6))
        )
        assert db.execute("SELECT count(*) FROM person").rows == [(report.rows["person"],)]


def test_blocks_continue_ids(tmp_path, monkeypatch):
    import clinbridge.synthetic.omop as synth_mod

    monkeypatch.setattr(synth_mod, "BLOCK_PATIENTS", 100)
    url = f"duckdb:///{tmp_path / 'blocks.duckdb'}"
    report = generate_omop(url, patients=250, seed=9)
    first = build_omop_frames(100, seed=9)  # block 0 is independent of the block size
    with Database.open(url) as db:
        for table, key in [
            ("person", "person_id"),
            ("visit_occurrence", "visit_occurrence_id"),
            ("measurement", "measurement_id"),
            ("drug_exposure", "drug_exposure_id"),
            ("condition_occurrence", "condition_occurrence_id"),
            ("note", "note_id"),
            ("drug_era", "drug_era_id"),
            ("observation_period", "observation_period_id"),
        ]:
            n, lo, hi, distinct = q(
                db, f"SELECT count(*), min({key}), max({key}), count(DISTINCT {key}) FROM {table}"
            )[0]
            assert (lo, hi, distinct) == (1, n, n), table
            assert n == report.rows[table]
        assert q(db, "SELECT count(*) FROM person") == [(250,)]
        assert q(db, "SELECT count(*) FROM concept") == [(len(first["concept"]),)]
        orphans = q(
            db,
            "SELECT count(*) FROM measurement m LEFT JOIN visit_occurrence v USING (visit_occurrence_id) "
            "WHERE v.person_id IS NULL OR v.person_id <> m.person_id",
        )
        assert orphans == [(0,)]
        assert q(db, "SELECT count(*) FROM measurement WHERE person_id <= 100") == [
            (len(first["measurement"]),)
        ]
