"""Sentence-aware chunks of a note: ~256 MiniLM tokens each, 32 tokens of overlap.

Sentences (the extractor's spaCy sentencizer, line breaks included) are packed into a chunk until
the next one would pass ``max_tokens``; the next chunk starts with the previous chunk's last
sentences that fit in ``overlap`` tokens, so a finding on a chunk boundary is read whole in one
of them. A sentence longer than a chunk is cut at word boundaries. Every chunk keeps its
note's patient, encounter, time and source, and its character span in the note.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from clinbridge.engine.notes._source import Note

__all__ = ["Chunk", "chunk_note", "token_counter"]

MAX_TOKENS = 256
OVERLAP = 32


@dataclass(frozen=True)
class Chunk:
    """A passage of one note, with where it sits in the note and whose it is."""

    chunk_id: str
    """``<note id>#<n>``."""
    note: Note
    start: int
    end: int
    """Character span in the note's text."""

    @property
    def text(self) -> str:
        return self.note.text[self.start : self.end]


@functools.cache
def token_counter() -> Callable[[str], int]:
    """Counts MiniLM word pieces (the packaged tokenizer), else ~1.3 per word."""
    try:
        from tokenizers import Tokenizer

        from clinbridge.embed import model_path

        tok = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
        tok.no_truncation()
        tok.no_padding()
    except Exception:  # the model package is missing: an estimate is enough to size chunks
        return lambda text: int(len(text.split()) * 1.3) + 1
    return lambda text: len(tok.encode(text, add_special_tokens=False).ids)


def _pieces(text: str, count: Callable[[str], int], limit: int) -> list[tuple[int, int, int]]:
    """(start, end, tokens) of the note's sentences, long ones cut at word boundaries."""
    from clinbridge.calculators.extract.text import sentences

    out: list[tuple[int, int, int]] = []
    for s0, s1 in sentences(text) or [(0, len(text))]:
        n = count(text[s0:s1])
        if n <= limit:
            out.append((s0, s1, n))
            continue
        words = [m.span() for m in re.finditer(r"\S+", text[s0:s1])]
        per = max(1, int(len(words) * limit / n))
        for i in range(0, len(words), per):
            a, b = s0 + words[i][0], s0 + words[min(i + per, len(words)) - 1][1]
            out.append((a, b, count(text[a:b])))
    return out


def chunk_note(
    note: Note,
    *,
    max_tokens: int = MAX_TOKENS,
    overlap: int = OVERLAP,
    count: Callable[[str], int] | None = None,
) -> list[Chunk]:
    """The note's chunks, in order (an empty note has none)."""
    count = count or token_counter()
    pieces = _pieces(note.text, count, max_tokens)
    chunks: list[Chunk] = []
    i = 0
    while i < len(pieces):
        j, used = i, 0
        while j < len(pieces) and (j == i or used + pieces[j][2] <= max_tokens):
            used += pieces[j][2]
            j += 1
        chunks.append(Chunk(f"{note.note_id}#{len(chunks)}", note, pieces[i][0], pieces[j - 1][1]))
        if j >= len(pieces):
            break
        back, k = 0, j
        while k - 1 > i and back + pieces[k - 1][2] <= overlap:
            back += pieces[k - 1][2]
            k -= 1
        i = k
    return chunks
