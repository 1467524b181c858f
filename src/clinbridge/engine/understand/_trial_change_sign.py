"""Which way round a change is said: 'X at 72 h minus X at 0 h' / 'TEMP_24H - TEMP_0H' is the
first said minus the second (whichever is earlier); a 'fall', 'drop', 'decrease' is said as a
positive amount (before minus after); any other change word is after minus before."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from clinbridge.catalog import Variable
    from clinbridge.timepoint import TimePoint

from clinbridge.engine.understand._trial_model import Abstain

__all__ = [
    "FALL_RESTATED",
    "RESTATED_ORDER",
    "check_unread_minus",
    "drop_restated_order",
    "find_minus",
    "oriented",
    "read_fall_restated",
]

_MINUS = re.compile(r"(?:^|(?<=\s))(?:-|−|–|minus)(?=\s)")
_FALL = re.compile(r"\b(fall|drop|decrease|decline|reduction)s?\b")


class _Read(Protocol):
    text: str
    masked: str
    times: list[tuple[TimePoint, int, int]]

    def blank(self, a: int, b: int) -> None: ...


def find_minus(q: _Read) -> bool:
    """Whether a minus stands between the question's two time points (it is blanked)."""
    if len(q.times) != 2:
        return False
    (_, _, a_end), (_, b_start, _) = sorted(q.times, key=lambda t: t[1])
    m = _MINUS.search(q.masked, a_end, b_start)
    if m is None:
        return False
    q.blank(m.start(), m.end())
    return True


def oriented(
    q: _Read, minus: bool, later: Variable, earlier: Variable
) -> tuple[Variable, Variable]:
    """(the value subtracted from, the value subtracted) as the question says the change."""
    if minus:
        first = min(q.times, key=lambda t: t[1])[0].text()
        return (earlier, later) if first == earlier.time_point else (later, earlier)
    if _FALL.search(q.text):
        return earlier, later
    return later, earlier


_BESIDE = {"mean", "median", "average", "the", "value", "values", "of"}
"""Words that may stand between a minus and the things it sets apart ('mean(A) - mean(B)');
any other word makes the dash a separator ('seizures in 72h - rate for mild HIE')."""


_ASKED_NEXT = re.compile(
    r"\s*(?:%|(?:percent(?:age)?|proportion|share|mean|median|average|avg|how\s+many|number)\b)"
)
"""What a question asks, said right after a dash: the dash parts the cohort from the question
('NORDIC std care - % mod or severe injury'), it subtracts nothing."""


def check_unread_minus(masked: str, spans: list[tuple[int, int]], text: str = "") -> None:
    """Abstain when a minus left unread stands between two things the question names ('mean(A
    - B)' with B's time point unknown, 'hypothermia minus normothermia'): a difference the
    reading did not form would otherwise be answered as one side's figure. A dash before what
    is asked ('- % with ...', '- mean') is a separator."""
    for m in _MINUS.finditer(masked):
        if m.group(0) != "minus" and _ASKED_NEXT.match(text, m.end()):
            continue
        before = [b for _, b in spans if b <= m.start()]
        after = [a for a, _ in spans if a >= m.end()]
        if not before or not after:
            continue
        gap = masked[max(before) : m.start()] + " " + masked[m.end() : min(after)]
        if set(re.findall(r"[a-z]+", gap.lower())) <= _BESIDE:  # 'A - B', 'mean(A) - mean(B)'
            said = masked[max(0, m.start() - 20) : m.end() + 20].strip()
            raise Abstain(
                f"{said!r} asks for a difference the reading could not form; ask for each "
                "figure, or for a change between two time points"
            )


RESTATED_ORDER = re.compile(r"\(\s*(?P<a>[^()]*?)\s+(?:minus|−|–|-)\s+(?P<b>[^()]*?)\s*\)", re.I)
"""'(6-hour value minus baseline)': a bracketed aside saying which way a change is taken."""


FALL_RESTATED = re.compile(
    r"\b(?P<fall>fall|fell|drop|dropped|decrease|decreased|decline|declined)\b"
    r"(?P<mid>[^()]*?)(?P<aside>\(\s*[^()]*?\s+(?:minus|−|–|-)\s+[^()]*?\s*\))",
    re.I,
)
"""'how much did heart rate fall ... (24h minus 0h)': a fall whose aside says which way the
difference is taken."""


def read_fall_restated(m: re.Match[str]) -> str:
    """The aside's order wins over the fall word: said as later minus earlier, the fall is the
    change so taken (negative when it fell); said as earlier minus later, the fall as usual.
    Either way the aside has been read; an aside of any other shape stays, to be read."""
    from clinbridge.timepoint import find_time_points

    aside = RESTATED_ORDER.fullmatch(m.group("aside"))
    if aside is None:
        return m.group(0)
    sides = [find_time_points(aside.group(k).lower()) for k in ("a", "b")]
    if not all(len(s) == 1 for s in sides):
        return m.group(0)
    (first, _), (second, _) = sides[0][0], sides[1][0]
    if _rank(first) > _rank(second):
        return f"change{m.group('mid')} "
    if _rank(first) < _rank(second):
        return f"{m.group('fall')}{m.group('mid')} "
    return m.group(0)


def _rank(tp: TimePoint) -> tuple[int, float]:
    return ({"baseline": 0, "min": 1, "h": 2, "mo": 3, "discharge": 4}.get(tp.scale, 5), tp.amount)


def drop_restated_order(m: re.Match[str]) -> str:
    """The aside dropped when it says the later value minus the earlier (what a change is, said
    with no 'fall' or 'drop'); any other aside stays, to be read (and left unread: abstain)."""
    from clinbridge.timepoint import find_time_points

    sides = [find_time_points(m.group(k).lower()) for k in ("a", "b")]
    if not all(len(s) == 1 for s in sides) or _FALL.search(m.string.lower()):
        return m.group(0)
    (later, _), (earlier, _) = sides[0][0], sides[1][0]
    rank = {"baseline": 0, "min": 1, "h": 2, "mo": 3, "discharge": 4}
    if (rank.get(later.scale, 5), later.amount) > (rank.get(earlier.scale, 5), earlier.amount):
        return " "
    return m.group(0)
