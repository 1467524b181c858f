"""ConceptIndex over Eunomia and over the synthetic vocabulary; Athena vocabulary loading."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from clinbridge.adapters import describe
from clinbridge.db import Database
from clinbridge.errors import ConceptNotFoundError, LoadError
from clinbridge.vocab import ConceptIndex, ConceptMatch, load_vocabulary


@pytest.fixture(scope="module")
def eunomia_index(eunomia_duckdb_url):
    db = Database.open(eunomia_duckdb_url)
    yield ConceptIndex(db, describe(db))
    db.close()


@pytest.fixture(scope="module")
def synth_index(synth_duckdb_url):
    db = Database.open(synth_duckdb_url)
    yield ConceptIndex.for_database(db)
    db.close()


def test_by_name_is_exact_and_says_why(eunomia_index):
    [m] = eunomia_index.by_name("gastrointestinal HEMORRHAGE", domain="Condition")
    assert isinstance(m, ConceptMatch)
    assert (m.concept_id, m.how, m.standard, m.vocabulary, m.code) == (
        192671,
        "name",
        True,
        "SNOMED",
        "74474003",
    )
    assert eunomia_index.by_name("gastrointestinal hemorrhage", domain="Drug") == []


def test_by_ids_and_require(eunomia_index):
    ms = eunomia_index.by_ids([1118084, "192671"])
    assert [m.concept_id for m in ms] == [1118084, 192671] and {m.how for m in ms} == {"id"}
    with pytest.raises(ConceptNotFoundError, match="999999999"):
        eunomia_index.require_ids([192671, 999999999])


def test_codes_and_maps_to(eunomia_index):
    [icd] = eunomia_index.by_codes(["K92.2"], vocabulary="icd10cm")
    assert icd.concept_id == 35208414 and not icd.standard and icd.how == "code"
    [std] = eunomia_index.maps_to([35208414])
    assert (std.concept_id, std.how, std.via) == (192671, "maps_to", 35208414)
    assert [m.concept_id for m in eunomia_index.map_codes(["K92.2"])] == [192671]


def test_celecoxib_descendants_and_drug_use(eunomia_index, eunomia_duckdb_url):
    ms = eunomia_index.descendants([1118084])
    assert ms[0].concept_id == 1118084 and ms[0].how == "id"
    ids = [m.concept_id for m in ms]
    with Database.open(eunomia_duckdb_url) as db:
        n = db.execute(
            f"SELECT count(*) FROM drug_exposure WHERE drug_concept_id IN ({','.join(map(str, ids))})"
        ).rows[0][0]
    assert n > 0
    # acetaminophen has clinical-drug descendants in Eunomia's CONCEPT_ANCESTOR
    acet = eunomia_index.descendants([1125315])
    below = [m for m in acet if m.how == "descendant"]
    assert len(below) == 6 and all(m.via == 1125315 for m in below)
    assert any(m.name == "Acetaminophen 325 MG Oral Tablet" for m in below)


def test_ancestor_pairs_synonyms_and_chunked_ids(eunomia_index):
    # what the understanding lexicon reads through the vocabulary layer
    below = [m.concept_id for m in eunomia_index.descendants([1125315], include_self=False)]
    pairs = eunomia_index.ancestor_pairs(below)
    assert {d for _, d in pairs} == set(below)
    assert {(1125315, d) for d in below} <= set(pairs)
    [clop] = eunomia_index.by_name("clopidogrel")[:1]
    syns = eunomia_index.synonyms([clop.concept_id])
    assert syns and {c for c, _ in syns} == {clop.concept_id}
    # more ids than one IN list holds: looked up in chunks, returned in the order asked
    ids = [*range(-2500, 0), 1118084, 192671]
    assert [m.concept_id for m in eunomia_index.by_ids(ids)] == [1118084, 192671]


def test_synonyms_and_fuzzy(eunomia_index):
    [syn] = [m for m in eunomia_index.by_name("clopidogrel") if m.how in {"name", "synonym"}][:1]
    assert syn.name.lower().startswith("clopidogrel")
    fz = eunomia_index.fuzzy("gastro-intestinal haemorrhage", limit=3)
    assert fz and fz[0].concept_id == 192671 and fz[0].how == "fuzzy" and 0 < fz[0].score <= 1
    assert fz[0].matched_text


def test_synthetic_vocabulary(synth_index):
    [t2] = synth_index.by_name("T2DM")
    assert (t2.concept_id, t2.how, t2.matched_text) == (201826, "synonym", "T2DM")
    dm = synth_index.descendants([201820])
    assert {m.concept_id for m in dm} == {201820, 201826, 201254}
    cvd = {m.concept_id: m for m in synth_index.descendants([134057])}
    assert 320128 in cvd and cvd[320128].via == 134057  # two levels down: essential hypertension
    nsaid = synth_index.resolve("NSAIDs")[0]
    drugs = {m.name for m in synth_index.descendants([nsaid.concept_id])}
    assert {"celecoxib", "diclofenac", "celecoxib 200 MG Oral Capsule"} <= drugs
    assert [m.concept_id for m in synth_index.map_codes(["E11.9"], "ICD10CM")] == [201826]
    assert synth_index.resolve("haemoglobin")[0].concept_id == 3000963


def test_concept_match_is_frozen_json():
    m = ConceptMatch(concept_id=1, name="x", how="id")
    with pytest.raises(ValidationError):
        m.name = "y"  # type: ignore[misc]
    assert ConceptMatch.model_validate_json(m.model_dump_json()) == m


def test_load_athena_tsv(tmp_path):
    folder = tmp_path / "athena"
    folder.mkdir()
    header = "concept_id\tconcept_name\tdomain_id\tvocabulary_id\tconcept_class_id\tstandard_concept\tconcept_code\tvalid_start_date\tvalid_end_date\tinvalid_reason\n"
    (folder / "CONCEPT.csv").write_text(
        header
        + "201826\tType 2 diabetes mellitus\tCondition\tSNOMED\tClinical Finding\tS\t44054006\t19700101\t20991231\t\n"
        + "45576876\tType 2 diabetes mellitus without complications\tCondition\tICD10CM\t4-char billing code\t\tE11.9\t20070101\t20991231\t\n"
    )
    (folder / "CONCEPT_RELATIONSHIP.csv").write_text(
        "concept_id_1\tconcept_id_2\trelationship_id\tvalid_start_date\tvalid_end_date\tinvalid_reason\n"
        "45576876\t201826\tMaps to\t20070101\t20991231\t\n"
    )
    (folder / "CONCEPT_SYNONYM.csv").write_text(
        "concept_id\tconcept_synonym_name\tlanguage_concept_id\n201826\tDiabetes mellitus type 2\t4180186\n"
    )
    (folder / "CONCEPT_CPT4.csv").write_text("ignored\n")
    url = f"sqlite:///{tmp_path / 'v.db'}"
    seen = []
    report = load_vocabulary(folder, url, progress=lambda done, total: seen.append((done, total)))
    assert report.reconciles and report.loaded == 4 and seen and seen[-1][0] <= seen[-1][1]
    with Database.open(url) as db:
        index = ConceptIndex.for_database(db)
        assert [m.concept_id for m in index.map_codes(["E11.9"], "ICD10CM")] == [201826]
        [syn] = index.by_name("diabetes mellitus type 2")
        assert syn.how == "synonym" and syn.concept_id == 201826
        assert (
            str(
                db.execute("SELECT valid_start_date FROM concept WHERE concept_id = 201826").rows[
                    0
                ][0]
            )
            == "1970-01-01"
        )


def test_load_vocabulary_needs_concept(tmp_path):
    (tmp_path / "x").mkdir()
    with pytest.raises(LoadError, match="no CONCEPT file"):
        load_vocabulary(tmp_path / "x", f"sqlite:///{tmp_path / 'v.db'}")


@pytest.mark.postgres
def test_vocab_on_postgres(eunomia_pg_url):
    with Database.open(eunomia_pg_url) as db:
        index = ConceptIndex(db, describe(db))
        assert [m.concept_id for m in index.by_name("Gastrointestinal hemorrhage")] == [192671]
        assert len(index.descendants([1125315])) == 7
        assert [m.concept_id for m in index.map_codes(["K92.2"], "ICD10CM")] == [192671]


def test_fuzzy_does_not_match_on_one_shared_word(eunomia_index):
    assert eunomia_index.fuzzy("type 2 diabetes") == []  # Eunomia has no such concept
    [m] = eunomia_index.fuzzy("bleeding from the gut")
    assert m.concept_id == 192671 and m.matched_text == "gi bleeding"


@pytest.mark.slow  # loads the sentence-embedding model and embeds ~1,500 names
def test_embedding_search(eunomia_index):
    ms = eunomia_index.embedding("stomach bleeding", limit=3)
    assert ms[0].concept_id == 192671 and ms[0].how == "embedding" and 0.5 < ms[0].score <= 1
    assert eunomia_index.embedding("paracetamol painkiller", limit=1)[0].concept_id == 1125315
    assert eunomia_index.resolve("bleeding in the stomach", embeddings=True)[0].concept_id == 192671


def test_generic_dictionary_without_hierarchy(tmp_path):
    # a FHIR-style code table: string codes, a system column, no synonyms/ancestors/relationships
    from clinbridge.catalog import Catalog, ColumnInfo, Dictionary, TableInfo

    url = f"duckdb:///{tmp_path / 'codes.duckdb'}"
    with Database.open(url, read_only=False) as db:
        db.conn.execute("CREATE TABLE codes (code VARCHAR, display VARCHAR, system VARCHAR)")
        db.conn.execute(
            "INSERT INTO codes VALUES ('718-7', 'Hemoglobin [Mass/volume] in Blood', 'http://loinc.org'),"
            " ('8867-4', 'Heart rate', 'http://loinc.org')"
        )
    catalog = Catalog(
        source="fhir",
        adapter="fhir",
        dialect="duckdb",
        dictionaries=(
            Dictionary(
                name="codes",
                table="codes",
                code_column="code",
                label_column="display",
                system_column="system",
            ),
        ),
        tables=(TableInfo(name="codes", columns=(ColumnInfo(name="code", type="string"),)),),
    )
    with Database.open(url) as db:
        index = ConceptIndex(db, catalog, dictionary="codes")
        assert index.ancestor_pairs(["8867-4"]) == [] and index.synonyms(["8867-4"]) == []
        [hr] = index.by_name("heart rate")
        assert (hr.concept_id, hr.vocabulary, hr.standard, hr.dictionary) == (
            "8867-4",
            "http://loinc.org",
            True,
            "codes",
        )
        assert [m.concept_id for m in index.by_ids(["718-7"])] == ["718-7"]
        assert [m.concept_id for m in index.by_codes(["718-7"], vocabulary="http://loinc.org")] == [
            "718-7"
        ]
        assert [m.concept_id for m in index.descendants(["718-7"])] == ["718-7"]
        assert index.maps_to(["718-7"]) == []
        assert index.fuzzy("hemoglobin in blood")[0].concept_id == "718-7"
