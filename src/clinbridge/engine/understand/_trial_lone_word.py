"""A word of many labels said alone, placed by the time of what else the question names.

A word in the labels of many families is generic and names none of them on its own ('death'
in 'Death before discharge', 'Died before 18 months', 'Cause of death', 'Death or disability').
Said alone beside other variables ('feeding at discharge among survivors', 'length of stay
among survivors', 'disability at 18 months among surviving children'), it names the yes/no item
it is the whole key of that is recorded at the same time as the other variables the question
names: the death before discharge beside an item of the neonatal stay, the death before 18
months beside an 18-month assessment. When no such item or several fit, the word stays unread
(the question abstains, as before).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinbridge.engine.understand._trial_model import CodeSet, Family, Mention, Parse

if TYPE_CHECKING:
    from clinbridge.catalog import Variable

__all__ = ["place_lone_words"]

_DESIGN = {"arm", "trial", "site", "subject"}


def _times(mentions: list[Mention]) -> set[str | None] | None:
    """The time points of the question's other (non-design) variables; None when one of them
    is recorded at several (then no time is implied)."""
    out: set[str | None] = set()
    for mt in mentions:
        target = mt.target
        if isinstance(target, CodeSet):
            var: Variable = target.var
            if var.role in _DESIGN:
                continue
            out.add(var.time_point)
            continue
        members = [v for vs in target.members.values() for v in vs]
        if any(v.role in _DESIGN for v in members):
            continue
        if len(target.members) != 1:
            return None
        out.add(next(iter(target.members)))
    return out


def place_lone_words(
    parse: Parse, families: list[Family], mentions: list[Mention], asked: tuple[str, ...]
) -> list[Mention]:
    """Mentions for generic words left alone ('dead' of 'survivors'), each the one yes/no
    family the word is a whole key of recorded at the time of the other mentions or asked."""
    times = _times(mentions)
    if not times and not asked:
        return []
    wanted = set(asked) | (times or set())
    found: list[Mention] = []
    for i, tok in enumerate(parse.content):
        if i in parse.consumed or tok.norm not in parse.generic:
            continue
        keyed = [
            f
            for f in families
            if f.kind == "binary" and len(f.members) == 1 and {tok.norm} in f.keys
        ]
        fitting = [f for f in keyed if next(iter(f.members)) in wanted]
        if len(keyed) < 2 or len(fitting) != 1:
            continue
        parse.consumed.add(i)
        found.append(Mention(fitting[0], [i], tok.start, tok.end, score=1.0, core=[i]))
    return found
