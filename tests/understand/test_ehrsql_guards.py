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


def test_since_ago_keeps_the_time_of_day() -> None:
    import datetime as dt
    import sqlite3

    from sqlglot import exp

    from clinbridge.engine import sqlfuncs as f
    from clinbridge.engine.understand._time import TimeSpec, ago_at, resolve_relative_year

    now = dt.datetime(2100, 12, 31, 23, 59)
    assert ago_at(now, -1, "month") == dt.datetime(2100, 12, 1, 23, 59)  # Nov 31 rolls over
    assert ago_at(now, -351, "day") == dt.datetime(2100, 1, 14, 23, 59)
    assert ago_at(now, -1, "year") == dt.datetime(2099, 12, 31, 23, 59)
    spec = resolve_relative_year(
        TimeSpec("calendar", relative_year=-3, relative_unit="day", ago=True), now
    )
    assert spec.start_at == dt.datetime(2100, 12, 28, 23, 59) and spec.start == dt.date(
        2100, 12, 28
    )
    cond = f.at_or_after(exp.column("t"), spec.start_at, "sqlite").sql("sqlite")
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE e (t TEXT)")
    con.executemany(
        "INSERT INTO e VALUES (?)", [("2100-12-28 23:58:00",), ("2100-12-28 23:59:00",)]
    )
    assert con.execute(f"SELECT t FROM e WHERE {cond}").fetchall() == [("2100-12-28 23:59:00",)]


def test_written_variants_narrow_and_a_cut_hyphenated_name_abstains() -> None:
    from clinbridge.engine.plan import EventFilter
    from clinbridge.engine.understand._name_variants import hyphen_cut, narrow_variants

    q = "When did patient 7 have the mesothelial cells lab test for the first time?"
    cs = _cs("mesothelial cells", "mesothelial cell", "mesothelial cells")
    out = narrow_variants(q, _reading(q, "first", cs).plan)  # type: ignore[arg-type]
    assert [c.name for c in out.measure.concepts.concepts] == ["mesothelial cells"]  # type: ignore[union-attr]
    q2 = "Has patient 7 been diagnosed with long-term use of aspirin?"
    plan = _reading(q2, "exists").plan.model_copy(  # type: ignore[union-attr]
        update={
            "filters": (
                EventFilter(
                    stream="condition",
                    concepts=_cs(
                        "long term use of aspirin",
                        "long term use of aspirin",
                        "long-term use of aspirin",
                    ),
                ),
            )
        }
    )
    kept = narrow_variants(q2, plan).filters[0].concepts
    assert [c.name for c in kept.concepts] == ["long-term use of aspirin"]  # type: ignore[union-attr]
    # neither written: both kept (nothing says which)
    q3 = "Has patient 7 had mesothelial tests?"
    same = narrow_variants(q3, _reading(q3, "first", cs).plan)  # type: ignore[arg-type]
    assert len(same.measure.concepts.concepts) == 2  # type: ignore[union-attr]
    q4 = "What is the total volume of pre-admission output for patient 7?"
    pre = _reading(q4, "first", _cs("pre", "pre-admission")).plan
    assert hyphen_cut(q4, pre) == "pre-admission"  # type: ignore[arg-type]
    q5 = "What is the total volume of pre output for patient 7?"
    assert hyphen_cut(q5, pre) is None  # type: ignore[arg-type]


def test_a_stored_title_read_in_two_pieces_abstains() -> None:
    from clinbridge.engine.plan import EventFilter
    from clinbridge.engine.understand._name_variants import hyphen_cut

    title = "lumbar and lumbosacral fusion of the posterior column, posterior technique"
    q = f"How many instances of {title} procedures have been completed?"
    plan = _reading(q, "exists", _cs("lumbar", "spinal stenosis, lumbar region")).plan
    plan = plan.model_copy(  # type: ignore[union-attr]
        update={"filters": (EventFilter(stream="procedure", concepts=_cs(title, title)),)}
    )
    assert hyphen_cut(q, plan) == title
    q2 = f"How many lumbar tests did patients with {title} have?"
    assert hyphen_cut(q2, plan.model_copy(update={"question": q2})) is None


def test_how_many_of_a_concept_is_not_how_many_patients() -> None:
    from clinbridge.engine.plan import EventFilter
    from clinbridge.engine.understand._name_variants import counted_concept

    def plan(q: str) -> QueryPlan:
        room = _cs("operating rooms", "operating room of hospital as the place of occurrence")
        return QueryPlan(
            question=q,
            measure=Measure(of="patients"),
            aggregate=Aggregate(op="count"),
            filters=(EventFilter(stream="condition", concepts=room),),
        )

    q = "Can you count how many operating rooms there is now"
    assert counted_concept(q, plan(q)) == "operating rooms"
    q2 = "How many operating rooms patients were there?"
    assert counted_concept(q2, plan(q2)) is None
    q3 = "How many patients were diagnosed with operating rooms?"
    assert counted_concept(q3, plan(q3)) is None
