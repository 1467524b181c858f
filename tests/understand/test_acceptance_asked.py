"""Acceptance rules on the kind of answer asked for and on age bounds (engine/_acceptance_asked.py,
engine/_acceptance_ages.py).

Each class of question is asked on a real database (devset2's GiBleed and Synthea27Nj builds):
a ratio answered with a count, 'which patient' answered with a number, a ranking by a summary
the question does not name, one figure per patient answered with one figure overall, 'over 65'
(older than 65, or 65 or older) and 'children' with no time; the settled phrasing of each is
still answered, with the value hand SQL (or the ambiguous answer's own alternative) gives. The
rules that read only the question and the plan are checked on plans too.
"""

from __future__ import annotations

from typing import Any

import pytest

from clinbridge.engine._acceptance_asked import check_asked
from clinbridge.engine.plan import QueryPlan

GIBLEED_NOW = "2019-07-03"
S27_NOW = "2022-10-10"


def _abstains(conn: Any, question: str, now: str, code: str | None = None) -> Any:
    a = conn.ask(question, now=now)
    assert a.decision == "abstain", (question, a.value)
    if code is not None:
        assert a.reason_code == code, (question, a.reason_code, a.reason)
    return a


def _plan(**fields: Any) -> QueryPlan:
    return QueryPlan.model_validate(fields)


def _names(question: str, plan: QueryPlan, value: Any) -> list[str]:
    return [c.name for c in check_asked(question, plan, value)]


# -- age bounds: which boundary, and when ----------------------------------------------------------


def test_over_an_age_is_ambiguous_between_two_boundaries(gibleed: Any) -> None:
    a = _abstains(gibleed, "how many patients are over 65", GIBLEED_NOW, "ambiguous")
    assert "65 or older" in a.reason and len(a.alternatives) == 2
    strict, inclusive = (alt.value for alt in a.alternatives)
    assert strict < inclusive  # the premise: someone is 65 in completed years today
    # the settled phrasing is answered with the inclusive reading's value
    b = gibleed.ask("how many patients are 65 or older", now=GIBLEED_NOW)
    assert b.accepted and b.value == inclusive


def test_an_age_group_with_no_time_is_ambiguous(s27: Any) -> None:
    a = _abstains(s27, "how many children are there", S27_NOW, "ambiguous")
    assert "today" in a.reason and a.alternatives


# -- the kind of answer asked for ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("db", "question", "now"),
    [
        ("s27", "M:F ratio of the patients", S27_NOW),
        ("gibleed", "ratio of patients given aspirin to patients given ibuprofen", GIBLEED_NOW),
    ],
)
def test_a_ratio_is_not_answered_with_a_count(
    request: pytest.FixtureRequest, db: str, question: str, now: str
) -> None:
    a = request.getfixturevalue(db).ask(question, now=now)
    if a.decision == "accept":  # read as a ratio: one count divided by another
        assert a.plan["over"] is not None and isinstance(a.value, float), a.plan
        return
    assert a.reason_code == "shape_mismatch" and "ratio" in a.reason, a.reason


@pytest.mark.parametrize("question", ["whch patient is homeless", "pt w the highest ALT?"])
def test_which_patient_is_not_answered_with_a_number(s27: Any, question: str) -> None:
    a = _abstains(s27, question, S27_NOW, "shape_mismatch")
    assert "which patient" in a.reason or "list" in a.reason, a.reason


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("which patient has the highest average ALT", "average"),
        ("which patient has the most different diagnoses", "different"),
    ],
)
def test_a_ranking_by_another_summary_abstains(s27: Any, question: str, said: str) -> None:
    a = _abstains(s27, question, S27_NOW, "question_not_covered")
    assert said in a.reason


def test_one_figure_per_patient_is_not_one_figure_overall(s27: Any) -> None:
    q = "For each patient with hypertension, how many visits are recorded?"
    a = s27.ask(q, now=S27_NOW)
    if a.decision == "accept":  # read per patient: one row each
        assert isinstance(a.value, list) and all("patient" in r for r in a.value), a.value
        return
    assert a.reason_code == "shape_mismatch" and "per patient" in a.reason, a.reason


def test_a_mistyped_last_year_is_still_ambiguous(gibleed: Any) -> None:
    a = _abstains(gibleed, "fracture pts lsat year how many", GIBLEED_NOW, "ambiguous")
    assert "calendar" in a.reason


# -- the same rules on plans -------------------------------------------------------------------------

_EXISTS = {
    "patient_id": "26",
    "measure": {"of": "events", "stream": "condition"},
    "aggregate": {"op": "exists"},
}
_DATE = {
    "patient_id": "7",
    "measure": {"of": "date", "stream": "procedure", "concepts": {"concepts": [{"name": "x"}]}},
    "aggregate": {"op": "first"},
}
_COUNT = {"measure": {"of": "patients"}, "aggregate": {"op": "count"}}


