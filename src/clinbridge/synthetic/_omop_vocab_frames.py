"""The vocabulary tables of the synthetic OMOP CDM (see :mod:`.omop`), built from ``_omop_vocab``:
concept, concept_ancestor, concept_synonym, concept_relationship, vocabulary and cdm_source."""

from __future__ import annotations

import pandas as pd

from clinbridge.synthetic import _omop_vocab as V

__all__ = ["vocabulary_frames"]


def vocabulary_frames(patients: int) -> dict[str, pd.DataFrame]:
    """The vocabulary tables, in write order; ``patients`` is named in ``cdm_source``."""
    frames: dict[str, pd.DataFrame] = {}
    concepts: list[V.Concept] = list(V.BASE)
    for lab in V.LABS.values():
        concepts.append(
            (lab.concept_id, lab.name, "Measurement", "LOINC", "Lab Test", "S", lab.loinc)
        )
    for cid, name, code in V.CONDITIONS.values():
        concepts.append((cid, name, "Condition", "SNOMED", "Clinical Finding", "S", code))
    for cid, name, code in V.ICD10.values():
        concepts.append((cid, name, "Condition", "ICD10CM", "4-char billing code", None, code))
    for d in V.DRUGS.values():
        concepts.append(
            (d.ingredient_id, d.ingredient, "Drug", "RxNorm", "Ingredient", "S", d.rxnorm)
        )
        concepts.append(
            (
                d.product_id,
                d.product,
                "Drug",
                "CB Synthetic",
                "Clinical Drug",
                "S",
                f"CB-{d.key}",
            )
        )
    concepts.append(
        (V.NSAID_CLASS[0], V.NSAID_CLASS[1], "Drug", "ATC", "ATC 3rd", "C", V.NSAID_CLASS[2])
    )
    concepts.append(
        (
            V.NOTE_CLASS[0],
            V.NOTE_CLASS[1],
            "Meas Value",
            "CB Synthetic",
            "Note class",
            "S",
            V.NOTE_CLASS[2],
        )
    )
    c = pd.DataFrame(
        concepts,
        columns=[
            "concept_id",
            "concept_name",
            "domain_id",
            "vocabulary_id",
            "concept_class_id",
            "standard_concept",
            "concept_code",
        ],
    )
    c = c.drop_duplicates("concept_id")
    c["valid_start_date"] = pd.Timestamp("1970-01-01")
    c["valid_end_date"] = pd.Timestamp("2099-12-31")
    c["invalid_reason"] = None
    frames["concept"] = c.reset_index(drop=True)

    # ancestors: self-rows for standard/classification concepts + hierarchy chains
    edges: list[tuple[int, int]] = [
        (V.CONDITIONS[a][0], V.CONDITIONS[b][0]) for a, b in V.CONDITION_PARENTS
    ]
    for d in V.DRUGS.values():
        edges.append((d.ingredient_id, d.product_id))
    for key in V.NSAIDS:
        edges.append((V.NSAID_CLASS[0], V.DRUGS[key].ingredient_id))
    anc = _closure(edges)
    standard = c.loc[c["standard_concept"].notna(), "concept_id"].tolist()
    rows = [(x, x, 0, 0) for x in standard] + [(a, b, lv, lv) for (a, b), lv in anc.items()]
    frames["concept_ancestor"] = pd.DataFrame(
        rows,
        columns=[
            "ancestor_concept_id",
            "descendant_concept_id",
            "min_levels_of_separation",
            "max_levels_of_separation",
        ],
    )
    frames["concept_synonym"] = pd.DataFrame(
        {
            "concept_id": [s[0] for s in V.SYNONYMS],
            "concept_synonym_name": [s[1] for s in V.SYNONYMS],
            "language_concept_id": 4180186,
        }
    )
    rel: list[tuple[int, int, str]] = []
    for key, (src, _, _) in V.ICD10.items():
        target = V.CONDITIONS[key][0]
        rel += [(src, target, "Maps to"), (target, src, "Mapped from")]
    for a, b in edges:
        rel += [(b, a, "Is a"), (a, b, "Subsumes")]
    r = pd.DataFrame(rel, columns=["concept_id_1", "concept_id_2", "relationship_id"])
    r["valid_start_date"] = pd.Timestamp("1970-01-01")
    r["valid_end_date"] = pd.Timestamp("2099-12-31")
    r["invalid_reason"] = None
    frames["concept_relationship"] = r
    frames["vocabulary"] = pd.DataFrame(
        {
            "vocabulary_id": [x[0] for x in V.VOCABULARIES],
            "vocabulary_name": [x[1] for x in V.VOCABULARIES],
            "vocabulary_reference": "clinbridge.synthetic.omop",
            "vocabulary_version": [
                V.VOCABULARY_VERSION if x[0] == "None" else "" for x in V.VOCABULARIES
            ],
            "vocabulary_concept_id": 0,
        }
    )
    frames["cdm_source"] = pd.DataFrame(
        {
            "cdm_source_name": ["clinbridge synthetic OMOP CDM"],
            "cdm_source_abbreviation": ["cb-synth"],
            "cdm_holder": ["clinbridge"],
            "source_description": [
                f"Synthetic patients (n={patients}) from clinbridge.synthetic.omop"
            ],
            "source_release_date": [pd.Timestamp("2025-01-01")],
            "cdm_release_date": [pd.Timestamp("2025-01-01")],
            "cdm_version": ["5.4"],
            "cdm_version_concept_id": [756265],
            "vocabulary_version": [V.VOCABULARY_VERSION],
        }
    )
    return frames


def _closure(edges: list[tuple[int, int]]) -> dict[tuple[int, int], int]:
    """Transitive closure of parent→child edges with the (minimum) number of levels."""
    children: dict[int, list[int]] = {}
    for a, b in edges:
        children.setdefault(a, []).append(b)
    out: dict[tuple[int, int], int] = {}
    for root in list(children):
        frontier, level = [root], 0
        while frontier:
            level += 1
            nxt = []
            for node in frontier:
                for child in children.get(node, []):
                    if (root, child) not in out:
                        out[(root, child)] = level
                        nxt.append(child)
            frontier = nxt
    return out
