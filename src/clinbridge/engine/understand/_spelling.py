"""One typing slip between two words, the unit every spelling correction of the reader uses.

A slip is one letter dropped or doubled, or two neighbouring letters swapped; a mistyped or an
added (not doubled) letter counts only in a word of seven letters or more: in a shorter one it
too often makes another real word ('valum': 'value' or 'valium'; 'splint' is not 'split'). Callers keep a correction only
when exactly one word of their vocabulary is one slip away.
"""

from __future__ import annotations

__all__ = ["one_slip"]


def one_slip(typed: str, word: str) -> bool:
    """``typed`` is ``word`` with one letter dropped or doubled, or two neighbouring letters
    swapped; with a letter mistyped or added only in a word of seven letters or more."""
    if typed == word:
        return False
    if len(typed) + 1 == len(word):
        return any(word[:k] + word[k + 1 :] == typed for k in range(len(word)))
    if len(typed) == len(word) + 1:  # a letter added: doubled ('dieed'), or in a long word
        return any(
            typed[:k] + typed[k + 1 :] == word
            and (len(typed) >= 7 or typed[k] in typed[max(k - 1, 0) : k] + typed[k + 1 : k + 2])
            for k in range(len(typed))
        )
    if len(typed) != len(word):
        return False
    diff = [k for k in range(len(word)) if typed[k] != word[k]]
    if len(diff) == 2 and diff[1] == diff[0] + 1:
        a, b = diff
        return typed[a] == word[b] and typed[b] == word[a]
    return len(diff) == 1 and len(word) >= 7
