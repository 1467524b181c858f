"""A bound that names a yes/no item by the threshold its label states.

'what % dipped under 32.5 during cooling' where the dictionary has 'Any core temperature below
32.5 °C during cooling' (a yes/no item) and the question names no numeric variable the bound
could apply to: the bound and the words of the label said beside it ('during cooling') are that
item, counted where it is Yes. Read only when exactly one yes/no item's label states that side
and number and words of that label stand beside the bound; a numeric variable named as well
(to which the bound could apply) abstains.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinbridge.engine.understand._reading import Grounding
from clinbridge.engine.understand._trial_label_threshold import (
    label_thresholds,
    said_after_threshold,
)
from clinbridge.engine.understand._trial_model import Abstain, Family, Mention, Parse
from clinbridge.engine.understand._trial_vocab import tokenize
from clinbridge.engine.understand._trial_words import CLAUSE_BREAK

if TYPE_CHECKING:
    from typing import Any

__all__ = ["check_threshold_items", "read_threshold_items"]

_NEAR = 3
"""How many of the question's words beside the bound may say the rest of the item's label."""


def _beside(parse: Parse, fam: Family, side: str, value: float, b: int) -> list[int]:
    """Unread words right after the bound (ending at b), in its clause, that say what the item's
    label says after its threshold ('during cooling'); the words before the bound ('core
    temperature') are left to name what they name."""
    rest = {t.norm for t in tokenize(said_after_threshold(fam.label, side, value))}
    content = parse.content
    out: list[int] = []
    edge = b
    for i in [i for i, t in enumerate(content) if t.start >= b][:_NEAR]:
        t = content[i]
        if CLAUSE_BREAK.search(parse.text[edge : t.start]) or i in parse.consumed:
            break
        if t.norm not in rest:
            break
        out.append(i)
        edge = t.end
    return out


def read_threshold_items(q: Any, parse: Parse, families: list[Family]) -> list[Mention]:
    """Mentions of the yes/no items bounds name (see above), read before any other mention
    (their words are theirs); the bounds read so leave the question's comparisons."""
    kept = []
    found: list[Mention] = []
    for comp in q.comparisons:
        kind, value, value2, a, b = comp
        side = kind[:1] if kind[:1] in {"<", ">"} else None
        stating = [
            f
            for f in families
            if side is not None
            and value2 is None
            and f.kind == "binary"
            and (side, value) in label_thresholds(f.label)
        ]
        words = _beside(parse, stating[0], kind[:1], value, b) if len(stating) == 1 else []
        if not words:
            kept.append(comp)
            continue
        fam = stating[0]
        parse.consumed |= set(words)
        start = min(a, parse.content[words[0]].start)
        end = max(b, parse.content[words[-1]].end)
        found.append(Mention(fam, words, start, end, score=1.0, core=words, bound=True))
        q.groundings.append(
            Grounding(
                phrase=q.text[a:b].strip(), kind="value", target=f"the threshold of {fam.label!r}"
            )
        )
    q.comparisons = kept
    return found


def check_threshold_items(mentions: list[Mention]) -> None:
    """A bound read as an item's threshold beside a numeric variable the bound could apply to
    ('core temperature at 24 h under 32.5 during cooling') is ambiguous: abstain."""
    bound = [mt for mt in mentions if mt.bound]
    numeric = [
        mt for mt in mentions if isinstance(mt.target, Family) and mt.target.kind == "numeric"
    ]
    if bound and numeric:
        raise Abstain(
            f"the bound of {bound[0].target.label!r} (its label's threshold) or a condition on "
            f"{numeric[0].target.label!r}? say which"
        )
