"""Discharge notes (MIMIC-IV-Note ``discharge`` layout) consistent with the generated tables.

Each admission's note lists that admission's diagnoses (``diagnoses_icd`` titles) and its first
lab results (the very ``labevents`` values and units), and adds what only a note records: a
review of systems with reported and denied symptoms, drawn from a generator seeded by the seed
and the admission, so the tables are the same with or without notes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["DISCHARGE_DDL", "discharge_notes"]

DISCHARGE_DDL = (
    'CREATE TABLE IF NOT EXISTS "discharge" (note_id VARCHAR(32), subject_id INTEGER, '
    "hadm_id INTEGER, note_type VARCHAR(8), note_seq INTEGER, charttime VARCHAR(24), "
    "storetime VARCHAR(24), text TEXT)"
)
_SYMPTOMS = (
    "chest pain",
    "shortness of breath",
    "cough",
    "fever",
    "nausea",
    "abdominal pain",
    "dizziness",
    "palpitations",
    "headache",
    "leg swelling",
)
_LABS_SHOWN = 4


def _ros(seed: int, hadm: int) -> str:
    r = np.random.default_rng([seed, hadm])
    picks = r.choice(len(_SYMPTOMS), size=3, replace=False)
    return "".join(
        f"{'Reports' if r.random() < 0.35 else 'Denies'} {_SYMPTOMS[k]}.\n" for k in picks
    )


def discharge_notes(frames: dict[str, pd.DataFrame], seed: int) -> pd.DataFrame:
    """One discharge note per admission, built from the frames of ``build_frames``."""
    adm = frames["admissions"]
    titles = dict(
        zip(
            frames["d_icd_diagnoses"]["icd_code"],
            frames["d_icd_diagnoses"]["long_title"],
            strict=True,
        )
    )
    dx = frames["diagnoses_icd"].groupby("hadm_id")["icd_code"].apply(list).to_dict()
    labels = dict(zip(frames["d_labitems"]["itemid"], frames["d_labitems"]["label"], strict=True))
    labs = frames["labevents"].sort_values(["hadm_id", "charttime", "row_id"], kind="stable")
    first = labs.groupby("hadm_id").head(_LABS_SHOWN).groupby("hadm_id")
    lab_lines = {
        h: "".join(
            f"{labels[i]}: {v:g} {u}\n"
            for i, v, u in zip(g["itemid"], g["valuenum"], g["valueuom"], strict=True)
        )
        for h, g in first
    }
    rows = []
    for k, (sid, hadm, admit, disch) in enumerate(
        zip(adm["subject_id"], adm["hadm_id"], adm["admittime"], adm["dischtime"], strict=True)
    ):
        hadm = int(hadm)
        when = disch if isinstance(disch, str) else admit
        text = (
            f"Discharge summary\nAdmission date: {str(admit)[:10]}\n\n# Diagnoses\n"
            + "".join(f"- {titles[c]}\n" for c in dx.get(hadm, []))
            + "\n# Laboratory results\n"
            + lab_lines.get(hadm, "none\n")
            + "\n# Review of systems\n"
            + _ros(seed, hadm)
        )
        rows.append((f"{sid}-DS-{k + 1}", int(sid), hadm, "DS", 1, when, when, text))
    cols = [
        "note_id",
        "subject_id",
        "hadm_id",
        "note_type",
        "note_seq",
        "charttime",
        "storetime",
        "text",
    ]
    return pd.DataFrame(rows, columns=cols)
