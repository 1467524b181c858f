"""The example bank: storage, edits, retrieval, and mutation augmentation on a real database."""

from __future__ import annotations

import pytest

from clinbridge.engine.examples import (
    ExampleBank,
    augment,
    default_bank_path,
    describe_plan,
    mutations,
)
from clinbridge.engine.plan import (
    ConceptRef,
    ConceptSet,
    EncounterFilter,
    EventFilter,
    QueryPlan,
    RelativeWindow,
    SexFilter,
    ValueFilter,
)
from clinbridge.errors import LoadError


def cs(name: str) -> ConceptSet:
    return ConceptSet(concepts=(ConceptRef(name=name),))


WOMEN_CELECOXIB = QueryPlan(
    filters=(SexFilter(sex="female"), EventFilter(stream="drug", concepts=cs("celecoxib")))
)
HBA1C_OVER_7 = QueryPlan(
    filters=(
        EventFilter(
            stream="measurement",
            concepts=cs("Hemoglobin A1c/Hemoglobin.total in Blood"),
            value=ValueFilter(op=">", value=7.0),
        ),
    )
)


def test_store_reload_idempotent_and_edit(tmp_path):
    path = tmp_path / "bank.jsonl"
    bank = ExampleBank(path, embeddings="off")
    a = bank.approve("How many women took celecoxib?", WOMEN_CELECOXIB, source="tiny")
    assert (
        bank.approve("how many women took celecoxib", WOMEN_CELECOXIB).id == a.id
    )  # same pair once
    assert a.plan is not None and a.plan.question == "How many women took celecoxib?"
    b = bank.approve("How many patients have HbA1c above 7%?", HBA1C_OVER_7)
    assert len(bank) == 2 and len(path.read_text().splitlines()) == 2
    fixed_plan = HBA1C_OVER_7.model_copy(
        update={
            "filters": (
                EventFilter(
                    stream="measurement",
                    concepts=cs("Hemoglobin A1c/Hemoglobin.total in Blood"),
                    value=ValueFilter(op=">=", value=7.0),
                ),
            )
        }
    )
    c = bank.edit("How many patients have HbA1c above 7%?", fixed_plan)
    assert c.origin == "edited" and c.replaces == b.id and c.source is None
    again = ExampleBank(path, embeddings="off")
    assert {e.id for e in again} == {a.id, c.id}
    assert again.find("HOW MANY PATIENTS HAVE HBA1C ABOVE 7%") == c
    d = again.edit("How many women took celecoxib?", sql="SELECT 1", replaces=a.id)
    assert d.replaces == a.id and d.source == "tiny" and a.id not in {e.id for e in again}
    with pytest.raises(KeyError):
        again.edit("x", sql="SELECT 1", replaces="nope")
    with pytest.raises(ValueError, match="plan or SQL"):
        again.approve("x")


def test_bad_file_names_file_record_and_field(tmp_path):
    path = tmp_path / "bank.jsonl"
    path.write_text('{"id": "a", "question": "q", "sql": "SELECT 1"}\n{"id": "b", "question": 3}\n')
    with pytest.raises(LoadError) as err:
        ExampleBank(path)
    assert err.value.file == str(path) and err.value.record == 2 and err.value.field == "question"
    path.write_text("not json\n")
    with pytest.raises(LoadError, match="not JSON"):
        ExampleBank(path)


def test_default_path_from_settings_and_environment(tmp_path):
    from clinbridge.settings import Settings

    env = Settings.from_env({"CLINBRIDGE_EXAMPLES": str(tmp_path / "x.jsonl")})
    assert default_bank_path(env) == tmp_path / "x.jsonl"
    assert default_bank_path(Settings()).name == "examples.jsonl"


def test_lexical_search(tmp_path):
    bank = ExampleBank(tmp_path / "b.jsonl", embeddings="off")
    bank.approve("How many women took celecoxib?", WOMEN_CELECOXIB)
    bank.approve("How many patients have HbA1c above 7%?", HBA1C_OVER_7)
    hits = bank.search("how many men took celecoxib", k=2)
    assert hits[0].example.question == "How many women took celecoxib?"
    assert hits[0].score > hits[1].score
    assert ExampleBank(tmp_path / "empty.jsonl").search("anything") == []


