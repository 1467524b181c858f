"""The reading guards: sibling measurements with different qualifiers, and yes/no read as counts."""

from __future__ import annotations

from clinbridge.engine.plan import Aggregate, ConceptRef, ConceptSet, Measure, QueryPlan
from clinbridge.engine.understand._plan_guards import guard_reading, qualified_siblings
from clinbridge.engine.understand._reading import Reading


def _cs(label: str, *names: str) -> ConceptSet:
    return ConceptSet(
        concepts=tuple(ConceptRef(concept_id=i, name=n) for i, n in enumerate(names)), label=label
    )


def test_qualified_siblings() -> None:
    bp = _cs(
        "diastolic blood pressure",
        "arterial blood pressure diastolic",
        "non invasive blood pressure diastolic",
    )
    assert qualified_siblings(bp) == [
        "arterial blood pressure diastolic",
        "non invasive blood pressure diastolic",
    ]
    assert (
        qualified_siblings(_cs("mesothelial cells", "mesothelial cell", "mesothelial cells")) == []
    )
    assert qualified_siblings(_cs("aspirin or heparin", "aspirin", "heparin")) == []
    assert qualified_siblings(_cs("glucose", "glucose")) == []


def _reading(question: str, op: str, cs: ConceptSet | None = None) -> Reading:
    plan = QueryPlan(
        question=question,
        patient_id="7",
        measure=Measure(of="date" if cs else "events", stream="labevents", concepts=cs),
        aggregate=Aggregate(op=op),  # type: ignore[arg-type]
    )
    return Reading(question=question, plan=plan, confidence=0.9)


def test_guard_reading() -> None:
    q = "Has patient 7 got a platelet count lab test?"
    assert guard_reading(q, _reading(q, "count")).plan is None
    assert guard_reading(q, _reading(q, "exists")).plan is not None
    q2 = "How many platelet count tests did patient 7 have?"
    assert guard_reading(q2, _reading(q2, "count")).plan is not None
    bp = _cs(
        "systolic blood pressure",
        "arterial blood pressure systolic",
        "non invasive blood pressure systolic",
    )
    q3 = "When was patient 7's first systolic blood pressure?"
    out = guard_reading(q3, _reading(q3, "first", bp))
    assert out.plan is None and "several measurements" in (out.abstain_reason or "")


def test_stream_adjective_read_as_its_noun() -> None:
    from types import SimpleNamespace

    from clinbridge.engine.understand._facets import stream_nouns

    lex = SimpleNamespace(stream_words={"microbiology": "microbiologyevents"})
    assert stream_nouns("the first microbiological urine test", lex) == (
        "the first microbiology urine test"
    )
    assert stream_nouns("a microbiologic test", lex) == "a microbiology test"
    # an adjective whose noun names no table is left as it is
    assert stream_nouns("a neurological exam", lex) == "a neurological exam"


def test_cut_list_is_repaired_to_one_union() -> None:
    from clinbridge.engine.plan import EventFilter

    q = "Has heparin, aspirin, or senna been prescribed to patient 7?"
    plan = QueryPlan(
        question=q,
        patient_id="7",
        measure=Measure(of="events", stream="prescriptions", concepts=_cs("heparin", "heparin")),
        filters=(
            EventFilter(
                stream="prescriptions", concepts=_cs("aspirin or senna", "aspirin", "senna")
            ),
        ),
        aggregate=Aggregate(op="exists"),
    )
    out = guard_reading(q, Reading(question=q, plan=plan, confidence=0.9)).plan
    assert out is not None and out.filters == ()
    assert out.measure.concepts is not None
    assert [c.name for c in out.measure.concepts.concepts] == ["heparin", "aspirin", "senna"]
    # 'heparin and also aspirin or senna' without the list's comma is left as read
    q2 = "Has heparin been prescribed to patient 7 who had aspirin or senna?"
    same = guard_reading(q2, Reading(question=q2, plan=plan, confidence=0.9)).plan
    assert same is not None and len(same.filters) == 1
