"""Notes as evidence for questions (EHRNavigator's note module, with scope made first-class).

The catalog's note streams (FHIR DocumentReference, MIMIC NOTEEVENTS, OMOP NOTE) are read as
one stream of :class:`Note` s (:mod:`._source`), cut into sentence-aware chunks of ~256 tokens
with 32 of overlap (:mod:`._chunk`), embedded on demand into a per-database index persisted in
the cache folder (:mod:`._index`), and used to answer patient-level value and yes/no questions
the tables cannot (:mod:`._answer`), quoting and citing the chunks, inside the question's
encounter and time window — or abstaining, naming what was missing.
"""

from __future__ import annotations

from clinbridge.engine.notes._answer import answer_from_notes
from clinbridge.engine.notes._chunk import Chunk, chunk_note
from clinbridge.engine.notes._index import ChunkIndex
from clinbridge.engine.notes._question import NoteQuestion, read_question
from clinbridge.engine.notes._source import (
    Encounter,
    Note,
    note_streams,
    read_encounters,
    read_notes,
)

__all__ = [
    "Chunk",
    "ChunkIndex",
    "Encounter",
    "Note",
    "NoteQuestion",
    "answer_from_notes",
    "chunk_note",
    "note_streams",
    "read_encounters",
    "read_notes",
    "read_question",
]