@pytest.mark.slow
def test_semantic_search(tmp_path):
    bank = ExampleBank(tmp_path / "b.jsonl", embeddings="on")
    bank.approve("How many patients had a gastrointestinal hemorrhage?", sql="SELECT 1")
    bank.approve("What is the average glycated hemoglobin?", sql="SELECT 2")
    bank.approve("Which drugs did patient 3 receive?", sql="SELECT 3")
    hits = bank.search("number of people with a GI bleed", k=3)
    assert hits[0].example.sql == "SELECT 1"
    assert bank.search("mean HbA1c level", k=1)[0].example.sql == "SELECT 2"


def _diff(a: QueryPlan, b: QueryPlan) -> int:
    """How many leaves differ between two plans."""

    def leaves(x, p=()):
        if isinstance(x, dict):
            for k, v in x.items():
                yield from leaves(v, (*p, k))
        elif isinstance(x, list):
            for i, v in enumerate(x):
                yield from leaves(v, (*p, i))
        else:
            yield p, x

    da, db_ = dict(leaves(a.to_dict())), dict(leaves(b.to_dict()))
    return sum(1 for k in set(da) | set(db_) if da.get(k) != db_.get(k))


def test_mutations_make_one_atomic_change():
    anchor = {
        "kind": "event",
        "stream": "drug",
        "concepts": cs("celecoxib").model_dump(),
        "which": "first",
    }
    plan = QueryPlan(
        filters=(
            SexFilter(sex="female"),
            EventFilter(
                stream="condition",
                concepts=cs("Gastrointestinal hemorrhage"),
                window=RelativeWindow.model_validate(
                    {"anchor": anchor, "start_days": 0, "end_days": 30}
                ),
            ),
            EventFilter(
                stream="measurement",
                concepts=cs("Hemoglobin"),
                value=ValueFilter(op=">=", value=12),
            ),
        )
    )
    ms = mutations(plan)
    kinds = {m.kind for m in ms}
    assert kinds == {"operator", "threshold", "sex", "window"}
    changes = {m.change for m in ms}
    assert {
        "sex female → male",
        "operator >= → <=",
        "threshold 12.0 → 15.0",
        "threshold 12.0 → 9.6",
        "window end 30 → 60 days",
        "window end 30 → 15 days",
    } <= changes
    for m in ms:
        assert _diff(plan, m.plan) == 1, m.change


def test_encounter_type_mutation(tiny):
    plan = QueryPlan(filters=(EncounterFilter(type="inpatient"),))
    ms = mutations(plan, catalog=tiny.catalog)
    assert {m.change for m in ms} == {
        "encounter type inpatient → emergency",
        "encounter type inpatient → outpatient",
    }


def test_augment_keeps_only_variants_that_run_validate_and_return_something(tiny, tmp_path):
    bank = ExampleBank(tmp_path / "bank.jsonl", embeddings="off")
    parent = bank.approve("How many women took celecoxib?", WOMEN_CELECOXIB, source="tiny")
    kept = augment(parent, catalog=tiny.catalog, db=tiny.db, bank=bank)
    changes = {k.change for k in kept}
    # men who took celecoxib: patient 1; women who took diclofenac: patient 3;
    # women who took aspirin: nobody → dropped (empty result).
    assert changes == {"sex female → male", "concept celecoxib → diclofenac"}
    for k in kept:
        assert k.origin == "mutation" and k.parent == parent.id and k.source == "tiny"
        assert k.sql and k.plan is not None and k.plan.question == k.question
    questions = {k.change: k.question for k in kept}
    assert (
        questions["concept celecoxib → diclofenac"]
        == "How many female patients had diclofenac (drug exposure)?"
    )
    assert len(ExampleBank(tmp_path / "bank.jsonl")) == 3


def test_augment_value_thresholds_and_concepts(tiny):
    from clinbridge.engine.examples import Example

    parent = Example(id="p", question="How many patients have HbA1c above 7%?", plan=HBA1C_OVER_7)
    kept = augment(
        parent,
        catalog=tiny.catalog,
        db=tiny.db,
        back_translate=lambda p: "LLM: " + describe_plan(p),
    )
    changes = {k.change for k in kept}
    assert {"operator > → <", "threshold 7.0 → 8.75", "threshold 7.0 → 5.6"} <= changes
    assert any(c.startswith("concept ") for c in changes)
    assert all(k.question.startswith("LLM: ") for k in kept)
