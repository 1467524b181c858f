"""Words of trial questions that carry no condition, measure or grouping of their own: the
adverbs and verbs of a speaker ('still ventilated', 'rated as having', 'did it take', 'underwent
cooling', 'as logged'), the frame of an exact request ('looking only at', 'actually recorded')
and the visit a time point names ('at the 18 month assessment').

They are *soft*: a word left unexplained after the dictionary has been matched is dropped when
it is one of them, yet each still joins a dictionary label's words where a label uses it (a
'Hearing assessment' is still found by 'hearing assessment'); alone it never names a variable.
Every other unexplained word still abstains. General English only, never a question's phrase.
"""

from __future__ import annotations

from clinbridge.engine.understand._trial_vocab import canon

__all__ = ["SOFT_WORDS"]

_WORDS = (
    # adverbs and particles of a speaker
    *("still", "already", "actually", "really", "then", "ever", "at", "all", "overall"),
    *("combined", "pooled", "together", "altogether", "typical", "typically", "respectively"),
    # verbs that frame what is asked or how it was recorded
    *("looking", "look", "rated", "having", "take", "took", "taken", "takes"),
    *("underwent", "undergo", "undergoes", "undergoing", "logged", "documented", "noted"),
    *("charted", "entered", "assessed", "examined", "seen", "observed"),
    # the visit a time point names
    *("assessment", "visit", "review", "follow", "up"),
    # a grade said by what it grades ("by HIE severity": by the HIE grade)
    "severity",
    # pronouns of a request
    *("anyone", "anybody", "everyone", "any"),
)
SOFT_WORDS: frozenset[str] = frozenset(canon(w) for w in _WORDS) | frozenset(_WORDS)
