"""The synthetic generator creates the OHDSI recommended indexes on PostgreSQL, and the lookups a
question makes (a concept present in a stream, descendants of a concept) use them."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import psycopg
import pytest

from clinbridge.adapters.omop.loader import _INDEXED, _OHDSI_PG
from clinbridge.synthetic.omop import generate_omop

pytestmark = pytest.mark.postgres


def test_generator_creates_ohdsi_indexes_on_postgres(pg_url):
    report = generate_omop(pg_url, patients=50, seed=3)
    schema = parse_qs(urlparse(pg_url).query)["schema"][0]
    base = pg_url.split("?")[0]
    with psycopg.connect(base, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = %s", (schema,)
        ).fetchall()
        defs = {(t, d.rsplit("(", 1)[-1].strip(' )"')) for t, d in rows}
        for table in report.rows:
            for column in (*_INDEXED.get(table, ()), *_OHDSI_PG.get(table, ())):
                assert (table, column) in defs, (table, column)
        conn.execute(f'SET search_path TO "{schema}"')
        conn.execute("SET enable_seqscan = off")  # tiny tables: ask whether an index *can* serve
        for sql in (
            "SELECT 1 FROM measurement WHERE measurement_concept_id = 3000963 LIMIT 1",
            "SELECT descendant_concept_id FROM concept_ancestor WHERE ancestor_concept_id = 316139",
            "SELECT ancestor_concept_id FROM concept_ancestor WHERE descendant_concept_id = 316139",
            "SELECT 1 FROM measurement WHERE visit_occurrence_id = 1",
        ):
            plan = "\n".join(r[0] for r in conn.execute(f"EXPLAIN {sql}").fetchall())
            assert "Index" in plan, (sql, plan)
