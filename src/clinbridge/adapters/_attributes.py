"""The demographic attributes a source records per patient (race, ethnicity, city, state).

An adapter names where each is kept — a column of the patient table holding a code or a text,
the names of the codes, and the source's own text for codes without a name — and this module
reads the distinct values the source stores, so a question's words ('Asian', 'Hispanic') can be
grounded against them. An attribute no patient has a value for is not recorded (None).
"""

from __future__ import annotations

from typing import Literal

from clinbridge.adapters._schema import SchemaNames
from clinbridge.catalog import PatientAttribute

__all__ = ["OMOP_DEMOGRAPHIC_NAMES", "read_attribute"]

MAX_VALUES = 1000
"""More distinct values than this: the list is cut (``complete`` False)."""

OMOP_DEMOGRAPHIC_NAMES: dict[str, str] = {
    "8527": "White",
    "8516": "Black or African American",
    "8515": "Asian",
    "8557": "Native Hawaiian or Other Pacific Islander",
    "8657": "American Indian or Alaska Native",
    "38003563": "Hispanic or Latino",
    "38003564": "Not Hispanic or Latino",
}
"""The standard OMOP race and ethnicity concepts' names, for a vocabulary that lacks them."""


def read_attribute(
    s: SchemaNames,
    table: str,
    name: Literal["race", "ethnicity", "city", "state"],
    column: str | None,
    *,
    source_column: str | None = None,
    concepts: bool = False,
) -> PatientAttribute | None:
    """The attribute ``name`` kept in ``table.column``, with its stored values; None if absent.

    ``concepts``: the column holds OMOP concept ids, named by the concept table (else by
    :data:`OMOP_DEMOGRAPHIC_NAMES`); concept 0 ('no matching concept') has no name, so its
    patients read their ``source_column`` text.
    """
    if not column:
        return None
    src = f", {s.sql_col(table, source_column)}" if source_column else ""
    sql = (
        f"SELECT DISTINCT CAST({s.sql_col(table, column)} AS VARCHAR){src} "
        f"FROM {s.sql_table(table)} LIMIT {MAX_VALUES * 4 + 1}"
    )
    rows = s.rows(sql)
    labels: dict[str, str] = {}
    if concepts:
        codes = sorted({str(r[0]) for r in rows if r[0] is not None and str(r[0]) != "0"})
        labels = {c: OMOP_DEMOGRAPHIC_NAMES[c] for c in codes if c in OMOP_DEMOGRAPHIC_NAMES}
        if codes and s.table("concept") and all(c.isdigit() for c in codes):
            named = s.rows(
                f"SELECT CAST({s.sql_col('concept', 'concept_id')} AS VARCHAR), "
                f"{s.sql_col('concept', 'concept_name')} FROM {s.sql_table('concept')} "
                f"WHERE {s.sql_col('concept', 'concept_id')} IN ({', '.join(codes)})"
            )
            labels.update({str(c): str(n) for c, n in named if n})
    values: set[str] = set()
    for r in rows:
        code = None if r[0] is None else str(r[0])
        text = r[1] if source_column else None
        value = labels.get(code) if code is not None else None
        if value is None and text is not None and str(text).strip():
            value = str(text)
        if value is None and code is not None and not source_column:
            value = code
        if value is not None and value.strip():
            values.add(value)
    if not values:
        return None
    ordered = tuple(sorted(values))
    return PatientAttribute(
        name=name,
        column=s.column(table, column) or column,
        labels=labels,
        source_column=s.column(table, source_column) if source_column else None,
        values=ordered[:MAX_VALUES],
        complete=len(ordered) <= MAX_VALUES and len(rows) <= MAX_VALUES * 4,
    )
