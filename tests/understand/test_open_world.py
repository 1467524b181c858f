"""Open-world reading (issue 8): filler never blocks, shorthand as data, numbers bind to the
nearest plausible measure, identifiers in the question, classes and exclusions, ambiguity → the
alternatives, the answer type asked for, the example bank — on real Eunomia, Synthea27Nj and
FHIR databases. The parser dev questions (``tests/data/devset_parser``) run end to end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from .devset_eval import evaluate, format_table

DEVSET = Path(__file__).resolve().parents[1] / "data" / "devset_parser" / "devset_parser.jsonl"


def _rows(db: str) -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in DEVSET.read_text().splitlines() if x.strip()]
    return [r for r in rows if r["db"] == db]


# eunomia: 35 of 39 (0.897). Its one true zero count ("patients with ulcerative colitis under 30",
# gold 0) abstains by design since engine/_result_sanity.py: a count of 0 is refused as a likely
# misreading (on devset4 eight accepted zeros were all wrong). The floor keeps every other answer.
@pytest.mark.parametrize(("db", "floor"), [("eunomia", 0.89), ("s27", 0.9), ("fhir", 0.85)])
def test_parser_devset(
    db: str, floor: float, eunomia_conn: Any, s27_conn: Any, fhir_conn: Any
) -> None:
    conn = {"eunomia": eunomia_conn, "s27": s27_conn, "fhir": fhir_conn}[db]
    score = evaluate(conn, _rows(db))
    table = score.table()
    report = format_table(table, f"{db} parser dev questions")
    assert table["ALL"]["accuracy"] >= floor, report
    wrong = [o.id for o in score.outcomes if o.wrong and o.split == "dev"]
    assert len(wrong) <= 1, f"wrong answers accepted {wrong}\n{report}"


def test_devset_parser_file_is_well_formed() -> None:
    rows = [json.loads(x) for x in DEVSET.read_text().splitlines() if x.strip()]
    assert len(rows) >= 100 and len({r["id"] for r in rows}) == len(rows)
    assert {r["db"] for r in rows} == {"eunomia", "s27", "fhir"}
    assert {r["voice"] for r in rows} == {"bedside", "epidemiologist", "data_manager"}
    assert sum(r["split"] == "sealed" for r in rows) >= len(rows) // 3 - 1
    for r in rows:
        assert (r["gold"] is None) == (not r["answerable"]) or r["answerable"], r["id"]


# -- filler and shorthand ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "how many pts have ever gotten a dx of GI bleed?",
        "Number of patients who at any point were diagnosed with a GI bleed",
        "How many patients have had some type of gastrointestinal hemorrhage?",
        "Count of patients with a GI bleed (a given patient counted once)",
        "how many ppl hv had a gi bleed",
    ],
)
def test_filler_and_shorthand_do_not_block(eunomia_conn: Any, question: str) -> None:
    a = eunomia_conn.ask(question)
    assert a.decision == "accept" and a.value == 479, (a.reason, a.value)


def test_content_words_still_block(eunomia_conn: Any) -> None:
    a = eunomia_conn.ask("How many patients had a hereditary GI bleed?")
    assert a.decision == "abstain"
    assert "hereditary" in (a.reason or "")


def test_shorthand_is_data_with_a_source() -> None:
    from clinbridge.engine.understand._shorthand import concept_shorthand, expand_words

    assert len(concept_shorthand()) >= 200
    assert (
        expand_words("65 y/o f w/ htn, hx of mi") == "65 years old female with htn, history of mi"
    )
    data = Path(__file__).resolve().parents[2] / "src" / "clinbridge" / "engine" / "understand"
    assert "Licence" in (data / "data" / "SOURCE.md").read_text()


# -- numbers, units, identifiers -----------------------------------------------------------------


def test_threshold_binds_to_the_measure_not_to_age(s27_conn: Any) -> None:
    r = s27_conn.readings("How many patients had an LDL of 130 or more?")[0]
    assert r.plan is not None
    kinds = [f.kind for f in r.plan.filters]
    assert kinds == ["event"], kinds
    assert r.plan.filters[0].value.op == ">=" and r.plan.filters[0].value.value == 130
    a = s27_conn.ask("How many pts had an SBP 140+")
    assert a.decision == "accept"
    plan = a.plan or {}
    assert plan["filters"][0]["value"]["value"] == 140


def test_implausible_threshold_abstains(s27_conn: Any) -> None:
    a = s27_conn.ask("How many patients had a heart rate of 4000 or more?")
    assert a.decision == "abstain" and "plausible" in (a.reason or "")


def test_age_after_a_person_word(s27_conn: Any) -> None:
    r = s27_conn.readings("How many patients 50+ have essential hypertension?")[0]
    assert r.plan is not None
    assert any(f.kind == "age" and f.value == 50 for f in r.plan.filters)


def test_unit_named_alone_is_the_answer_unit(s27_conn: Any) -> None:
    r = s27_conn.readings("Mean hemoglobin for women (g/dL)")[0]
    assert r.plan is not None and r.plan.measure.unit == "g/dl"


def test_fhir_uuid_is_the_patient(fhir_conn: Any) -> None:
    a = fhir_conn.ask("What was the last SBP of patient fbeb6608-4810-453b-a3a6-b34f321410b1?")
    assert a.decision == "accept", a.reason
    assert (a.plan or {}).get("patient_id") == "fbeb6608-4810-453b-a3a6-b34f321410b1"


# -- classes, exclusions, ingredients ------------------------------------------------------------


def test_drug_class_and_exclusion(
    eunomia_conn: Any, eunomia_duckdb_url: str, understand_cache: Path
) -> None:
    # by default a class the vocabulary does not hold (GiBleed has no ATC) abstains
    assert eunomia_conn.ask("How many patients took any statin?").decision == "abstain"
    import clinbridge
    from clinbridge.settings import Settings

    settings = Settings(
        embeddings="off",
        examples=str(understand_cache / "no-examples.jsonl"),
        drug_classes="builtin",
    )
    with clinbridge.connect(eunomia_duckdb_url, settings=settings, cache_dir=understand_cache) as c:
        every = c.ask("How many patients took any statin?")
        but = c.ask("How many patients took any statin except simvastatin?")
        assert every.decision == but.decision == "accept"
        assert 0 < but.value < every.value
        r = c.readings("How many patients took any statin except simvastatin?")[0]
        assert r.plan is not None and r.plan.filters[0].concepts.exclude
        assert any(g.how == "drug_class" for g in r.groundings)


def test_products_containing_an_ingredient(s27_conn: Any) -> None:
    a = s27_conn.ask("How many patients received any product containing acetaminophen?")
    assert a.decision == "accept" and a.value == 21


# -- what the IR supports ------------------------------------------------------------------------


def test_deaths_where_the_source_has_them(s27_conn: Any, eunomia_conn: Any) -> None:
    assert s27_conn.ask("How many patients have died?").value == 3
    a = eunomia_conn.ask("How many patients died?")
    assert a.decision == "abstain" and "no deaths" in (a.reason or "")


def test_age_at_an_event_and_first_occurrence(eunomia_conn: Any) -> None:
    a = eunomia_conn.ask("How old was patient 2 when first diagnosed with acute bronchitis?")
    assert a.decision == "accept" and a.value == 11
    r = eunomia_conn.readings("How many patients had their first GI bleed after 2010?")[0]
    assert r.plan is not None and r.plan.filters[0].first_only


def test_encounter_typed_cohort_filter(s27_conn: Any) -> None:
    r = s27_conn.readings("How many patients had a heart rate measured in the ER?")[0]
    assert r.plan is not None and r.plan.filters[0].encounter_type == "emergency"


def test_value_not_stored_is_never_answered_with_a_date(eunomia_conn: Any) -> None:
    a = eunomia_conn.ask("What was patient 3's last oral temperature?")
    assert a.decision == "abstain" and a.value is None
    assert "no numeric values" in (a.reason or "")


# -- ambiguity -------------------------------------------------------------------------------------


def test_ambiguity_returns_the_alternatives(s27_conn: Any) -> None:
    a = s27_conn.ask("What is patient 7's most recent blood pressure?")
    assert a.decision == "abstain" and a.reason_code == "ambiguous"
    assert len(a.alternatives) == 2
    names = " ".join(x.description for x in a.alternatives).lower()
    assert "systolic" in names and "diastolic" in names
    assert all(x.plan and x.value is not None for x in a.alternatives)
    data = json.loads(a.to_json())
    assert {"description", "plan", "value"} <= set(data["alternatives"][0])


def test_ambiguity_in_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from clinbridge.cli.ask import ask_cmd

    root = Path(__file__).resolve().parents[1] / "data" / "fhir"
    url = f"duckdb:///{tmp_path / 'f.duckdb'}"
    from clinbridge.adapters.fhir.loader import load_fhir

    load_fhir([root / "bundles"], url)
    monkeypatch.setenv("CLINBRIDGE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CLINBRIDGE_EMBEDDINGS", "off")
    monkeypatch.setenv("CLINBRIDGE_EXAMPLES", str(tmp_path / "none.jsonl"))
    q = "What's the average blood pressure?"
    plain = CliRunner().invoke(ask_cmd, [q, "--db", url])
    assert plain.exit_code == 2, plain.output  # abstained (the CLI convention: 2)
    assert "reading 1:" in plain.output and "reading 2:" in plain.output
    js = CliRunner().invoke(ask_cmd, [q, "--db", url, "--json"])
    data = json.loads(js.output)
    assert data["reason_code"] == "ambiguous" and len(data["alternatives"]) == 2


def test_one_surviving_reading_is_answered(s27_conn: Any) -> None:
    a = s27_conn.ask("What was the highest systolic blood pressure?")
    assert a.decision == "accept" and not a.alternatives


# -- the example bank ------------------------------------------------------------------------------


def test_example_bank_predicates_are_reused(eunomia_duckdb_url: str, tmp_path: Path) -> None:
    import clinbridge
    from clinbridge.engine.examples import ExampleBank
    from clinbridge.settings import Settings

    bank_path = tmp_path / "ex.jsonl"
    settings = Settings(embeddings="off", examples=str(bank_path))
    with clinbridge.connect(eunomia_duckdb_url, settings=settings, cache_dir=tmp_path) as conn:
        r = conn.readings("How many patients had a GI bleed?")[0]
        assert r.plan is not None
        narrow = r.plan.filters[0].concepts.model_copy(update={"include_descendants": False})
        plan = r.plan.model_copy(
            update={"filters": (r.plan.filters[0].model_copy(update={"concepts": narrow}),)}
        )
        ExampleBank(bank_path, embeddings="off").approve(
            "How many patients had a GI bleed?", plan, source=conn.catalog.source
        )
        conn._bank = False  # re-read the bank
        same = conn.ask("how many patients had a gi bleed")
        assert same.provenance.understanding == "parser+examples"
        assert "same question" in same.details["examples"][0]
        other = conn.ask("How many women had a GI bleed?")
        assert other.decision == "accept"
        assert "as approved" in other.details["examples"][0]
        assert other.plan["filters"][-1]["concepts"]["include_descendants"] is False
