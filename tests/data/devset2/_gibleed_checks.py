"""Second-way (pandas) computations for spec_gibleed.py: each recomputes a group's gold from the
raw Eunomia GiBleed CSV frames, never through clinbridge."""

from __future__ import annotations

import pandas as pd
from _common import T, age_at, cond, drug, iso, persons

NOW = "2019-07-03"


def _person(t: T) -> pd.DataFrame:
    return t["person"]


def _n_women_with(t: T, name: str) -> int:
    p = _person(t)
    women = set(p.loc[p.gender_concept_id == 8532, "person_id"])
    return len(persons(cond(t, name)) & women)


def _bleed_after_first(t: T, drug_name: str, lo: int, hi: int) -> int:
    first = drug(t, drug_name).groupby("person_id").drug_exposure_start_date.min()
    b = cond(t, "Gastrointestinal hemorrhage")
    b = b[b.person_id.isin(first.index)]
    delta = (
        pd.to_datetime(b.condition_start_date) - pd.to_datetime(b.person_id.map(first))
    ).dt.days
    return b.loc[(delta >= lo) & (delta <= hi), "person_id"].nunique()


def _first_years(t: T, name: str, lo: int, hi: int) -> int:
    first = pd.to_datetime(cond(t, name).groupby("person_id").condition_start_date.min())
    return int(first.dt.year.between(lo, hi).sum())


def _mean_age_first(t: T, name: str) -> float:
    first = cond(t, name).groupby("person_id").condition_start_date.min()
    birth = _person(t).set_index("person_id").birth_datetime
    ages = [age_at(birth[p], when) for p, when in first.items()]
    return round(sum(ages) / len(ages), 4)


def _median_days_cel_bleed(t: T) -> float:
    a = pd.to_datetime(drug(t, "celecoxib").groupby("person_id").drug_exposure_start_date.min())
    b = pd.to_datetime(
        cond(t, "Gastrointestinal hemorrhage").groupby("person_id").condition_start_date.min()
    )
    both = pd.concat([a.rename("a"), b.rename("b")], axis=1, join="inner")
    days = (both.b - both.a).dt.days
    return float(days[days > 0].median())


def _visits(t: T) -> pd.DataFrame:
    v = t["visit_occurrence"]
    return v[v.visit_concept_id == 9201]


def _mean_los(t: T) -> float:
    v = _visits(t)
    los = (pd.to_datetime(v.visit_end_date) - pd.to_datetime(v.visit_start_date)).dt.days
    return round(float(los.mean()), 4)


def _by_sex(t: T, name: str) -> dict[str, int]:
    p = _person(t)
    p = p[p.person_id.isin(persons(cond(t, name)))]
    lab = p.gender_concept_id.map({8507: "male", 8532: "female"})
    return {k: int(v) for k, v in lab.value_counts().items()}


def _age_groups(t: T) -> dict[str, int]:
    first = cond(t, "Gastrointestinal hemorrhage").groupby("person_id").condition_start_date.min()
    birth = _person(t).set_index("person_id").birth_datetime
    out = {"<40": 0, "40+": 0}
    for p, when in first.items():
        out["<40" if age_at(birth[p], when) < 40 else "40+"] += 1
    return {k: v for k, v in out.items() if v}


def _frac_female(t: T, drug_name: str) -> float:
    p = _person(t)
    p = p[p.person_id.isin(persons(drug(t, drug_name)))]
    return round(float((p.gender_concept_id == 8532).mean()), 6)


def _frac_bleed_ulcer(t: T) -> float:
    b = persons(cond(t, "Gastrointestinal hemorrhage"))
    u = persons(cond(t, "Peptic ulcer"))
    return round(len(b & u) / len(b), 6)


def _cond_names(t: T, pid: int) -> list[str]:
    co = t["condition_occurrence"]
    ids = set(co.loc[co.person_id == pid, "condition_concept_id"])
    cc = t["concept"]
    return sorted(cc.loc[cc.concept_id.isin(ids), "concept_name"])


def _drug_names_on(t: T, pid: int, day: str) -> list[str]:
    de = t["drug_exposure"]
    ids = set(
        de.loc[
            (de.person_id == pid) & (pd.to_datetime(de.drug_exposure_start_date) == day),
            "drug_concept_id",
        ]
    )
    cc = t["concept"]
    return sorted(cc.loc[cc.concept_id.isin(ids), "concept_name"])


def _last_visit(t: T, pid: int) -> str:
    v = _visits(t)
    return iso(v.loc[v.person_id == pid, "visit_start_date"].max())


def _bleed_in_inpatient(t: T) -> int:
    b = cond(t, "Gastrointestinal hemorrhage")
    return b[b.visit_occurrence_id.isin(set(_visits(t).visit_occurrence_id))].person_id.nunique()


def _except(t: T) -> int:
    de = drug(t, "Acetaminophen")
    return de[de.drug_concept_id != 1127433].person_id.nunique()


def _fracture_ids(t: T) -> set[int]:
    cc = t["concept"]
    return set(
        cc.loc[
            (cc.domain_id == "Condition") & cc.concept_name.str.contains("racture", case=False),
            "concept_id",
        ]
    )


def _fracture(t: T) -> int:
    co = t["condition_occurrence"]
    return co[co.condition_concept_id.isin(_fracture_ids(t))].person_id.nunique()


def _both(t: T, a: str, b: str) -> list[int]:
    return sorted(persons(cond(t, a)) & persons(cond(t, b)))


def _mean_age_now(t: T, name: str) -> float:
    p = _person(t)
    p = p[p.person_id.isin(persons(cond(t, name)))]
    return round(sum(age_at(b, NOW) for b in p.birth_datetime) / len(p), 4)


def _events_in_year(t: T, name: str, year: int) -> int:
    b = cond(t, name)
    return int((pd.to_datetime(b.condition_start_date).dt.year == year).sum())


def _n_conditions(t: T, name: str) -> int:
    return len(persons(cond(t, name)))


def _n_drug(t: T, *names: str) -> int:
    return len(persons(drug(t, *names)))


def _celecoxib_and_bleed(t: T) -> int:
    return len(persons(drug(t, "celecoxib")) & persons(cond(t, "Gastrointestinal hemorrhage")))


def _has(t: T, pid: int, frame: pd.DataFrame) -> bool:
    return bool((frame.person_id == pid).any())