def test_kind_rules_on_plans() -> None:
    exists = _plan(**_EXISTS)
    assert _names("pt 26 problem list - all dx ever", exists, True) == ["yesno_not_asked"]
    assert _names("who made pt 26's pacemaker", exists, True) == ["yesno_not_asked"]
    assert _names("has pt 26 ever had a diagnosis?", exists, True) == []
    assert _names("pt 26 any dx on the whole record?", exists, True) == []
    date = _plan(**_DATE)
    assert _names("in which calendar year was pt 7's first x", date, "1984-11-01") == ["year_asked"]
    assert _names("when was pt 7's first x", date, "1984-11-01") == []
    count = _plan(**_COUNT)
    assert _names("what was patient 7's age", _plan(**{**_COUNT, "patient_id": "7"}), 3) == []
    assert _names("which pts are homeless", count, 3) == ["identity_asked"]
    assert _names("which pts are homeless - how many", count, 3) == []


def test_numbers_are_accounted_whatever_reader_read_them() -> None:
    count = _plan(**_COUNT)
    assert _names("patients with a potassium below 3.5 mmol/L", count, 10) == ["numbers_used"]
    # a code names a concept the plan holds by its own id; a year bounds a window
    assert _names("distinct persons with SNOMED 40701008 (Echocardiography)", count, 3) == []
    assert _names("count persons whose gender_concept_id = 8507", count, 3) == []
    # an amount restated in another unit, or a conversion factor, is the unit's, not the plan's
    hgb = _plan(
        filters=[
            {
                "kind": "event",
                "stream": "measurement",
                "concepts": {"concepts": [{"name": "Hemoglobin"}]},
                "value": {"op": "<", "value": 125, "unit": "g/l"},
            }
        ],
        **_COUNT,
    )
    assert (
        _names("patients with a hemoglobin below 125 g/L (that is, under 12.5 g/dL)", hgb, 3) == []
    )
    assert (
        _names("patients with a hemoglobin below 125 g/L (stored in g/dL: times 10)", hgb, 3) == []
    )
    assert _names("patients with a hemoglobin below 125 g/L and a BMI over 30", hgb, 3) == [
        "numbers_used"
    ]


def test_values_per_patient_are_not_record_counts() -> None:
    per_patient = _plan(
        measure={
            "of": "events_per_patient",
            "stream": "measurement",
            "concepts": {"concepts": [{"name": "Chloride"}]},
        },
        aggregate={"op": "mean"},
    )
    assert _names("mean chloride per pt", per_patient, 6.5) == ["per_patient_asked"]
    assert _names("mean number of chloride tests per pt", per_patient, 6.5) == []
    visits = _plan(measure={"of": "events_per_patient"}, aggregate={"op": "mean"})
    assert _names("avg encounters per pt", visits, 2.9) == []
    records = _plan(measure={"of": "encounters"}, aggregate={"op": "count"})
    assert _names("count of visits by patient", records, 40) == ["per_patient_asked"]
    assert _names("total visits by patients with diabetes", records, 40) == []


# -- amounts, windows and names --------------------------------------------------------------------

FHIR_NOW = "2023-03-22"


def test_a_total_amount_of_zero_is_not_stored(gibleed: Any) -> None:
    q = "sum of units (quantity) for procedure Intravenous blood transfusion of packed cells"
    a = _abstains(gibleed, q, GIBLEED_NOW, "not_stored")
    assert "quantity" in a.reason


def test_a_window_that_picks_patients_does_not_bound_their_encounters(fhir2: Any) -> None:
    a = _abstains(
        fhir2, "avg encounters per patient seen in 2021", FHIR_NOW, "question_not_covered"
    )
    assert "window" in a.reason
    assert fhir2.ask("avg # of encounters per pt", now=FHIR_NOW).accepted  # no window: answered


def test_how_old_at_an_event_is_ambiguous(gibleed: Any) -> None:
    q = "youngest patient ever diagnosed with atrial fibrillation - how old"
    a = _abstains(gibleed, q, GIBLEED_NOW, "ambiguous")
    assert len(a.alternatives) == 2


def test_a_patient_count_of_a_name_two_concepts_answer_to(fhir2: Any) -> None:
    pid = "79a66c97-6131-3213-f3c9-4606946ab056"
    gold = fhir2.db.execute(
        "SELECT count(*) FROM fhir_procedure WHERE patient_id = ? AND code IN ('70536003', "
        "'711446003')",
        [pid],
    ).rows[0][0]
    a = _abstains(
        fhir2,
        f"How many kidney transplant procedures did patient {pid} have?",
        FHIR_NOW,
        "ambiguous",
    )
    assert "Transplantation of kidney regime" in a.reason
    assert sorted(alt.value for alt in a.alternatives)[-1] == gold


def test_a_reading_left_open_is_not_refuted(fhir2: Any) -> None:
    # 'pregnancies' as procedure records is itself ambiguous (other procedures of the record
    # name pregnancy too); the condition reading alone does not become the answer
    q = "how many pregnancies has a4a401d1-a46a-eb4a-8a38-760d5d79d6ec had"
    a = _abstains(fhir2, q, FHIR_NOW, "ambiguous")
    assert len(a.alternatives) >= 2
