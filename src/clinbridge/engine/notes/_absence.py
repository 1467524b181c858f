"""Negations that do not name the finding: a note's *global* statements of absence.

A case note often says what a patient does not have without naming it: *no past medical
history*, *no other comorbidities*, *otherwise healthy* (nothing in the past history); *alert
and oriented to time, place and person* (no confusion). When no note in scope mentions the
finding itself, such a sentence answers *no* — quoted and cited like any negated mention — but
only for a finding of its kind:

* a **history** statement answers only a finding the question or the input calls past history
  (*history*, *prior*, *previous(ly)*, *past*, *known*): *no past medical history* says nothing
  about a symptom at presentation or a condition first found there (*hypertension?* with a
  blood pressure of 190/110);
* an **examination** found normal as a whole (*physical examination was unremarkable*, *the
  remainder of the examination shows no abnormalities*, not one region's) answers only a sign
  the question names (swelling, edema, lymphadenopathy, a murmur, crackles, tenderness …);
* a **mental-status** statement answers only confusion / altered mental status / disorientation,
  and only when it is whole: *oriented to person and place only* is a disorientation.

A statement qualified as another person's (*family history was unremarkable*) or followed by
what it is about (*no history of bleeding*: a specific negation the extractor reads) is not
global.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clinbridge.engine.notes._chunk import Chunk

__all__ = ["GlobalNegation", "global_negation", "negated_after"]

_HISTORY_ITEM = re.compile(r"\b(history|prior|previous(ly)?|past|known|pre-?existing)\b", re.I)
"""A finding asked about as past history."""
_NO_HISTORY = re.compile(
    r"\b(?:"
    r"(?:no|nil|denie[sd]\s+any)\s+(?:(?:significant|relevant|notable|known|other|prior|previous|"
    r"past|medical|surgical|major|chronic|underlying|remarkable|pertinent)\s+){0,4}"
    r"(?:history|comorbidit(?:y|ies)|co-morbidit(?:y|ies)|medical\s+(?:problems|conditions|illness(?:es)?)|"
    r"illness(?:es)?|diseases?)"
    r"|(?:previously|otherwise)\s+(?:healthy|well|fit)"
    r"|(?:(?:personal|surgical)\s+(?:and\s+)?)*(?:past|medical)\s+(?:(?:and\s+)?"
    r"(?:medical|surgical)\s+)*history\s+(?:was|is|were)\s+"
    r"(?:unremarkable|negative|non-?contributory|insignificant|not\s+significant|nil)"
    r"|without\s+(?:any\s+)?(?:(?:significant|relevant|known|prior|previous|other)\s+){0,3}(?:past\s+)?"
    r"(?:medical\s+history|comorbidit(?:y|ies))"
    r")\b",
    re.I,
)
"""A statement that the past history holds nothing (beyond what the note lists)."""
_ABOUT = re.compile(
    r"\s*(?:of|for|suggestive|to suggest|relevant to|related to|involving|including|"
    r"regarding|with regard)\b",
    re.I,
)
"""What a 'no history' statement goes on to name makes it a specific negation."""
_OTHER_PERSON = re.compile(
    r"\b(family|father|mother|parents?|sibling|brother|sister|social|travel|sexual|"
    r"drug|smoking|alcohol|obstetric|gyn(a)?ecologic(al)?|menstrual)\W+(?:\w+\W+){0,2}$",
    re.I,
)
_SIGN_ITEM = re.compile(
    r"\b(swell\w*|swollen|o?edema|lymphadenopathy|murmurs?|rales|crackles|wheez\w*|"
    r"tender\w*|rash|jaundice|icterus|distension|distention|JVD|hepatomegaly|splenomegaly|"
    r"organomegaly|clubbing|cyanosis|pallor|erythema|bruits?|gallops?|rubs?|exudates?)\b",
    re.I,
)
"""A finding a physical examination looks for (a sign)."""
_EXAM_NORMAL = re.compile(
    r"\b(?P<rest>(?:the\s+)?(?:(?:remainder|rest)\s+of\s+(?:the\s+|his\s+|her\s+)?|remaining\s+))?"
    r"(?P<kind>(?:physical|clinical|general|systemic)\s+)?"
    r"exam(?:ination)?(?:\s+findings)?\s+(?:was|were|is|are|showed|shows|revealed|reveals|"
    r"demonstrated)?\s*(?P<otherwise>otherwise\s+|completely\s+|entirely\s+)?"
    r"(?:unremarkable|(?:normal|within\s+normal\s+limits)(?=\s*(?:[.,;:)]|$|(?:except|other|"
    r"apart|besides|but|save|and|on|at|in|throughout|preoperatively)\b))|"
    r"no\s+(?:other\s+)?abnormalit(?:y|ies)|non-?contributory)",
    re.I,
)
"""A whole examination found normal ('physical examination was unremarkable', 'the
remainder of the examination shows no abnormalities'); a region's or a test's examination
('cardiac examination was normal', 'blood examination', 'examination revealed normal sinus
rhythm') is not the whole."""
_WHOLE_EXAM = re.compile(
    r"(?:^|[.;:,]\s*|\b(?:the|his|her|their|on|an?|of|complete|full|whole|initial|admission|"
    r"at|and)\s+)$",
    re.I,
)
"""What may stand right before 'examination' when it is the whole one."""
_MENTAL_ITEM = re.compile(
    r"\b(confus\w*|altered mental|disorient\w*|delirium|mental status)\b", re.I
)
_ORIENTED = re.compile(
    r"\b(?:alert\s+and\s+oriented|oriented|A\s*&\s*O|AAO)\b(?P<tail>[^.;\n]{0,70})", re.I
)
_WHOLE = (
    re.compile(r"\b(time|date|day|year)\b", re.I),
    re.compile(r"\b(place|location|hospital|situation)\b", re.I),
    re.compile(r"\b(person|self|name|people)\b", re.I),
)
_TIMES_THREE = re.compile(r"^\s*(?:x|×|times)\s*(?:3|three)\b", re.I)
_PARTIAL = re.compile(r"\b(only|not|but)\b", re.I)
_GCS15 = re.compile(
    r"\b(?:GCS|Glasgow\s+Coma\s+(?:Scale|Score))\s*(?:score\s*)?(?:of\s*|was\s*|:\s*)?15\b", re.I
)


_AFTER = re.compile(
    r"[^.;:,()]{0,25}?\b(?:(?:is|was|were|are|has\s+been|have\s+been)\s+)?(?:not|never)\s+"
    r"(?:been\s+)?(?:detected|seen|present|noted|found|observed|appreciated|identified|elicited|"
    r"demonstrated|visuali[sz]ed|evident|palpable|palpated|heard|reported|documented)\b",
    re.I,
)
"""A negation written after the finding, in its clause ('Jugular venous distention is not
detected'), which the NegEx termset may not hold."""


def negated_after(text: str, end: int) -> str | None:
    """The words that negate a mention ending at ``end`` of ``text`` from after it, or None."""
    m = _AFTER.match(text, end)
    if m is None or re.search(
        r"\b(but|however|although|though|since|because|as|when|while|which|that|who|if|unless|"
        r"until|and\s+(?:a|an|the)\b)",
        m.group(0),
        re.I,
    ):
        return None
    return m.group(0).strip()


@dataclass(frozen=True)
class GlobalNegation:
    """One sentence of a chunk that states the finding's absence without naming it."""

    chunk: Chunk
    start: int
    end: int
    """Span of the statement in the chunk's text."""
    kind: str
    """'history' or 'mental status'."""

    @property
    def text(self) -> str:
        """The statement as the note writes it."""
        return self.chunk.text[self.start : self.end]


def _history(chunk: Chunk) -> GlobalNegation | None:
    text = chunk.text
    for m in _NO_HISTORY.finditer(text):
        if _ABOUT.match(text, m.end()) or _OTHER_PERSON.search(
            text[max(0, m.start() - 40) : m.start()]
        ):
            continue
        if re.search(r"\bnot?\s+$|\bnever\s+$", text[max(0, m.start() - 8) : m.start()], re.I):
            continue
        return GlobalNegation(chunk, m.start(), m.end(), "history")
    return None


def _oriented(chunk: Chunk) -> GlobalNegation | None:
    text = chunk.text
    for m in _ORIENTED.finditer(text):
        before = text[max(0, m.start() - 12) : m.start()]
        if re.search(r"\b(not|dis|poorly|partially|incompletely|less)\W*$", before, re.I):
            continue
        tail, t0 = m.group("tail"), m.start("tail")
        three = _TIMES_THREE.match(tail)
        if three:
            return GlobalNegation(chunk, m.start(), t0 + three.end(), "mental status")
        listed = re.match(r"^\s*(?:to|as to|in)\b([^.;\n]*)", tail, re.I)
        if listed:
            words = listed.group(1)
            if _PARTIAL.search(words) or not all(p.search(words) for p in _WHOLE):
                continue  # 'oriented to person and place only' is a disorientation
            return GlobalNegation(chunk, m.start(), t0 + listed.end(), "mental status")
        alert = "alert" in text[max(0, m.start() - 20) : m.start("tail")].lower()
        if alert and re.match(r"^\s*(?:[,.;)]|and\b|with\b|$)", tail):
            return GlobalNegation(chunk, m.start(), t0, "mental status")
    gcs = _GCS15.search(text)
    if gcs:
        return GlobalNegation(chunk, gcs.start(), gcs.end(), "mental status")
    return None


def _examined_before(text: str, pos: int) -> str:
    """The sentences before ``pos`` back to where the examination's findings begin (the last
    sentence naming an examination, at most 600 characters back; else two sentences)."""
    lo = max(0, pos - 600)
    starts = [m.start() for m in re.finditer(r"\bexam(?:ination)?s?\b", text[lo:pos], re.I)]
    if starts:
        cut = lo + starts[-1]
        return text[max(0, text.rfind(".", 0, cut)) : pos]
    back = text.rfind(".", 0, text.rfind(".", 0, pos))
    return text[max(0, text.rfind(".", 0, back)) : pos]


def _exam(chunk: Chunk) -> GlobalNegation | None:
    text = chunk.text
    for m in _EXAM_NORMAL.finditer(text):
        if not (m.group("rest") or m.group("kind")) and not _WHOLE_EXAM.search(
            text[max(0, m.start() - 20) : m.start()]
        ):
            continue  # 'abdominal examination was unremarkable' is one region
        end = re.search(r"[.;\n]|$", text[m.end() :])
        tail = text[m.end() : m.end() + (end.start() if end else 0)]
        named = (
            tail
            if re.match(r"\s*,?\s*(except|other than|apart from|besides|but|save)\b", tail)
            else ""
        )
        lead = max(text.rfind(".", 0, m.start()), text.rfind("\n", 0, m.start()))
        named += text[lead + 1 : m.start()]  # 'Other than some rashes, the examination ...'
        if m.group("rest") or m.group("otherwise"):  # what the examination before it found
            named += _examined_before(text, m.start())
        if _SIGN_ITEM.search(named):
            continue  # a sign was found: which one the normal rest leaves out is not known
        return GlobalNegation(chunk, m.start(), m.end(), "examination")
    return None


def global_negation(names: list[str], chunks: list[Chunk]) -> GlobalNegation | None:
    """The first statement in ``chunks`` that negates a finding named ``names`` (the
    question's target and the input's label) without naming it, or None.

    Args:
        names: The question's target phrase (first: only its own words make a finding past
            history), then the input's label and aliases.
        chunks: The chunks in scope, in note order.
    """
    asked = names[0] if names else ""
    finders = []
    if _MENTAL_ITEM.search(" ".join(names)):
        finders.append(_oriented)
    elif _HISTORY_ITEM.search(asked):
        finders.append(_history)
    elif _SIGN_ITEM.search(asked):
        finders.append(_exam)
    for chunk in chunks:
        for find in finders:
            got = find(chunk)
            if got is not None:
                return got
    return None
