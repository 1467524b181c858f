"""A bare number said right after a serial measurement's name is its time point: 'apgar 10' is
the Apgar score at 10 minutes, 'temp 24' the temperature at 24 h, 'bayley 18' at 18 months —
when the measurement is recorded at several time points, exactly one of which has that amount
(on whichever scale: minutes, hours, months), and the question names no time point
otherwise. A number with a comparison ('apgar below 5') was
read as a condition before this, and a number that is a code of a coded variable stays a code.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Protocol

from clinbridge.engine.understand._trial_vocab import tokenize
from clinbridge.timepoint import TimePoint, parse_time_point

if TYPE_CHECKING:
    from clinbridge.engine.understand._trial_model import Family

__all__ = ["bare_times"]


class _Read(Protocol):
    masked: str
    times: list[tuple[TimePoint, int, int]]

    def blank(self, a: int, b: int) -> None: ...


def bare_times(q: _Read, families: list[Family]) -> None:
    """Read 'NAME N' as NAME at time point N where that is the one reading (see the module).

    Not where the question says a time point in words ('temp 36 at 24 h': the 36 is no time)."""
    if q.times:
        return
    tokens = tokenize(q.masked)
    for prev, tok in itertools.pairwise(tokens):
        if not tok.text.isdigit() or q.masked[prev.end : tok.start].strip():
            continue
        if not prev.text.isalpha():
            continue
        named = [f for f in families if prev.norm in f.tokens]
        if not named or any(f.kind != "numeric" for f in named):
            continue  # a coded variable's number is its code ('HIE grade 2', 'site 3')
        points = {
            tp
            for f in named
            if len(f.time_points()) >= 2
            for tp in map(parse_time_point, f.time_points())
            if tp is not None and tp.scale in {"h", "min", "mo"} and tp.amount == float(tok.text)
        }
        if len(points) != 1:
            continue
        q.times.append((points.pop(), tok.start, tok.end))
        q.blank(tok.start, tok.end)
