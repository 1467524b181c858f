"""Treatment-arm words read as the ARM variable's codes ('cooled' → the hypothermia arm).

A question names the arms by what was done to the infants ('cooled babies', 'normothermic
infants', 'those who underwent cooling', 'the standard care group'); the dictionary names them
by its own code labels ('Hypothermia' / 'Normothermia', 'TH' / 'Standard', 'Hypothermia
(whole-body cooling)' / 'Standard care (normothermia)', 'Cooling' / 'Control'). The small
lexicon of ``data/trial_arms.tsv`` says which code label is the intervention and which the
comparator; each arm found in exactly one code gets rewrites of the question's arm words into
that code's label words. Matched against the ARM variable's code labels only, never against
column names: 'cooling' of 'Duration of cooling' stays that variable's word, and an arm word
that is itself a word of another variable's label is left as it is.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import TYPE_CHECKING

from clinbridge.engine.understand._trial_vocab import SCOPE_ASIDE, canon, tokenize

if TYPE_CHECKING:
    from clinbridge.catalog import Catalog

__all__ = ["arm_rewrites"]

_RECEIVING = (
    r"underwent|undergo(?:ing|es)?|received|receiv(?:e|es|ing)|given|got|"
    r"(?:randomi[sz]ed|allocated|assigned|allotted)\s+to|treated\s+with|managed\s+with"
)
"""Verbs after which a treatment's noun is the arm it was given in ('underwent cooling')."""


@functools.cache
def _lexicon() -> tuple[tuple[str, str, str], ...]:
    """(arm, kind, phrase) rows of ``data/trial_arms.tsv``."""
    text = resources.files("clinbridge.engine.understand").joinpath("data", "trial_arms.tsv")
    rows = []
    for line in text.read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            arm, kind, phrase = (part.strip() for part in line.split("\t"))
            rows.append((arm, kind, phrase.lower()))
    return tuple(rows)


def _words(text: str) -> str:
    """Lower case, hyphens and brackets as spaces: 'Whole-body' → 'whole body'."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _contains(label: str, phrase: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])", label) is not None


def _phrase_re(phrase: str) -> str:
    """A lexicon phrase as a pattern: its words apart by spaces or hyphens."""
    return r"[\s-]+".join(re.escape(w) for w in phrase.split())


def arm_codes(labels: dict[str, str]) -> dict[str, str]:
    """arm ('active'/'control') → the one code whose label names it (control phrases first:
    'No cooling' is the comparator); an arm named by no code or by several is left out."""
    rows = _lexicon()
    found: dict[str, list[str]] = {}
    for code, label in labels.items():
        said = _words(label or "")
        for arm in ("control", "active"):
            if any(a == arm and k == "label" and _contains(said, p) for a, k, p in rows):
                found.setdefault(arm, []).append(code)
                break
    return {arm: codes[0] for arm, codes in found.items() if len(codes) == 1}


def arm_rewrites(catalog: Catalog) -> list[tuple[re.Pattern[str], str]]:
    """Rewrites of the question's arm words into the ARM code labels' words (none when the
    dictionary has no ARM variable or its labels name neither arm)."""
    arm_var = next((v for v in catalog.variables if v.role == "arm" and v.codes), None)
    if arm_var is None:
        return []
    other_labels = [  # (an aside naming the arm, '(cooled arm)', is the arm's word, not theirs)
        _words(SCOPE_ASIDE.sub(" ", v.description or v.name))
        for v in catalog.variables
        if v is not arm_var and v.type not in {"string", "date"}
    ] + [_words(lab) for v in catalog.variables if v is not arm_var for lab in v.codes.values()]
    out: list[tuple[re.Pattern[str], str]] = []
    for arm, code in arm_codes(arm_var.codes).items():
        label = arm_var.codes[code]
        target = _words(re.sub(r"\([^()]*\)", " ", label)) or _words(label)
        said_canon = {canon(t.text) for t in tokenize(_words(label))}
        for a, kind, phrase in sorted(_lexicon(), key=lambda r: -len(r[2])):  # longest first
            if a != arm or kind == "label":
                continue
            if {canon(w) for w in phrase.split()} <= said_canon:
                continue  # the label's own words: read as they are
            if kind == "said":
                if any(_contains(lab, phrase) for lab in other_labels):
                    continue  # another variable's word ('cooled' of 'Cooled on transport')
                # ... nor after an adverb of manner ('passively cooled' is not the arm)
                pattern = rf"(?<![\w-])(?<!ly\s){_phrase_re(phrase)}(?![\w-])"
                out.append((re.compile(pattern, re.I), target))
                continue
            body = _phrase_re(phrase)
            out.append(
                (
                    re.compile(rf"\b({_RECEIVING})\s+(?:the\s+|with\s+)?{body}(?![\w-])", re.I),
                    rf"\1 {target}",
                )
            )
            out.append(
                (re.compile(rf"(?<![\w-]){body}\s+(arms?|groups?)\b", re.I), rf"{target} \1")
            )
    # the arms' own codes in capitals ('HT vs NT'), where no other label has them as a word
    for code, label in arm_var.codes.items():
        target = _words(re.sub(r"\([^()]*\)", " ", label)) or _words(label)
        if not (2 <= len(code) <= 4 and code.isalpha() and code.isupper() and target):
            continue
        if any(_contains(lab, code.lower()) for lab in other_labels):
            continue
        out.append((re.compile(rf"(?<![\w'\"-]){re.escape(code)}(?![\w'\"-])"), target))
    return out
