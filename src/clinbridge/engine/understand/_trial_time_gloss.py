"""A bracketed gloss on a time point: 'core temp at 84h (after rewarming)', '72 h (end of
cooling)'. Right after the time, words in brackets that say when ('after', 'during', 'end of')
and name nothing the dictionary knows (no variable's or code's word, no number, no negation) say
what happens then, not a condition: they are dropped ('24 h (paired)' is no such gloss). Brackets holding any dictionary word stay, to be read (or to abstain)."""

from __future__ import annotations

import re
from collections.abc import Callable

from clinbridge.engine.understand._trial_vocab import tokenize

__all__ = ["time_gloss_rewrite"]

_GLOSS = re.compile(
    r"(?P<time>\b\d+(?:\.\d+)?\s*-?\s*(?:h|hrs?|hours?|days?|months?|mo)\b)\s*"
    r"\(\s*(?P<body>(?:after|before|during|following|at|on|upon|end|start|beginning|completion|"
    r"prior)\b[A-Za-z\s-]{0,40}?)\s*\)",
    re.I,
)
_NEGATORS = frozenset({"not", "no", "non", "without", "never", "excluding", "except"})


def time_gloss_rewrite(
    vocabulary: set[str], filler: frozenset[str] | set[str]
) -> tuple[re.Pattern[str], Callable[[re.Match[str]], str]]:
    """The rewrite that drops a time point's gloss (module docstring)."""

    def sub(m: re.Match[str]) -> str:
        toks = tokenize(m.group("body"))
        if any(t.text in _NEGATORS for t in toks):
            return m.group(0)
        if any(t.norm in vocabulary and t.norm not in filler for t in toks):
            return m.group(0)
        return m.group("time")

    return _GLOSS, sub
