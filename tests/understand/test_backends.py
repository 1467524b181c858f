"""The same questions give the same answers on SQLite and PostgreSQL as on DuckDB."""

from __future__ import annotations

from pathlib import Path

import pytest

CASES = [
    ("How many women had a GI bleed?", None, 242),
    ("What proportion of patients with gastrointestinal bleeding are female?", None, 242 / 479),
    ("When was this patient first diagnosed with osteoarthritis?", "3048", "2008-08-24"),
    (
        "How many patients had a GI bleed within 30 days after their first celecoxib exposure?",
        None,
        113,
    ),
]


def _check(url: str, cache: Path) -> None:
    import clinbridge
    from clinbridge.settings import Settings

    with clinbridge.connect(url, settings=Settings(embeddings="off"), cache_dir=cache) as conn:
        for question, patient, gold in CASES:
            answer = conn.ask(question, patient_id=patient)
            assert answer.decision == "accept", (question, answer.reason)
            if isinstance(gold, float):
                assert answer.value == pytest.approx(gold), question
            else:
                assert answer.value == gold, question


def test_sqlite(eunomia_sqlite_url: str, tmp_path: Path) -> None:
    _check(eunomia_sqlite_url, tmp_path)


@pytest.mark.postgres
def test_postgres(eunomia_pg_url: str, tmp_path: Path) -> None:
    _check(eunomia_pg_url, tmp_path)
