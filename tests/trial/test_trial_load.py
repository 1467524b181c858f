"""Loading trial workbooks and CSVs: dictionary found, given or inferred; catalog; long view."""

from __future__ import annotations

import orjson
import pytest

from clinbridge.adapters import describe, get_adapter
from clinbridge.adapters.trial import load_trial, read_trial
from clinbridge.db import Database


def test_dictionary_found_in_the_workbook_without_being_named(trial_xlsx) -> None:  # type: ignore[no-untyped-def]
    table = read_trial(trial_xlsx)
    r = table.report
    assert r.sheet == "Data"
    assert r.dictionary_source == "sheet 'Data dictionary'"
    assert r.inferred == []
    assert r.rows_read == r.rows_loaded == 532
    assert r.reconciled


def test_catalog_describes_variables_roles_and_tables(trial_db) -> None:  # type: ignore[no-untyped-def]
    with Database.open(trial_db) as db:
        assert get_adapter("trial").detect(db)
        cat = describe(db)
        assert cat.adapter == "trial"
        by = {v.name: v for v in cat.variables}
        roles = {v.role: v.name for v in cat.variables if v.role}
        assert roles == {"subject": "SUBJ_ID", "trial": "TRIAL", "site": "SITE", "arm": "Rand_Arm"}
        t = by["TEMP_24H"]
        assert (t.unit, t.time_point, t.type) == ("°C", "24 h", "float")
        assert t.missing_labels == {"-99": "Not done", "-88": "Not applicable", "-77": "Unknown"}
        assert by["Rand_Arm"].codes["1"].startswith("Hypothermia")
        assert by["BAYLEY_COG_18M"].trials == ("NEOCOOL",)
        assert by["Gluc6h"].trials == ("NEOCOOL",)
        assert by["apgar10"].time_point == "10 min"
        assert by["NEURO01_D3"].time_point == "72 h"  # day 3
        assert cat.patients is not None and cat.patients.id_column == "subj_id"
        assert {"trial_data", "trial_long", "trial_variables", "trial_codes"} <= cat.table_names()
        # the long view: one row per subject, time-pointed variable and collected value
        n = db.execute(
            "SELECT COUNT(*), COUNT(value), SUM(CASE WHEN raw IN (-99, -88, -77) THEN 1 ELSE 0 END)"
            " FROM trial_long WHERE variable = 'TEMP_24H'"
        ).rows[0]
        raw = db.execute(
            "SELECT COUNT(temp_24h), SUM(CASE WHEN temp_24h IN (-99,-88,-77) THEN 1 ELSE 0 END)"
            " FROM trial_data"
        ).rows[0]
        assert n[0] == raw[0] and n[0] - n[1] == n[2] == raw[1]


def test_csv_with_separate_dictionary_and_sqlite(trial_wb, tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = trial_wb.write_csv(tmp_path / "hie.csv", dictionary=tmp_path / "dict.csv")
    url = f"sqlite:///{tmp_path / 'hie.db'}"
    report = load_trial(data, url, dictionary=tmp_path / "dict.csv")
    assert report.dictionary_source.startswith("file ")
    assert report.reconciled and report.rows_loaded == 532
    with Database.open(url) as db:
        cat = describe(db)
        assert next(v for v in cat.variables if v.name == "HIE_GRADE").codes["3"] == "Severe"


def test_dictionary_named_as_a_sheet(trial_xlsx) -> None:  # type: ignore[no-untyped-def]
    table = read_trial(trial_xlsx, dictionary="Data dictionary")
    assert table.report.dictionary_source == "sheet 'Data dictionary'"
    with pytest.raises(Exception, match="no dictionary sheet or file 'Nope'"):
        read_trial(trial_xlsx, dictionary="Nope")


def test_no_dictionary_is_inferred_and_said_so(trial_wb, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = trial_wb.write_csv(tmp_path / "bare.csv")
    url = f"duckdb:///{tmp_path / 'bare.duckdb'}"
    report = load_trial(path, url)
    assert report.dictionary_source.startswith("none found: inferred")
    assert len(report.inferred) == trial_wb.data.shape[1]
    with Database.open(url) as db:
        cat = describe(db)
        by = {v.name: v for v in cat.variables}
        assert "inferred from the data" in by["TEMP_24H"].description
        assert by["TEMP_24H"].time_point == "24 h"  # from the column name
        assert by["map_h72"].time_point == "72 h"
        assert by["Gluc0h"].time_point == "0 h"
        assert set(by["TEMP_24H"].missing_codes) >= {"-99"}
        assert by["SUBJ_ID"].role == "subject"
        src = db.execute("SELECT source FROM trial_variables WHERE name = 'TEMP_24H'").rows[0][0]
        assert src == "inferred"
    import clinbridge.api as cb

    # without labels, codes cannot be named: the reader abstains rather than guess
    with cb.connect(url) as conn:
        for q in ("How many infants died in each trial?", "Number of infants per site"):
            assert conn.ask(q).decision == "abstain", q


def test_postgres(trial_wb, tmp_path, pg_url) -> None:  # type: ignore[no-untyped-def]
    wb = trial_wb
    small = wb.data.iloc[:40, :200]
    small.to_csv(tmp_path / "s.csv", index=False)
    wb.dictionary.iloc[:200].to_csv(tmp_path / "d.csv", index=False)
    report = load_trial(tmp_path / "s.csv", pg_url, dictionary=tmp_path / "d.csv")
    assert report.reconciled and report.rows_loaded == 40
    with Database.open(pg_url) as db:
        cat = describe(db)
        assert cat.adapter == "trial"
        codes = orjson.loads(
            db.execute("SELECT codes FROM trial_variables WHERE name='TRIAL'").rows[0][0]
        )
        assert codes == {"1": "NEOCOOL", "2": "HYPOTHERM"}
