"""Shared pieces of the devset2 specs: the group record and the OMOP helpers of the second method.

A *group* is one question meaning with its gold, asked in several phrasings (voices). The gold is
computed by ``sql`` on the database built by ``databases.py`` and checked a second way by
``check``: pandas over the raw source files (OMOP CSV, FHIR JSON), never through clinbridge.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

T = dict[str, pd.DataFrame]

ANSWER_TYPES = (
    "count",
    "value",
    "date",
    "yesno",
    "list",
    "table",
    "abstain",
    "ambiguous",
)
VOICES = ("clinician", "epidemiologist", "data_manager")


@dataclass
class Group:
    """One meaning, several phrasings, one gold."""

    group: str
    category: str
    answer_type: str
    phrasings: list[tuple[str, str]]
    sql: str | None = None
    check: Callable[[T], Any] | None = None
    patient_id: str | None = None
    now: str | None = None
    unit: str | None = None
    tol: float | None = None
    missing: str | None = None
    alternatives: list[str] = field(default_factory=list)
    note: str | None = None


def G(
    group: str,
    category: str,
    answer_type: str,
    phrasings: list[tuple[str, str]],
    **kw: Any,
) -> Group:
    return Group(group, category, answer_type, phrasings, **kw)


def c(text: str) -> tuple[str, str]:
    return ("clinician", text)


def e(text: str) -> tuple[str, str]:
    return ("epidemiologist", text)


def d(text: str) -> tuple[str, str]:
    return ("data_manager", text)


# ----------------------------------------------------------------------------- OMOP, pandas side
def cid(t: T, name: str) -> int:
    """The standard concept named ``name`` (exactly one)."""
    cc = t["concept"]
    hit = cc[(cc.concept_name == name) & (cc.standard_concept == "S")]
    if len(hit) != 1:
        raise KeyError(f"{len(hit)} standard concepts named {name!r}")
    return int(hit.concept_id.iloc[0])


def desc(t: T, *names: str) -> set[int]:
    """The concepts named, with their descendants (CONCEPT_ANCESTOR), as ids."""
    out: set[int] = set()
    ca = t["concept_ancestor"]
    for n in names:
        i = cid(t, n)
        out.add(i)
        out |= set(ca.loc[ca.ancestor_concept_id == i, "descendant_concept_id"].astype(int))
    return out


def rows_of(t: T, table: str, col: str, ids: set[int]) -> pd.DataFrame:
    df = t[table]
    return df[df[col].isin(ids)]


def cond(t: T, *names: str) -> pd.DataFrame:
    return rows_of(t, "condition_occurrence", "condition_concept_id", desc(t, *names))


def drug(t: T, *names: str) -> pd.DataFrame:
    return rows_of(t, "drug_exposure", "drug_concept_id", desc(t, *names))


def meas(t: T, name: str) -> pd.DataFrame:
    df = rows_of(t, "measurement", "measurement_concept_id", {cid(t, name)})
    return df[df.value_as_number.notna()]


def persons(df: pd.DataFrame) -> set[int]:
    return set(df.person_id.astype(int))


def age_at(birth: Any, when: Any) -> int:
    """Completed years between two dates."""
    b = pd.Timestamp(birth)
    w = pd.Timestamp(when)
    return int(w.year - b.year - ((w.month, w.day) < (b.month, b.day)))


def iso(v: Any) -> str:
    return pd.Timestamp(v).date().isoformat()


def today(now: str) -> dt.date:
    return dt.date.fromisoformat(now[:10])


# ----------------------------------------------------------------------------- OMOP, SQL side
def s_desc(*names: str) -> str:
    """SQL: ids of the standard concepts named, with descendants."""
    quoted = ", ".join("'" + n.replace("'", "''") + "'" for n in names)
    named = f"SELECT concept_id FROM concept WHERE concept_name IN ({quoted}) AND standard_concept = 'S'"
    return (
        f"(SELECT descendant_concept_id FROM concept_ancestor WHERE ancestor_concept_id IN ({named})"
        f" UNION {named})"
    )


def s_one(name: str) -> str:
    q = name.replace("'", "''")
    return f"(SELECT concept_id FROM concept WHERE concept_name = '{q}' AND standard_concept = 'S')"


S_AGE = (
    "(date_diff('year', {b}, {w}) - CASE WHEN strftime({b}, '%m%d') > strftime({w}, '%m%d') "
    "THEN 1 ELSE 0 END)"
)


def s_age(b: str, w: str) -> str:
    """SQL: completed years from date expression ``b`` to ``w``."""
    return S_AGE.format(b=f"CAST({b} AS DATE)", w=f"CAST({w} AS DATE)")
