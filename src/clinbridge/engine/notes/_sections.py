"""Whether a patient's notes are a complete admission or case note: one that records the past
medical history and the presentation (complaint, examination or review of systems), so that a
finding it never mentions may be reported *not documented* instead of abstaining.

A section is found by its header ('Past medical history:', 'ROS:') or by the narrative sentence
a case report writes in its place ('His medical history included ...', 'Physical examination
revealed ...'). Each found section is kept with the note, span and words that show it, so the
answer can say where it looked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from clinbridge.engine.notes._chunk import Chunk

__all__ = ["SECTIONS", "Section", "complete_note_sections"]

SECTIONS: dict[str, re.Pattern[str]] = {
    "history": re.compile(
        r"\b(past medical history|medical history|past history|PMH|PMHx|"
        r"co-?morbidit(y|ies)|medical background|surgical history|"
        r"history (was|is) (significant|notable|remarkable|unremarkable|negative)|"
        r"no (significant |relevant |notable |known )?(past |previous |prior )?"
        r"(medical )?history)\b",
        re.I,
    ),
    "presentation": re.compile(
        r"\b(physical examination|physical exam|on examination|examination (revealed|showed|"
        r"was|demonstrated)|review of systems|ROS|chief complaint|presenting complaint|"
        r"presented (to [^.]{0,60} )?with|complain(ed|ing|s)? of|vital signs)\b",
        re.I,
    ),
}
"""The sections a complete note has: what it would record a past condition in, and what it
would record a current symptom or sign in."""


@dataclass(frozen=True)
class Section:
    """Where one section of a complete note was found."""

    name: str
    chunk: Chunk
    start: int
    end: int

    def cite(self) -> dict[str, Any]:
        """The section as a citation: its words, note, chunk and span in the note."""
        note = self.chunk.note
        return {
            "section": self.name,
            "text": self.chunk.text[self.start : self.end],
            "note_id": note.note_id,
            "chunk_id": self.chunk.chunk_id,
            "encounter_id": note.encounter_id,
            "span": [self.chunk.start + self.start, self.chunk.start + self.end],
        }


def complete_note_sections(chunks: list[Chunk]) -> tuple[list[Section], list[str]]:
    """The history and presentation sections found in ``chunks`` (the first place each is
    found) and the names of those missing: the notes are a complete note when none is."""
    found: dict[str, Section] = {}
    for chunk in chunks:
        for name, pat in SECTIONS.items():
            m = pat.search(chunk.text) if name not in found else None
            if m:
                found[name] = Section(name, chunk, m.start(), m.end())
    return [found[n] for n in SECTIONS if n in found], [n for n in SECTIONS if n not in found]
