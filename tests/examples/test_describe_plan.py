"""Template back-translation: every plan of the engine's corpus reads as a question naming its parts."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinbridge.engine.examples import describe_plan
from clinbridge.engine.plan import QueryPlan

PLANS = sorted((Path(__file__).resolve().parents[1] / "engine" / "plans").glob("*.json"))


@pytest.mark.parametrize("path", PLANS, ids=lambda p: p.stem)
def test_every_corpus_plan_reads_as_a_question(path):
    plan = QueryPlan.from_json(path.read_bytes())
    text = describe_plan(plan)
    assert text[0].isupper() and text[-1] in "?." and "  " not in text
    if plan.patient_id:
        assert f"patient {plan.patient_id}" in text
    for f in plan.filters:
        if getattr(f, "kind", None) == "sex":
            assert f.sex in text


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("count_women_gi.json", "How many female patients had GI bleed (diagnosis)?"),
        (
            "count_gi_30d_after_celecoxib.json",
            "How many patients had GI bleed (diagnosis) within 30 days after the first celecoxib?",
        ),
        (
            "mean_inpatient_los.json",
            "What is the mean length of stay of inpatient visits of patients?",
        ),
        (
            "patient_last_visit_conditions.json",
            "Which diagnoses did patient 123 have during the last inpatient visit?",
        ),
        (
            "proportion_female_gi.json",
            "What proportion of patients with GI bleed (diagnosis) are female?",
        ),
    ],
)
def test_phrasing(name, expected):
    plan = QueryPlan.from_json((PLANS[0].parent / name).read_bytes())

    def label(cs):
        return (
            "GI bleed"
            if "192671" in cs.describe() or "hemorrhage" in cs.describe().lower()
            else None
        )

    assert describe_plan(plan, label=label) == expected
