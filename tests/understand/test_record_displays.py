"""A FHIR code may be displayed differently across records (Synthea writes CVX 113 as 'Td (adult)
preservative free' in some bundles and 'Td (adult), 5 Lf tetanus toxoid, ...' in others), while
fhir_code keeps one display per code. An answer that prints a concept name prints the patient's
own records' text, never the name another record used. Gold is SQL over the loaded tables."""

from __future__ import annotations

from typing import Any

import pytest


def _sql(conn: Any, sql: str) -> list[tuple[Any, ...]]:
    return list(conn.db.execute(sql, max_rows=None).rows)


def _patient_with_other_display(conn: Any, table: str) -> tuple[str, str]:
    """A patient whose records of a code use only displays other than fhir_code's for it, and
    the display fhir_code keeps (found in the data, not written here)."""
    rows = _sql(
        conn,
        f"SELECT r.patient_id, MIN(k.display) FROM {table} r JOIN fhir_code k "
        "ON k.system = r.code_system AND k.code = r.code "
        "GROUP BY r.patient_id, r.code_system, r.code "
        "HAVING SUM(CASE WHEN r.display = k.display THEN 1 ELSE 0 END) = 0 "
        "AND MIN(r.display) IS NOT NULL ORDER BY 1 LIMIT 1",
    )
    if not rows:
        pytest.skip(f"no code in {table} is displayed two ways in this load")
    return str(rows[0][0]), str(rows[0][1])


@pytest.mark.parametrize(
    ("table", "question"),
    [
        ("fhir_immunization", "which vaccines has this patient received"),
        ("fhir_procedure", "list the procedures this patient had"),
    ],
)
def test_list_prints_the_records_display(fhir_conn: Any, table: str, question: str) -> None:
    pid, code_table_display = _patient_with_other_display(fhir_conn, table)
    a = fhir_conn.ask(question, patient_id=pid)
    assert a.decision == "accept", a.reason
    gold = {
        r[0]
        for r in _sql(
            fhir_conn,
            f"SELECT DISTINCT display FROM {table} WHERE patient_id = '{pid}' AND code IS NOT NULL",
        )
    }
    assert set(a.value) == gold
    assert code_table_display not in a.value
    # the answer reads this patient's records of that table, nobody else's
    assert table in (a.sql or "") and pid in (a.sql or "")


def test_one_code_two_displays_in_the_load(fhir_conn: Any) -> None:
    """The test data does hold a code with two displays (else the test above proves nothing)."""
    rows = _sql(
        fhir_conn,
        "SELECT code FROM fhir_immunization GROUP BY code_system, code "
        "HAVING COUNT(DISTINCT display) > 1",
    )
    assert rows
